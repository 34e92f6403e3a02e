#ifndef REGTRACK_APICLIENT_H
#define REGTRACK_APICLIENT_H

#include <stdatomic.h>
#include <stddef.h>

#include <jansson.h>

#include "buf.h"
#include "err.h"

/*
 * The one JSON-over-HTTP client of the regtrack API (libcurl), for the
 * CLI (cli/http_client.c) and the worker (agent, heartbeat, uploads).
 *
 * One libcurl easy handle per struct api_client, reused for keep-alive.
 * Every request carries `Authorization: Bearer TOKEN` (when a token was
 * given), `Content-Type: application/json` and `Accept:
 * application/json`, and has a connect timeout (10 s) and a total timeout
 * (timeout_s, plus a long poll's wait where the caller adds one). Redirects
 * are not followed, only http and https are spoken. A cancel flag (set
 * from a signal handler) stops a transfer within about a second. There is
 * no retry here: the worker retries a failed step itself (worker/agent.h,
 * retry_max_s; completions wait in the spool), the CLI reports the error.
 *
 * A struct api_client is used by one thread at a time (the worker's
 * heartbeat thread has its own). curl_global_init() must have been called
 * before any thread starts (the programs' main() do it).
 */
struct api_client {
	void *curl;		  /* CURL *, owned */
	void *headers;		  /* struct curl_slist *, owned */
	char *base_url;		  /* new, owned, no trailing '/' */
	long timeout_s;		  /* total time limit of one request */
	const atomic_int *cancel; /* borrowed, may be NULL */
};

/* A reply that arrived (any HTTP status), as api_client_post() reads it. */
struct api_reply {
	long status;  /* HTTP status, e.g. 200, 204, 409 */
	json_t *body; /* parsed JSON body (new reference), NULL when empty or not JSON */
};

/* Largest reply body api_client_post() accepts (bigger: ERR_TOO_LARGE). */
#define API_CLIENT_MAX_REPLY (4 << 20)

/*
 * libcurl's process-wide setup, once before any thread starts, and its
 * teardown at exit: callers need not include libcurl. Init returns 0, or
 * -1 when libcurl cannot start (no TLS library, out of memory).
 */
int api_client_global_init(void) __attribute__((warn_unused_result));
void api_client_global_cleanup(void);

/*
 * base_url ("http://host:port", a trailing '/' is dropped) and token
 * (NULL or "": no Authorization header) are copied. timeout_s bounds each
 * request. Error ERR_INTERNAL if libcurl cannot make a handle or the
 * header list; c is then released.
 */
int api_client_init(struct api_client *c, const char *base_url, const char *token, long timeout_s,
		    struct err *e) __attribute__((warn_unused_result));
/* Frees what c owns; c may be zeroed or half made by a failed init. */
void api_client_release(struct api_client *c);

/*
 * Makes transfers of c stop (error ERR_CANCELLED) as soon as *flag != 0.
 * flag is borrowed for the life of c.
 */
void api_client_set_cancel(struct api_client *c, const atomic_int *flag);

/*
 * METHOD base_url + path (path starts with '/', query included) with the
 * len bytes at body as the request body (NULL: none), waiting at most
 * timeout_s + extra_s seconds (extra_s > 0: a long poll's wait). The
 * reply body is appended to out (the caller's buffer: its cap is the
 * largest reply taken) and its HTTP status put in *status. Returns 0 when
 * a reply arrived, whatever its status; -1 when none did, e->id saying
 * why: ERR_TRANSPORT (connection refused, DNS, timeout, TLS; e->message
 * "request to URL failed: " and libcurl's words, e->detail the URL),
 * ERR_CANCELLED (the cancel flag was raised) or ERR_TOO_LARGE (the reply
 * is over out's cap). "No reply" is told by the -1, never by e->status:
 * that is the code's status from err_codes[] (502 for ERR_TRANSPORT), not
 * a reply's.
 */
int api_client_send(struct api_client *c, const char *method, const char *path, const char *body,
		    size_t len, long extra_s, struct buf *out, long *status, struct err *e)
	__attribute__((warn_unused_result));

/*
 * POSTs the JSON `body` (borrowed; NULL sends "{}") as api_client_send()
 * does, and reads the reply (up to API_CLIENT_MAX_REPLY bytes) as JSON.
 * Returns 0 when a reply arrived: *r holds it (release with
 * api_reply_release()). Returns -1 when none did, *r then empty: the
 * errors of api_client_send(), and ERR_INTERNAL when the body cannot be
 * serialized.
 */
int api_client_post(struct api_client *c, const char *path, const json_t *body, long extra_s,
		    struct api_reply *r, struct err *e) __attribute__((warn_unused_result));

/* Drops r's body and zeroes it. */
void api_reply_release(struct api_reply *r);

/*
 * Fills e from a non-2xx reply: e->status the HTTP status, code/message/
 * detail from the server's {"error": {...}} body when present, otherwise
 * code "http_error" and a message naming the status; `what` (borrowed)
 * starts the message. The peer's code and status are copied as they came
 * (err_set(): e->id ERR_NONE), so callers act on e->status, the reply's
 * HTTP status. Returns -1.
 */
int api_reply_error(const struct api_reply *r, const char *what, struct err *e);

/*
 * value percent-encoded for a URL's query (RFC 3986: all but unreserved
 * characters). New, caller frees with free().
 */
char *api_client_escape(const char *value);

#endif
