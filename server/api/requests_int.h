#ifndef REGTRACK_SERVER_API_REQUESTS_INT_H
#define REGTRACK_SERVER_API_REQUESTS_INT_H

/*
 * What requests.c (checking a submission) and requests_store.c (storing
 * it: the spec, the reproduce commands, the jobs) share.
 */
#include "server/api/api.h"
#include "server/abtest/abtest.h"
#include "mbox.h"
#include "profile.h"

struct db_conn;

#define MAX_ROUNDS 4	     /* A B alternations; each job is one build and boot */
#define REQUEST_PRIORITY 200 /* above tracking (plan priorities are -100..100) */

/* one target x testcase of the request */
struct group {
	const char *target, *arch, *tbox_group, *testcase;
	char kconfig[160], capability[32];
	char *params; /* new: canonical JSON text */
	long long testcase_id;
};

struct submission {
	const char *tree, *base, *head, *patches, *kconfig, *compiler, *measure, *notify, *label;
	long long repeat, tree_id; /* repeat 0: chosen from the setup's noise (choose_repeat) */
	char *repeat_why;	   /* new, when chosen */
	json_t *noise;		   /* new, when chosen: what each metric's spread asked for */
	double min_change_pct;	   /* NAN: the metric's floor */
	struct mbox_info mbox;
	char base_sha[41], head_sha[41];
	struct group *groups;
	size_t nr_groups;
	int host;
	char monitors[MONITORS_TEXT_MAX]; /* normalized, "" = none (both sides alike) */
};

/* Frees what s holds (not s). */
void requests_submission_release(struct submission *s);

/* The groups as abtest.h names their setups: a new array (caller frees), borrowing from s. */
struct abtest_setup *requests_setups(const struct submission *s);

/*
 * The request s (checked, refs resolved, repeat chosen) and its jobs in one
 * transaction, pairs in A B order, round-major; b is the submission body
 * (borrowed). id 0: a new request in state "queued"; id > 0: request id,
 * stored in state "resolving", resolved (db_request_resolved). Returns the
 * request's id, 0 when request id was no longer resolving (nothing
 * stored), or -1 with e.
 */
long long requests_store(struct server *srv, long long token_id, struct db_conn *c,
			 struct submission *s, json_t *b, long long id, struct err *e)
	__attribute__((warn_unused_result));

#endif
