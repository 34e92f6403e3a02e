#ifndef REGTRACK_SERVER_DB_JOBS_H
#define REGTRACK_SERVER_DB_JOBS_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"

struct db_conn;

/*
 * Typed reads and writes of jobs, machines and leases, each beside its
 * statements: the jobs the API and the tracker queue, show and cancel in
 * db/jobs.c; a worker's lease of a job, its renewal, expiry and end in
 * db/leases.c; the machines workers register in db/machines.c.
 * Ids are PostgreSQL bigints; 0 stands for SQL NULL where a field says
 * "0: none". Every function that fails returns -1 with e filled by
 * db_query(): 503 "db_unavailable", 409 "conflict", 500 "db_error"; other
 * errors are listed with it.
 */

/* jobs */

/* A job to queue (ST_JOB_INSERT). Strings borrowed from the caller. */
struct db_job_new {
	long long tree_id; /* 0: none (a host job without a tree) */
	long long commit_id;
	long long testcase_id;
	const char *params; /* JSON object text */
	const char *kconfig;
	const char *compiler;
	const char *arch;	/* NULL: any */
	const char *tbox_group; /* NULL: any */
	const char *capability; /* host, qemu-x86_64, qemu-aarch64 */
	long long repeat, priority, max_attempts;
	long long token_id;	  /* the submitting API token; 0: none */
	long long plan_id;	  /* a tracking job's plan (sql/0014); 0: none */
	const char *track_key;	  /* with plan_id: the setup, unique per (plan, commit) */
	const char *track_branch; /* with plan_id: the branch whose push queued it */
	const char *monitors;	  /* normalized (lib/profile.h); NULL or "": none */
	const char *boot_image;	  /* a stored image's SHA-256 to boot instead of building
				     (sql/0038; not with plan_id); NULL: build */
};
/*
 * Queues j; returns the new job's id (> 0) or -1 with e. A tracking job
 * (plan_id set) that exists already, for the same plan, commit and
 * track_key, is not queued again: 0 (ST_JOB_INSERT_TRACKED). Monitors
 * are set on the new row by db_job_set_monitors().
 */
long long db_job_insert(struct db_conn *c, const struct db_job_new *j, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Sets job id's monitors (normalized text; NULL or "" changes nothing),
 * in the caller's transaction (ST_JOB_SET_MONITORS). 0 or -1 with e.
 */
int db_job_set_monitors(struct db_conn *c, long long id, const char *monitors, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Cancels plan_id's queued jobs of branch queued by earlier pushes, on the
 * targets whose queue of tracking jobs is deeper than limit: superseded by
 * head (a sha, for the record in fail_reason and phase_history)
 * (ST_JOB_SUPERSEDE). Run in the push's transaction, after its jobs are
 * inserted. Returns how many, or -1 with e.
 */
long db_job_supersede(struct db_conn *c, long long plan_id, const char *branch, const char *head,
		      long limit, struct err *e) __attribute__((warn_unused_result));

/*
 * Job id's state (queued, leased, done, failed, cancelled) into state
 * (size bytes) (ST_JOB_EXISTS): 1, 0 when there is no such job (state ""),
 * -1 with e.
 */
int db_job_state(struct db_conn *c, long long id, char *state, size_t size, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Cancels job id if it is queued or leased (ST_JOB_CANCEL): 1 with the
 * state it had in was (size bytes), 0 when it is neither (or does not
 * exist: db_job_state() tells), -1 with e. A leased job keeps leased_by;
 * its worker's next heartbeat or complete gets 409 lease_lost.
 */
int db_job_cancel(struct db_conn *c, long long id, char *was, size_t size, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The .config job id stored (ST_JOB_KCONFIG). Returns 1 with *text a new
 * NUL-terminated copy of its *len bytes (caller frees), 0 when there is no
 * such job or it stored none (*text NULL), -1 with e.
 */
int db_job_kconfig(struct db_conn *c, long long id, char **text, size_t *len, struct err *e)
	__attribute__((warn_unused_result));

/* A job row locked FOR UPDATE (ST_JOB_LOCK), inside the caller's transaction. */
struct db_job_lock {
	char state[16];	     /* queued, leased, done, failed, cancelled */
	long long leased_by; /* machine id; 0: none */
	int attempts;
	char outcome[32];   /* ok, build-failed, ...; "" when none yet */
	char testcase[128]; /* its testcase's name */
};
/* Locks job id: 1 with *out filled, 0 when there is no such job, -1 with e. */
int db_job_lock(struct db_conn *c, long long id, struct db_job_lock *out, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Records the image job id built: image_sha256 (64 hex) and, for outcome
 * same-image, same_image_as (the 40-hex commit whose image it equals; NULL
 * otherwise) (ST_JOB_IMAGE, sql/0022). Borrowed. 0 or -1 with e.
 */
int db_job_set_image(struct db_conn *c, long long id, const char *image_sha256,
		     const char *same_image_as, struct err *e) __attribute__((warn_unused_result));

/*
 * Marks job id done with the worker's outcome, log tail, .config and, for
 * an outcome other than ok, why it produced no run (fail_reason) (each may
 * be NULL; borrowed) (ST_JOB_FINISH). 0 or -1 with e.
 */
int db_job_finish(struct db_conn *c, long long id, const char *outcome, const char *log_tail,
		  const char *kconfig, const char *fail_reason, struct err *e)
	__attribute__((warn_unused_result));

/* leases */

/*
 * The job machine_id leased under request_id (a UUID in text) and still
 * holds, its lease renewed to lease_s seconds from now
 * (ST_JOB_LEASE_AGAIN): 1 with *job_id, 0 when none, -1 with e.
 */
int db_job_lease_again(struct db_conn *c, long long machine_id, const char *request_id,
		       long lease_s, long long *job_id, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Leases the next queued job that machine_id can run for lease_s seconds,
 * under request_id (NULL: none) (ST_JOB_LEASE): 1 with *job_id, 0 when no
 * job matches, -1 with e.
 */
int db_job_lease(struct db_conn *c, long long machine_id, long lease_s, const char *request_id,
		 long long *job_id, struct err *e) __attribute__((warn_unused_result));
/*
 * What a worker is told about leased job id (ST_JOB_SPEC): {id, tree,
 * url, branch, commit, kconfig, compiler, testcase, params, repeat, arch,
 * tbox_group, attempt, lease_expires_at, request, side, round, patches,
 * monitors (an array of names, [] for none)}
 * as PostgreSQL built it (request: the A/B request id or null; side:
 * "base", "head" or null; round: the A/B pair, 0, 1, ...; patches: the mbox a head job applies on
 * commit, or null). Returns 1 with *spec a new reference, 0 when there is no such job (or its text
 * is not JSON), -1 with e.
 */
int db_job_spec(struct db_conn *c, long long id, json_t **spec, struct err *e)
	__attribute__((warn_unused_result));

/* A renewed lease (ST_JOB_HEARTBEAT). Strings borrowed from the caller. */
struct db_heartbeat {
	long long job_id;
	long lease_s;	      /* the lease runs this many seconds from now */
	const char *phase;    /* NULL: unchanged */
	double progress;      /* in [0, 1]; NAN: none (stored as NULL) */
	const char *message;  /* NULL: none */
	long long machine_id; /* 0: any holder */
};
/*
 * Renews the lease of hb->job_id if it is leased (to hb->machine_id).
 * Returns 1 with expires_at (n bytes) the new lease_expires_at as
 * PostgreSQL prints a timestamptz, 0 when the job is not leased (to that
 * machine) or does not exist (tell them apart with db_job_state()), -1
 * with e.
 */
int db_job_heartbeat(struct db_conn *c, const struct db_heartbeat *hb, char *expires_at, size_t n,
		     struct err *e) __attribute__((warn_unused_result));

/* A job whose lease ran out (ST_JOB_EXPIRE). */
struct db_job_expired {
	long long id;
	char state[16];	      /* what it is now: queued again, or failed */
	long long machine_id; /* the machine whose lease expired */
	char kexec_host[256]; /* its host name when it has a kexec-ARCH capability, else "" */
};
/*
 * Requeues or fails every job whose lease expired. Returns how many, with
 * *jobs a new array of them (caller frees; NULL when none), or -1 with e.
 */
long db_job_expire(struct db_conn *c, struct db_job_expired **jobs, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The queued jobs (ST_QUEUE_COUNT): *count of them, at most 1000 (a count
 * of a 100k queue took 130-230 ms, four times a second), and *max_id the
 * largest id (0 when none), so a change in the queue shows between two
 * reads (past 1000, a new job does; the rest the lease thread's full pass).
 * 0 or -1 with e.
 */
int db_queue_count(struct db_conn *c, long long *count, long long *max_id, struct err *e)
	__attribute__((warn_unused_result));

/* machines */

/* A worker's registration (ST_MACHINE_REGISTER). Strings borrowed from the caller. */
struct db_machine_new {
	const char *hostname, *arch, *tbox_group;
	long long nr_cpus;	  /* -1: unknown */
	long long memory_mb;	  /* -1: unknown */
	const char *cpu_model;	  /* NULL: unknown */
	const char *capabilities; /* a text[] literal: {"host","qemu-x86_64"} */
	const char *fingerprint;  /* JSON object text */
	long long token_id;	  /* the registering token (owns a new machine); 0: none */
	int admin;		  /* 1: may update a machine another token owns */
};
/*
 * Registers m, owned by m->token_id, or updates the machine of the same
 * (hostname, arch, tbox_group) when that token owns it (or nobody does, or
 * m->admin). Returns its id (> 0) or -1 with e: ERR_FORBIDDEN when another
 * token owns it, the errors of db_query().
 */
long long db_machine_register(struct db_conn *c, const struct db_machine_new *m, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Marks machine id seen now: 1 with *token_id the token that owns it (0:
 * none), 0 when there is no such machine, -1 with e.
 */
int db_machine_seen(struct db_conn *c, long long id, long long *token_id, struct err *e)
	__attribute__((warn_unused_result));
/*
 * The machine job_id is leased to (or was, when done): 1 with its id and
 * owning token (0: none), 0 when the job has no such machine, -1 with e.
 */
int db_job_machine_owner(struct db_conn *c, long long job_id, long long *machine_id,
			 long long *token_id, struct err *e) __attribute__((warn_unused_result));

/* What a run posted to a job is checked against (db_job_post_check()). */
struct db_job_post {
	char commit[41];    /* the job's commit */
	char testcase[256]; /* its testcase's name (cut past 255 bytes) */
	int patched;	    /* 1: the head job of an A/B request with patches */
	int may_post;	    /* 1: the token asked about may post runs to it */
};

/*
 * Reads job job_id once (ST_JOB_POST_CHECK) for a run posted to it: its
 * commit and testcase, whether it is a patched head, and whether token_id
 * may post runs to it (a machine that token registered leases the job or
 * leased it before, or the job is of an A/B request the token submitted;
 * token_id 0: any may). 1 with *out filled, 0 when there is no such job,
 * -1 with e (db_query()'s errors).
 */
int db_job_post_check(struct db_conn *c, long long job_id, long long token_id,
		      struct db_job_post *out, struct err *e) __attribute__((warn_unused_result));

/*
 * GET /api/v1/jobs (db_jobs_json()) and one job (db_job_json(),
 * GET /api/v1/jobs/{id}).
 * A read of one by id (db_X_json(c, id, ...)) returns 1 and *text, 0
 * when there is none (no row), -1 with e.
 * As the public API's JSON, written by PostgreSQL's json functions (the
 * handler writes it again, compact): 0 and *text, a new NUL-terminated
 * string the caller free()s, or -1 with e: ERR_NOT_FOUND (404, detail
 * "id") when there is no row, else db_query()'s errors. state is one of the
 * resource's state names or NULL (any); limit, decimal text, the most rows.
 */
int db_jobs_json(struct db_conn *c, const char *state, const char *limit, char **text,
		 struct err *e) __attribute__((warn_unused_result));
int db_job_json(struct db_conn *c, long long id, char **text, struct err *e)
	__attribute__((warn_unused_result));
/* Sets job job_id's warnings to `warnings`, a text[] literal (sql/0021). 0, or -1 with e. */
int db_job_warnings_set(struct db_conn *c, long long job_id, const char *warnings, struct err *e)
	__attribute__((warn_unused_result));
/* *n = how many jobs token token_id submitted that are still queued. 0, or -1 with e. */
int db_jobs_queued_by(struct db_conn *c, long long token_id, long long *n, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Machine machine_id's case table (jsonb text; NULL: it sent none,
 * sql/0021). 0, or -1 with e.
 */
int db_machine_cases_set(struct db_conn *c, long long machine_id, const char *cases, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Every registered case table as a JSON array (one object per machine
 * that sent one, by machine id): *text new, caller free()s. 0, or -1 with e.
 */
int db_machine_cases_json(struct db_conn *c, char **text, struct err *e)
	__attribute__((warn_unused_result));
/*
 * *n = how many registered machines have capability and, when not NULL,
 * tbox_group and arch. 0, or -1 with e.
 */
int db_machines_serving(struct db_conn *c, const char *capability, const char *tbox_group,
			const char *arch, long long *n, struct err *e)
	__attribute__((warn_unused_result));

#endif
