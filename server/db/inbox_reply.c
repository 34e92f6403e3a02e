/*
 * Typed rows of a series' reply (see inbox_reply.h) and the statements
 * they are read with (inbox_reply.c of the server).
 */
#include "server/db/inbox_reply.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum inbox_reply_stmt {
	ST_INBOX_SERIES_ENDED,
	ST_INBOX_REPLY_QUEUE,
	ST_INBOX_SERIES_ENDED_SET,
	ST_INBOX_REPLY_INPUT,
	ST_OUTBOX_SET_CC,
	NR_INBOX_REPLY_STMTS
};

static const struct db_stmt_def stmts[NR_INBOX_REPLY_STMTS] = {
	/* $1 inbox: its queued series whose request ended: series, request state, verdict,
	 * fail_reason, whether the inbox replies on no change */
	[ST_INBOX_SERIES_ENDED] = { "inbox_series_ended",
				    "SELECT s.id, q.state, q.verdict, q.fail_reason, i.reply_no_change "
				    "FROM inbox_series s JOIN requests q ON q.id = s.request_id "
				    "JOIN inboxes i ON i.id = s.inbox_id WHERE s.inbox_id = $1::bigint AND "
				    "s.state = 'queued' AND q.state IN ('done', 'failed', 'cancelled') ORDER BY s.id" },
	/* $1 series: its one reply (none when it has one): the outbox row's id */
	[ST_INBOX_REPLY_QUEUE] = { "inbox_reply_queue",
				   "INSERT INTO outbox (kind, request_id, inbox_series_id) SELECT 'inbox', "
				   "s.request_id, s.id FROM inbox_series s WHERE s.id = $1::bigint "
				   "ON CONFLICT (inbox_series_id) WHERE inbox_series_id IS NOT NULL DO NOTHING RETURNING id" },
	/* $1 series $2 state $3 verdict $4 reason $5 reply outbox row (NULL: none) */
	[ST_INBOX_SERIES_ENDED_SET] = { "inbox_series_ended_set",
					"UPDATE inbox_series SET state = $2, verdict = $3, reason = coalesce($4, reason), "
					"reply_outbox_id = coalesce($5::bigint, reply_outbox_id), updated_at = now() "
					"WHERE id = $1::bigint" },
	/* $1 outbox row: what its reply needs: request, anchor, the anchor's subject and
	 * sender, the lists to Cc (one a line; "" none) */
	[ST_INBOX_REPLY_INPUT] = { "inbox_reply_input",
				   "SELECT s.request_id, s.anchor, coalesce(m.subject, s.title), "
				   "coalesce(m.author, s.author), CASE WHEN i.cc_list THEN "
				   "array_to_string(i.lists, E'\n') ELSE '' END, coalesce(s.verdict, ''), s.title "
				   "FROM outbox o JOIN inbox_series s ON s.id = o.inbox_series_id "
				   "JOIN inboxes i ON i.id = s.inbox_id LEFT JOIN inbox_messages m ON "
				   "m.inbox_id = s.inbox_id AND m.message_id = s.anchor WHERE o.id = $1::bigint" },
	/* $1 outbox row $2 its Cc addresses (text[] literal) */
	[ST_OUTBOX_SET_CC] = { "outbox_set_cc",
			       "UPDATE outbox SET cc = $2::text[] WHERE id = $1::bigint" },
};

const struct db_stmt_table db_stmts_inbox_reply = DB_STMT_TABLE(stmts);

/* ST_INBOX_SERIES_ENDED's columns */
enum { ENDED_ID, ENDED_STATE, ENDED_VERDICT, ENDED_FAIL_REASON, ENDED_REPLY_NO_CHANGE };
/* ST_INBOX_REPLY_INPUT's columns */
enum { IN_REQUEST, IN_ANCHOR, IN_SUBJECT, IN_AUTHOR, IN_CC, IN_VERDICT, IN_TITLE };

static char *dup_or_null(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : xstrdup(PQgetvalue(r, row, col));
}

int db_inbox_series_ended(struct db_conn *c, long long inbox_id, struct db_inbox_ended **rows,
			  size_t *n, struct err *e)
{
	struct db_param p[1] = { db_int8(inbox_id) };
	PGresult *r;

	*rows = NULL;
	*n = 0;
	r = db_query(c, &stmts[ST_INBOX_SERIES_ENDED], 1, p, 0, e);
	if (!r)
		return -1;
	*n = (size_t)PQntuples(r);
	if (*n)
		*rows = xcalloc(*n, sizeof(**rows));
	for (size_t i = 0; i < *n; i++) {
		struct db_inbox_ended *row = &(*rows)[i];
		int k = (int)i;

		row->id = strtoll(PQgetvalue(r, k, ENDED_ID), NULL, 10);
		row->state = xstrdup(PQgetvalue(r, k, ENDED_STATE));
		row->verdict = dup_or_null(r, k, ENDED_VERDICT);
		row->fail_reason = dup_or_null(r, k, ENDED_FAIL_REASON);
		row->reply_no_change = PQgetvalue(r, k, ENDED_REPLY_NO_CHANGE)[0] == 't';
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
	struct db_param p[1] = { db_int8(id) };
	PGresult *r = db_query(c, &stmts[ST_INBOX_REPLY_QUEUE], 1, p, 0, e);
	int got;

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
	struct db_param p[5] = { db_int8(id), db_text(state), db_text(verdict), db_text(reason),
				 outbox_id > 0 ? db_int8(outbox_id) : db_text(NULL) };

	return db_query_rows(c, &stmts[ST_INBOX_SERIES_ENDED_SET], 5, p, e) < 0 ? -1 : 0;
}

int db_inbox_reply_input(struct db_conn *c, long long outbox_id, struct db_inbox_reply_input *in,
			 struct err *e)
{
	struct db_param p[1] = { db_int8(outbox_id) };
	PGresult *r;

	memset(in, 0, sizeof(*in));
	r = db_query(c, &stmts[ST_INBOX_REPLY_INPUT], 1, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1 || PQgetisnull(r, 0, IN_REQUEST)) {
		PQclear(r);
		return 0;
	}
	in->request_id = strtoll(PQgetvalue(r, 0, IN_REQUEST), NULL, 10);
	in->anchor = xstrdup(PQgetvalue(r, 0, IN_ANCHOR));
	in->subject = xstrdup(PQgetvalue(r, 0, IN_SUBJECT));
	in->author = xstrdup(PQgetvalue(r, 0, IN_AUTHOR));
	in->cc = xstrdup(PQgetvalue(r, 0, IN_CC));
	in->verdict = xstrdup(PQgetvalue(r, 0, IN_VERDICT));
	in->title = xstrdup(PQgetvalue(r, 0, IN_TITLE));
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
	struct db_param p[2] = { db_int8(id), db_text(cc) };

	return db_query_rows(c, &stmts[ST_OUTBOX_SET_CC], 2, p, e) < 0 ? -1 : 0;
}
