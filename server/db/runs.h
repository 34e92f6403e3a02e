#ifndef REGTRACK_SERVER_DB_RUNS_H
#define REGTRACK_SERVER_DB_RUNS_H

/*
 * Typed reads of runs and what they name (commits, setups, metric names,
 * the job a result document cites) for ingest (server/jobs/ingest.c) and the
 * run endpoints (api/runs.c, api/args.c), and the commit id the bisect
 * steps read (bisect/bisect_step.c). Each file defines the statements it
 * reads: db/runs.c, db/run_values.c (a run's values, metric names).
 *
 * Errors are the store's (db.h) unless said otherwise: ERR_DB_UNAVAILABLE (503)
 * when the connection broke, ERR_CONFLICT (409) on a unique violation,
 * ERR_DB (500) on another refusal. Where a function returns a struct
 * with a matching _free(), its strings are borrowed from the rows it read
 * until that call; _free() of a zeroed or already freed struct is a no-op.
 */
#include <jansson.h>
#include <stddef.h>

#include "arena.h"
#include "err.h"
#include "server/db/db.h"

/*
 * Find-or-create of the rows a result names, each the id of the row
 * (existing or new; a concurrent insert of the same row is found, not
 * refused), or -1 with e (ERR_DB when neither the insert nor the read
 * finds it). Ids are int8; 0 stands for "none" (SQL NULL) where an id is
 * optional. Strings are borrowed for the call.
 *
 * db_commit_upsert(): the commit by its 40-hex sha; commit_time (text
 * PostgreSQL reads as timestamptz), subject and tree_id only set a new
 * row (NULL / 0: not known).
 */
long long db_commit_upsert(struct db_conn *c, const char *sha, const char *commit_time,
			   const char *subject, long long tree_id, struct err *e)
	__attribute__((warn_unused_result));
/* The id of commit sha (0 = not imported), or -1 with e. */
long long db_commit_id(struct db_conn *c, const char *sha, struct err *e)
	__attribute__((warn_unused_result));
/*
 * What a stored commit did not say yet: each of commit_time, subject,
 * tree_id (NULL / 0: not given) is set where the row's is NULL. 0, or -1
 * with e.
 */
int db_commit_fill(struct db_conn *c, long long commit_id, const char *commit_time,
		   const char *subject, long long tree_id, struct err *e)
	__attribute__((warn_unused_result));
/* The testcase (testcases.id) named `name`. */
long long db_testcase_upsert(struct db_conn *c, const char *name, struct err *e)
	__attribute__((warn_unused_result));

/* A machine as a result document describes it (all borrowed). */
struct db_run_machine {
	const char *hostname, *arch, *tbox_group; /* the key */
	long long nr_cpus;			  /* < 0: not known */
	long long memory_mb;			  /* MiB; < 0: not known */
	const char *cpu_model;			  /* NULL: not known */
};
/* The machine (machines.id) keyed by hostname, arch and tbox_group; the rest only sets a new row. */
long long db_machine_upsert(struct db_conn *c, const struct db_run_machine *m, struct err *e)
	__attribute__((warn_unused_result));

/* A setup: what a series is of (sql/0001 setups; all borrowed). */
struct db_setup_new {
	long long testcase_id;
	const char *params_key; /* the params as compact JSON with sorted keys */
	const char *kconfig, *compiler, *tbox_group, *mode, *monitors;
};
long long db_setup_upsert(struct db_conn *c, const struct db_setup_new *s, struct err *e)
	__attribute__((warn_unused_result));

/* A run to store (runs' columns; strings borrowed, ids 0 = NULL where optional). */
struct db_run_new {
	const char *run_id; /* uuid text */
	long long job_id, commit_id, setup_id, machine_id, tree_id;
	const char *branch, *status;
	const char *started_at; /* timestamptz text, NULL: not known */
	double duration_s;	/* seconds, NaN: not known */
	const char *doc_sha256; /* 64 hex digits: the canonical document's SHA-256 */
	const char *extra;	/* JSON object text: the document's other fields */
};
/*
 * Stores run r unless a run of its run_id exists: 1 and *id (runs.id)
 * when stored, 0 (*id = 0) when the run_id was stored before (nothing
 * written), -1 with e.
 */
int db_run_insert(struct db_conn *c, const struct db_run_new *r, long long *id, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Queues setup_id for change detection (detect_queue; a setup queued and
 * not yet claimed stays one row). The detect thread LISTENs for the
 * trigger's NOTIFY (db_detect_listen()). 0, or -1 with e. Defined with
 * the queue's other calls in db/detect_queue.c.
 */
int db_detect_enqueue(struct db_conn *c, long long setup_id, struct err *e)
	__attribute__((warn_unused_result));
/*
 * The values of run run_id: `metrics`, a JSON object of metric name to an
 * array of numbers (borrowed), stored as one row per metric with every
 * replicate and their mean (the sum in iteration order over the count,
 * what PostgreSQL's avg(float8) gives; NULL for an empty array). Names not
 * known yet are registered first with lib/stats/metric.h's defaults for
 * unit and direction. *nr_values = how many numbers were stored. 0, or -1
 * with e (ERR_DB, detail "metrics", when a name could not be registered or
 * not every metric was stored).
 */
int db_run_values_copy(struct db_conn *c, long long run_id, json_t *metrics, size_t *nr_values,
		       struct err *e) __attribute__((warn_unused_result));

/* A commit found by a sha prefix (ST_COMMIT_RESOLVE). */
struct db_commit {
	long long id;	     /* commits.id */
	const char *sha;     /* 40 hex digits, arena copy */
	const char *subject; /* arena copy, NULL when not known */
};

/*
 * The commits whose sha starts with prefix (lower-case hex), at most two
 * in sha order: returns how many (0, 1 or 2) and the first in *out (its
 * strings copied into a), or -1 with e. 2 means the prefix is ambiguous.
 */
int db_commit_resolve(struct db_conn *c, const char *prefix, struct arena *a, struct db_commit *out,
		      struct err *e) __attribute__((warn_unused_result));

/* A setup's columns (ST_SETUP_GET). */
struct db_setup {
	const char *testcase; /* testcases.name */
	const char *params;   /* setups.params as JSON text */
	const char *kconfig, *compiler, *tbox_group, *mode;
	const char *monitors;	/* setups.monitors: "perf-profile,perf-stat", "" = none */
	struct db_result *res_; /* the row the strings point into */
};

/*
 * Setup setup_id: 1 and *out (until db_setup_free()), 0 when there is no
 * such setup, -1 with e.
 */
int db_setup_get(struct db_conn *c, long long setup_id, struct db_setup *out, struct err *e)
	__attribute__((warn_unused_result));
void db_setup_free(struct db_setup *s);

/* One metric's replicates in a run (ST_RUN_VALUES). */
struct db_run_metric {
	const char *name;   /* metrics.name */
	const char *values; /* the replicates as a JSON array text */
};

/*
 * A run with what it names (ST_RUN_GET, then ST_RUN_VALUES). Strings are
 * NULL for SQL NULL, except params and extra, which are JSON text ("" for
 * SQL NULL, which the columns do not hold). Times are text as the
 * statement formats them (UTC, microseconds, "Z").
 */
struct db_run {
	long long id;	    /* runs.id */
	const char *run_id; /* the uuid as text */
	const char *commit, *commit_subject;
	const char *testcase, *params, *kconfig, *compiler, *tbox_group, *mode;
	const char *status, *started_at;
	double duration_s; /* seconds; NAN when not known */
	const char *branch, *tree;
	long long job_id;  /* 0 when the run is not a job's */
	const char *extra; /* runs.extra as JSON text */
	const char *received_at;
	const char *hostname, *arch;   /* the machine's, NULL when none */
	const char *monitors;	       /* the setup's ("perf-profile", "" = none; sql/0018) */
	int has_profile;	       /* 1: run_profiles holds its folded stacks */
	struct db_run_metric *metrics; /* in name order, nr_metrics of them (malloc'd) */
	size_t nr_metrics;
	/*
	 * 1: the run was received before regtrack_raw_from() (sql/0039), so
	 * retention dropped its raw values and each metric's one value is the
	 * run's mean of it (run_means); 0: every replicate as posted
	 */
	int means_only;
	/* with means_only: when its month was dropped (NULL: not recorded) */
	const char *raw_dropped_at;
	struct db_result *res_, *values_res_;
};

/*
 * The run whose run_id is run_id (a uuid as text): 1 and *out (until
 * db_run_free()), 0 when there is none, -1 with e.
 */
int db_run_get(struct db_conn *c, const char *run_id, struct db_run *out, struct err *e)
	__attribute__((warn_unused_result));
void db_run_free(struct db_run *r);

/* What is stored of a run (ST_RUN_STORED), for a result document posted again. */
struct db_run_stored {
	char sha256[65];   /* the stored document's SHA-256, 64 hex digits */
	size_t nr_metrics; /* the metrics its values are stored for now */
	size_t nr_values;  /* the numbers stored now: every replicate, or one mean a metric */
	int means_only;	   /* 1: its month's raw values were dropped (see db_run) */
};

/*
 * The run whose run_id is run_id, as stored now, into *out: 1, 0 when no
 * such run (*out zeroed), -1 with e.
 */
int db_run_stored_get(struct db_conn *c, const char *run_id, struct db_run_stored *out,
		      struct err *e) __attribute__((warn_unused_result));

/* A metric's id by name (ST_METRIC_IDS). */
struct db_metric_id {
	long long id; /* metrics.id */
	const char *name;
};

struct db_metric_ids {
	struct db_metric_id *rows; /* malloc'd, in no particular order */
	size_t nr;
	struct db_result *res_;
};

/*
 * The ids of the known metrics among names, a text[] literal ("{\"a\",\"b\"}"):
 * 0 and *out (until db_metric_ids_free()), -1 with e.
 */
int db_metric_ids(struct db_conn *c, const char *names, struct db_metric_ids *out, struct err *e)
	__attribute__((warn_unused_result));
void db_metric_ids_free(struct db_metric_ids *m);

/*
 * GET /api/v1/runs: the newest runs, newest first.
 * As the public API's JSON, written by PostgreSQL's json functions (the
 * handler writes it again, compact): 0 and *text, a new NUL-terminated
 * string the caller free()s, or -1 with e: ERR_NOT_FOUND (404, detail
 * "id") when there is no row, else the store's errors (db.h). state is unused
 * (NULL); limit, decimal text, the most rows.
 */
int db_runs_recent_json(struct db_conn *c, const char *state, const char *limit, char **text,
			struct err *e) __attribute__((warn_unused_result));

#endif
