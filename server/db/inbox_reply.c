/* Typed rows of a series' reply; see inbox_reply.h. */
#include "server/db/inbox_reply.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : xstrdup(PQgetvalue(r, row, col));
}

int db_inbox_series_ended(struct db_conn *c, long long inbox_id, struct db_inbox_ended **rows,
			  size_t *n, struct err *e)
{
	char b[24];
	const char *p[1] = { b };
	PGresult *r;

	*rows = NULL;
	*n = 0;
	snprintf(b, sizeof(b), "%lld", inbox_id);
	r = db_exec(c, ST_INBOX_SERIES_ENDED, 1, p, e);
	if (!r)
		return -1;
	*n = (size_t)PQntuples(r);
	if (*n)
		*rows = xcalloc(*n, sizeof(**rows));
	for (size_t i = 0; i < *n; i++) {
		(*rows)[i].id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		(*rows)[i].state = xstrdup(PQgetvalue(r, (int)i, 1));
		(*rows)[i].verdict = dup_or_null(r, (int)i, 2);
		(*rows)[i].fail_reason = dup_or_null(r, (int)i, 3);
		(*rows)[i].reply_no_change = PQgetvalue(r, (int)i, 4)[0] == 't';
	}
	PQclear(r);
	return 0;
}

void db_inbox_ended_free(struct db_inbox_ended *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].state);
		free(rows[i].verdict);
		free(rows[i].fail_reason);
	}
	free(rows);
}

int db_inbox_reply_queue(struct db_conn *c, long long id, long long *outbox_id, struct err *e)
{
	char b[24];
	const char *p[1] = { b };
	PGresult *r;
	int got;

	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_INBOX_REPLY_QUEUE, 1, p, e);
	if (!r)
		return -1;
	got = PQntuples(r) > 0;
	*outbox_id = got ? strtoll(PQgetvalue(r, 0, 0), NULL, 10) : 0;
	PQclear(r);
	return got;
}

int db_inbox_series_ended_set(struct db_conn *c, long long id, const char *state,
			      const char *verdict, const char *reason, long long outbox_id,
			      struct err *e)
{
	char b[24], o[24];
	const char *p[5] = { b, state, verdict, reason, outbox_id > 0 ? o : NULL };

	snprintf(b, sizeof(b), "%lld", id);
	snprintf(o, sizeof(o), "%lld", outbox_id);
	return db_rows(c, ST_INBOX_SERIES_ENDED_SET, 5, p, e) < 0 ? -1 : 0;
}

int db_inbox_reply_input(struct db_conn *c, long long outbox_id, struct db_inbox_reply_input *in,
			 struct err *e)
{
	char b[24];
	const char *p[1] = { b };
	PGresult *r;

	memset(in, 0, sizeof(*in));
	snprintf(b, sizeof(b), "%lld", outbox_id);
	r = db_exec(c, ST_INBOX_REPLY_INPUT, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0)) {
		PQclear(r);
		return 0;
	}
	in->request_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	in->anchor = xstrdup(PQgetvalue(r, 0, 1));
	in->subject = xstrdup(PQgetvalue(r, 0, 2));
	in->author = xstrdup(PQgetvalue(r, 0, 3));
	in->cc = xstrdup(PQgetvalue(r, 0, 4));
	in->verdict = xstrdup(PQgetvalue(r, 0, 5));
	in->title = xstrdup(PQgetvalue(r, 0, 6));
	PQclear(r);
	return 1;
}

void db_inbox_reply_input_release(struct db_inbox_reply_input *in)
{
	free(in->anchor);
	free(in->subject);
	free(in->author);
	free(in->cc);
	free(in->verdict);
	free(in->title);
	memset(in, 0, sizeof(*in));
}

int db_outbox_set_cc(struct db_conn *c, long long id, const char *cc, struct err *e)
{
	char b[24];
	const char *p[2] = { b, cc };

	snprintf(b, sizeof(b), "%lld", id);
	return db_rows(c, ST_OUTBOX_SET_CC, 2, p, e) < 0 ? -1 : 0;
}
