#ifndef REGTRACK_SERVER_DB_REQUESTS_H
#define REGTRACK_SERVER_DB_REQUESTS_H

#include <stddef.h>

#include "err.h"
#include "server/db/jobs.h"

struct db_conn;

/*
 * Typed reads and writes of A/B requests (sql/0016; SQL in db/requests.c).
 * Ids are PostgreSQL bigints. Every function that fails returns -1 with e
 * filled as the store fills it (db.h): 503 "db_unavailable", 409 "conflict", 500
 * "db_error"; other errors are listed with it. The JSON replies
 * (ST_REQUEST_JSON, ST_REQUESTS_JSON) are read through the generic
 * reply_by_id()/reply_list() of api/args.h.
 */

/* A request to store (ST_REQUEST_INSERT). Strings borrowed from the caller. */
struct db_request_new {
	long long tree_id;
	const char *base_ref, *base_sha; /* sha: 40 hex */
	const char *head_ref, *head_sha; /* NULL both for patches */
	const char *patches;		 /* the mbox; NULL for a head commit */
	long nr_patches;
	const char *spec;	    /* JSON object text */
	const char *notify, *label; /* NULL: none */
	long long token_id;	    /* 0: none */
};
/*
 * Stores r; returns the new id (> 0) or -1 with e. A request with no
 * base_sha is stored in state "resolving" (its refs resolved later, then
 * db_request_resolved()); one with a base_sha in state "queued".
 */
long long db_request_insert(struct db_conn *c, const struct db_request_new *r, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Queues job j as side ("base" / "head") of round `round` of group `group`
 * (an index of the request's spec.groups) of request request_id
 * (ST_REQUEST_JOB_INSERT). Returns the job id or -1 with e.
 */
long long db_request_job_insert(struct db_conn *c, const struct db_job_new *j, long long request_id,
				const char *side, int round, int group, struct err *e)
	__attribute__((warn_unused_result));

/* The request job job_id belongs to: 1 with *id, 0 when none (or no such job), -1 with e. */
int db_request_of_job(struct db_conn *c, long long job_id, long long *id, struct err *e)
	__attribute__((warn_unused_result));

/* A request waiting for its refs (ST_REQUESTS_RESOLVING). */
struct db_request_resolving {
	long long id, tree_id;
	char tree[129]; /* the tree's name */
};
/*
 * The oldest requests (at most 200) in state "resolving": the count with
 * *out a new array (caller frees; NULL when 0), or -1 with e.
 */
long db_requests_resolving(struct db_conn *c, struct db_request_resolving **out, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Request id's submission as stored while it resolves (ST_REQUEST_SUBMISSION):
 * 1 with *spec (new: the checked body's JSON text), *patches (new, NULL
 * for a head commit; caller frees both) and *token_id (0: none), 0 when
 * the request is not resolving (any more), -1 with e.
 */
int db_request_submission(struct db_conn *c, long long id, char **spec, char **patches,
			  long long *token_id, struct err *e) __attribute__((warn_unused_result));

/*
 * Request id resolved (ST_REQUEST_RESOLVED): base_sha, head_sha (NULL for
 * patches) and the full spec (JSON text) stored, state "queued". Inside
 * the caller's transaction, with its jobs. 1 done, 0 when it was no longer
 * resolving (cancelled meanwhile), -1 with e. Strings borrowed.
 */
int db_request_resolved(struct db_conn *c, long long id, const char *base_sha, const char *head_sha,
			const char *spec, struct err *e) __attribute__((warn_unused_result));

/*
 * Fails tree tree_id's requests still resolving with ids first..last,
 * reason (borrowed) as their fail_reason (ST_REQUEST_RESOLVE_FAILED): the
 * count, or -1 with e. first = last: that one request.
 */
long db_request_resolve_failed(struct db_conn *c, long long tree_id, long long first,
			       long long last, const char *reason, struct err *e)
	__attribute__((warn_unused_result));

/* A request row locked FOR UPDATE with its jobs' tally (ST_REQUEST_LOCK). */
struct db_request_lock {
	char state[16];	     /* as stored: queued, running, done, failed, cancelled */
	char *spec;	     /* new: the spec JSON text (db_request_lock_release) */
	long jobs, finished; /* all its jobs; those done, failed or cancelled */
	long failed;	     /* failed (no worker finished it) or done with outcome != ok */
	char *first_failure; /* new: "head job 12 (round 0, vm-2p): build-failed: ..." or NULL */
	char head_sha[41];   /* the commit the first head run recorded; "" when none yet */
};
/*
 * Locks request id inside the caller's transaction: 1 with *out filled
 * (release it), 0 when there is no such request (*out zeroed), -1 with e.
 */
int db_request_lock(struct db_conn *c, long long id, struct db_request_lock *out, struct err *e)
	__attribute__((warn_unused_result));
void db_request_lock_release(struct db_request_lock *l);

/* One (group, side, metric) of a request's runs (ST_REQUEST_SAMPLES). */
struct db_request_sample {
	int group;	      /* index into the request's spec.groups */
	int head;	      /* 1 head side, 0 base */
	char *metric;	      /* new */
	int higher_is_better; /* 1, 0, -1 unknown (the metrics registry) */
	int is_monitor;
	double *values; /* new: the per-run means, in run order */
	size_t n;
};
/*
 * Every sample set of request id, ordered by group, metric, then base
 * before head. Returns the count with *out a new array (NULL when 0; free
 * with db_request_samples_free), or -1 with e.
 */
long db_request_samples(struct db_conn *c, long long id, struct db_request_sample **out,
			struct err *e) __attribute__((warn_unused_result));
void db_request_samples_free(struct db_request_sample *s, long n);

/*
 * Ends request id (ST_REQUEST_FINISH) with state ("done" / "failed"),
 * verdict (NULL when failed), result (JSON text or NULL), fail_reason and
 * head_sha (NULL: keep) if it is not final yet: 1 ended, 0 it was, -1 with e.
 */
int db_request_finish(struct db_conn *c, long long id, const char *state, const char *verdict,
		      const char *result, const char *fail_reason, const char *head_sha,
		      struct err *e) __attribute__((warn_unused_result));

/*
 * Cancels request id and its unfinished jobs (ST_REQUEST_SET_CANCELLED,
 * ST_REQUEST_CANCEL_JOBS), in the caller's transaction: 1 with *jobs the
 * number of jobs cancelled, 0 when it is final already (or absent), -1.
 */
int db_request_cancel(struct db_conn *c, long long id, long *jobs, struct err *e)
	__attribute__((warn_unused_result));

/* Cancels request id's unfinished jobs (ST_REQUEST_CANCEL_JOBS): 0 with *jobs their number, -1. */
int db_request_cancel_jobs(struct db_conn *c, long long id, long *jobs, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The arch of the machines of tbox_group (the latest seen): 1 with arch
 * (n bytes) filled, 0 when no machine of that group ever registered, -1.
 */
int db_request_tbox_arch(struct db_conn *c, const char *tbox_group, char *arch, size_t n,
			 struct err *e) __attribute__((warn_unused_result));

/* The measured noise of one metric of a setup's history (ST_REQUEST_NOISE). */
struct db_noise {
	char metric[128];
	int is_monitor;
	long long df;	   /* sum over commits of (runs - 1) */
	double cv_pct;	   /* pooled within-commit coefficient of variation, percent */
	long long runs;	   /* runs at the commits with 2 or more */
	long long commits; /* commits with 2 or more runs */
};
/*
 * The noise of the history of the setup (testcase, params JSON text, kconfig,
 * compiler, mode, tbox_group or, when tbox_group is NULL, any tbox_group of
 * machines of arch), per metric by name: the count with *out a new array
 * (free(); NULL when 0), or -1 with e.
 */
long db_request_noise(struct db_conn *c, const char *testcase, const char *params,
		      const char *kconfig, const char *compiler, const char *mode,
		      const char *tbox_group, const char *arch, struct db_noise **out,
		      struct err *e) __attribute__((warn_unused_result));

/*
 * The mbox request id was submitted with, byte for byte (ST_REQUEST_PATCHES):
 * 1 with *text (new, caller frees; NULL when the request tests a head
 * commit and has none), 0 when there is no such request, -1 with e.
 */
int db_request_patches(struct db_conn *c, long long id, char **text, struct err *e)
	__attribute__((warn_unused_result));

/* Request id as its GET reply shows it (ST_REQUEST_JSON): 1 with *text (new), 0 none, -1 with e. */
int db_request_json(struct db_conn *c, long long id, char **text, struct err *e)
	__attribute__((warn_unused_result));

/*
 * GET /api/v1/requests, newest first.
 * As the public API's JSON, written by PostgreSQL's json functions (the
 * handler writes it again, compact): 0 and *text, a new NUL-terminated
 * string the caller free()s, or -1 with e: ERR_NOT_FOUND (404, detail
 * "id") when there is no row, else the store's errors (db.h). state is one of the
 * resource's state names or NULL (any); limit, decimal text, the most rows.
 */
int db_requests_json(struct db_conn *c, const char *state, const char *limit, char **text,
		     struct err *e) __attribute__((warn_unused_result));
/* Whether A/B request id exists: 1, 0, or -1 with e. */
int db_request_exists(struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));

#endif
