/* Replies: JSON, text, empty and the one error path (http_reply.h). */
#include "server/http/http_reply.h"
#include "server/http/http_body.h"
#include "server/jsonout.h"
#include "server/log.h"
#include "server/http/request.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RETRY_AFTER_S "2" /* seconds; a profile diff or a database restart is over by then */

enum MHD_Result reply_response(struct request *rq, unsigned status, struct MHD_Response *resp)
{
	enum MHD_Result r;

	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	/* every 503 is "busy or briefly unavailable": when to ask again (RFC 9110 10.2.3) */
	if (status == 503)
		MHD_add_response_header(resp, "Retry-After", RETRY_AFTER_S);
	if (rq->close)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	/* a HEAD's reply leaves its body out (libmicrohttpd): the access log says so */
	if (!strcmp(rq->method, "HEAD"))
		rq->bytes = 0;
	r = MHD_queue_response(rq->conn, status, resp);
	MHD_destroy_response(resp);
	rq->status = (int)status;
	return r;
}

enum MHD_Result reply_text(struct request *rq, unsigned status, const char *content_type,
			   const char *data, size_t len)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)data,
								    MHD_RESPMEM_MUST_COPY);

	rq->bytes = (long long)len;

	MHD_add_response_header(resp, "Content-Type", content_type);
	return reply_response(rq, status, resp);
}

enum MHD_Result reply_text_buf(struct request *rq, unsigned status, const char *content_type,
			       struct buf *b)
{
	size_t len;
	char *s = buf_detach(b, &len);
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, s, MHD_RESPMEM_MUST_FREE);

	rq->bytes = (long long)len;
	MHD_add_response_header(resp, "Content-Type", content_type);
	return reply_response(rq, status, resp);
}

enum MHD_Result reply_json_kept(struct request *rq, unsigned status, char *text, size_t len,
				const char *name, const char *value)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, text,
								    MHD_RESPMEM_MUST_FREE);

	rq->bytes = (long long)len;
	MHD_add_response_header(resp, "Content-Type", "application/json");
	MHD_add_response_header(resp, name, value);
	return reply_response(rq, status, resp);
}

/* o without the fields of w (struct withheld) */
static void withhold_object(json_t *o, const struct withheld *w)
{
	if (!json_is_object(o))
		return;
	for (; w->field; w++) {
		const char *dot = strchr(w->field, '.');
		json_t *when = w->when ? json_object_get(o, w->when) : NULL, *in;

		if (w->when && (!when || json_is_null(when)))
			continue;
		if (!dot) {
			json_object_del(o, w->field);
			continue;
		}
		in = json_object_getn(o, w->field, (size_t)(dot - w->field));
		if (json_is_object(in))
			json_object_del(in, dot + 1);
	}
}

/* body as its route lets this caller see it (struct withheld) */
static void withhold(struct request *rq, unsigned status, json_t *body)
{
	size_t i;
	json_t *v;

	if (rq->scope || !rq->route || !rq->route->withheld || status >= 300 || !body)
		return;
	if (json_is_array(body))
		json_array_foreach (body, i, v)
			withhold_object(v, rq->route->withheld);
	else
		withhold_object(body, rq->route->withheld);
}

enum MHD_Result reply_json(struct request *rq, unsigned status, json_t *body)
{
	struct buf out = BUF_INIT(0);
	struct MHD_Response *resp;

	withhold(rq, status, body);

	/*
	 * body is NULL when a json_pack() or json_string() of the handler met
	 * a string that is not UTF-8: a bug to log, never a reason to abort
	 * the whole server. Written by jsonout_json(): the numbers are the
	 * shortest that read back exactly (server/jsonout.h).
	 */
	if (!body || jsonout_json(&out, body) || buf_addch(&out, '\n')) {
		static const char fail[] = "{\"error\":{\"code\":\"internal\",\"message\":"
					   "\"the reply could not be encoded\",\"detail\":\"\"}}\n";

		json_decref(body);
		buf_release(&out);
		slog_error("%s %s: reply %u could not be encoded as JSON", rq->method, rq->url,
			   status);
		resp = MHD_create_response_from_buffer(sizeof(fail) - 1, (void *)fail,
						       MHD_RESPMEM_PERSISTENT);
		rq->bytes = (long long)sizeof(fail) - 1;
		MHD_add_response_header(resp, "Content-Type", "application/json");
		return reply_response(rq, 500, resp);
	}
	json_decref(body);
	return reply_text_buf(rq, status, "application/json", &out);
}

/*
 * A JSON string of s with every byte that is not part of a UTF-8 sequence
 * as '?': error texts echo what the client sent (a path, an argument) and
 * are cut to fit struct err, maybe inside a character.
 */
static json_t *json_text(const char *s)
{
	size_t n = strlen(s);
	char *t = xstrndup(s, n);
	json_t *j;

	for (size_t i = 0, l; i < n; i += l)
		if (!(l = utf8_seq((unsigned char *)t + i, n - i))) {
			t[i] = '?';
			l = 1;
		}
	j = json_stringn(t, n);
	free(t);
	return j;
}

json_t *err_json(const struct err *e)
{
	return json_pack("{s:{s:o,s:o,s:o}}", "error", "code", json_text(e->code), "message",
			 json_text(e->message), "detail", json_text(e->detail));
}

enum MHD_Result reply_err(struct request *rq, const struct err *e)
{
	int status = e->status >= 400 && e->status <= 599 ? e->status : 500;

	return reply_json(rq, (unsigned)status, err_json(e));
}

enum MHD_Result reply_errc(struct request *rq, enum err_code id, const char *detail,
			   const char *fmt, ...)
{
	struct err e;
	va_list ap;

	err_setc(&e, id, detail, "%s", "");
	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	return reply_err(rq, &e);
}

enum MHD_Result reply_errf(struct request *rq, int status, const char *code, const char *detail,
			   const char *fmt, ...)
{
	struct err e;
	va_list ap;

	err_set(&e, status, code, detail, "%s", "");
	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	return reply_err(rq, &e);
}

enum MHD_Result reply_empty(struct request *rq, unsigned status)
{
	return reply_response(rq, status,
			      MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT));
}

enum MHD_Result reply_json_text(struct request *rq, const char *text, size_t len)
{
	/*
	 * Written again through jsonout_json() so that these replies look like
	 * every other one: compact (PostgreSQL's json_build_object writes
	 * {"id" : 1, ...} and json_agg puts newlines between elements) and the
	 * same shortest numbers. Text jansson cannot read (an integer past
	 * int64 in a jsonb value) goes out as PostgreSQL wrote it.
	 */
	json_t *j = json_loadb(text, len, 0, NULL);
	struct buf out = BUF_INIT(0);
	enum MHD_Result ret;

	if (!j && !rq->scope && rq->route && rq->route->withheld)
		return reply_errc(rq, ERR_INTERNAL, "", "the reply could not be read back");
	withhold(rq, 200, j);
	if (j && !jsonout_json(&out, j) && !buf_addch(&out, '\n'))
		ret = reply_text_buf(rq, 200, "application/json", &out);
	else
		ret = reply_text(rq, 200, "application/json", text, len);
	buf_release(&out);
	json_decref(j);
	return ret;
}

enum MHD_Result reply_db_read(struct request *rq, int got, char **text, struct err *e)
{
	enum MHD_Result ret;

	if (got) {
		free(*text);
		*text = NULL;
		return reply_err(rq, e);
	}
	ret = reply_json_text(rq, *text, strlen(*text));
	free(*text);
	*text = NULL;
	return ret;
}
