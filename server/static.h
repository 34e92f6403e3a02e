#ifndef REGTRACK_SERVER_STATIC_H
#define REGTRACK_SERVER_STATIC_H

#include <microhttpd.h>

struct request;

/*
 * GET of a path outside the API: a file under srv->web_dir when it
 * exists; otherwise, for a path without an extension (/series,
 * /regressions/3, …), index.html, which loads the page's module and
 * fetches its data. 404 "not_found" for anything else (no web_dir, "..",
 * a backslash, no such file).
 */
enum MHD_Result serve_static(struct request *rq);

#endif
