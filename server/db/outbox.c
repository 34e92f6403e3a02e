/* Typed rows and updates of the outbox (outbox.h); the SQL is in stmts_mail.c. */
#include "server/db/outbox.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs an UPDATE; 0 or -1 with e. */
static int exec_cmd(struct db_conn *c, enum db_stmt st, int n, const char *const *p, struct err *e)
{
	PGresult *r = db_exec(c, st, n, p, e);

	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

long long db_outbox_insert(struct db_conn *c, const char *kind, long long regression_id,
			   long long bisect_id, struct err *e)
{
	char rid[24], bid[24];
	const char *p[3] = { kind, NULL, NULL };
	PGresult *r;
	long long id;

	if (regression_id > 0) {
		snprintf(rid, sizeof(rid), "%lld", regression_id);
		p[1] = rid;
	}
	if (bisect_id > 0) {
		snprintf(bid, sizeof(bid), "%lld", bisect_id);
		p[2] = bid;
	}
	r = db_exec(c, ST_OUTBOX_INSERT, 3, p, e);
	if (!r)
		return -1;
	id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return id;
}

int db_outbox_claim(struct db_conn *c, struct db_outbox_claim *out, struct err *e)
{
	PGresult *r = db_exec(c, ST_OUTBOX_CLAIM, 0, NULL, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return 0;
	}
	out->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	snprintf(out->kind, sizeof(out->kind), "%s", PQgetvalue(r, 0, 1));
	out->regression_id = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
	out->bisect_id = strtoll(PQgetvalue(r, 0, 3), NULL, 10);
	out->rendered = PQgetvalue(r, 0, 4)[0] == 't';
	out->request_id = strtoll(PQgetvalue(r, 0, 6), NULL, 10);
	PQclear(r);
	return 1;
}

int db_outbox_insert_request(struct db_conn *c, long long request_id, struct err *e)
{
	char b[24];
	const char *p[1] = { b };
	long long rows;

	snprintf(b, sizeof(b), "%lld", request_id);
	rows = db_rows(c, ST_OUTBOX_INSERT_REQUEST, 1, p, e);
	return rows < 0 ? -1 : rows > 0;
}

/* out from the first row of r (id, message id, subject): 1, or 0 when r has none; frees r */
static int read_root(PGresult *r, struct db_outbox_root *out)
{
	if (PQntuples(r) == 0) {
		PQclear(r);
		return 0;
	}
	out->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	snprintf(out->message_id, sizeof(out->message_id), "%s", PQgetvalue(r, 0, 1));
	out->subject = xstrdup(PQgetvalue(r, 0, 2));
	PQclear(r);
	return 1;
}

int db_outbox_thread_root(struct db_conn *c, long long regression_id, long long id,
			  struct db_outbox_root *out, struct err *e)
{
	char rid[24], oid[24];
	const char *p[2] = { rid, oid };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(rid, sizeof(rid), "%lld", regression_id);
	snprintf(oid, sizeof(oid), "%lld", id);
	r = db_exec(c, ST_OUTBOX_THREAD_ROOT, 2, p, e);
	return r ? read_root(r, out) : -1;
}

int db_outbox_sibling_root(struct db_conn *c, const char *regression_ids, const char *bisect_ids,
			   long long id, struct db_outbox_root *out, struct err *e)
{
	char oid[24];
	const char *p[3] = { regression_ids, oid, bisect_ids };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(oid, sizeof(oid), "%lld", id);
	r = db_exec(c, ST_OUTBOX_SIBLING_ROOT, 3, p, e);
	return r ? read_root(r, out) : -1;
}

long long db_outbox_release_held(struct db_conn *c, struct err *e)
{
	return db_rows(c, ST_OUTBOX_RELEASE_HELD, 0, NULL, e);
}

int db_outbox_row(struct db_conn *c, long long id, struct db_outbox_row *out, struct err *e)
{
	char oid[24];
	const char *p[1] = { oid };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(oid, sizeof(oid), "%lld", id);
	r = db_exec(c, ST_OUTBOX_ROW, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->res = db_res_of(r);
	out->subject = PQgetvalue(r, 0, 0);
	out->body = PQgetvalue(r, 0, 1);
	out->message_id = PQgetvalue(r, 0, 2);
	out->in_reply_to = PQgetisnull(r, 0, 3) ? NULL : PQgetvalue(r, 0, 3);
	out->recipients = PQgetvalue(r, 0, 4);
	out->cc = PQgetvalue(r, 0, 5);
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
	char oid[24], rid[24], tid[24];
	const char *p[8] = { oid,	  subject,    body, message_id,
			     in_reply_to, recipients, rid,  root_id ? tid : NULL };

	snprintf(oid, sizeof(oid), "%lld", id);
	snprintf(rid, sizeof(rid), "%lld", regression_id);
	snprintf(tid, sizeof(tid), "%lld", root_id);
	return exec_cmd(c, ST_OUTBOX_RENDER, 8, p, e);
}

int db_outbox_give_up(struct db_conn *c, long long id, const char *state, const char *why,
		      struct err *e)
{
	char oid[24];
	const char *p[3] = { oid, state, why };

	snprintf(oid, sizeof(oid), "%lld", id);
	return exec_cmd(c, ST_OUTBOX_GIVEUP, 3, p, e);
}

int db_outbox_defer(struct db_conn *c, long long id, struct err *e)
{
	char oid[24];
	const char *p[1] = { oid };

	snprintf(oid, sizeof(oid), "%lld", id);
	return exec_cmd(c, ST_OUTBOX_DEFER, 1, p, e);
}

int db_outbox_done(struct db_conn *c, long long id, const char *state, struct err *e)
{
	char oid[24];
	const char *p[2] = { oid, state };

	snprintf(oid, sizeof(oid), "%lld", id);
	return exec_cmd(c, ST_OUTBOX_DONE, 2, p, e);
}

int db_outbox_retry(struct db_conn *c, long long id, const char *why, long max_s, struct err *e)
{
	char oid[24], maxs[24];
	const char *p[3] = { oid, why, maxs };

	snprintf(oid, sizeof(oid), "%lld", id);
	snprintf(maxs, sizeof(maxs), "%ld", max_s);
	return exec_cmd(c, ST_OUTBOX_RETRY, 3, p, e);
}
