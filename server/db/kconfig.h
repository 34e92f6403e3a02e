#ifndef REGTRACK_SERVER_DB_KCONFIG_H
#define REGTRACK_SERVER_DB_KCONFIG_H

#include <stddef.h>

#include "err.h"

struct db_conn;

/*
 * Typed rows of the .config comparison (statements in db/kconfig.c): which builds
 * a bisect or a regression compares, and the .config a job stored. Every
 * function that fails returns -1 with e filled as the store fills it (db.h): 503
 * "db_unavailable", 500 "db_error". Strings are new copies, freed by the
 * struct's release function (which also takes a zeroed struct).
 */

/* One commit of a range. */
struct db_kconfig_commit {
	long long id;  /* 0: not known (then sha and subject are NULL) */
	char *sha;     /* 40 hex */
	char *subject; /* NULL when not imported */
};

/* The ends of a bisect's or a regression's range (ST_KCONFIG_*_ENDS). */
struct db_kconfig_ends {
	long long setup_id;	       /* the regression's setup; 0: none (a bisect without one) */
	char *kconfig, *compiler;      /* the build's names; NULL when not recorded */
	long long bisect_id;	       /* 0: none (a regression not bisected) */
	struct db_kconfig_commit good; /* the range's good end (last good commit) */
	struct db_kconfig_commit bad;  /* its bad end (first bad commit of the record) */
	struct db_kconfig_commit first_bad; /* a done bisect's answer; id 0 when none */
	struct db_kconfig_commit parent;    /* first_bad's first parent; id 0 when unknown */
};
/*
 * The ends of bisect id (ST_KCONFIG_BISECT_ENDS) or regression id
 * (ST_KCONFIG_REGRESSION_ENDS): 1 with *out filled, 0 when there is no
 * such record, -1 with e. Release *out with db_kconfig_ends_release() in
 * every case.
 */
int db_kconfig_bisect_ends(struct db_conn *c, long long id, struct db_kconfig_ends *out,
			   struct err *e) __attribute__((warn_unused_result));
int db_kconfig_regression_ends(struct db_conn *c, long long id, struct db_kconfig_ends *out,
			       struct err *e) __attribute__((warn_unused_result));
void db_kconfig_ends_release(struct db_kconfig_ends *ends);

/* A build and the .config it stored. */
struct db_kconfig_build {
	long long job_id;
	char *text; /* the .config, len bytes and a NUL; NULL when none stored */
	size_t len;
	struct db_kconfig_commit commit; /* the job's commit (db_kconfig_job only) */
};
/*
 * Job id's .config and commit (ST_KCONFIG_JOB): 1 with *out filled (text
 * NULL when the job stored none), 0 when there is no such job, -1 with e.
 */
int db_kconfig_job(struct db_conn *c, long long id, struct db_kconfig_build *out, struct err *e)
	__attribute__((warn_unused_result));
/*
 * The build of commit `at` with the ends' kconfig (and compiler) that
 * stored a .config, preferring the ends' bisect's jobs, then jobs with runs
 * of its setup, then jobs that ended ok, then the newest
 * (ST_KCONFIG_PICK_JOB): 1 with out->job_id and text, 0 when none did, -1
 * with e.
 */
int db_kconfig_pick_job(struct db_conn *c, const struct db_kconfig_ends *ends,
			const struct db_kconfig_commit *at, struct db_kconfig_build *out,
			struct err *e) __attribute__((warn_unused_result));
void db_kconfig_build_release(struct db_kconfig_build *b);

#endif
