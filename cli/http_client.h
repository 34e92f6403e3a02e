#ifndef REGTRACK_CLI_HTTP_CLIENT_H
#define REGTRACK_CLI_HTTP_CLIENT_H

#include <stddef.h>

#include "buf.h"
#include "err.h"

/*
 * The CLI's side of the API client (lib/apiclient.h): where the server is
 * and who calls. The server URL comes from --server or REGTRACK_SERVER
 * (default http://127.0.0.1:8080), the token from --token or
 * REGTRACK_TOKEN.
 */
struct http_client {
	char server[1024];
	char token[256];
	long timeout_s;
};

/*
 * Fills c from the flags in argv (--server URL, --token TOKEN, also
 * --server=URL, which are removed from argv, *argc adjusted) and the
 * environment.
 */
void http_client_init(struct http_client *c, int *argc, char **argv);

/*
 * METHOD path with an optional body (JSON, len bytes; NULL for none),
 * through lib/apiclient.h (one handle per call: a command makes a few).
 * The response body is appended to out (its cap is the largest reply
 * taken). Returns the HTTP status, or -1 with e filled when no response
 * came: api_client_send()'s errors, ERR_INTERNAL when libcurl cannot make
 * a handle.
 */
long http_client_request(struct http_client *c, const char *method, const char *path,
			 const char *body, size_t len, struct buf *out, struct err *e);

#endif
