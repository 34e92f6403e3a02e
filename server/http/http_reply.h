#ifndef REGTRACK_SERVER_HTTP_REPLY_H
#define REGTRACK_SERVER_HTTP_REPLY_H

#include <jansson.h>
#include <microhttpd.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "server/db/db.h"

/*
 * Replies. Each queues the response (with Cache-Control: no-store and
 * X-Content-Type-Options: nosniff) and returns MHD_YES/MHD_NO for the
 * handler to return. The one error path: every error reply is
 * {"error": {"code", "message", "detail"}} from reply_err().
 */
struct request;
struct MHD_Response;

/*
 * body: stolen reference (json_decref'd here). A 2xx body goes to a caller
 * without a token without its route's withheld fields (struct withheld),
 * as does reply_json_text()'s.
 */
enum MHD_Result reply_json(struct request *rq, unsigned status, json_t *body);
/* The one error path: {"error": {"code", "message", "detail"}} with e->status. */
enum MHD_Result reply_err(struct request *rq, const struct err *e);
/* Shorthand with the error code's own status: err_setc() into a local err, then reply_err(). */
enum MHD_Result reply_errc(struct request *rq, enum err_code id, const char *detail,
			   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Shorthand for a free code and status (err_set()); prefer reply_errc(). */
enum MHD_Result reply_errf(struct request *rq, int status, const char *code, const char *detail,
			   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* data: copied */
enum MHD_Result reply_text(struct request *rq, unsigned status, const char *content_type,
			   const char *data, size_t len);
/*
 * reply_text() of b's bytes without the copy: takes b's memory (b is left
 * empty, as after buf_release()), freed when the response is sent. For the
 * large replies (a series of 10^5 points is 8 MB).
 */
enum MHD_Result reply_text_buf(struct request *rq, unsigned status, const char *content_type,
			       struct buf *b);
/*
 * Replies status with JSON text[0..len) as it is (taken: freed once sent)
 * and the header name: value besides every reply's. For a reply written
 * once and kept (a cached profile diff): its route withholds nothing.
 */
enum MHD_Result reply_json_kept(struct request *rq, unsigned status, char *text, size_t len,
				const char *name, const char *value);
enum MHD_Result reply_empty(struct request *rq, unsigned status);
/* Queues resp (taken: destroyed here) with the headers every reply has (a 503:
 * Retry-After); for static.c. */
enum MHD_Result reply_response(struct request *rq, unsigned status, struct MHD_Response *resp);

/*
 * Replies 200 with text[0..len), JSON as PostgreSQL's json functions built
 * it (borrowed), written compactly again by jsonout_json() like every
 * reply (passed through as it is when jansson cannot read it).
 */
enum MHD_Result reply_json_text(struct request *rq, const char *text, size_t len);
/*
 * The reply to a read of server/db/ that gave JSON text (db_jobs_json()
 * and the like) into *text: got 0, reply_json_text() of it; otherwise
 * reply_err() of e (a 404 "not_found" when there was no row). *text is
 * freed here either way (NULL after). A pointer to the caller's variable,
 * so that a call written reply_db_read(rq, read(c, &text, &e), &text, &e)
 * sees the text whatever order its arguments are evaluated in.
 */
enum MHD_Result reply_db_read(struct request *rq, int got, char **text, struct err *e);

/* The body of reply_err(): {"error": {"code", "message", "detail"}}, any byte
 * of e's texts that is not UTF-8 as '?'. New reference. */
json_t *err_json(const struct err *e);

#endif
