/* The dashboard's static files from web_dir (static.h). */
#include "server/http/static.h"
#include "server/http/http_reply.h"
#include "server/http/request.h"
#include "xalloc.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *content_type_of(const char *path)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".mjs", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".json", "application/json" },
		{ ".svg", "image/svg+xml" },
		{ ".png", "image/png" },
		{ ".ico", "image/x-icon" },
		{ ".txt", "text/plain; charset=utf-8" },
	};
	const char *dot = strrchr(path, '.');

	for (size_t i = 0; dot && i < ARRAY_SIZE(types); i++)
		if (!strcmp(dot, types[i].ext))
			return types[i].type;
	return "application/octet-stream";
}

static enum MHD_Result serve_file(struct request *rq, const char *path)
{
	struct MHD_Response *resp;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return reply_errc(rq, ERR_NOT_FOUND, rq->url, "no such page '%s'", rq->url);
	}
	resp = MHD_create_response_from_fd((size_t)st.st_size, fd);
	rq->bytes = (long long)st.st_size;
	MHD_add_response_header(resp, "Content-Type", content_type_of(path));
	MHD_add_response_header(
		resp, "Content-Security-Policy",
		"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
	return reply_response(rq, 200, resp);
}

/* The folders of the dashboard's own files (js/app.js imports, index.html links). */
static const char *const file_dirs[] = { "/css/", "/js/", "/vendor/" };

/*
 * Under one of file_dirs, or index.html: a request for a file, never for a
 * page, even when the file is missing.
 */
static int is_file_url(const char *url)
{
	if (!strcmp(url, "/index.html"))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(file_dirs); i++)
		if (!strncmp(url, file_dirs[i], strlen(file_dirs[i])))
			return 1;
	return 0;
}

/*
 * Of a file URL, the kinds a browser is served: not a dot file, not one of
 * an unknown type (web/ also holds its build's package.json, node_modules/,
 * tools/ and README.md, none of which is for a browser).
 */
static int is_dashboard_file(const char *url)
{
	return strcmp(url, "/index.html") == 0 ||
	       (strcmp(content_type_of(url), "application/octet-stream") != 0 &&
		!strstr(url, "/."));
}

/*
 * The first segments of the app's pages: the route table of web/js/app.js
 * (keep the two in step; test_refusals reads app.js and checks each). A
 * path under one of them is a page whatever its last segment holds
 * (/plans/mm.smoke).
 */
static int is_app_page(const char *url)
{
	static const char *const pages[] = {
		"series",	"compare", "regressions", "bisects",  "jobs",	 "machines",
		"profile-diff", "trees",   "plans",	  "requests", "quality", "inbox",
	};

	for (size_t i = 0; i < ARRAY_SIZE(pages); i++) {
		size_t n = strlen(pages[i]);

		if (!strncmp(url + 1, pages[i], n) && (url[n + 1] == '\0' || url[n + 1] == '/'))
			return 1;
	}
	return 0;
}

enum MHD_Result serve_static(struct request *rq)
{
	const char *url = rq->url;
	const char *last = strrchr(url, '/');
	char path[8192];

	if (!rq->srv->web_dir[0] || strstr(url, "..") || strchr(url, '\\'))
		return reply_errc(rq, ERR_NOT_FOUND, url, "no such page '%s'", url);
	if (is_file_url(url)) {
		if (!is_dashboard_file(url))
			return reply_errc(rq, ERR_NOT_FOUND, url, "no such page '%s'", url);
		snprintf(path, sizeof(path), "%s%s", rq->srv->web_dir, url);
		return serve_file(rq, path);
	}
	if (url[0] != '/' || (!is_app_page(url) && last && strchr(last, '.')))
		return reply_errc(rq, ERR_NOT_FOUND, url, "no such page '%s'", url);
	snprintf(path, sizeof(path), "%s/index.html", rq->srv->web_dir);
	return serve_file(rq, path);
}
