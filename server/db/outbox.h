#ifndef REGTRACK_SERVER_DB_OUTBOX_H
#define REGTRACK_SERVER_DB_OUTBOX_H

#include "err.h"

struct db_conn;
struct db_result;

/*
 * The outbox table (sql/0005): typed rows and updates for outbox.c and
 * mailer.c (statements ST_OUTBOX_* in db/outbox.c). Ids are bigint keys
 * (0 = none). None of these begins or commits a transaction.
 *
 * Errors (every function): -1 with e from the store (db.h): ERR_DB_UNAVAILABLE
 * (503 db_unavailable), ERR_DB_TIMEOUT (503), ERR_DB (500 db_error).
 */

/* Inserts a row of `kind` (outbox.h's kinds); ids 0 = NULL. Returns its id or -1 with e. */
long long db_outbox_insert(struct db_conn *c, const char *kind, long long regression_id,
			   long long bisect_id, struct err *e) __attribute__((warn_unused_result));

/*
 * Queues the result mail of A/B request request_id (kind "request") when it
 * has an address to notify: 1 queued, 0 no notify, -1 with e.
 */
int db_outbox_insert_request(struct db_conn *c, long long request_id, struct err *e)
	__attribute__((warn_unused_result));

struct db_outbox_claim {
	long long id;
	char kind[16];			    /* "bisect", "range", "fixed" or "request" */
	long long regression_id, bisect_id; /* 0 when NULL */
	long long request_id;		    /* kind "request": the A/B request (0 otherwise) */
	int rendered;			    /* its subject (and so its text) is stored */
};

/*
 * Locks the oldest due queued row for the transaction (FOR UPDATE SKIP
 * LOCKED): 1 and out, 0 when none is due, -1 with e.
 */
int db_outbox_claim(struct db_conn *c, struct db_outbox_claim *out, struct err *e)
	__attribute__((warn_unused_result));

struct db_outbox_root {
	long long id;
	char message_id[256]; /* "" while the root is not rendered */
	char *subject;	      /* "" while not rendered; malloc'ed, the caller frees it */
};

/*
 * The thread root of row `id`: the first report of regression
 * `regression_id` before it that is not a follow-up and not given up.
 * 1 and out, 0 when there is none, -1 with e.
 */
int db_outbox_thread_root(struct db_conn *c, long long regression_id, long long id,
			  struct db_outbox_root *out, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The thread a report of the same culprit on another arch replies to: the
 * first report (kind bisect or range, not given up) before row `id` about
 * one of regression_ids or made by one of bisect_ids (PostgreSQL array
 * texts, "{3,4}"; "{}" = none). 1 and out, 0 when there is none, -1 with e.
 */
int db_outbox_sibling_root(struct db_conn *c, const char *regression_ids, const char *bisect_ids,
			   long long id, struct db_outbox_root *out, struct err *e)
	__attribute__((warn_unused_result));

/* Queues every 'held' row again, due now. Returns how many, or -1 with e. */
long long db_outbox_release_held(struct db_conn *c, struct err *e)
	__attribute__((warn_unused_result));

struct db_outbox_row {
	const char *subject, *body, *message_id;
	const char *in_reply_to; /* NULL for a thread's first mail */
	const char *recipients;	 /* space-separated addresses */
	const char *cc;		 /* space-separated addresses, "" none */
	struct db_result *res;	 /* private: owns the strings until db_outbox_row_free() */
};

/* The rendered text of row `id`: 1 and out, 0 when there is no such row, -1 with e. */
int db_outbox_row(struct db_conn *c, long long id, struct db_outbox_row *out, struct err *e)
	__attribute__((warn_unused_result));
void db_outbox_row_free(struct db_outbox_row *r);

/*
 * Stores what row `id` renders to: subject, body, message_id, in_reply_to
 * (NULL none), recipients (space-separated), its regression and thread
 * root (0 = none). 0 or -1 with e.
 */
int db_outbox_render(struct db_conn *c, long long id, const char *subject, const char *body,
		     const char *message_id, const char *in_reply_to, const char *recipients,
		     long long regression_id, long long root_id, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Sets row `id` to `state` ("failed", "skipped" or "held") with last_error
 * `why`. 0 or -1 with e.
 */
int db_outbox_give_up(struct db_conn *c, long long id, const char *state, const char *why,
		      struct err *e) __attribute__((warn_unused_result));
/* Row `id` waits one second more (for its thread's root). 0 or -1 with e. */
int db_outbox_defer(struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));
/* Row `id` went out: `state` "sent" or "dry_run". 0 or -1 with e. */
int db_outbox_done(struct db_conn *c, long long id, const char *state, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Sending row `id` failed with `why`: attempts + 1, due again in
 * min(2^attempts, max_s) seconds. 0 or -1 with e.
 */
int db_outbox_retry(struct db_conn *c, long long id, const char *why, long max_s, struct err *e)
	__attribute__((warn_unused_result));

#endif
