#ifndef REGTRACK_SERVER_DB_REQUEST_MAIL_H
#define REGTRACK_SERVER_DB_REQUEST_MAIL_H

#include <stddef.h>

#include "abmail.h"
#include "err.h"

struct db_conn;
struct db_result;

/*
 * What an A/B request's result mail says (lib/abmail.h), read as typed
 * rows (db/request_mail.c ST_REQUEST_MAIL*): the request's columns and
 * its stored spec's and result's fields, each NULL (NAN, 0) where the
 * stored JSON lacks the field or has another type there.
 *
 * Ownership: every string (and the arrays' strings) is borrowed from the
 * result sets held in the struct until db_request_mail_free(), which also
 * frees the arrays; freeing a zeroed or freed struct is a no-op.
 */
struct db_request_mail {
	const char *state; /* as shown: the stored one once final, else from its jobs */
	const char *verdict, *fail_reason;
	const char *tree; /* the tree's name */
	const char *base_ref, *base_sha, *head_ref, *head_sha;
	int patches; /* 1: the head is base + a submitted mbox */
	long long nr_patches;
	const char *patch_subject, *patch_id;
	const char *compiler;
	long long repeat; /* runs a side; 0 when not stored as an integer */
	const char *repeat_why, *label, *notify;
	const char *reproduce; /* the curl that queues the request again */
	struct db_request_mail_group {
		const char *target, *testcase, *kconfig;
		const char *params; /* the setup's params, JSON object text; NULL none */
		/* the setup and commit of its newest ok base run; 0 when it has none */
		long long base_setup_id, base_commit_id;
	} * groups;
	size_t nr_groups;
	struct abmail_row *rows; /* the verdict's rows, as stored */
	size_t nr_rows;
	const char **targets;
	size_t nr_targets;
	struct abmail_command *local; /* abtest_reproduce_local()'s, as stored */
	size_t nr_local;
	/* private */
	struct db_result *res[5];
};

/*
 * Reads request `request_id` into out (zeroed first; five statements, in
 * the caller's transaction if any). 1 filled, 0 no such request, -1 with e
 * (the store's, db.h: ERR_DB_UNAVAILABLE, ERR_DB_TIMEOUT, ERR_DB).
 */
int db_request_mail(struct db_conn *c, long long request_id, struct db_request_mail *out,
		    struct err *e) __attribute__((warn_unused_result));
void db_request_mail_free(struct db_request_mail *m);

#endif
