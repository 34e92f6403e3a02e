#ifndef REGTRACK_SERVER_DB_REGRESSIONS_H
#define REGTRACK_SERVER_DB_REGRESSIONS_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"

struct db_conn;

/*
 * The regression records and the detection queue as typed values, for
 * detect.c, regressions.c and api/regressions.c (defined, each beside its
 * statements, in db/detect_queue.c, detect_series.c, regressions.c,
 * regression_json.c and tip.c). Each function runs one prepared statement
 * on c, in the caller's transaction if one is open. Ids are bigint row
 * ids. Errors are the store's (db.h) unless said otherwise (ERR_DB,
 * ERR_DB_UNAVAILABLE, ERR_DB_TIMEOUT, ERR_CONFLICT); every function
 * returns -1 with e filled on one. Figures are doubles, NAN for SQL NULL
 * (and NULL for NAN or an infinity when written).
 */

/* --- the detection queue ---------------------------------------------------- */

/*
 * Claims the oldest queued setup no one is examining: *queue_id (the claim,
 * for done / release) and *setup_id. Returns 1, 0 when none is queued, -1.
 */
int db_detect_claim(struct db_conn *c, long long *queue_id, long long *setup_id, struct err *e)
	__attribute__((warn_unused_result));
/* Deletes claim queue_id (the setup was examined). 0 or -1. */
int db_detect_done(struct db_conn *c, long long queue_id, struct err *e)
	__attribute__((warn_unused_result));
/* Gives claim queue_id back (queued again unless already queued). 0 or -1. */
int db_detect_release(struct db_conn *c, long long queue_id, struct err *e)
	__attribute__((warn_unused_result));
/* Queues again the setups of claims older than 10 minutes (a server died mid-detection). 0 or -1. */
int db_detect_requeue_stale(struct db_conn *c, struct err *e) __attribute__((warn_unused_result));
/*
 * LISTENs on c for the channel detect_queue's trigger NOTIFYs (a setup
 * queued), so that db_idle_socket(c) turns readable when one is; repeating
 * it on the same connection is harmless. 0, or -1 with e (db_begin()'s
 * errors).
 */
int db_detect_listen(struct db_conn *c, struct err *e) __attribute__((warn_unused_result));

/*
 * One run mean of a setup's series (ST_DETECT_SERIES, from run_means): by
 * metric, then in series order; runs of a request's patched head (on no
 * branch) left out, and so is a metric of a run that has no mean (an empty
 * list of values): run_means holds only the means that are not NULL.
 */
struct db_detect_point {
	long long metric_id;
	const char *metric;   /* the metric's name; borrowed until db_detect_series_free() */
	int higher_is_better; /* 1, 0, or -1 when unknown (NULL) */
	int is_monitor;
	long long commit_id;
	double value; /* the run's mean (never NULL: see above) */
};
struct db_detect_series {
	struct db_detect_point *p;
	size_t n;
	void *res; /* private: the rows the names point into */
};
/*
 * Every ok run mean of setup_id into *s (zeroed first): two statements
 * (the runs' means, then their metrics' names), whatever the size of the
 * other setups' history. 0, or -1 with e (ERR_DB, also for a malformed
 * run_means row).
 */
int db_detect_series(struct db_conn *c, long long setup_id, struct db_detect_series *s,
		     struct err *e) __attribute__((warn_unused_result));
/* Frees s; a zeroed s is fine. */
void db_detect_series_free(struct db_detect_series *s);

/* The host fingerprints of a setup's commits (db_setup_fingerprints()). */
struct db_commit_fps {
	long long *commit; /* ascending; only commits with a fingerprint */
	const char **fps;  /* JSON text: the distinct fingerprints of its ok runs (sql/0022) */
	size_t n;
	void *res_; /* the rows fps point into */
};
/*
 * Per commit of setup_id, the distinct host fingerprints of its ok runs in
 * the setup (what db_compare_fingerprints() gives for one commit and this
 * setup): 0 with *out (until db_setup_fingerprints_free()), or -1 with e.
 */
int db_setup_fingerprints(struct db_conn *c, long long setup_id, struct db_commit_fps *out,
			  struct err *e) __attribute__((warn_unused_result));
/* Frees f; a zeroed f is fine. */
void db_setup_fingerprints_free(struct db_commit_fps *f);

/* --- records ---------------------------------------------------------------- */

/*
 * A record of the same series past triage whose range holds good..bad (a
 * narrower range found later is the same change): 1 with *id, 0 when
 * none, -1.
 */
int db_regr_covering(struct db_conn *c, long long setup_id, long long metric_id,
		     long long good_commit, long long bad_commit, long long *id, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The ids of the metrics of setup_id that have a record past triage (the
 * only ones db_regr_covering() can find one for), ascending: 0 with *ids
 * (malloc'd, caller frees; NULL when *n is 0) and *n, or -1 with e.
 */
int db_regr_triaged_metrics(struct db_conn *c, long long setup_id, long long **ids, size_t *n,
			    struct err *e) __attribute__((warn_unused_result));

/* What the detector found for one range (ST_REGR_UPSERT); strings borrowed for the call. */
struct db_regr_upsert {
	long long setup_id, metric_id, good_commit, bad_commit;
	const char *kind;     /* regression | improvement | change, from direction */
	double change_pct;    /* the two sides: LKP's %change of the means (signed base) */
	double hl_pct, shift; /* ... the Hodges-Lehmann shift, % and metric units: the size */
	double ci_lo_pct, ci_hi_pct, p_value; /* ... hl_pct's CI (percent), Mann-Whitney p */
	int direction;			      /* +1 rose, -1 fell: the sign the kind came from */
	const char *verdict;
	double mean_before, mean_after;
	size_t n_before, n_after, commits_after;
	size_t outliers_before, outliers_after; /* runs far outside their side (compare.h) */
	double pair_change_pct, pair_hl_pct, pair_p_value; /* last good vs first bad commit */
	int pair_direction;				   /* its HL shift's sign, 0 none */
	const char *pair_verdict;
	double det_before, det_after, det_change_pct, det_p_value; /* the detector's own figures */
	double noise_sigma; /* ... its noise sigma of the series, metric units (sql/0026); NAN = none */
	long noise_cycle; /* ... P > 0: that sigma and p net of a cycle of P commits, 0: as
			   * they are (sql/0040); -1 = unknown */
	int confirm;	  /* 1: the confirmation rule holds */
};
/* The record after the upsert: its id, its state before and after. */
struct db_regr_upserted {
	long long id;
	int created;	    /* 1: a new record (no state before) */
	char old_state[16]; /* "" when created */
	char new_state[16];
};
/* Inserts or updates the record of u's range. 0 or -1 (ERR_DB when no row came back). */
int db_regr_upsert(struct db_conn *c, const struct db_regr_upsert *u, struct db_regr_upserted *out,
		   struct err *e) __attribute__((warn_unused_result));

/*
 * After a detection of setup_id that found the records kept[0..n): the
 * other detected records are withdrawn (*withdrawn, those still `new`:
 * deleted) or marked undetected (*undetected, with a history note). 0 or -1.
 */
int db_regr_undetect(struct db_conn *c, long long setup_id, const long long *kept, size_t n,
		     size_t *withdrawn, size_t *undetected, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Sets the state of record id (state NULL keeps it) and reads the states
 * before and after into from / to (16 bytes each). Returns 1, 0 when there
 * is no such record, -1.
 */
int db_regr_set_state(struct db_conn *c, long long id, const char *state, char *from, char *to,
		      struct err *e) __attribute__((warn_unused_result));
/*
 * Adds a history row of record id: who (NULL = "token:NAME" of token_id,
 * token_id 0 = none), from / to (NULL allowed), note (NULL allowed). 0 or -1.
 */
int db_regr_history_add(struct db_conn *c, long long id, const char *who, long long token_id,
			const char *from, const char *to, const char *note, struct err *e)
	__attribute__((warn_unused_result));

/* One change point of a series (ST_SERIES_CHANGE_POINTS), in record id order. */
struct db_change_point {
	long long regression_id;
	char commit[41], good_commit[41];	   /* shas: first bad, last good */
	double before, after, change_pct, p_value; /* the detector's figures; NAN = NULL */
	double hl_pct; /* the record's size (its sides' HL shift, %); NAN = NULL */
	int direction; /* the record's: +1 rose, -1 fell; 0 = NULL (before sql/0015) */
	char kind[16], state[16];
};
/* The detected records of (setup_id, metric name): new array *out of *n. 0 or -1. */
int db_series_change_points(struct db_conn *c, long long setup_id, const char *metric,
			    struct db_change_point **out, size_t *n, struct err *e)
	__attribute__((warn_unused_result));

/* --- reports at the tip (detect.c) ---------------------------------------------- */

/*
 * The tracking job (queued by a plan's push, not an extra one) whose runs
 * put commit_id into setup_id's series: 1 with *job_id and its branch
 * (branch, size bytes), 0 when the commit was not tested by a plan, -1.
 */
int db_tip_job(struct db_conn *c, long long setup_id, long long commit_id, long long *job_id,
	       char *branch, size_t size, struct err *e) __attribute__((warn_unused_result));

/*
 * The records of setup_id whose first bad commit is commit_id, the oldest
 * per metric: new arrays *metric and *id (free both) of *n. 0 or -1.
 */
int db_tip_records(struct db_conn *c, long long setup_id, long long commit_id, long long **metric,
		   long long **id, size_t *n, struct err *e) __attribute__((warn_unused_result));

/*
 * Queues one more job of job_id's setup, plan and priority, with `runs`
 * runs, for commit prev and for commit tip, each at most once ever (a
 * second call creates nothing). Returns the number created (0..2) or -1.
 */
long db_tip_request(struct db_conn *c, long long job_id, long long prev, long long tip, long runs,
		    struct err *e) __attribute__((warn_unused_result));

/*
 * The commits of setup_id's series that got runs of an extra tip job
 * (db_tip_request): a new array *ids (free it) of *n, ascending. 0 or -1.
 */
int db_tip_commits(struct db_conn *c, long long setup_id, long long **ids, size_t *n, struct err *e)
	__attribute__((warn_unused_result));

/* --- the API's JSON ---------------------------------------------------------- */

/*
 * GET /api/v1/regressions: the records matching state, kind, testcase,
 * metric (NULL = any), newest first, at most `limit`, group leaders only
 * when leaders; a new JSON array, or NULL with e (ERR_DB detail "" when
 * the database's JSON does not parse).
 */
json_t *db_regressions_json(struct db_conn *c, const char *state, const char *kind,
			    const char *testcase, const char *metric, long long limit, int leaders,
			    struct err *e);
/*
 * Record id as JSON: the record, its group (every record of its range,
 * leader first) or its history. 1 with *out (new), 0 when there is no
 * such record, -1 (ERR_DB detail the statement's name when the JSON does
 * not parse).
 */
int db_regression_json(struct db_conn *c, long long id, json_t **out, struct err *e)
	__attribute__((warn_unused_result));
int db_regression_group_json(struct db_conn *c, long long id, json_t **out, struct err *e)
	__attribute__((warn_unused_result));
int db_regression_history_json(struct db_conn *c, long long id, json_t **out, struct err *e)
	__attribute__((warn_unused_result));

/*
 * What the page and the mail of record id tell besides the record itself
 * (ST_REGRESSION_STORY_JSON), an object:
 *   arch       the record's arch in the kernel's names ("x86_64", "arm64"):
 *              its kconfig's first word (arch_of_kconfig's names), else its
 *              setup's newest run (the qemu guest's arch, else the
 *              machine's); null when none is known
 *   bisect     null, or the record's bisect (regressions.bisect_id, else the
 *              newest bisect started for it): {id, state, outcome,
 *              confidence, first_bad_commit {sha, subject, author,
 *              commit_time, diffstat} or null, parent {sha, subject} (the
 *              first bad commit's first parent) or null, verification,
 *              profile_diff (the path of its profile diff)}
 *   also_seen  the same change on other arches, at most one record per
 *              arch, by arch name: [{arch, regression_id, kind, state,
 *              hl_pct, change_pct, ci_pct [lo, hi], p_value, tbox_group,
 *              kconfig, bisect_id, first_bad {sha, subject, source:
 *              "bisect" (its finished bisect's) | "range" (the range's bad
 *              end)}, match ("first_bad" | "range"), url (its dashboard
 *              page, a path)}].
 * The same change on another arch: a record (not `invalid`) of the same
 * testcase, params and metric and the same kind, whose setup's arch is
 * known and differs, and which either has the same first bad commit (both
 * bisects done, same culprit) or a range overlapping this one's: the
 * ranges (good, bad] share a commit in series order (COMMIT_ORDER:
 * good_a < bad_b and good_b < bad_a). kconfig, compiler, tbox_group and
 * mode may differ (they differ between arches). Of several records of one
 * arch, one with the same first bad commit wins, then the oldest.
 * Returns 1 with *out (new), 0 when there is no such record, -1 (ERR_DB
 * detail the statement's name when the JSON does not parse).
 */
int db_regression_story_json(struct db_conn *c, long long id, json_t **out, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The story's arch and also_seen as typed values, for the report mail:
 * the same records by the same rule, in the same order (by arch name).
 */
struct db_also_seen {
	const char *arch;	 /* the other record's arch ("arm64"); never NULL */
	long long regression_id; /* the other record */
	double hl_pct;		 /* its HL shift in %; NAN when NULL */
	double change_pct;	 /* its means' %change; NAN when NULL */
	long long bisect_id;	 /* its bisect (as the story's bisect_id); 0 none */
	int same_first_bad;	 /* 1: both bisects are done and name one first bad
				  * commit (the story's match "first_bad") */
};

struct db_story {
	const char *arch;	   /* the record's own arch; NULL when none is known */
	struct db_also_seen *also; /* nr_also rows; strings borrowed from res until *_free() */
	size_t nr_also;
	struct db_result *res;
};

/*
 * Reads record id's arch and also_seen rows into out (zeroed first;
 * release with db_story_free(), a no-op on a zeroed or freed struct).
 * 1, 0 when there is no such record (out stays zeroed), or -1 with e
 * (the store's errors (db.h): ERR_DB_UNAVAILABLE, ERR_DB_TIMEOUT, ERR_DB).
 */
int db_regression_story(struct db_conn *c, long long id, struct db_story *out, struct err *e)
	__attribute__((warn_unused_result));
void db_story_free(struct db_story *s);

/*
 * Sets record id's environment (sql/0022): env a JSON object text, or NULL
 * when its step is not at a change of host fingerprint (ST_REGR_ENVIRONMENT).
 * 0 or -1 with e.
 */
int db_regr_set_environment(struct db_conn *c, long long id, const char *env, struct err *e)
	__attribute__((warn_unused_result));

#endif
