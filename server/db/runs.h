#ifndef REGTRACK_SERVER_DB_RUNS_H
#define REGTRACK_SERVER_DB_RUNS_H

/*
 * Typed reads of runs and what they name (commits, setups, metric names,
 * the job a result document cites) for ingest (server/ingest.c) and the
 * run endpoints (api/runs.c, api/args.c). Statements in db/stmts_runs.c.
 *
 * Errors are db_exec()'s unless said otherwise: ERR_DB_UNAVAILABLE (503)
 * when the connection broke, ERR_CONFLICT (409) on a unique violation,
 * ERR_DB (500) on another refusal. Where a function returns a struct
 * with a matching _free(), its strings are borrowed from the rows it read
 * until that call; _free() of a zeroed or already freed struct is a no-op.
 */
#include <jansson.h>
#include <libpq-fe.h>
#include <stddef.h>

#include "arena.h"
#include "err.h"
#include "server/db/db.h"

/* Runs statement st for its effect (an INSERT, an UPDATE): 0, or -1 with e. */
int db_runs_do(PGconn *c, enum db_stmt st, int n, const char *const *params, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The id in the first column of statement st's first row (text int8):
 * 1 and *id when there is a row, 0 (*id = 0) when there is none, -1 with e.
 */
int db_first_id(PGconn *c, enum db_stmt st, int n, const char *const *params, long long *id,
		struct err *e) __attribute__((warn_unused_result));

/*
 * Returns the id of the row named by params: tries insert_st with the
 * first n_insert params (ON CONFLICT DO NOTHING RETURNING id), then
 * select_st with the first n_select, twice. -1 with e filled on a database
 * error, or ERR_DB when neither finds the row. Used for every "find or
 * create".
 */
long long db_upsert_id(PGconn *c, int insert_st, int n_insert, int select_st, int n_select,
		       const char *const *params, struct err *e);

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
int db_commit_resolve(PGconn *c, const char *prefix, struct arena *a, struct db_commit *out,
		      struct err *e) __attribute__((warn_unused_result));

/* A setup's columns (ST_SETUP_GET). */
struct db_setup {
	const char *testcase; /* testcases.name */
	const char *params;   /* setups.params as JSON text */
	const char *kconfig, *compiler, *tbox_group, *mode;
	const char *monitors; /* setups.monitors: "perf-profile,perf-stat", "" = none */
	PGresult *res_;	      /* the row the strings point into */
};

/*
 * Setup setup_id: 1 and *out (until db_setup_free()), 0 when there is no
 * such setup, -1 with e.
 */
int db_setup_get(PGconn *c, long long setup_id, struct db_setup *out, struct err *e)
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
	PGresult *res_, *values_res_;
};

/*
 * The run whose run_id is run_id (a uuid as text): 1 and *out (until
 * db_run_free()), 0 when there is none, -1 with e.
 */
int db_run_get(PGconn *c, const char *run_id, struct db_run *out, struct err *e)
	__attribute__((warn_unused_result));
void db_run_free(struct db_run *r);

/*
 * The SHA-256 (64 hex digits) of the document stored as run run_id into
 * hash: 1, 0 when no such run, -1 with e.
 */
int db_run_sha(PGconn *c, const char *run_id, char hash[65], struct err *e)
	__attribute__((warn_unused_result));

/* A metric's id by name (ST_METRIC_IDS). */
struct db_metric_id {
	long long id; /* metrics.id */
	const char *name;
};

struct db_metric_ids {
	struct db_metric_id *rows; /* malloc'd, in no particular order */
	size_t nr;
	PGresult *res_;
};

/*
 * The ids of the known metrics among names, a text[] literal ("{\"a\",\"b\"}"):
 * 0 and *out (until db_metric_ids_free()), -1 with e.
 */
int db_metric_ids(PGconn *c, const char *names, struct db_metric_ids *out, struct err *e)
	__attribute__((warn_unused_result));
void db_metric_ids_free(struct db_metric_ids *m);

#endif
