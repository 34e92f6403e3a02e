#ifndef REGTRACK_SERVER_DB_INBOX_REPLY_H
#define REGTRACK_SERVER_DB_INBOX_REPLY_H

#include <stddef.h>

#include "err.h"

struct db_conn;

/*
 * Typed rows of a series' reply in its list thread (sql/0031; server/inbox/inbox_reply.c).
 * 0 (or the flag documented) or -1 with e (ERR_DB).
 */

/* A queued series whose request ended (new copies; db_inbox_ended_free). */
struct db_inbox_ended {
	long long id;
	char *state, *verdict, *fail_reason; /* verdict, fail_reason: NULL none */
	int reply_no_change;
};
int db_inbox_series_ended(struct db_conn *c, long long inbox_id, struct db_inbox_ended **rows,
			  size_t *n, struct err *e) __attribute__((warn_unused_result));
void db_inbox_ended_free(struct db_inbox_ended *rows, size_t n);
/* Queues series id's reply: 1 with *outbox_id, 0 when it has one already, -1 with e. */
int db_inbox_reply_queue(struct db_conn *c, long long id, long long *outbox_id, struct err *e)
	__attribute__((warn_unused_result));
/* Series id ended: state ("tested" or "replied"), verdict, reason (NULL keep), its reply row (<= 0 none). */
int db_inbox_series_ended_set(struct db_conn *c, long long id, const char *state,
			      const char *verdict, const char *reason, long long outbox_id,
			      struct err *e) __attribute__((warn_unused_result));

/* What the reply of outbox row id needs (new copies; db_inbox_reply_input_release). */
struct db_inbox_reply_input {
	long long request_id;
	char *anchor, *subject, *author; /* author: the anchor's From: as sent */
	char *cc;			 /* lists to Cc, one a line; "" none */
	char *verdict;
	char *title; /* the series' title: its cover letter's (else patch 1's) subject after the bracket */
};
/* 1 filled, 0 no such row (or not an inbox reply), -1 with e. */
int db_inbox_reply_input(struct db_conn *c, long long outbox_id, struct db_inbox_reply_input *in,
			 struct err *e) __attribute__((warn_unused_result));
void db_inbox_reply_input_release(struct db_inbox_reply_input *in);
/* Outbox row id's Cc addresses (a text[] literal). */
int db_outbox_set_cc(struct db_conn *c, long long id, const char *cc, struct err *e)
	__attribute__((warn_unused_result));

#endif
