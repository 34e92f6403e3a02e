#ifndef REGTRACK_SERVER_DB_PROFILES_H
#define REGTRACK_SERVER_DB_PROFILES_H

/*
 * Run profiles (sql/0018 run_profiles) and the runs a profile diff reads
 * (statements in db/profiles.c). Every function that fails returns
 * -1 with e filled as the store fills it (db.h): 503 db_unavailable, 500 db_error.
 */
#include <stddef.h>

#include "err.h"
#include "server/db/series.h"

struct db_conn;
struct db_result;

/* Stores run run_id's (runs.id) profile, inside the caller's transaction. 0 or -1 with e. */
int db_profile_insert(struct db_conn *c, long long run_id, const char *event, long long samples,
		      const char *folded, struct err *e) __attribute__((warn_unused_result));

/* A run's profile (ST_PROFILE_OF_RUN). */
struct db_run_profile {
	const char *event;  /* NULL when the run has no profile */
	long long samples;  /* as perf counted them */
	const char *folded; /* folded_len bytes, NUL-terminated */
	size_t folded_len;
	struct db_result *res_; /* the row the strings point into */
};
/*
 * The profile of the run whose run_id is uuid (text): 1 with *out (until
 * db_run_profile_free(); out->event NULL when the run has none), 0 when
 * there is no such run, -1 with e.
 */
int db_run_profile(struct db_conn *c, const char *uuid, struct db_run_profile *out, struct err *e)
	__attribute__((warn_unused_result));
void db_run_profile_free(struct db_run_profile *p);

/* One profiled run of a diff. */
struct db_profile_run {
	long long id;	    /* runs.id: a run and its profile never change once stored */
	int head;	    /* 1: head side, 0: base */
	const char *commit; /* its commit's sha */
	const char *folded; /* folded_len bytes ("" when read with no_text) */
	size_t folded_len;
	long long setup_id; /* the run's setup (setups.id) */
	const char *event;  /* what perf sampled ("cpu-clock") */
	/* its work: the mean of the first of work_metrics it has (work_metric,
	 * NULL when none: work NAN) times its setup's runtime param in seconds
	 * (1 without one), lib/profile.h's PROFILE_WORK_METRICS */
	double work;
	const char *work_metric;
};

struct db_profile_runs {
	struct db_profile_run *rows; /* in run order (malloc'd) */
	size_t nr;
	struct db_result *res_; /* the rows the strings point into */
};

/*
 * The profiled runs (status ok) of commits base_id and head_id (commits.id
 * as text) in setups matching f (ST_PROFILE_RUNS_COMMITS). In each of
 * these, work_metrics (borrowed) names the metrics that count a run's
 * work, separated by ' ' (PROFILE_WORK_METRICS, or one the caller chose),
 * and no_text 1 reads the runs without their folded text (what a cached
 * diff is looked up by: the stacks stay in the database).
 */
int db_profile_runs_commits(struct db_conn *c, const char *base_id, const char *head_id,
			    const struct db_setup_filter *f, const char *work_metrics, int no_text,
			    struct db_profile_runs *out, struct err *e)
	__attribute__((warn_unused_result));
/* The profile round's runs of bisect id (ST_PROFILE_RUNS_BISECT). */
int db_profile_runs_bisect(struct db_conn *c, long long id, const char *work_metrics, int no_text,
			   struct db_profile_runs *out, struct err *e)
	__attribute__((warn_unused_result));
/*
 * The profiled runs of request id's jobs, base and head, of target and
 * testcase (each NULL: any) (ST_PROFILE_RUNS_REQUEST).
 */
int db_profile_runs_request(struct db_conn *c, long long id, const char *target,
			    const char *testcase, const char *work_metrics, int no_text,
			    struct db_profile_runs *out, struct err *e)
	__attribute__((warn_unused_result));
void db_profile_runs_free(struct db_profile_runs *r);

/*
 * The two ends of a bisect's profile diff: 1 with state (size bytes), its
 * first bad commit and the parent the verification compared it with
 * (each a sha, "" when none), 0 when there is no bisect id, -1 with e.
 */
int db_profile_bisect_ends(struct db_conn *c, long long id, char *state, size_t size,
			   char first_bad[41], char parent[41], struct err *e)
	__attribute__((warn_unused_result));
/*
 * A request's base and head commits ("" for a head not known yet): 1, 0
 * when there is no request id, -1 with e.
 */
int db_profile_request_ends(struct db_conn *c, long long id, char base[41], char head[41],
			    struct err *e) __attribute__((warn_unused_result));

/* bisects' profile round (server/bisect/bisect_step.c) */

/* Sets bisect id's monitors (normalized text, "" = no profile round). 0 or -1 with e. */
int db_bisect_set_monitors(struct db_conn *c, long long id, const char *monitors, struct err *e)
	__attribute__((warn_unused_result));
/* Bisect id's monitors into out ("" when none or no such bisect). 0 or -1 with e. */
int db_bisect_monitors(struct db_conn *c, long long id, char out[32], struct err *e)
	__attribute__((warn_unused_result));
/*
 * The profile round's jobs of bisect id at commits a and b (ids): *total
 * of them, *out still queued or leased. 0 or -1 with e.
 */
int db_bisect_profile_jobs(struct db_conn *c, long long id, long long a, long long b,
			   long long *total, long long *out, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Queues a profile-round job of bisect id at commit_id (the bisect's
 * setup and monitors; bisect_round round). 0 or -1 with e.
 */
int db_bisect_profile_job_insert(struct db_conn *c, long long id, long long commit_id,
				 const char *cap, int repeat, long priority, long max_attempts,
				 int round, struct err *e) __attribute__((warn_unused_result));

#endif
