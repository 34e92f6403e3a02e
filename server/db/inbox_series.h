#ifndef REGTRACK_SERVER_DB_INBOX_SERIES_H
#define REGTRACK_SERVER_DB_INBOX_SERIES_H

#include <stddef.h>

#include "buf.h"
#include "err.h"

struct db_conn;

/*
 * Typed rows of series assembly (sql/0031 inbox_series; server/inbox/inbox_series.c).
 * Every function returns 0 (or the count/flag documented) or -1 with e
 * (ERR_DB, no database wording).
 */

/* A message not yet looked at (new copies; db_inbox_unassigned_free). */
struct db_inbox_unassigned {
	long long id;
	char *message_id, *refs; /* refs: the References ids, space-separated */
	char *subject, *recipients;
};
int db_inbox_unassigned(struct db_conn *c, long long inbox_id, struct db_inbox_unassigned **rows,
			size_t *n, struct err *e) __attribute__((warn_unused_result));
void db_inbox_unassigned_free(struct db_inbox_unassigned *rows, size_t n);
/* The subject of a stored message into out (cut to size-1): 1, 0 not stored, -1 with e. */
int db_inbox_message_subject(struct db_conn *c, long long inbox_id, const char *message_id,
			     char *out, size_t size, struct err *e)
	__attribute__((warn_unused_result));
/* Message row id looked at: its series (<= 0: none, not a patch) and part. */
int db_inbox_message_assign(struct db_conn *c, long long id, long long series_id, int part,
			    struct err *e) __attribute__((warn_unused_result));

/* A series as one of its parts names it (all borrowed). */
struct db_inbox_series_new {
	const char *anchor, *title, *author;
	int cover, version, total, resend;
	int lead; /* the part is 0 or 1: its version, total, title and author name the series */
};
/* The series' id (created waiting, deadline now + the inbox's parts_wait_s), or -1 with e. */
long long db_inbox_series_upsert(struct db_conn *c, long long inbox_id,
				 const struct db_inbox_series_new *s, struct err *e)
	__attribute__((warn_unused_result));

/* A waiting series (new copies; db_inbox_waiting_free). */
struct db_inbox_waiting {
	long long id;
	char *anchor, *title;
	int version, complete, expired;
};
int db_inbox_series_waiting(struct db_conn *c, long long inbox_id, struct db_inbox_waiting **rows,
			    size_t *n, struct err *e) __attribute__((warn_unused_result));
void db_inbox_waiting_free(struct db_inbox_waiting *rows, size_t n);

/*
 * The thread of series id as an mboxrd (each message after a "From
 * mboxrd@z ..." line, its ">*From " lines quoted once more) into *mbox,
 * and the text of its parts 0 and 1 into *lead (for base-commit:).
 */
int db_inbox_series_thread(struct db_conn *c, long long id, struct buf *mbox, struct buf *lead,
			   struct err *e) __attribute__((warn_unused_result));

/* An inbox's filter and its plan's tree (new copies; db_inbox_filter_release). */
struct db_inbox_filter {
	char *lists, *prefixes, *paths;	  /* one item a line, "" none */
	char *maintainers;		  /* MAINTAINERS entry names, one a line, "" none */
	char *plan, *tree, *url, *branch; /* NULL: none (no plan, no tree) */
};
int db_inbox_filter(struct db_conn *c, long long inbox_id, struct db_inbox_filter *f, struct err *e)
	__attribute__((warn_unused_result));
void db_inbox_filter_release(struct db_inbox_filter *f);

/*
 * Series id is now in `state` (reason, base, patch_ids: NULL keep; request
 * <= 0 keep); previous_id is set to the newest lower version of its title.
 */
int db_inbox_series_set(struct db_conn *c, long long id, const char *state, const char *reason,
			const char *base, const char *patch_ids, long long request_id,
			struct err *e) __attribute__((warn_unused_result));
/*
 * One more check of series id failed for a reason that may pass (reason
 * shown): it stays `waiting`, tried again after the inbox's poll_s doubled
 * per try (at most 6 h); the try numbered max_tries ends it `failed`. 1 it
 * ended, 0 it waits, -1 with e.
 */
int db_inbox_series_retry(struct db_conn *c, long long id, const char *reason, int max_tries,
			  struct err *e) __attribute__((warn_unused_result));
/* An earlier queued series with these patch-ids: its id in *dup; 1, 0 none, -1 with e. */
int db_inbox_series_dup(struct db_conn *c, long long id, const char *patch_ids, long long *dup,
			struct err *e) __attribute__((warn_unused_result));
/* Series id repeats series dup (state duplicate). */
int db_inbox_series_dup_set(struct db_conn *c, long long id, long long dup, const char *patch_ids,
			    struct err *e) __attribute__((warn_unused_result));
/*
 * A request of this label and these patches that no series links yet (one
 * queued by a server killed before it recorded it): 1 with *id, 0 none, -1 with e.
 */
int db_inbox_request_adopt(struct db_conn *c, const char *label, const char *patches, long long *id,
			   struct err *e) __attribute__((warn_unused_result));
/*
 * Inbox name's series, newest first, as a JSON array text (new, caller frees;
 * none: "[]"). ERR_NOT_FOUND when no inbox has that name.
 */
int db_inbox_series_json(struct db_conn *c, const char *name, char **text, struct err *e)
	__attribute__((warn_unused_result));

#endif
