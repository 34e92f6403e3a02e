#ifndef REGTRACK_SERVER_DB_SERIES_H
#define REGTRACK_SERVER_DB_SERIES_H

/*
 * Typed reads of the two large endpoints, GET /api/v1/compare and GET
 * /api/v1/series (statements in db/series.c). Both read in binary
 * (binary results: no number printed by PostgreSQL and parsed here
 * again), check the columns' types, and hand back plain arrays.
 *
 * Errors: the store's (db.h) (ERR_DB_UNAVAILABLE 503, ERR_DB 500), ERR_DB (500)
 * when a result is not of the shape its statement gives (a malformed
 * array, a column of another type), ERR_TOO_LARGE (413) as said. _free()
 * of a zeroed or already freed struct is a no-op.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct db_conn;
struct db_result;

/*
 * The filters of a setup (api/args.h setup_filter_from_query()); NULL = any.
 * monitors: the normalized text (lib/profile.h), "" = unprofiled runs only.
 * params_given: with params_key, a second params_key a setup may have
 * instead (the params as the caller spelled them, where that is not the
 * one spelling); NULL: params_key alone.
 */
struct db_setup_filter {
	const char *testcase, *tbox_group, *kconfig, *compiler, *params_key, *mode;
	const char *monitors, *params_given;
};

/* One run of a compare (ST_COMPARE): its metrics' ids and means. */
struct db_compare_run {
	long long setup_id;
	int is_base;	     /* 1: a run of the base commit, 0: of the head (ST_COMPARE) */
	long long kernel;    /* ST_COMPARE_AA: the run's kernel, numbered (ascending) */
	long long commit_id; /* ST_COMPARE_AA: the run's commit (commits.id) */
	int *metric_ids;     /* ascending, n of them (into the runs' id pool) */
	double *means;	     /* means[i]: metric_ids[i]'s mean over the run's iterations */
	long n;
};

struct db_compare_runs {
	struct db_compare_run *runs; /* ordered by setup_id */
	size_t nr;
	size_t nr_values; /* sum of the runs' n */
	int *id_pool_;
	double *mean_pool_;
};

/*
 * The runs (status ok) of commits base_id and head_id (commits.id)
 * in setups that match f, with their means (sql/0011 run_means): 0 and
 * *out (malloc'd, until db_compare_runs_free()), or -1 with e (ERR_DB
 * "run_means: malformed arrays" when the id and mean arrays disagree).
 */
int db_compare_runs(struct db_conn *c, long long base_id, long long head_id,
		    const struct db_setup_filter *f, struct db_compare_runs *out, struct err *e)
	__attribute__((warn_unused_result));
void db_compare_runs_free(struct db_compare_runs *r);

/*
 * The A/A history of a compare (ST_COMPARE_AA): the ok runs, with their
 * means, of the icount setups among setup_ids[0..n) (mode icount or
 * params.measure icount; wall-clock setups have none), but for the runs of
 * commits base_id and head_id (commits.id; 0: none), grouped by kernel: the runs of
 * one image_sha256, or of one commit without an image, numbered in
 * db_compare_run.kernel (runs of one kernel consecutive, in setup order);
 * kernels of one run are left out. 0 and *out (until db_compare_runs_free();
 * is_base is 0), or -1 with e as db_compare_runs().
 */
int db_compare_aa(struct db_conn *c, long long base_id, long long head_id,
		  const long long *setup_ids, size_t n, struct db_compare_runs *out, struct err *e)
	__attribute__((warn_unused_result));

/* One (group, metric) of an A/B request (ST_REQUEST_AA_METRICS). */
struct db_request_aa_metric {
	int group;    /* jobs.ab_group: index into the request's spec.groups */
	char *metric; /* its name, new */
	long long metric_id, setup_id;
	long long base_commit, head_commit; /* commits.id of its sides' runs; 0 = none */
};

/*
 * The (group, metric) pairs of request_id's ok runs with their metric id,
 * setup and sides' commits: the count with *out a new array sorted by
 * (group, strcmp of metric) (NULL when 0; free with
 * db_request_aa_metrics_free()), or -1 with e.
 */
long db_request_aa_metrics(struct db_conn *c, long long request_id,
			   struct db_request_aa_metric **out, struct err *e)
	__attribute__((warn_unused_result));
void db_request_aa_metrics_free(struct db_request_aa_metric *m, long n);

/* A metric's name and properties (ST_COMPARE_METRICS). */
struct db_compare_metric {
	int id; /* metrics.id */
	const char *name, *unit;
	int higher_is_better; /* 1, 0, -1 unknown */
	int is_monitor;
};

struct db_compare_metrics {
	struct db_compare_metric *rows; /* in name order (malloc'd) */
	size_t nr;
	struct db_result *res_; /* the rows the strings point into */
};

/*
 * The metrics of ids[0..n) (ascending, distinct) whose name starts with
 * prefix (NULL: all), in name order: 0 and *out (strings borrowed until
 * db_compare_metrics_free()), or -1 with e.
 */
int db_compare_metrics(struct db_conn *c, const int *ids, size_t n, const char *prefix,
		       struct db_compare_metrics *out, struct err *e)
	__attribute__((warn_unused_result));
void db_compare_metrics_free(struct db_compare_metrics *m);

/* One run of a metric's series (ST_SERIES). */
struct db_series_point {
	long long setup_id, commit_id, run_id; /* run_id: runs.id */
	const unsigned char *uuid;	       /* runs.run_id, its 16 bytes */
	const char *mean; /* the run's mean as PostgreSQL's text (float8out); NULL for NULL */
};

struct db_series_points {
	struct db_series_point *rows; /* in no particular order (malloc'd) */
	size_t nr;		      /* at most UINT32_MAX */
	struct db_result *res_;	      /* the rows uuid and mean point into */
};

/*
 * Every run (status ok) of the metric in the setups of testcase f->testcase
 * that match f's other filters: 0 and *out (until db_series_points_free()),
 * or -1 with e (ERR_TOO_LARGE past UINT32_MAX rows, ERR_DB on a malformed
 * row: NULL ids, a run_id not 16 bytes).
 */
int db_series_points(struct db_conn *c, const char *metric, const struct db_setup_filter *f,
		     struct db_series_points *out, struct err *e)
	__attribute__((warn_unused_result));
void db_series_points_free(struct db_series_points *p);

/* A commit of a series (ST_SERIES_COMMITS). */
struct db_series_commit {
	long long id; /* commits.id */
	const char *sha;
	const char *subject; /* NULL when not known */
	int has_time;	     /* commit_time is known */
	long long time_us;   /* commit_time, microseconds since 2000-01-01 00:00:00 UTC */
};

struct db_series_commits {
	struct db_series_commit *rows; /* in series order (sql COMMIT_ORDER), malloc'd */
	size_t nr;
	struct db_result *res_; /* the rows the strings point into */
};

/*
 * The commits ids[0..n) in series order (the tree's history once known,
 * else commit time, else first seen): 0 and *out (strings borrowed until
 * db_series_commits_free()), or -1 with e. Rows without an id or sha are
 * left out.
 */
int db_series_commits(struct db_conn *c, const long long *ids, size_t n,
		      struct db_series_commits *out, struct err *e)
	__attribute__((warn_unused_result));
void db_series_commits_free(struct db_series_commits *cm);

/*
 * The distinct host fingerprints of the ok runs of commits base_id and
 * head_id (commits.id) in the setups setup_ids[0..n) (ST_COMPARE_FINGERPRINTS):
 * *base and *head new JSON arrays (caller json_decref()s). 0 or -1 with e.
 */
int db_compare_fingerprints(struct db_conn *c, long long base_id, long long head_id,
			    const long long *setup_ids, size_t n, json_t **base, json_t **head,
			    struct err *e) __attribute__((warn_unused_result));

/*
 * 1 when a setup's params_key is params_key, 0 when none, -1 with e (the
 * store's errors). The read filters ask it for params whose machine shape
 * vmspec_parse() refuses: a setup stored before results were checked may
 * have such params, and is still found by them.
 */
int db_setup_key_exists(struct db_conn *c, const char *params_key, struct err *e)
	__attribute__((warn_unused_result));

/*
 * 1 when a setup of testcase (name), kconfig and params_key (its params as
 * JSON text, compact, sorted keys, as results store them) is stored, of any
 * compiler, tbox_group, mode or monitors; 0 when none, -1 with e (the
 * store's errors). A bisect of kconfig "host" asks it for a machine shape
 * a host job would be refused (api/bisects.c).
 */
int db_setup_stored(struct db_conn *c, const char *testcase, const char *kconfig,
		    const char *params_key, struct err *e) __attribute__((warn_unused_result));

#endif
