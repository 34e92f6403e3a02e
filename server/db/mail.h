#ifndef REGTRACK_SERVER_DB_MAIL_H
#define REGTRACK_SERVER_DB_MAIL_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"
#include "report.h"

struct db_conn;
struct db_result;

/*
 * What a report mail says, read from the database (db/mail.c), and the
 * subscriptions it goes to: typed rows for mail_gather.c, mailer.c,
 * outbox.c and api/subscriptions.c. Ids are the tables' bigint keys (0 =
 * none: keys start at 1). Every function runs one statement on c inside
 * the caller's transaction, if any.
 *
 * Errors (every function): -1 with e from the store (db.h): ERR_DB_UNAVAILABLE
 * (503 db_unavailable), ERR_DB_TIMEOUT (503), ERR_DB (500 db_error).
 *
 * Ownership: a row's strings are borrowed from the row set held in its
 * struct (`res`, private) until that struct's *_free(), which also frees
 * its arrays; *_free() of a zeroed or already freed struct is a no-op.
 * A string field is NULL for SQL NULL unless its comment says otherwise.
 */

/* ---- the regression (ST_MAIL_REGRESSION) --------------------------- */

struct db_mail_regression {
	const char *kind;     /* "regression", "improvement" or "change" */
	double change_pct;    /* LKP's %change of the two sides' means; NAN when NULL */
	double hl_pct;	      /* the record's size, the HL shift in %; NAN when NULL
			       * (records from before sql/0015, or a base of zeros) */
	int higher_is_better; /* the metric's: 1, 0, -1 unknown */
	/* the rest of the record's evidence (lib/evidence.h); NAN when NULL */
	double ci_lo_pct, ci_hi_pct; /* hl_pct's 95 % interval */
	double shift;		     /* hl_pct in the metric's units */
	double noise_sigma;	     /* the detector's noise sigma (sql/0026) */
	long long noise_cycle;	     /* > 0: that sigma net of a cycle of so many commits (0040) */
	double p_value;		     /* the two sides' Mann-Whitney p */
	long long commits_after;     /* tested commits after the change */
	const char *metric;	     /* metric name */
	const char *testcase;	     /* testcase name */
	const char *params;	     /* the setup's params as JSON text */
	const char *kconfig, *compiler, *tbox_group, *mode;
	const char *good_sha, *good_subject;
	const char *bad_sha, *bad_subject;
	const char *bad_author;	  /* "Name <email>" as git prints it */
	const char *tree;	  /* tree name; "" when not known */
	const char *branch;	  /* of the newest run at the bad commit */
	const char *machine_arch; /* that run's machine */
	long nr_cpus;		  /* 0 when not known */
	long long memory_mb;	  /* 0 when not known */
	const char *cpu_model;
	long long setup_id, good_commit_id, bad_commit_id, metric_id;
	long long bisect_id;	    /* 0: none */
	const char *bad_parent_sha; /* the bad commit's first parent */
	/* the two sides' means; a base of zero is said by its levels, not a % */
	double mean_before, mean_after;
	struct db_result *res;
};

/*
 * Reads regression `regression_id`. Returns 1 and fills out, 0 when there
 * is no such regression (out zeroed), -1 with e.
 */
int db_mail_regression(struct db_conn *c, long long regression_id, struct db_mail_regression *out,
		       struct err *e) __attribute__((warn_unused_result));
void db_mail_regression_free(struct db_mail_regression *r);

/* The first regression (by id) bisect `bisect_id` belongs to; 0 none, -1 with e. */
long long db_mail_bisect_regression(struct db_conn *c, long long bisect_id, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Whether regression `regression_id` exists: 1 with *bisect_id its bisect
 * (0 none), 0 when it does not, -1 with e.
 */
int db_mail_regression_exists(struct db_conn *c, long long regression_id, long long *bisect_id,
			      struct err *e) __attribute__((warn_unused_result));

/* ---- the bisect (ST_MAIL_BISECT, ST_MAIL_BISECT_STEPS) -------------- */

struct db_mail_bisect {
	long long culprit_id; /* the first bad commit */
	const char *culprit_sha;
	const char *culprit_subject, *culprit_author;
	long long parent_id; /* its first parent; 0 when that commit is not stored */
	const char *parent_sha, *parent_subject; /* NULL when parent_id is 0 */
	struct db_result *res;
};

/*
 * The culprit of bisect `bisect_id` when it is done with a first bad
 * commit: 1 and out, 0 when not (out zeroed), -1 with e.
 */
int db_mail_bisect(struct db_conn *c, long long bisect_id, struct db_mail_bisect *out,
		   struct err *e) __attribute__((warn_unused_result));
void db_mail_bisect_free(struct db_mail_bisect *b);

struct db_mail_step {
	const char *sha; /* the tested commit */
	const char *subject;
	const char *verdict; /* "good", "bad", … as the bisect recorded it */
	double mean;	     /* of its samples; NAN when it has none */
	int nr_samples;
};

struct db_mail_steps {
	struct db_mail_step *v; /* n steps in the order they were taken */
	size_t n;
	struct db_result *res;
};

/*
 * The commit whose runs bisect_id took for commit_id because their kernel
 * images are identical (the step's evidence "same_image_as"): 1 with *id
 * and sha (41 bytes), 0 when commit_id was run itself (or not a step), -1.
 */
int db_mail_same_image(struct db_conn *c, long long bisect_id, long long commit_id, long long *id,
		       char sha[41], struct err *e) __attribute__((warn_unused_result));

/* The steps of bisect `bisect_id`: 0 and out (n may be 0), -1 with e. */
int db_mail_bisect_steps(struct db_conn *c, long long bisect_id, struct db_mail_steps *out,
			 struct err *e) __attribute__((warn_unused_result));
void db_mail_steps_free(struct db_mail_steps *s);

/* ---- the comparison table (ST_MAIL_COMPARE) ------------------------- */

struct db_mail_metric {
	long long metric_id;
	const char *name;
	const double *base, *head; /* per-run means at base / head, sorted ascending, NaN last */
	size_t nr_base, nr_head;
};

struct db_mail_compare {
	struct db_mail_metric *v; /* n metrics by name */
	size_t n;
	double *pool; /* holds every base[] and head[] */
	struct db_result *res;
};

/*
 * Every metric of setup `setup_id` with ok runs at both commits `base_id`
 * and `head_id`: 0 and out (n may be 0), -1 with e.
 */
int db_mail_compare(struct db_conn *c, long long setup_id, long long base_id, long long head_id,
		    struct db_mail_compare *out, struct err *e) __attribute__((warn_unused_result));
/*
 * The perf-profile.* metrics (perf-profile.children.cycles-pp.SYMBOL,
 * perf-profile.self.cycles-pp.SYMBOL) of the profiled runs at base_id and
 * head_id: of setup `setup_id` or of a setup that differs from it only in
 * its monitors (profiled runs are in their own setup), the one with the
 * most values at both commits. Same shape and errors as db_mail_compare();
 * n is 0 when no setup has profiled runs at both commits.
 */
int db_mail_profile_compare(struct db_conn *c, long long setup_id, long long base_id,
			    long long head_id, struct db_mail_compare *out, struct err *e)
	__attribute__((warn_unused_result));
/* Frees t (either function's); a zeroed t is fine. */
void db_mail_compare_free(struct db_mail_compare *t);

/* ---- the test machine (ST_MAIL_MACHINE) ----------------------------- */

struct db_mail_machine {
	/* the host (machines row); has_* 0 when NULL */
	const char *arch, *cpu_model;
	int has_nr_cpus, has_memory_mb;
	long long nr_cpus, memory_mb;
	/* what the worker says of a qemu guest (runs.extra); numbers 0 when NULL */
	const char *accel, *guest_arch;
	int has_guest_nr_cpus;
	long long guest_nr_cpus, guest_memory_mb;
	const char *guest_icount; /* "true" / "false" */
	long long cpus;		  /* runs.extra cpus, of documents without "guest" */
	const char *mode;	  /* the setup's mode; "" when NULL */
	/* the guest's shape (worker/execute.c guest_object); NULL / 0 when not said */
	const char *guest_cpu_model, *guest_pinned, *guest_hugepages; /* pinned "true"/"false" */
	long long guest_numa_nodes;
	const char *tbox_group; /* the setup's; NULL when not set */
	struct db_result *res;
};

/*
 * The machine of the newest run of setup `setup_id` at commit `commit_id`:
 * 1 and out, 0 when there is no such run (out zeroed), -1 with e.
 */
int db_mail_machine(struct db_conn *c, long long setup_id, long long commit_id,
		    struct db_mail_machine *out, struct err *e) __attribute__((warn_unused_result));
/*
 * Sets the machine fields of in (machine_arch, nr_cpus, memory_mb and
 * cpu_model when known; accel and the guest_* fields, icount) from m: the
 * host, and for a qemu run the guest the worker describes in runs.extra
 * (worker/execute.c "guest" {arch, nr_cpus, memory_mb, icount, cpu_model,
 * pinned, hugepages, numa}; documents from before that carry only "accel"
 * and "cpus", and the setup's mode says icount). The strings stay m's.
 */
void db_mail_machine_report(const struct db_mail_machine *m, struct report_input *in);
void db_mail_machine_free(struct db_mail_machine *m);

/* ---- the culprit's files (ST_MAIL_DIFFSTAT, ST_MAIL_COMMIT_FILES) --- */

struct db_mail_diffstat {
	long long files_changed, insertions, deletions; /* 0 when NULL */
};

/* The diffstat of commit `commit_id`: 1 and out, 0 when not collected, -1 with e. */
int db_mail_diffstat(struct db_conn *c, long long commit_id, struct db_mail_diffstat *out,
		     struct err *e) __attribute__((warn_unused_result));

struct db_mail_file {
	const char *path;	    /* relative to the tree's root, as git prints it */
	long insertions, deletions; /* lines; -1 for a binary file */
};

struct db_mail_files {
	struct db_mail_file *v; /* n files by path */
	size_t n;
	struct db_result *res;
};

/* Every file commit `commit_id` touched: 0 and out (n may be 0), -1 with e. */
int db_mail_commit_files(struct db_conn *c, long long commit_id, struct db_mail_files *out,
			 struct err *e) __attribute__((warn_unused_result));
void db_mail_files_free(struct db_mail_files *f);

/* ---- subscriptions (ST_MAIL_SUBS_MATCH, ST_SUB_*: db/mail_subs.c) -- */

struct db_mail_sub {
	const char *email;
	const char *metric; /* fnmatch glob; "" = any */
	const char *paths;  /* path patterns, newline-separated; "" = any */
};

struct db_mail_subs {
	struct db_mail_sub *v; /* n subscriptions by id */
	size_t n;
	struct db_result *res;
};

/*
 * The subscriptions of tree `tree` and testcase `testcase` (or of any);
 * their metric and paths are for the caller to match: 0 and out, -1 with e.
 */
int db_mail_subs_match(struct db_conn *c, const char *tree, const char *testcase,
		       struct db_mail_subs *out, struct err *e) __attribute__((warn_unused_result));
void db_mail_subs_free(struct db_mail_subs *s);

/*
 * Inserts a subscription; tree, testcase, metric NULL = any, paths a
 * PostgreSQL text[] literal or NULL (none). Returns its id or -1 with e.
 */
long long db_mail_sub_insert(struct db_conn *c, const char *email, const char *tree,
			     const char *testcase, const char *metric, const char *paths,
			     struct err *e) __attribute__((warn_unused_result));

/* The host fingerprints of one group of an A/B request's runs. */
struct db_mail_group_fp {
	int group; /* index into the request's spec.groups (jobs.ab_group) */
	json_t *base,
		*head; /* the distinct fingerprints of its base and head runs: arrays, owned */
};

/*
 * Per group of request request_id whose ok runs carry fingerprints, those of
 * each side (ST_MAIL_REQUEST_FINGERPRINTS), by group: the count with *out a
 * new array (NULL when 0; free with db_mail_group_fps_free()), or -1 with e.
 */
long db_mail_request_fingerprints(struct db_conn *c, long long request_id,
				  struct db_mail_group_fp **out, struct err *e)
	__attribute__((warn_unused_result));
void db_mail_group_fps_free(struct db_mail_group_fp *f, long n);

/* Deletes subscription `id`: 1 deleted, 0 no such subscription, -1 with e. */
int db_mail_sub_delete(struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));

/*
 * GET /api/v1/outbox (db_outbox_json(): regression_id, decimal text or
 * NULL for every one; limit, decimal text), a regression's report input
 * (db_regression_report_json()) and GET /api/v1/subscriptions
 * (db_subscriptions_json()).
 * A read of one by id (db_X_json(c, id, ...)) returns 1 and *text, 0
 * when there is none (no row), -1 with e.
 * As the public API's JSON, written by PostgreSQL's json functions (the
 * handler writes it again, compact): 0 and *text, a new NUL-terminated
 * string the caller free()s, or -1 with e: ERR_NOT_FOUND (404, detail
 * "id") when there is no row, else the store's errors (db.h).
 */
int db_outbox_json(struct db_conn *c, const char *regression_id, const char *limit, char **text,
		   struct err *e) __attribute__((warn_unused_result));
int db_regression_report_json(struct db_conn *c, long long id, char **text, struct err *e)
	__attribute__((warn_unused_result));
int db_subscriptions_json(struct db_conn *c, char **text, struct err *e)
	__attribute__((warn_unused_result));

#endif
