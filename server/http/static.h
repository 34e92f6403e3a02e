#ifndef REGTRACK_SERVER_STATIC_H
#define REGTRACK_SERVER_STATIC_H

#include <microhttpd.h>

struct request;

/*
 * GET of a path outside the API. Under /css/, /js/ or /vendor/ (and
 * /index.html): that file of srv->web_dir with its Content-Type, 404
 * "not_found" when it is missing or of a kind not served. Any other path
 * is a page of the app and gets index.html, which loads the page's module
 * and fetches its data: "/", a path under one of the app's pages (/series,
 * /regressions/3, /plans/mm.smoke: whatever its last segment holds) or any
 * path whose last segment has no dot (the app says "Not found"). 404 for
 * the rest (/README.md, /tools/vendor.mjs), and for no web_dir, "..", a
 * backslash.
 */
enum MHD_Result serve_static(struct request *rq);

#endif
