/*
 * Typed rows of series assembly (see inbox_series.h) and the statements
 * they are read with (inbox_series.c of the server, api/inboxes.c).
 */
#include "server/db/inbox_series.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum inbox_series_stmt {
	ST_INBOX_UNASSIGNED,
	ST_INBOX_MESSAGE_SUBJECT,
	ST_INBOX_MESSAGE_ASSIGN,
	ST_INBOX_SERIES_UPSERT,
	ST_INBOX_SERIES_WAITING,
	ST_INBOX_SERIES_RETRY,
	ST_INBOX_SERIES_THREAD,
	ST_INBOX_FILTER,
	ST_INBOX_SERIES_SET,
	ST_INBOX_SERIES_DUP,
	ST_INBOX_SERIES_DUP_SET,
	ST_INBOX_REQUEST_ADOPT,
	ST_INBOX_SERIES_JSON,
	NR_INBOX_SERIES_STMTS
};

static const struct db_stmt_def stmts[NR_INBOX_SERIES_STMTS] = {
	/* $1 inbox: its messages not yet looked at, oldest first, at most 1000 */
	[ST_INBOX_UNASSIGNED] = { "inbox_unassigned",
				  "SELECT m.id, m.message_id, array_to_string(m.refs, ' '), m.subject, "
				  "m.recipients FROM inbox_messages m WHERE m.inbox_id = $1::bigint AND NOT "
				  "m.assigned ORDER BY m.id LIMIT 1000" },
	/* $1 inbox $2 Message-ID: its subject, no row when not stored */
	[ST_INBOX_MESSAGE_SUBJECT] = { "inbox_message_subject",
				       "SELECT subject FROM inbox_messages WHERE inbox_id = $1::bigint "
				       "AND message_id = $2" },
	/* $1 message row $2 series (NULL: no patch) $3 part */
	[ST_INBOX_MESSAGE_ASSIGN] = { "inbox_message_assign",
				      "UPDATE inbox_messages SET assigned = true, series_id = $2::bigint, "
				      "part = $3::integer WHERE id = $1::bigint" },
	/* $1 inbox $2 anchor $3 cover $4 version $5 total $6 resend $7 title $8 author
	 * $9 lead (the part is 0 or 1: its fields name the series): the series' id. The
	 * cover letter names the series whatever the order its parts came in: patch 1's
	 * fields are taken only while no cover letter is stored. */
	[ST_INBOX_SERIES_UPSERT] = { "inbox_series_upsert",
				     "INSERT INTO inbox_series (inbox_id, anchor, cover, version, total, resend, "
				     "title, author, deadline) VALUES ($1::bigint, $2, $3::boolean, $4::integer, "
				     "$5::integer, $6::boolean, $7, $8, now() + make_interval(secs => "
				     "(SELECT parts_wait_s FROM inboxes WHERE id = $1::bigint))) "
				     "ON CONFLICT (inbox_id, anchor) DO UPDATE SET "
				     "cover = inbox_series.cover OR EXCLUDED.cover, "
				     "version = CASE WHEN $9::boolean AND (EXCLUDED.cover OR NOT inbox_series.cover) "
				     "THEN EXCLUDED.version ELSE inbox_series.version END, "
				     "total = CASE WHEN $9::boolean AND (EXCLUDED.cover OR NOT inbox_series.cover) "
				     "THEN EXCLUDED.total ELSE inbox_series.total END, "
				     "resend = inbox_series.resend OR EXCLUDED.resend, "
				     "title = CASE WHEN $9::boolean AND (EXCLUDED.cover OR NOT inbox_series.cover) "
				     "THEN EXCLUDED.title ELSE inbox_series.title END, "
				     "author = CASE WHEN $9::boolean AND (EXCLUDED.cover OR NOT inbox_series.cover) "
				     "THEN EXCLUDED.author ELSE inbox_series.author END, "
				     "updated_at = now() RETURNING id" },
	/* $1 inbox: its waiting series (not backed off), whether each has all its parts,
	 * whether its deadline passed */
	[ST_INBOX_SERIES_WAITING] = { "inbox_series_waiting",
				      "SELECT s.id, s.anchor, s.version, s.title, "
				      "(SELECT count(DISTINCT m.part) FROM inbox_messages m WHERE m.series_id = s.id "
				      "AND m.part BETWEEN 1 AND s.total) = s.total, s.deadline < now() "
				      "FROM inbox_series s WHERE s.inbox_id = $1::bigint AND s.state = 'waiting' "
				      "AND (s.retry_at IS NULL OR s.retry_at <= now()) ORDER BY s.id" },
	/* $1 series $2 reason $3 tries at most: one more try failed for a reason that may
	 * pass; the next after the inbox's poll_s doubled per try (at most 6 h), none past
	 * the last ('failed'); the series' state */
	[ST_INBOX_SERIES_RETRY] = { "inbox_series_retry",
				    "UPDATE inbox_series s SET attempts = s.attempts + 1, reason = $2, "
				    "retry_at = now() + make_interval(secs => least(greatest(i.poll_s, 1) * "
				    "power(2, least(s.attempts, 16)), 21600)), state = CASE WHEN "
				    "s.attempts + 1 >= $3::integer THEN 'failed' ELSE s.state END, "
				    "updated_at = now() FROM inboxes i WHERE i.id = s.inbox_id AND "
				    "s.id = $1::bigint RETURNING s.state" },
	/* $1 series: the texts of its thread (its parts, the anchor, replies to any of them),
	 * oldest first, and the patch parts' text in part order for base-commit */
	[ST_INBOX_SERIES_THREAD] = { "inbox_series_thread",
				     "SELECT m.raw, m.series_id = s.id AND m.part BETWEEN 0 AND 1, "
				     "encode(m.raw_bytes, 'hex') FROM inbox_messages m "
				     "JOIN inbox_series s ON s.id = $1::bigint AND m.inbox_id = s.inbox_id "
				     "WHERE m.series_id = s.id OR m.message_id = s.anchor OR s.anchor = ANY(m.refs) "
				     "OR m.in_reply_to IN (SELECT x.message_id FROM inbox_messages x "
				     "WHERE x.series_id = s.id) ORDER BY m.id" },
	/* $1 inbox: its filter, each list one per line, and the plan's tree, url and first
	 * branch (NULL without a plan) */
	[ST_INBOX_FILTER] = { "inbox_filter",
			      "SELECT array_to_string(i.lists, E'\\n'), array_to_string(i.subject_prefixes, E'\\n'), "
			      "array_to_string(i.paths, E'\\n'), i.plan, t.name, t.url, "
			      "p.spec->'branches'->>0, array_to_string(i.maintainers, E'\\n') FROM inboxes i "
			      "LEFT JOIN plans p ON p.name = i.plan LEFT JOIN trees t ON t.id = p.tree_id "
			      "WHERE i.id = $1::bigint" },
	/* $1 series $2 state $3 reason $4 base $5 patch_ids $6 request (each NULL: keep) */
	[ST_INBOX_SERIES_SET] = { "inbox_series_set",
				  "UPDATE inbox_series SET state = $2, reason = coalesce($3, reason), "
				  "base_sha = coalesce($4, base_sha), patch_ids = coalesce($5, patch_ids), "
				  "request_id = coalesce($6::bigint, request_id), updated_at = now(), "
				  "previous_id = (SELECT p.id FROM inbox_series p WHERE p.inbox_id = "
				  "inbox_series.inbox_id AND p.title = inbox_series.title AND p.version < "
				  "inbox_series.version ORDER BY p.version DESC, p.id DESC LIMIT 1) "
				  "WHERE id = $1::bigint" },
	/* $1 series $2 patch_ids: the earlier series of its inbox with those patch-ids that
	 * was queued (none: no row) */
	[ST_INBOX_SERIES_DUP] = { "inbox_series_dup",
				  "SELECT p.id FROM inbox_series p JOIN inbox_series s ON s.id = $1::bigint "
				  "WHERE p.inbox_id = s.inbox_id AND p.id <> s.id AND p.patch_ids = $2 AND "
				  "p.state IN ('queued', 'tested', 'replied') ORDER BY p.id LIMIT 1" },
	/* $1 series $2 the series it repeats $3 their patch_ids */
	[ST_INBOX_SERIES_DUP_SET] = { "inbox_series_dup_set",
				      "UPDATE inbox_series SET state = 'duplicate', duplicate_of = $2::bigint, "
				      "patch_ids = $3, reason = 'the same patches as series ' || $2 || "
				      "' (patch-id)', updated_at = now() WHERE id = $1::bigint" },
	/* $1 label $2 patches: a request already queued for them (a server killed between
	 * queueing a series' request and recording it), none: no row */
	[ST_INBOX_REQUEST_ADOPT] = { "inbox_request_adopt",
				     "SELECT id FROM requests WHERE label = $1 AND patches = $2 "
				     "AND NOT EXISTS (SELECT 1 FROM inbox_series s WHERE s.request_id = requests.id) "
				     "ORDER BY id LIMIT 1" },
	/* $1 inbox name: its series, newest first; no row when no inbox has that name */
	[ST_INBOX_SERIES_JSON] = { "inbox_series_json",
				   "SELECT (SELECT coalesce(json_agg(json_build_object('id', s.id, 'anchor', s.anchor, "
				   "'cover', s.cover, 'version', s.version, 'total', s.total, 'resend', s.resend, "
				   "'title', s.title, 'author', s.author, 'state', s.state, 'reason', s.reason, "
				   "'base', s.base_sha, 'patch_ids', s.patch_ids, 'previous_id', s.previous_id, "
				   "'duplicate_of', s.duplicate_of, 'request_id', s.request_id, 'verdict', s.verdict, "
				   "'reply_outbox_id', s.reply_outbox_id, 'deadline', s.deadline, "
				   "'attempts', s.attempts, 'retry_at', s.retry_at, "
				   "'parts', (SELECT count(DISTINCT m.part) FROM inbox_messages m WHERE "
				   "m.series_id = s.id AND m.part BETWEEN 1 AND s.total), "
				   "'created_at', s.created_at, 'updated_at', s.updated_at) ORDER BY s.id DESC), "
				   "'[]')::text FROM inbox_series s JOIN inboxes i ON i.id = s.inbox_id "
				   "WHERE i.name = $1) FROM inboxes WHERE name = $1" },
};

const struct db_stmt_table db_stmts_inbox_series = DB_STMT_TABLE(stmts);

/* ST_INBOX_UNASSIGNED's columns */
enum { UN_ID, UN_MESSAGE_ID, UN_REFS, UN_SUBJECT, UN_RECIPIENTS };
/* ST_INBOX_SERIES_WAITING's columns */
enum { WAIT_ID, WAIT_ANCHOR, WAIT_VERSION, WAIT_TITLE, WAIT_COMPLETE, WAIT_EXPIRED };
/* ST_INBOX_SERIES_THREAD's columns */
enum { THREAD_RAW, THREAD_LEAD, THREAD_RAW_HEX };
/* ST_INBOX_FILTER's columns */
enum {
	FILTER_LISTS,
	FILTER_PREFIXES,
	FILTER_PATHS,
	FILTER_PLAN,
	FILTER_TREE,
	FILTER_URL,
	FILTER_BRANCH,
	FILTER_MAINTAINERS
};

static char *dup_or_null(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : xstrdup(PQgetvalue(r, row, col));
}

/* runs statement st with one int8 parameter, id */
static PGresult *exec_id(struct db_conn *c, enum inbox_series_stmt st, long long id, struct err *e)
{
	return db_query_id(c, &stmts[st], id, e);
}

int db_inbox_unassigned(struct db_conn *c, long long inbox_id, struct db_inbox_unassigned **rows,
			size_t *n, struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_UNASSIGNED, inbox_id, e);

	*rows = NULL;
	*n = 0;
	if (!r)
		return -1;
	*n = (size_t)PQntuples(r);
	if (*n)
		*rows = xcalloc(*n, sizeof(**rows));
	for (size_t i = 0; i < *n; i++) {
		struct db_inbox_unassigned *row = &(*rows)[i];
		int k = (int)i;

		row->id = strtoll(PQgetvalue(r, k, UN_ID), NULL, 10);
		row->message_id = xstrdup(PQgetvalue(r, k, UN_MESSAGE_ID));
		row->refs = xstrdup(PQgetvalue(r, k, UN_REFS));
		row->subject = xstrdup(PQgetvalue(r, k, UN_SUBJECT));
		row->recipients = xstrdup(PQgetvalue(r, k, UN_RECIPIENTS));
	}
	PQclear(r);
	return 0;
}

void db_inbox_unassigned_free(struct db_inbox_unassigned *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].message_id);
		free(rows[i].refs);
		free(rows[i].subject);
		free(rows[i].recipients);
	}
	free(rows);
}

int db_inbox_message_subject(struct db_conn *c, long long inbox_id, const char *message_id,
			     char *out, size_t size, struct err *e)
{
	struct db_param p[2] = { db_int8(inbox_id), db_text(message_id) };
	PGresult *r = db_query(c, &stmts[ST_INBOX_MESSAGE_SUBJECT], 2, p, 0, e);
	int got;

	if (!r)
		return -1;
	got = PQntuples(r) > 0;
	snprintf(out, size, "%s", got ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	return got;
}

int db_inbox_message_assign(struct db_conn *c, long long id, long long series_id, int part,
			    struct err *e)
{
	char pt[24];
	struct db_param p[3] = { db_int8(id), db_text(NULL), db_text(NULL) };

	snprintf(pt, sizeof(pt), "%d", part);
	if (series_id > 0) {
		p[1] = db_int8(series_id);
		p[2] = db_text(pt);
	}
	return db_query_rows(c, &stmts[ST_INBOX_MESSAGE_ASSIGN], 3, p, e) < 0 ? -1 : 0;
}

long long db_inbox_series_upsert(struct db_conn *c, long long inbox_id,
				 const struct db_inbox_series_new *s, struct err *e)
{
	char v[24], t[24];
	struct db_param p[9] = {
		db_int8(inbox_id), db_text(s->anchor), db_text(s->cover ? "true" : "false"),
		db_text(v),	   db_text(t),	       db_text(s->resend ? "true" : "false"),
		db_text(s->title), db_text(s->author), db_text(s->lead ? "true" : "false")
	};
	long long id;

	snprintf(v, sizeof(v), "%d", s->version);
	snprintf(t, sizeof(t), "%d", s->total);
	if (db_query_int8(c, &stmts[ST_INBOX_SERIES_UPSERT], 9, p, &id, e))
		return -1;
	return id;
}

int db_inbox_series_waiting(struct db_conn *c, long long inbox_id, struct db_inbox_waiting **rows,
			    size_t *n, struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_SERIES_WAITING, inbox_id, e);

	*rows = NULL;
	*n = 0;
	if (!r)
		return -1;
	*n = (size_t)PQntuples(r);
	if (*n)
		*rows = xcalloc(*n, sizeof(**rows));
	for (size_t i = 0; i < *n; i++) {
		struct db_inbox_waiting *row = &(*rows)[i];
		int k = (int)i;

		row->id = strtoll(PQgetvalue(r, k, WAIT_ID), NULL, 10);
		row->anchor = xstrdup(PQgetvalue(r, k, WAIT_ANCHOR));
		row->version = (int)strtol(PQgetvalue(r, k, WAIT_VERSION), NULL, 10);
		row->title = xstrdup(PQgetvalue(r, k, WAIT_TITLE));
		row->complete = PQgetvalue(r, k, WAIT_COMPLETE)[0] == 't';
		row->expired = PQgetvalue(r, k, WAIT_EXPIRED)[0] == 't';
	}
	PQclear(r);
	return 0;
}

void db_inbox_waiting_free(struct db_inbox_waiting *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].anchor);
		free(rows[i].title);
	}
	free(rows);
}

/* appends one message to an mboxrd: the separator, ">*From " lines quoted once more */
static int mboxrd_add(struct buf *b, const char *text)
{
	int over = buf_addstr(b, "From mboxrd@z Thu Jan  1 00:00:00 1970\n");

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *q = p;
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);

		while (*q == '>')
			q++;
		if (!strncmp(q, "From ", 5))
			over |= buf_addch(b, '>');
		over |= buf_add(b, p, n);
		p += n;
	}
	if (b->len && b->data[b->len - 1] != '\n')
		over |= buf_addch(b, '\n');
	over |= buf_addch(b, '\n');
	return over;
}

int db_inbox_series_thread(struct db_conn *c, long long id, struct buf *mbox, struct buf *lead,
			   struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_SERIES_THREAD, id, e);
	int over = 0;

	if (!r)
		return -1;
	for (int i = 0; i < PQntuples(r); i++) {
		/* b4 reads the bytes delivered; the scrubbed text serves base-commit */
		if (!PQgetisnull(r, i, THREAD_RAW_HEX)) {
			const char *hex = PQgetvalue(r, i, THREAD_RAW_HEX);
			size_t n = strlen(hex) / 2;
			char *bytes = xmalloc(n + 1);

			for (size_t k = 0; k < n; k++) {
				unsigned v = 0;

				sscanf(hex + 2 * k, "%2x", &v);
				/* a NUL would end the text: kept as the scrubbed text has it */
				bytes[k] = v ? (char)v : '?';
			}
			bytes[n] = '\0';
			over |= mboxrd_add(mbox, bytes);
			free(bytes);
		} else {
			over |= mboxrd_add(mbox, PQgetvalue(r, i, THREAD_RAW));
		}
		if (PQgetvalue(r, i, THREAD_LEAD)[0] == 't')
			over |= buf_addstr(lead, PQgetvalue(r, i, THREAD_RAW)) |
				buf_addch(lead, '\n');
	}
	PQclear(r);
	if (over)
		return err_setc(e, ERR_TOO_LARGE, "patches",
				"the thread of series %lld is too large", id);
	return 0;
}

int db_inbox_filter(struct db_conn *c, long long inbox_id, struct db_inbox_filter *f, struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_FILTER, inbox_id, e);

	memset(f, 0, sizeof(*f));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return err_setc(e, ERR_NOT_FOUND, "inbox", "no inbox %lld", inbox_id);
	}
	f->lists = xstrdup(PQgetvalue(r, 0, FILTER_LISTS));
	f->prefixes = xstrdup(PQgetvalue(r, 0, FILTER_PREFIXES));
	f->paths = xstrdup(PQgetvalue(r, 0, FILTER_PATHS));
	f->plan = dup_or_null(r, 0, FILTER_PLAN);
	f->tree = dup_or_null(r, 0, FILTER_TREE);
	f->url = dup_or_null(r, 0, FILTER_URL);
	f->branch = dup_or_null(r, 0, FILTER_BRANCH);
	f->maintainers = xstrdup(PQgetvalue(r, 0, FILTER_MAINTAINERS));
	PQclear(r);
	return 0;
}

void db_inbox_filter_release(struct db_inbox_filter *f)
{
	free(f->lists);
	free(f->prefixes);
	free(f->paths);
	free(f->plan);
	free(f->tree);
	free(f->url);
	free(f->branch);
	free(f->maintainers);
	memset(f, 0, sizeof(*f));
}

int db_inbox_series_set(struct db_conn *c, long long id, const char *state, const char *reason,
			const char *base, const char *patch_ids, long long request_id,
			struct err *e)
{
	struct db_param p[6] = { db_int8(id),	db_text(state),	    db_text(reason),
				 db_text(base), db_text(patch_ids), db_text(NULL) };

	if (request_id > 0)
		p[5] = db_int8(request_id);
	return db_query_rows(c, &stmts[ST_INBOX_SERIES_SET], 6, p, e) < 0 ? -1 : 0;
}

int db_inbox_series_retry(struct db_conn *c, long long id, const char *reason, int max_tries,
			  struct err *e)
{
	char m[24];
	struct db_param p[3] = { db_int8(id), db_text(reason), db_text(m) };
	PGresult *r;
	int ended;

	snprintf(m, sizeof(m), "%d", max_tries);
	r = db_query(c, &stmts[ST_INBOX_SERIES_RETRY], 3, p, 0, e);
	if (!r)
		return -1;
	ended = PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "failed");
	PQclear(r);
	return ended;
}

int db_inbox_series_dup(struct db_conn *c, long long id, const char *patch_ids, long long *dup,
			struct err *e)
{
	struct db_param p[2] = { db_int8(id), db_text(patch_ids) };

	return db_query_first_id(c, &stmts[ST_INBOX_SERIES_DUP], 2, p, dup, e);
}

int db_inbox_series_dup_set(struct db_conn *c, long long id, long long dup, const char *patch_ids,
			    struct err *e)
{
	struct db_param p[3] = { db_int8(id), db_int8(dup), db_text(patch_ids) };

	return db_query_rows(c, &stmts[ST_INBOX_SERIES_DUP_SET], 3, p, e) < 0 ? -1 : 0;
}

int db_inbox_series_json(struct db_conn *c, const char *name, char **text, struct err *e)
{
	struct db_param p[1] = { db_text(name) };

	return db_query_json(c, &stmts[ST_INBOX_SERIES_JSON], 1, p, text, e);
}

int db_inbox_request_adopt(struct db_conn *c, const char *label, const char *patches, long long *id,
			   struct err *e)
{
	struct db_param p[2] = { db_text(label), db_text(patches) };

	return db_query_first_id(c, &stmts[ST_INBOX_REQUEST_ADOPT], 2, p, id, e);
}
