#ifndef REGTRACK_SERVER_DB_BISECTS_H
#define REGTRACK_SERVER_DB_BISECTS_H

#include <libpq-fe.h>
#include <stddef.h>

#include "err.h"

/*
 * The bisects' rows (db/stmts_bisects.c) as typed values, for the
 * coordinator (bisect*.c). Each function runs one prepared statement on c,
 * in the caller's transaction if one is open. Ids are bigint row ids (0 =
 * none / SQL NULL). Errors are db_exec()'s unless said otherwise (ERR_DB,
 * ERR_DB_UNAVAILABLE, ERR_DB_TIMEOUT, ERR_CONFLICT); every function
 * returns -1 with e filled on one. Arrays returned through **out are new
 * (caller free()s them; NULL when empty).
 *
 * The few reads of trees and commits the coordinator needs (a tree's id,
 * a commit's id, the tree mirror bookkeeping) are here too, named
 * db_bisect_*, so this file owns every column the coordinator reads.
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
int db_bisect_lock(PGconn *c, long long id, struct db_bisect_row *b, struct err *e)
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
long long db_bisect_insert(PGconn *c, const struct db_bisect_new *b, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Cancels bisect id and its unfinished jobs (reason NULL = "cancelled").
 * Returns 1 when it was queued or running, 0 when not, -1 with e.
 */
int db_bisect_cancel(PGconn *c, long long id, const char *reason, struct err *e)
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
int db_bisect_finish(PGconn *c, const struct db_bisect_end *end, long long *regression_id,
		     struct err *e) __attribute__((warn_unused_result));
/*
 * The other records (ids) that share bisect id and still wait for it, in
 * id order: new array *out of *n. Returns 0 or -1 with e.
 */
int db_bisect_siblings_of(PGconn *c, long long id, long long **out, size_t *n, struct err *e)
	__attribute__((warn_unused_result));
/* Records what a bisect started by hand found as a regression record (ST_BISECT_RECORD). */
int db_bisect_record(PGconn *c, long long id, struct err *e) __attribute__((warn_unused_result));

/*
 * Adds the commits shas[0..n) (40-hex, borrowed; oldest first) as the
 * candidates of `level` of bisect id, those found in the commits table.
 * Returns how many rows it stored (fewer than n: some are not imported),
 * or -1 with e.
 */
long long db_bisect_commits_insert(PGconn *c, long long id, const char *const *shas, size_t n,
				   int level, struct err *e) __attribute__((warn_unused_result));
/* queued -> running with its nr_candidates and nr_range. Returns 0 or -1 with e. */
int db_bisect_start(PGconn *c, long long id, size_t nr_candidates, size_t nr_range, struct err *e)
	__attribute__((warn_unused_result));
/* Moves bisect id to `level` with good end good_id, appending `descent` (a JSON object's text). */
int db_bisect_descend(PGconn *c, long long id, int level, long long good_id, const char *descent,
		      struct err *e) __attribute__((warn_unused_result));
/* Records that round `round` is out, in `phase`, with the model (JSON text). */
int db_bisect_round(PGconn *c, long long id, int round, const char *phase, const char *model,
		    struct err *e) __attribute__((warn_unused_result));

/* One candidate of the current level, in idx order. */
struct db_bisect_candidate {
	long long commit_id;
	char sha[41];
};
/* The candidates of bisect id's current level: new array *out of *n. 0 or -1 with e. */
int db_bisect_candidates(PGconn *c, long long id, struct db_bisect_candidate **out, size_t *n,
			 struct err *e) __attribute__((warn_unused_result));

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
int db_bisect_jobs(PGconn *c, long long id, struct db_bisect_job **out, size_t *n, struct err *e)
	__attribute__((warn_unused_result));

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
int db_bisect_samples(PGconn *c, long long id, int reuse, struct db_bisect_sample **out, size_t *n,
		      struct err *e) __attribute__((warn_unused_result));

/* Steps recorded for round `round` of bisect id (>= 0), or -1 with e. */
long long db_bisect_steps_count(PGconn *c, long long id, int round, struct err *e)
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
int db_bisect_step_insert(PGconn *c, const struct db_bisect_step *s, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Machines matching arch / tbox_group (NULL = any) with capability cap
 * seen in the last window_s seconds: *total of them, *idle of those not
 * holding a lease. 0 or -1 with e.
 */
int db_bisect_workers(PGconn *c, const char *arch, const char *tbox, const char *cap,
		      const char *window_s, long *idle, long *total, struct err *e)
	__attribute__((warn_unused_result));
/* Queues a probe job of bisect id at commit_id for round `round`. 0 or -1 with e. */
int db_bisect_job_insert(PGconn *c, long long id, long long commit_id, const char *cap, int repeat,
			 long priority, long max_attempts, int round, struct err *e)
	__attribute__((warn_unused_result));

/* Ids of the queued and running bisects in id order: new array *out of *n. 0 or -1 with e. */
int db_bisect_active(PGconn *c, long long **out, size_t *n, struct err *e)
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
int db_bisect_reg_todo(PGconn *c, double min_pct, struct db_bisect_reg_todo *r, struct err *e)
	__attribute__((warn_unused_result));
void db_bisect_reg_todo_release(struct db_bisect_reg_todo *r);
/*
 * Regression id as db_bisect_reg_todo() reads one, whatever its state and
 * size, when it has no bisect, locked (ST_BISECT_REG_ONE; in the caller's
 * transaction): 1, 0 when there is no such regression or it has a bisect,
 * -1 with e. Release with db_bisect_reg_todo_release().
 */
int db_bisect_reg_one(PGconn *c, long long id, struct db_bisect_reg_todo *r, struct err *e)
	__attribute__((warn_unused_result));
/* The bisect of another record of the same setup and range as regression reg_id (0 = none), or -1. */
long long db_bisect_sibling(PGconn *c, long long reg_id, struct err *e)
	__attribute__((warn_unused_result));
/* Points regression reg_id at bisect bisect_id. 0 or -1 with e. */
int db_bisect_reg_link(PGconn *c, long long reg_id, long long bisect_id, struct err *e)
	__attribute__((warn_unused_result));

/* The id of tree `name` (0 = no such tree), or -1 with e. */
long long db_bisect_tree_id(PGconn *c, const char *name, struct err *e)
	__attribute__((warn_unused_result));
/* The id of commit sha (0 = not imported), or -1 with e. */
long long db_bisect_commit_id(PGconn *c, const char *sha, struct err *e)
	__attribute__((warn_unused_result));

/* A tree whose mirror was never made from its current url; heap copies. */
struct db_bisect_mirror_todo {
	long long tree_id;
	char *name, *url, *branches; /* branches space-separated */
};
/* Reads one such tree into *t. Returns 1, 0 when there is none, -1 with e. */
int db_bisect_mirror_todo(PGconn *c, struct db_bisect_mirror_todo *t, struct err *e)
	__attribute__((warn_unused_result));
void db_bisect_mirror_todo_release(struct db_bisect_mirror_todo *t);
/*
 * Records a mirror sync of tree_id from url: `commits` imported (< 0 =
 * keep the count stored), error NULL when it worked. 0 or -1 with e.
 */
int db_bisect_mirror_set(PGconn *c, long long tree_id, const char *url, long long commits,
			 const char *error, struct err *e) __attribute__((warn_unused_result));

#endif
