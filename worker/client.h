#ifndef REGTRACK_WORKER_CLIENT_H
#define REGTRACK_WORKER_CLIENT_H

#include <stdatomic.h>

#include <jansson.h>

#include "err.h"

/*
 * JSON-over-HTTP client of the worker API (one libcurl easy handle, reused
 * for keep-alive). Every request carries `Authorization: Bearer TOKEN` and
 * `Content-Type: application/json`, has a connect timeout and a total
 * timeout, and can be cut short by a cancel flag (set from a signal
 * handler) that is checked about once a second while waiting.
 *
 * A struct client is used by one thread at a time; the heartbeat thread
 * has its own. curl_global_init() must have been called (main() does it
 * before any thread starts).
 */
struct client {
	void *curl;		  /* CURL *, owned */
	void *headers;		  /* struct curl_slist *, owned */
	char *base_url;		  /* new, owned, no trailing '/' */
	long timeout_s;		  /* total time limit of one request */
	const atomic_int *cancel; /* borrowed, may be NULL */
};

/* A reply that arrived (any HTTP status). */
struct client_reply {
	long status;  /* HTTP status, e.g. 200, 204, 409 */
	json_t *body; /* parsed JSON body (new reference), NULL when empty or not JSON */
};

/* Largest reply body accepted (bigger replies are an error, ERR_TOO_LARGE). */
#define CLIENT_MAX_REPLY (4 << 20)

/*
 * base_url and token are copied. timeout_s bounds each request (see
 * client_post() for long-polls). Error ERR_INTERNAL if libcurl cannot make
 * a handle.
 */
int client_init(struct client *c, const char *base_url, const char *token, long timeout_s,
		struct err *e) __attribute__((warn_unused_result));
void client_release(struct client *c);

/*
 * Makes transfers of c stop (error ERR_CANCELLED) as soon as *flag != 0.
 * flag is borrowed for the life of c.
 */
void client_set_cancel(struct client *c, const atomic_int *flag);

/*
 * POSTs `body` (borrowed; NULL sends "{}") to base_url + path ("/api/v1/...")
 * and waits at most timeout_s + extra_s seconds (extra_s is the long-poll
 * wait of a lease). Returns 0 when a reply arrived, whatever its status:
 * then *r holds it (release with client_reply_release()). Returns -1 when
 * none did, *r then empty and e->id saying why: ERR_TRANSPORT (connection
 * refused, DNS, timeout, TLS; e->message from libcurl, e->detail the URL),
 * ERR_CANCELLED (the cancel flag was raised), ERR_TOO_LARGE (reply over
 * CLIENT_MAX_REPLY) or ERR_INTERNAL (the body cannot be serialized).
 * "No reply" is told by the -1, never by e->status: that is the code's
 * status from err_codes[] (502 for ERR_TRANSPORT), not a reply's.
 */
int client_post(struct client *c, const char *path, const json_t *body, long extra_s,
		struct client_reply *r, struct err *e) __attribute__((warn_unused_result));

void client_reply_release(struct client_reply *r);

/*
 * Fills e from a non-2xx reply: e->status the HTTP status, code/message/
 * detail from the server's {"error": {...}} body when present, otherwise
 * code "http_error" and a message naming the status. The peer's code and
 * status are copied as they came (err_set(): e->id ERR_NONE), so callers
 * act on e->status, the reply's HTTP status. Returns -1.
 */
int client_reply_error(const struct client_reply *r, const char *what, struct err *e);

#endif
