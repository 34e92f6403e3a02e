#ifndef REGTRACK_SERVER_DB_INBOX_H
#define REGTRACK_SERVER_DB_INBOX_H

#include <stddef.h>

#include "err.h"

struct db_conn;

/*
 * Typed rows of inboxes (sql/0031): what api/inboxes.c stores and reads,
 * and what the inbox poller (server/inbox/inbox_poll.c) claims and writes. All
 * functions return 0 (or the count/1 documented) or -1 with e filled (a
 * database error, ERR_DB; never database wording in e->message).
 */

/* An inbox as registered (every pointer borrowed from the caller). */
struct db_inbox_new {
	const char *name, *url;
	const char *lists, *subject_prefixes, *paths; /* text[] literals, e.g. {"a","b"} */
	const char *plan;			      /* NULL: none */
	int cc_list, reply_no_change;
	long parts_wait_s, poll_s;
	const char *since; /* a timestamptz text: the first poll reads back to it; NULL: none */
	const char *maintainers; /* text[] literal of MAINTAINERS entry names */
};
/* Stores a new inbox or a new filter for the one of that name; its id or -1 with e. */
long long db_inbox_upsert(struct db_conn *c, const struct db_inbox_new *in, struct err *e)
	__attribute__((warn_unused_result));
/* Every inbox as a JSON array text (ST_INBOXES_JSON): *text new, caller frees. */
int db_inboxes_json(struct db_conn *c, char **text, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Inbox name's messages, oldest first, as a JSON array text (none: "[]"); as
 * above. ERR_NOT_FOUND when no inbox has that name.
 */
int db_inbox_messages_json(struct db_conn *c, const char *name, char **text, struct err *e)
	__attribute__((warn_unused_result));

/* polls */

/* The inboxes due, most overdue first, at most 32: *ids new (caller frees; NULL when none). */
int db_inbox_poll_due(struct db_conn *c, long long **ids, size_t *n, struct err *e)
	__attribute__((warn_unused_result));
/*
 * The session's advisory lock of inbox id, without waiting: 1 taken, 0
 * another session (server) holds it, -1 with e. Held until
 * db_inbox_poll_unlock() or the connection's end (a killed server's goes).
 */
int db_inbox_poll_lock(struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));
/* Gives the lock back; failures ignored (the connection's end frees it too). */
void db_inbox_poll_unlock(struct db_conn *c, long long id);
/*
 * Whether this session still holds inbox id's lock, taking it again when a
 * reconnect (PQreset) lost it: 1 held, 0 another session took it meanwhile
 * (the poll must stop writing), -1 with e.
 */
int db_inbox_poll_hold(struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));
/* An inbox claimed for a poll. */
struct db_inbox_poll {
	char *name, *url; /* new copies (db_inbox_poll_release) */
	int started;	  /* 1: a poll ended without an error before */
	long long since;  /* Unix seconds the first poll reads back to; -1 none */
};
/* With the lock held: 1 when inbox id is still due (*p filled), 0 when not, -1 with e. */
int db_inbox_poll_claim(struct db_conn *c, long long id, struct db_inbox_poll *p, struct err *e)
	__attribute__((warn_unused_result));
void db_inbox_poll_release(struct db_inbox_poll *p);
/* Records a poll that took ms; error NULL for success, else shown on the inbox (backoff). */
int db_inbox_poll_done(struct db_conn *c, long long id, long ms, const char *error, struct err *e)
	__attribute__((warn_unused_result));

/* The newest commit read of each epoch of an inbox. */
struct db_inbox_epoch {
	int epoch;
	char last[41];
};
/* Inbox id's epochs read so far, by epoch: *ep new array of *n (caller frees; NULL when none). */
int db_inbox_epochs(struct db_conn *c, long long id, struct db_inbox_epoch **ep, size_t *n,
		    struct err *e) __attribute__((warn_unused_result));
/* Epoch `epoch` of inbox id is read up to commit `last` (40 hex), `added` more messages. */
int db_inbox_epoch_set(struct db_conn *c, long long id, int epoch, const char *last, long added,
		       struct err *e) __attribute__((warn_unused_result));

/* One message as the poller read it (all borrowed). */
struct db_inbox_message {
	int epoch;
	const char *git_commit, *message_id, *in_reply_to; /* in_reply_to NULL: none */
	const char *refs;				   /* text[] literal */
	const char *subject, *author, *recipients;
	const char *sent_at; /* RFC 3339 or NULL */
	const char *raw;     /* valid UTF-8 (scrubbed) */
	const char *raw_hex; /* the message's bytes in hex when raw was scrubbed; NULL: raw is it */
};
/* Stores a message once per (inbox, Message-ID): 1 stored, 0 already there, -1 with e. */
int db_inbox_message_insert(struct db_conn *c, long long inbox_id, const struct db_inbox_message *m,
			    struct err *e) __attribute__((warn_unused_result));

#endif
