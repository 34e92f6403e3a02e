/* Typed rows of inboxes, their epochs and messages; see inbox.h. */
#include "server/db/inbox.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PGresult *exec_id(struct db_conn *c, enum db_stmt st, long long id, struct err *e)
{
	char b[24];
	const char *p[1] = { b };

	snprintf(b, sizeof(b), "%lld", id);
	return db_exec(c, st, 1, p, e);
}

long long db_inbox_upsert(struct db_conn *c, const struct db_inbox_new *in, struct err *e)
{
	char pw[24], ps[24];
	const char *p[12] = { in->name,
			      in->url,
			      in->lists,
			      in->subject_prefixes,
			      in->paths,
			      in->plan,
			      in->cc_list ? "true" : "false",
			      in->reply_no_change ? "true" : "false",
			      pw,
			      ps,
			      in->since,
			      in->maintainers };
	long long id;

	snprintf(pw, sizeof(pw), "%ld", in->parts_wait_s);
	snprintf(ps, sizeof(ps), "%ld", in->poll_s);
	if (db_one_int8(c, ST_INBOX_UPSERT, 12, p, &id, e))
		return -1;
	return id;
}

int db_inboxes_json(struct db_conn *c, char **text, struct err *e)
{
	return db_json_text(c, ST_INBOXES_JSON, 0, NULL, text, e);
}

int db_inbox_messages_json(struct db_conn *c, const char *name, char **text, struct err *e)
{
	const char *p[1] = { name };

	return db_json_text(c, ST_INBOX_MESSAGES_JSON, 1, p, text, e);
}

int db_inbox_poll_due(struct db_conn *c, long long **ids, size_t *n, struct err *e)
{
	PGresult *r = db_exec(c, ST_INBOX_POLL_DUE, 0, NULL, e);

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
	PGresult *r = exec_id(c, ST_INBOX_POLL_LOCK, id, e);
	int got;

	if (!r)
		return -1;
	got = PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
	PQclear(r);
	return got;
}

void db_inbox_poll_unlock(struct db_conn *c, long long id)
{
	struct err e;

	PQclear(exec_id(c, ST_INBOX_POLL_UNLOCK, id, &e));
}

int db_inbox_poll_hold(struct db_conn *c, long long id, struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_POLL_HELD, id, e);
	int held;

	if (!r)
		return -1;
	held = PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
	PQclear(r);
	return held ? 1 : db_inbox_poll_lock(c, id, e);
}

int db_inbox_poll_claim(struct db_conn *c, long long id, struct db_inbox_poll *p, struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_POLL_CLAIM, id, e);

	memset(p, 0, sizeof(*p));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	p->name = xstrdup(PQgetvalue(r, 0, 0));
	p->url = xstrdup(PQgetvalue(r, 0, 1));
	p->started = PQgetvalue(r, 0, 3)[0] == 't';
	p->since = PQgetvalue(r, 0, 4)[0] ? strtoll(PQgetvalue(r, 0, 4), NULL, 10) : -1;
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
	char b[24], m[24];
	const char *p[3] = { b, m, error };
	PGresult *r;

	snprintf(b, sizeof(b), "%lld", id);
	snprintf(m, sizeof(m), "%ld", ms);
	r = db_exec(c, ST_INBOX_POLL_DONE, 3, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
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
		(*ep)[i].epoch = (int)strtol(PQgetvalue(r, i, 0), NULL, 10);
		snprintf((*ep)[i].last, sizeof((*ep)[i].last), "%s", PQgetvalue(r, i, 1));
	}
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

int db_inbox_epoch_set(struct db_conn *c, long long id, int epoch, const char *last, long added,
		       struct err *e)
{
	char b[24], ep[24], a[24];
	const char *p[4] = { b, ep, last, a };
	PGresult *r;

	snprintf(b, sizeof(b), "%lld", id);
	snprintf(ep, sizeof(ep), "%d", epoch);
	snprintf(a, sizeof(a), "%ld", added);
	r = db_exec(c, ST_INBOX_EPOCH_SET, 4, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_inbox_message_insert(struct db_conn *c, long long inbox_id, const struct db_inbox_message *m,
			    struct err *e)
{
	char b[24], ep[24];
	const char *p[12] = { b,       ep,	   m->git_commit, m->message_id, m->in_reply_to,
			      m->refs, m->subject, m->author,	  m->recipients, m->sent_at,
			      m->raw,  m->raw_hex };
	long long rows;

	snprintf(b, sizeof(b), "%lld", inbox_id);
	snprintf(ep, sizeof(ep), "%d", m->epoch);
	rows = db_rows(c, ST_INBOX_MESSAGE_INSERT, 12, p, e);
	return rows < 0 ? -1 : rows > 0;
}
