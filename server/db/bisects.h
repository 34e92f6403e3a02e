#ifndef REGTRACK_SERVER_DB_BISECTS_H
#define REGTRACK_SERVER_DB_BISECTS_H

#include <stddef.h>

#include "err.h"

struct db_conn;

/*
 * The bisects' rows as typed values, for the coordinator (bisect*.c),
 * made with the statements beside them in db/bisects.c and, for the
 * regression records a bisect links to, db/bisect_regs.c. Each function
 * runs one prepared statement on c, in the caller's transaction if one is
 * open. Ids are bigint row ids (0 =
 * none / SQL NULL). Errors are the store's (db.h) unless said otherwise (ERR_DB,
 * ERR_DB_UNAVAILABLE, ERR_DB_TIMEOUT, ERR_CONFLICT); every function
 * returns -1 with e filled on one. Arrays returned through **out are new
 * (caller free()s them; NULL when empty).
 *
 * A commit's id is db/runs.h's (db_commit_id()), beside the commits'
 * other statements; a tree's id and the tree mirror bookkeeping are
 * db/trees.h's (db_tree_id(), db_tree_mirror_todo(),
 * db_tree_mirror_set()), beside the trees' other statements.
 */

/* What ST_BISECT_LOCK reads of one active bisect; strings are heap copies (NULL = SQL NULL). */
struct db_bisect_row {
	long long id;
	char state[16];		     /* queued | running */
	int round;		     /* rounds of probes queued so far (0 before the first) */
	char *tree, *url, *branches; /* tree name, its url, its branches space-separated */
	char *good, *bad;	     /* shas of the range's ends */
	char *kconfig, *arch, *tbox; /* arch, tbox: NULL = any */
	char *measure;		     /* params.measure ("" when unset): "icount" is deterministic */
	char *params;		     /* the params' JSON object text: the probes' machine shape */
	char *metric;
	int runs_per_step, ref_runs, max_k, nr_candidates;
	long long regression_id, tree_id;
	int level;	  /* 0: the first-parent chain; n: n merges descended into */
	char *level_good; /* sha of the current level's good end (good at level 0) */
	long long level_good_id;
	char *descent; /* level > 0: the level above, as recorded (JSON text) */
};

/*
 * Locks bisect id (FOR UPDATE SKIP LOCKED, so inside a transaction) and
 * reads it into *b (zeroed first). Returns 1 when locked, 0 when it is not
 * queued or running or another server holds it, -1 with e.
 */
int db_bisect_lock(struct db_conn *c, long long id, struct db_bisect_row *b, struct err *e)
	__attribute__((warn_unused_result));
/* Frees b's strings and zeroes it; a zeroed row is fine. */
void db_bisect_row_release(struct db_bisect_row *b);

/* A new queued bisect (ST_BISECT_INSERT); strings borrowed for the call. */
struct db_bisect_new {
	long long tree_id, good_id, bad_id, testcase_id;
	const char *params; /* JSON object text */
	const char *kconfig, *compiler, *arch, *tbox_group,
		*metric; /* arch, tbox_group NULL = any */
	int runs_per_step, ref_runs, k;
	long long regression_id, token_id; /* 0 = none */
};
/* Inserts it; returns its id or -1 with e. */
long long db_bisect_insert(struct db_conn *c, const struct db_bisect_new *b, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Cancels bisect id and its unfinished jobs (reason NULL = "cancelled").
 * Returns 1 when it was queued or running, 0 when not, -1 with e.
 */
int db_bisect_cancel(struct db_conn *c, long long id, const char *reason, struct err *e)
	__attribute__((warn_unused_result));

/* How a bisect ends (ST_BISECT_FINISH); strings borrowed for the call. */
struct db_bisect_end {
	long long id;
	const char *state;		  /* done | failed */
	const char *outcome;		  /* found | ambiguous | NULL */
	long long first_bad;		  /* commit id; 0 = none */
	const char *candidates;		  /* bigint[] text ("{1,2}") or NULL */
	double confidence;		  /* NAN = NULL */
	const char *reason;		  /* NULL or "" = NULL */
	const char *verification, *model; /* JSON text or NULL (model NULL keeps the stored one) */
};
/*
 * Ends the bisect; *regression_id is the record it was started for (0 =
 * started by hand). Returns 0 or -1 with e.
 */
int db_bisect_finish(struct db_conn *c, const struct db_bisect_end *end, long long *regression_id,
		     struct err *e) __attribute__((warn_unused_result));
/*
 * The other records (ids) that share bisect id and still wait for it, in
 * id order: new array *out of *n. Returns 0 or -1 with e.
 */
int db_bisect_siblings_of(struct db_conn *c, long long id, long long **out, size_t *n,
			  struct err *e) __attribute__((warn_unused_result));
/* Records what a bisect started by hand found as a regression record (ST_BISECT_RECORD). */
int db_bisect_record(struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Adds the commits shas[0..n) (40-hex, borrowed; oldest first) as the
 * candidates of `level` of bisect id, those found in the commits table.
 * Returns how many rows it stored (fewer than n: some are not imported),
 * or -1 with e.
 */
long long db_bisect_commits_insert(struct db_conn *c, long long id, const char *const *shas,
				   size_t n, int level, struct err *e)
	__attribute__((warn_unused_result));
/* queued -> running with its nr_candidates and nr_range. Returns 0 or -1 with e. */
int db_bisect_start(struct db_conn *c, long long id, size_t nr_candidates, size_t nr_range,
		    struct err *e) __attribute__((warn_unused_result));
/* Moves bisect id to `level` with good end good_id, appending `descent` (a JSON object's text). */
int db_bisect_descend(struct db_conn *c, long long id, int level, long long good_id,
		      const char *descent, struct err *e) __attribute__((warn_unused_result));
/* Records that round `round` is out, in `phase`, with the model (JSON text). */
int db_bisect_round(struct db_conn *c, long long id, int round, const char *phase,
		    const char *model, struct err *e) __attribute__((warn_unused_result));

/* One candidate of the current level, in idx order. */
struct db_bisect_candidate {
	long long commit_id;
	char sha[41];
};
/* The candidates of bisect id's current level: new array *out of *n. 0 or -1 with e. */
int db_bisect_candidates(struct db_conn *c, long long id, struct db_bisect_candidate **out,
			 size_t *n, struct err *e) __attribute__((warn_unused_result));

/* One job of the bisect, in id order. */
struct db_bisect_job {
	long long commit_id;
	int round;		/* jobs.bisect_round */
	char state[16];		/* queued | leased | done | failed | cancelled */
	char outcome[32];	/* "" when the job has none */
	char image_sha256[65];	/* the image it built (sql/0022), "" when unknown */
	char same_image_as[41]; /* outcome same-image: the commit of that image, else "" */
};
/* Every job of bisect id: new array *out of *n. 0 or -1 with e. */
int db_bisect_jobs(struct db_conn *c, long long id, struct db_bisect_job **out, size_t *n,
		   struct err *e) __attribute__((warn_unused_result));

/* One sample: the mean of one ok run at candidate idx (-1 = the level's good end). */
struct db_bisect_sample {
	long idx;
	double value;
};
/*
 * The samples of bisect id (its own jobs' runs only unless reuse), in idx
 * then run order; runs without a value are left out. New array *out of *n.
 * 0 or -1 with e.
 */
int db_bisect_samples(struct db_conn *c, long long id, int reuse, struct db_bisect_sample **out,
		      size_t *n, struct err *e) __attribute__((warn_unused_result));

/* Steps recorded for round `round` of bisect id (>= 0), or -1 with e. */
long long db_bisect_steps_count(struct db_conn *c, long long id, int round, struct err *e)
	__attribute__((warn_unused_result));
/* One step (ST_BISECT_STEP_INSERT); strings borrowed for the call. */
struct db_bisect_step {
	long long bisect_id, commit_id;
	int round;
	const char *role, *verdict;
	const double *samples; /* stored as float8[] (%.17g), n of them */
	size_t n;
	const char *evidence; /* JSON object text */
};
int db_bisect_step_insert(struct db_conn *c, const struct db_bisect_step *s, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Machines matching arch / tbox_group (NULL = any) with capability cap
 * seen in the last window_s seconds: *total of them, *idle of those not
 * holding a lease. 0 or -1 with e.
 */
int db_bisect_workers(struct db_conn *c, const char *arch, const char *tbox, const char *cap,
		      const char *window_s, long *idle, long *total, struct err *e)
	__attribute__((warn_unused_result));
/* Queues a probe job of bisect id at commit_id for round `round`. 0 or -1 with e. */
int db_bisect_job_insert(struct db_conn *c, long long id, long long commit_id, const char *cap,
			 int repeat, long priority, long max_attempts, int round, struct err *e)
	__attribute__((warn_unused_result));

/* Ids of the queued and running bisects in id order: new array *out of *n. 0 or -1 with e. */
int db_bisect_active(struct db_conn *c, long long **out, size_t *n, struct err *e)
	__attribute__((warn_unused_result));

/* A confirmed regression waiting for a bisect (ST_BISECT_REG_TODO); heap copies, "" for NULL. */
struct db_bisect_reg_todo {
	long long id;
	char *testcase, *params, *kconfig, *compiler, *tbox_group, *metric;
	char *good, *bad, *tree; /* shas of the range, the tree's name */
	double size_pct;	 /* its hl_pct (change_pct for records from before sql/0015) */
};
/*
 * Locks one confirmed regression of |size_pct| >= min_pct without a bisect
 * into *r. Returns 1, 0 when there is none, -1 with e.
 */
int db_bisect_reg_todo(struct db_conn *c, double min_pct, struct db_bisect_reg_todo *r,
		       struct err *e) __attribute__((warn_unused_result));
void db_bisect_reg_todo_release(struct db_bisect_reg_todo *r);
/*
 * Regression id as db_bisect_reg_todo() reads one, whatever its state and
 * size, when it has no bisect, locked (ST_BISECT_REG_ONE; in the caller's
 * transaction): 1, 0 when there is no such regression or it has a bisect,
 * -1 with e. Release with db_bisect_reg_todo_release().
 */
int db_bisect_reg_one(struct db_conn *c, long long id, struct db_bisect_reg_todo *r, struct err *e)
	__attribute__((warn_unused_result));
/* The bisect of another record of the same setup and range as regression reg_id (0 = none), or -1. */
long long db_bisect_sibling(struct db_conn *c, long long reg_id, struct err *e)
	__attribute__((warn_unused_result));
/* Points regression reg_id at bisect bisect_id. 0 or -1 with e. */
int db_bisect_reg_link(struct db_conn *c, long long reg_id, long long bisect_id, struct err *e)
	__attribute__((warn_unused_result));

/*
 * GET /api/v1/bisects (db_bisects_json(), newest first) and one bisect
 * (db_bisect_json(), GET /api/v1/bisects/{id}).
 * A read of one by id (db_X_json(c, id, ...)) returns 1 and *text, 0
 * when there is none (no row), -1 with e.
 * As the public API's JSON, written by PostgreSQL's json functions (the
 * handler writes it again, compact): 0 and *text, a new NUL-terminated
 * string the caller free()s, or -1 with e: ERR_NOT_FOUND (404, detail
 * "id") when there is no row, else the store's errors (db.h). state is one of the
 * resource's state names or NULL (any); limit, decimal text, the most rows.
 */
int db_bisects_json(struct db_conn *c, const char *state, const char *limit, char **text,
		    struct err *e) __attribute__((warn_unused_result));
int db_bisect_json(struct db_conn *c, long long id, char **text, struct err *e)
	__attribute__((warn_unused_result));
/* Whether bisect id exists: 1, 0, or -1 with e. */
int db_bisect_exists(struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));
/*
 * *bisect_id = the bisect regression regression_id has (0: none). -1 with
 * e: ERR_NOT_FOUND (detail "id") when there is no such regression.
 */
int db_regression_bisect_of(struct db_conn *c, long long regression_id, long long *bisect_id,
			    struct err *e) __attribute__((warn_unused_result));

/* What names a regression a bisect is asked for by its ends (all borrowed). */
struct db_bisect_reg_key {
	const char *good, *bad; /* the commits' full shas */
	const char *testcase, *metric, *kconfig, *compiler;
	const char *tbox_group; /* NULL: any */
	const char *params;	/* JSON object text, compared as jsonb */
};
/*
 * *regression_id = the lowest-numbered regression of k's ends, setup and
 * metric that has no bisect yet. -1 with e: ERR_NOT_FOUND when there is
 * none.
 */
int db_bisect_regression_match(struct db_conn *c, const struct db_bisect_reg_key *k,
			       long long *regression_id, struct err *e)
	__attribute__((warn_unused_result));

#endif
