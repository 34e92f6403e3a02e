/*
 * Typed rows of inboxes, their epochs and messages (see inbox.h), and the
 * statements they are read with (api/inboxes.c, inbox_poll.c; sql/0031).
 */
#include "server/db/inbox.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* when an inbox is due for a poll */
#define INBOX_DUE "i.poll_s > 0 AND i.next_poll_at <= now()"
/* the advisory lock key of inbox $1's polls: one bigint (any id, no cast to integer), the
 * class 17033 in the high bits (the tree poller's two-integer keys are another space) */
#define INBOX_LOCK_KEY "((17033::bigint << 32) # $1::bigint)"

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum inbox_stmt {
	ST_INBOXES_JSON,
	ST_INBOX_MESSAGES_JSON,
	ST_INBOX_UPSERT,
	ST_INBOX_POLL_DUE,
	ST_INBOX_POLL_LOCK,
	ST_INBOX_POLL_UNLOCK,
	ST_INBOX_POLL_HELD,
	ST_INBOX_POLL_CLAIM,
	ST_INBOX_POLL_DONE,
	ST_INBOX_EPOCHS,
	ST_INBOX_EPOCH_SET,
	ST_INBOX_MESSAGE_INSERT,
	NR_INBOX_STMTS
};

static const struct db_stmt_def stmts[NR_INBOX_STMTS] = {
	/* every inbox with its filter, its last poll and what it holds */
	[ST_INBOXES_JSON] = { "inboxes_json",
			      "SELECT coalesce(json_agg(x ORDER BY x.name), '[]')::text FROM ("
			      "SELECT i.id, i.name, scrub_userinfo(i.url) AS url, i.lists, "
			      "i.subject_prefixes, i.paths, i.maintainers, i.plan, i.cc_list, i.reply_no_change, "
			      "i.parts_wait_s, i.poll_s, i.polls, i.last_poll_at, i.last_poll_ms, "
			      "i.poll_error, i.poll_failures, i.next_poll_at, i.since, i.started, "
			      "(SELECT count(*) FROM inbox_messages m WHERE m.inbox_id = i.id) AS messages, "
			      "(SELECT coalesce(json_agg(json_build_object('epoch', e.epoch, 'last_commit', "
			      "e.last_commit, 'messages', e.messages) ORDER BY e.epoch), '[]') "
			      "FROM inbox_epochs e WHERE e.inbox_id = i.id) AS epochs "
			      "FROM inboxes i) x" },
	/* $1 inbox name: its newest 1000 messages (a list's archive holds millions), oldest
	 * first, without their text; no row when no inbox has that name */
	[ST_INBOX_MESSAGES_JSON] = { "inbox_messages_json",
				     "SELECT (SELECT coalesce(json_agg(json_build_object('message_id', m.message_id, "
				     "'in_reply_to', m.in_reply_to, 'subject', m.subject, 'author', m.author, "
				     "'sent_at', m.sent_at, 'epoch', m.epoch, 'git_commit', m.git_commit) "
				     "ORDER BY m.id), '[]')::text FROM (SELECT m.* FROM inbox_messages m "
				     "JOIN inboxes i ON i.id = m.inbox_id WHERE i.name = $1 "
				     "ORDER BY m.id DESC LIMIT 1000) m) FROM inboxes WHERE name = $1" },
	/* $1 name $2 url $3 lists $4 subject_prefixes $5 paths $6 plan $7 cc_list
	 * $8 reply_no_change $9 parts_wait_s $10 poll_s $11 since (NULL: none) $12 maintainers
	 * (text[]): a new inbox,
	 * or a new filter for one (since only matters before its first poll) */
	[ST_INBOX_UPSERT] = { "inbox_upsert",
			      "INSERT INTO inboxes (name, url, lists, subject_prefixes, paths, plan, cc_list, "
			      "reply_no_change, parts_wait_s, poll_s, since, maintainers) VALUES ($1, $2, $3::text[], $4::text[], "
			      "$5::text[], $6, $7::boolean, $8::boolean, $9::integer, $10::integer, "
			      "$11::timestamptz, $12::text[]) "
			      "ON CONFLICT (name) DO UPDATE SET url = EXCLUDED.url, lists = EXCLUDED.lists, "
			      "subject_prefixes = EXCLUDED.subject_prefixes, paths = EXCLUDED.paths, "
			      "plan = EXCLUDED.plan, cc_list = EXCLUDED.cc_list, "
			      "reply_no_change = EXCLUDED.reply_no_change, parts_wait_s = EXCLUDED.parts_wait_s, "
			      "poll_s = EXCLUDED.poll_s, since = EXCLUDED.since, maintainers = EXCLUDED.maintainers, next_poll_at = now() RETURNING id" },
	[ST_INBOX_POLL_DUE] = { "inbox_poll_due", "SELECT i.id FROM inboxes i WHERE " INBOX_DUE
						  " ORDER BY i.next_poll_at, i.id LIMIT 32" },
	/* one poller per inbox across servers: a session lock, gone with a killed server's
	 * connection (and with a reconnect: ST_INBOX_POLL_HELD) */
	[ST_INBOX_POLL_LOCK] = { "inbox_poll_lock",
				 "SELECT pg_try_advisory_lock(" INBOX_LOCK_KEY ")" },
	[ST_INBOX_POLL_UNLOCK] = { "inbox_poll_unlock",
				   "SELECT pg_advisory_unlock(" INBOX_LOCK_KEY ")" },
	/* $1 inbox: whether this session holds its poll lock (a bigint key is classid:objid,
	 * objsubid 1) */
	[ST_INBOX_POLL_HELD] = { "inbox_poll_held",
				 "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND "
				 "pid = pg_backend_pid() AND granted AND objsubid = 1 AND "
				 "((classid::bigint << 32) | objid::bigint) = " INBOX_LOCK_KEY
				 ")" },
	/* $1 inbox, after the lock: still due? name, url, the poll's start, whether a poll
	 * ended well before, since (Unix seconds, "" none) */
	[ST_INBOX_POLL_CLAIM] = { "inbox_poll_claim",
				  "SELECT i.name, i.url, now()::text, i.started, "
				  "coalesce(floor(extract(epoch FROM i.since))::bigint::text, '') FROM inboxes i WHERE i.id = $1::bigint AND " INBOX_DUE },
	/* $1 inbox $2 duration (ms) $3 error (NULL: none): the next poll after poll_s, or
	 * after a backoff doubling per failure (at most 6 h) */
	[ST_INBOX_POLL_DONE] = { "inbox_poll_done",
				 "UPDATE inboxes SET polls = polls + 1, last_poll_at = now(), "
				 "last_poll_ms = $2::integer, poll_error = scrub_userinfo($3::text), "
				 "started = started OR $3::text IS NULL, "
				 "poll_failures = CASE WHEN $3::text IS NULL THEN 0 ELSE poll_failures + 1 END, "
				 "next_poll_at = CASE WHEN $3::text IS NULL THEN now() + make_interval(secs => poll_s) "
				 "ELSE now() + make_interval(secs => least(poll_s * "
				 "power(2, least(poll_failures, 16)), 21600)) END WHERE id = $1::bigint" },
	/* $1 inbox: epoch and newest commit read of each epoch */
	[ST_INBOX_EPOCHS] = { "inbox_epochs",
			      "SELECT epoch, last_commit FROM inbox_epochs WHERE inbox_id = $1::bigint "
			      "ORDER BY epoch" },
	/* $1 inbox $2 epoch $3 newest commit read $4 messages read now */
	[ST_INBOX_EPOCH_SET] = { "inbox_epoch_set",
				 "INSERT INTO inbox_epochs (inbox_id, epoch, last_commit, messages) "
				 "VALUES ($1::bigint, $2::integer, $3, $4::bigint) ON CONFLICT (inbox_id, epoch) "
				 "DO UPDATE SET last_commit = EXCLUDED.last_commit, "
				 "messages = inbox_epochs.messages + EXCLUDED.messages" },
	/* $1 inbox $2 epoch $3 commit $4 message_id $5 in_reply_to $6 refs $7 subject
	 * $8 author $9 recipients $10 sent_at (NULL: unknown) $11 raw (scrubbed) $12 its bytes
	 * in hex when they are not UTF-8 (NULL: raw is them): stored once per
	 * Message-ID; its id, none when it was there */
	[ST_INBOX_MESSAGE_INSERT] = { "inbox_message_insert",
				      "INSERT INTO inbox_messages (inbox_id, epoch, git_commit, message_id, "
				      "in_reply_to, refs, subject, author, recipients, sent_at, raw, raw_bytes) VALUES "
				      "($1::bigint, $2::integer, $3, $4, $5, $6::text[], $7, $8, $9, "
				      "$10::timestamptz, $11, decode($12, 'hex')) ON CONFLICT (inbox_id, message_id) DO NOTHING "
				      "RETURNING id" },
};

const struct db_stmt_table db_stmts_inbox = DB_STMT_TABLE(stmts);

/* ST_INBOX_POLL_CLAIM's columns */
enum { CLAIM_NAME, CLAIM_URL, CLAIM_NOW, CLAIM_STARTED, CLAIM_SINCE };
/* ST_INBOX_EPOCHS' columns */
enum { EPOCH_EPOCH, EPOCH_LAST };

/* runs statement st with one int8 parameter, id */
static PGresult *exec_id(struct db_conn *c, enum inbox_stmt st, long long id, struct err *e)
{
	return db_query_id(c, &stmts[st], id, e);
}

/* whether st's one row says true (a pg_try_advisory_lock(), an EXISTS): 1, 0, -1 with e */
static int exec_id_bool(struct db_conn *c, enum inbox_stmt st, long long id, struct err *e)
{
	PGresult *r = exec_id(c, st, id, e);
	int yes;

	if (!r)
		return -1;
	yes = PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
	PQclear(r);
	return yes;
}

long long db_inbox_upsert(struct db_conn *c, const struct db_inbox_new *in, struct err *e)
{
	char pw[24], ps[24];
	struct db_param p[12] = { db_text(in->name),
				  db_text(in->url),
				  db_text(in->lists),
				  db_text(in->subject_prefixes),
				  db_text(in->paths),
				  db_text(in->plan),
				  db_text(in->cc_list ? "true" : "false"),
				  db_text(in->reply_no_change ? "true" : "false"),
				  db_text(pw),
				  db_text(ps),
				  db_text(in->since),
				  db_text(in->maintainers) };
	long long id;

	snprintf(pw, sizeof(pw), "%ld", in->parts_wait_s);
	snprintf(ps, sizeof(ps), "%ld", in->poll_s);
	if (db_query_int8(c, &stmts[ST_INBOX_UPSERT], 12, p, &id, e))
		return -1;
	return id;
}

int db_inboxes_json(struct db_conn *c, char **text, struct err *e)
{
	return db_query_json(c, &stmts[ST_INBOXES_JSON], 0, NULL, text, e);
}

int db_inbox_messages_json(struct db_conn *c, const char *name, char **text, struct err *e)
{
	struct db_param p[1] = { db_text(name) };

	return db_query_json(c, &stmts[ST_INBOX_MESSAGES_JSON], 1, p, text, e);
}

int db_inbox_poll_due(struct db_conn *c, long long **ids, size_t *n, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_INBOX_POLL_DUE], 0, NULL, 0, e);

	*ids = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r))
		*ids = xcalloc((size_t)PQntuples(r), sizeof(**ids));
	for (int i = 0; i < PQntuples(r); i++)
		(*ids)[i] = strtoll(PQgetvalue(r, i, 0), NULL, 10);
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

int db_inbox_poll_lock(struct db_conn *c, long long id, struct err *e)
{
	return exec_id_bool(c, ST_INBOX_POLL_LOCK, id, e);
}

void db_inbox_poll_unlock(struct db_conn *c, long long id)
{
	struct err e;

	PQclear(exec_id(c, ST_INBOX_POLL_UNLOCK, id, &e));
}

int db_inbox_poll_hold(struct db_conn *c, long long id, struct err *e)
{
	int held = exec_id_bool(c, ST_INBOX_POLL_HELD, id, e);

	if (held < 0)
		return -1;
	return held ? 1 : db_inbox_poll_lock(c, id, e);
}

int db_inbox_poll_claim(struct db_conn *c, long long id, struct db_inbox_poll *p, struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_POLL_CLAIM, id, e);
	const char *since;

	memset(p, 0, sizeof(*p));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	p->name = xstrdup(PQgetvalue(r, 0, CLAIM_NAME));
	p->url = xstrdup(PQgetvalue(r, 0, CLAIM_URL));
	p->started = PQgetvalue(r, 0, CLAIM_STARTED)[0] == 't';
	since = PQgetvalue(r, 0, CLAIM_SINCE);
	p->since = since[0] ? strtoll(since, NULL, 10) : -1;
	PQclear(r);
	return 1;
}

void db_inbox_poll_release(struct db_inbox_poll *p)
{
	free(p->name);
	free(p->url);
	memset(p, 0, sizeof(*p));
}

int db_inbox_poll_done(struct db_conn *c, long long id, long ms, const char *error, struct err *e)
{
	char m[24];
	struct db_param p[3] = { db_int8(id), db_text(m), db_text(error) };

	snprintf(m, sizeof(m), "%ld", ms);
	return db_query_do(c, &stmts[ST_INBOX_POLL_DONE], 3, p, e);
}

int db_inbox_epochs(struct db_conn *c, long long id, struct db_inbox_epoch **ep, size_t *n,
		    struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_EPOCHS, id, e);

	*ep = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r))
		*ep = xcalloc((size_t)PQntuples(r), sizeof(**ep));
	for (int i = 0; i < PQntuples(r); i++) {
		(*ep)[i].epoch = (int)strtol(PQgetvalue(r, i, EPOCH_EPOCH), NULL, 10);
		snprintf((*ep)[i].last, sizeof((*ep)[i].last), "%s", PQgetvalue(r, i, EPOCH_LAST));
	}
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

int db_inbox_epoch_set(struct db_conn *c, long long id, int epoch, const char *last, long added,
		       struct err *e)
{
	char ep[24];
	struct db_param p[4] = { db_int8(id), db_text(ep), db_text(last), db_int8(added) };

	snprintf(ep, sizeof(ep), "%d", epoch);
	return db_query_do(c, &stmts[ST_INBOX_EPOCH_SET], 4, p, e);
}

int db_inbox_message_insert(struct db_conn *c, long long inbox_id, const struct db_inbox_message *m,
			    struct err *e)
{
	char ep[24];
	struct db_param p[12] = { db_int8(inbox_id),	   db_text(ep),
				  db_text(m->git_commit),  db_text(m->message_id),
				  db_text(m->in_reply_to), db_text(m->refs),
				  db_text(m->subject),	   db_text(m->author),
				  db_text(m->recipients),  db_text(m->sent_at),
				  db_text(m->raw),	   db_text(m->raw_hex) };
	long long rows;

	snprintf(ep, sizeof(ep), "%d", m->epoch);
	rows = db_query_rows(c, &stmts[ST_INBOX_MESSAGE_INSERT], 12, p, e);
	return rows < 0 ? -1 : rows > 0;
}
