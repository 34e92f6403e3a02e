/*
 * Typed rows and updates of the outbox (outbox.h; mail/mailer.c,
 * mail/outbox.c, abtest/abtest.c, inbox/inbox_reply.c), and the
 * statements they are made with (sql/0005, 0013, 0027).
 */
#include "server/db/outbox.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum outbox_stmt {
	ST_OUTBOX_CLAIM,
	ST_OUTBOX_INSERT_REQUEST,
	ST_OUTBOX_RELEASE_HELD,
	ST_OUTBOX_SIBLING_ROOT,
	ST_OUTBOX_DEFER,
	ST_OUTBOX_DONE,
	ST_OUTBOX_GIVEUP,
	ST_OUTBOX_INSERT,
	ST_OUTBOX_RENDER,
	ST_OUTBOX_RETRY,
	ST_OUTBOX_ROW,
	ST_OUTBOX_THREAD_ROOT,
	NR_OUTBOX_STMTS
};

static const struct db_stmt_def stmts[NR_OUTBOX_STMTS] = {
	/* the oldest due queued row, locked for this transaction */
	[ST_OUTBOX_CLAIM] = { "outbox_claim",
			      "SELECT id, kind, coalesce(regression_id, 0), coalesce(bisect_id, 0), "
			      "subject IS NOT NULL, attempts, coalesce(request_id, 0) FROM outbox "
			      "WHERE state = 'queued' AND next_attempt_at <= now() "
			      "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED" },
	/* $1 request: its result mail, when it has an address to notify */
	[ST_OUTBOX_INSERT_REQUEST] = { "outbox_insert_request",
				       "INSERT INTO outbox (kind, request_id) SELECT 'request', id FROM requests "
				       "WHERE id = $1::bigint AND notify IS NOT NULL RETURNING id" },
	/* every held row queued again (a server whose configuration can mail) */
	[ST_OUTBOX_RELEASE_HELD] = { "outbox_release_held",
				     "UPDATE outbox SET state = 'queued', last_error = NULL, "
				     "next_attempt_at = now() WHERE state = 'held' RETURNING id" },
	/*
	 * The first report before row $2 about one of the regressions $1 (an
	 * array text) or their bisects $3: the thread a report of the same
	 * culprit on another arch replies to
	 */
	[ST_OUTBOX_SIBLING_ROOT] = { "outbox_sibling_root",
				     "SELECT id, coalesce(message_id, ''), coalesce(subject, '') FROM outbox "
				     "WHERE (regression_id = ANY($1::bigint[]) OR bisect_id = ANY($3::bigint[])) "
				     "AND kind IN ('bisect', 'range') AND id < $2::bigint "
				     "AND state IN ('queued', 'held', 'sent', 'dry_run') ORDER BY id LIMIT 1" },
	[ST_OUTBOX_DEFER] = { "outbox_defer",
			      "UPDATE outbox SET next_attempt_at = now() + interval '1 second' "
			      "WHERE id = $1::bigint" },
	/* $2 'sent' or 'dry_run' */
	[ST_OUTBOX_DONE] = { "outbox_done",
			     "UPDATE outbox SET state = $2, attempts = attempts + 1, sent_at = now(), "
			     "last_error = NULL WHERE id = $1::bigint" },
	/* $2 'failed' or 'skipped', $3 why */
	[ST_OUTBOX_GIVEUP] = { "outbox_giveup",
			       "UPDATE outbox SET state = $2, last_error = $3 WHERE id = $1::bigint" },
	/* $1 kind, $2 regression id, $3 bisect id (NULL when not known) */
	[ST_OUTBOX_INSERT] = { "outbox_insert",
			       "INSERT INTO outbox (kind, regression_id, bisect_id) "
			       "VALUES ($1, $2::bigint, $3::bigint) RETURNING id" },
	/* $1 id, $2 subject, $3 body, $4 message id, $5 in-reply-to, $6 recipients
	 * (space-separated), $7 regression id, $8 thread root id */
	[ST_OUTBOX_RENDER] = { "outbox_render",
			       "UPDATE outbox SET subject = $2, body = $3, message_id = $4, in_reply_to = $5, "
			       "recipients = string_to_array($6, ' '), regression_id = $7::bigint, "
			       "thread_id = $8::bigint WHERE id = $1::bigint" },
	/* exponential backoff: 2^attempts seconds, at most $3 */
	[ST_OUTBOX_RETRY] = { "outbox_retry",
			      "UPDATE outbox SET attempts = attempts + 1, last_error = $2, "
			      "next_attempt_at = now() + make_interval(secs => least($3::float8, "
			      "power(2, least(attempts, 30)))) WHERE id = $1::bigint" },
	[ST_OUTBOX_ROW] = { "outbox_row",
			    "SELECT subject, body, message_id, in_reply_to, "
			    "array_to_string(recipients, ' '), array_to_string(cc, ' ') FROM outbox "
			    "WHERE id = $1::bigint" },
	/* the first report of regression $1 before row $2 (the thread root) */
	[ST_OUTBOX_THREAD_ROOT] = { "outbox_thread_root",
				    "SELECT id, coalesce(message_id, ''), coalesce(subject, '') FROM outbox "
				    "WHERE regression_id = $1::bigint AND kind <> 'fixed' AND id < $2::bigint "
				    "AND state IN ('queued', 'held', 'sent', 'dry_run') ORDER BY id LIMIT 1" },
};

const struct db_stmt_table db_stmts_outbox = DB_STMT_TABLE(stmts);

/* ST_OUTBOX_CLAIM's columns */
enum {
	CLAIM_ID,
	CLAIM_KIND,
	CLAIM_REGRESSION_ID,
	CLAIM_BISECT_ID,
	CLAIM_RENDERED,
	CLAIM_ATTEMPTS,
	CLAIM_REQUEST_ID
};

/* ST_OUTBOX_THREAD_ROOT's and ST_OUTBOX_SIBLING_ROOT's columns */
enum { ROOT_ID, ROOT_MESSAGE_ID, ROOT_SUBJECT };

/* ST_OUTBOX_ROW's columns */
enum { ROW_SUBJECT, ROW_BODY, ROW_MESSAGE_ID, ROW_IN_REPLY_TO, ROW_RECIPIENTS, ROW_CC };

long long db_outbox_insert(struct db_conn *c, const char *kind, long long regression_id,
			   long long bisect_id, struct err *e)
{
	struct db_param p[3] = { db_text(kind), db_id(regression_id > 0 ? regression_id : 0),
				 db_id(bisect_id > 0 ? bisect_id : 0) };
	long long id;

	return db_query_first_id(c, &stmts[ST_OUTBOX_INSERT], 3, p, &id, e) < 0 ? -1 : id;
}

int db_outbox_claim(struct db_conn *c, struct db_outbox_claim *out, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_OUTBOX_CLAIM], 0, NULL, 0, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return 0;
	}
	out->id = strtoll(PQgetvalue(r, 0, CLAIM_ID), NULL, 10);
	snprintf(out->kind, sizeof(out->kind), "%s", PQgetvalue(r, 0, CLAIM_KIND));
	out->regression_id = strtoll(PQgetvalue(r, 0, CLAIM_REGRESSION_ID), NULL, 10);
	out->bisect_id = strtoll(PQgetvalue(r, 0, CLAIM_BISECT_ID), NULL, 10);
	out->rendered = PQgetvalue(r, 0, CLAIM_RENDERED)[0] == 't';
	out->request_id = strtoll(PQgetvalue(r, 0, CLAIM_REQUEST_ID), NULL, 10);
	PQclear(r);
	return 1;
}

int db_outbox_insert_request(struct db_conn *c, long long request_id, struct err *e)
{
	struct db_param p[1] = { db_int8(request_id) };
	long long rows = db_query_rows(c, &stmts[ST_OUTBOX_INSERT_REQUEST], 1, p, e);

	return rows < 0 ? -1 : rows > 0;
}

/* out from the first row of r (ROOT_*): 1, or 0 when r has none; frees r */
static int read_root(PGresult *r, struct db_outbox_root *out)
{
	if (PQntuples(r) == 0) {
		PQclear(r);
		return 0;
	}
	out->id = strtoll(PQgetvalue(r, 0, ROOT_ID), NULL, 10);
	snprintf(out->message_id, sizeof(out->message_id), "%s", PQgetvalue(r, 0, ROOT_MESSAGE_ID));
	out->subject = xstrdup(PQgetvalue(r, 0, ROOT_SUBJECT));
	PQclear(r);
	return 1;
}

int db_outbox_thread_root(struct db_conn *c, long long regression_id, long long id,
			  struct db_outbox_root *out, struct err *e)
{
	struct db_param p[2] = { db_int8(regression_id), db_int8(id) };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_OUTBOX_THREAD_ROOT], 2, p, 0, e);
	return r ? read_root(r, out) : -1;
}

/* the id arrays go as text ($1::bigint[], $3::bigint[]), the row id as int8 */
int db_outbox_sibling_root(struct db_conn *c, const char *regression_ids, const char *bisect_ids,
			   long long id, struct db_outbox_root *out, struct err *e)
{
	struct db_param p[3] = { db_text(regression_ids), db_int8(id), db_text(bisect_ids) };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_OUTBOX_SIBLING_ROOT], 3, p, 0, e);
	return r ? read_root(r, out) : -1;
}

long long db_outbox_release_held(struct db_conn *c, struct err *e)
{
	return db_query_rows(c, &stmts[ST_OUTBOX_RELEASE_HELD], 0, NULL, e);
}

int db_outbox_row(struct db_conn *c, long long id, struct db_outbox_row *out, struct err *e)
{
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query_id(c, &stmts[ST_OUTBOX_ROW], id, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->res = db_res_of(r);
	out->subject = PQgetvalue(r, 0, ROW_SUBJECT);
	out->body = PQgetvalue(r, 0, ROW_BODY);
	out->message_id = PQgetvalue(r, 0, ROW_MESSAGE_ID);
	out->in_reply_to = PQgetisnull(r, 0, ROW_IN_REPLY_TO) ? NULL :
								PQgetvalue(r, 0, ROW_IN_REPLY_TO);
	out->recipients = PQgetvalue(r, 0, ROW_RECIPIENTS);
	out->cc = PQgetvalue(r, 0, ROW_CC);
	return 1;
}

void db_outbox_row_free(struct db_outbox_row *r)
{
	PQclear(db_pgres(r->res));
	memset(r, 0, sizeof(*r));
}

int db_outbox_render(struct db_conn *c, long long id, const char *subject, const char *body,
		     const char *message_id, const char *in_reply_to, const char *recipients,
		     long long regression_id, long long root_id, struct err *e)
{
	struct db_param p[8] = { db_int8(id),
				 db_text(subject),
				 db_text(body),
				 db_text(message_id),
				 db_text(in_reply_to),
				 db_text(recipients),
				 db_int8(regression_id),
				 db_id(root_id) };

	return db_query_do(c, &stmts[ST_OUTBOX_RENDER], 8, p, e);
}

int db_outbox_give_up(struct db_conn *c, long long id, const char *state, const char *why,
		      struct err *e)
{
	struct db_param p[3] = { db_int8(id), db_text(state), db_text(why) };

	return db_query_do(c, &stmts[ST_OUTBOX_GIVEUP], 3, p, e);
}

int db_outbox_defer(struct db_conn *c, long long id, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };

	return db_query_do(c, &stmts[ST_OUTBOX_DEFER], 1, p, e);
}

int db_outbox_done(struct db_conn *c, long long id, const char *state, struct err *e)
{
	struct db_param p[2] = { db_int8(id), db_text(state) };

	return db_query_do(c, &stmts[ST_OUTBOX_DONE], 2, p, e);
}

/* max_s goes as text: $3 is a float8 */
int db_outbox_retry(struct db_conn *c, long long id, const char *why, long max_s, struct err *e)
{
	char maxs[24];
	struct db_param p[3] = { db_int8(id), db_text(why), db_text(maxs) };

	snprintf(maxs, sizeof(maxs), "%ld", max_s);
	return db_query_do(c, &stmts[ST_OUTBOX_RETRY], 3, p, e);
}
