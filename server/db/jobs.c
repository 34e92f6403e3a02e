/* Typed rows of jobs, machines and leases; see jobs.h. */
#include "server/db/jobs.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a bigint in text */
#define ID_LEN 24

/* The first column of r's first row as an id; 0 when r has no row. Clears r. */
static long long first_id(PGresult *r)
{
	long long id = PQntuples(r) ? strtoll(PQgetvalue(r, 0, 0), NULL, 10) : 0;

	PQclear(r);
	return id;
}

/* Runs st with n parameters: 1 and *id from its first row, 0 when none, -1 with e. */
static int exec_returning(struct db_conn *c, enum db_stmt st, int n, const char *const *p,
			  long long *id, struct err *e)
{
	PGresult *r = db_exec(c, st, n, p, e);

	if (!r)
		return -1;
	*id = first_id(r);
	return *id != 0;
}

/* jobs */

long long db_job_insert(struct db_conn *c, const struct db_job_new *j, struct err *e)
{
	char tree[ID_LEN], commit[ID_LEN], tc[ID_LEN], rep[ID_LEN], prio[ID_LEN], max[ID_LEN],
		tok[ID_LEN], plan[ID_LEN];
	const char *p[16] = { j->tree_id ? tree : NULL,
			      commit,
			      tc,
			      j->params,
			      j->kconfig,
			      j->compiler,
			      j->arch,
			      j->tbox_group,
			      j->capability,
			      rep,
			      prio,
			      max,
			      j->token_id ? tok : NULL,
			      plan,
			      j->track_key,
			      j->track_branch };
	long long id;

	snprintf(tree, sizeof(tree), "%lld", j->tree_id);
	snprintf(commit, sizeof(commit), "%lld", j->commit_id);
	snprintf(tc, sizeof(tc), "%lld", j->testcase_id);
	snprintf(rep, sizeof(rep), "%lld", j->repeat);
	snprintf(prio, sizeof(prio), "%lld", j->priority);
	snprintf(max, sizeof(max), "%lld", j->max_attempts);
	snprintf(tok, sizeof(tok), "%lld", j->token_id);
	snprintf(plan, sizeof(plan), "%lld", j->plan_id);
	/* a job with monitors is inserted and given them in one transaction (its own when the
	 * caller has none): a worker never leases it without them */
	int own = j->monitors && *j->monitors && PQtransactionStatus(db_pg(c)) == PQTRANS_IDLE;

	if (own && db_begin(c, e))
		return -1;
	if (j->plan_id) {
		if (exec_returning(c, ST_JOB_INSERT_TRACKED, 16, p, &id, e) < 0)
			goto fail;
	} else {
		const char *q[14];

		memcpy(q, p, 13 * sizeof(p[0]));
		q[13] = j->boot_image;
		if (exec_returning(c, ST_JOB_INSERT, 14, q, &id, e) < 0)
			goto fail;
	}
	if (id > 0 && db_job_set_monitors(c, id, j->monitors, e))
		goto fail;
	if (own && db_commit(c, e))
		goto fail;
	return id;
fail:
	if (own)
		db_rollback(c);
	return -1;
}

int db_job_set_monitors(struct db_conn *c, long long id, const char *monitors, struct err *e)
{
	char idb[ID_LEN];
	const char *p[2] = { idb, monitors };
	PGresult *r;

	if (!monitors || !*monitors)
		return 0;
	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_JOB_SET_MONITORS, 2, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

long db_job_supersede(struct db_conn *c, long long plan_id, const char *branch, const char *head,
		      long limit, struct err *e)
{
	char pid[ID_LEN], lim[ID_LEN];
	const char *p[4] = { pid, branch, head, lim };
	PGresult *r;
	long n;

	snprintf(pid, sizeof(pid), "%lld", plan_id);
	snprintf(lim, sizeof(lim), "%ld", limit);
	r = db_exec(c, ST_JOB_SUPERSEDE, 4, p, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	PQclear(r);
	return n;
}

/* the first column of the one row statement st returns for job id into out: 1, 0 none, -1 */
static int job_one_text(struct db_conn *c, enum db_stmt st, long long id, char *out, size_t size,
			struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;
	int n;

	snprintf(b, sizeof(b), "%lld", id);
	if (size)
		out[0] = 0;
	r = db_exec(c, st, 1, p, e);
	if (!r)
		return -1;
	n = PQntuples(r) > 0;
	if (n && size)
		snprintf(out, size, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return n;
}

int db_job_state(struct db_conn *c, long long id, char *state, size_t size, struct err *e)
{
	return job_one_text(c, ST_JOB_EXISTS, id, state, size, e);
}

int db_job_cancel(struct db_conn *c, long long id, char *was, size_t size, struct err *e)
{
	return job_one_text(c, ST_JOB_CANCEL, id, was, size, e);
}

int db_job_kconfig(struct db_conn *c, long long id, char **text, size_t *len, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;

	*text = NULL;
	*len = 0;
	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_JOB_KCONFIG, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) && !PQgetisnull(r, 0, 0)) {
		*len = (size_t)PQgetlength(r, 0, 0);
		*text = xmalloc(*len + 1);
		memcpy(*text, PQgetvalue(r, 0, 0), *len + 1);
	}
	PQclear(r);
	return *text != NULL;
}

int db_job_lock(struct db_conn *c, long long id, struct db_job_lock *out, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_JOB_LOCK, 1, p, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	snprintf(out->state, sizeof(out->state), "%s", PQgetvalue(r, 0, 0));
	out->leased_by = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
	out->attempts = (int)strtol(PQgetvalue(r, 0, 2), NULL, 10);
	snprintf(out->outcome, sizeof(out->outcome), "%s", PQgetvalue(r, 0, 3));
	snprintf(out->testcase, sizeof(out->testcase), "%s", PQgetvalue(r, 0, 4));
	PQclear(r);
	return 1;
}

int db_job_finish(struct db_conn *c, long long id, const char *outcome, const char *log_tail,
		  const char *kconfig, const char *fail_reason, struct err *e)
{
	char b[ID_LEN];
	const char *p[5] = { b, outcome, log_tail, kconfig, fail_reason };
	PGresult *r;

	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_JOB_FINISH, 5, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_job_set_image(struct db_conn *c, long long id, const char *image_sha256,
		     const char *same_image_as, struct err *e)
{
	char b[ID_LEN];
	const char *p[3] = { b, image_sha256, same_image_as };
	PGresult *r;

	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_JOB_IMAGE, 3, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

/* leases */

int db_job_lease_again(struct db_conn *c, long long machine_id, const char *request_id,
		       long lease_s, long long *job_id, struct err *e)
{
	char mid[ID_LEN], secs[ID_LEN];
	const char *p[3] = { mid, request_id, secs };

	snprintf(mid, sizeof(mid), "%lld", machine_id);
	snprintf(secs, sizeof(secs), "%ld", lease_s);
	return exec_returning(c, ST_JOB_LEASE_AGAIN, 3, p, job_id, e);
}

int db_job_lease(struct db_conn *c, long long machine_id, long lease_s, const char *request_id,
		 long long *job_id, struct err *e)
{
	char mid[ID_LEN], secs[ID_LEN];
	const char *p[3] = { mid, secs, request_id };

	snprintf(mid, sizeof(mid), "%lld", machine_id);
	snprintf(secs, sizeof(secs), "%ld", lease_s);
	return exec_returning(c, ST_JOB_LEASE, 3, p, job_id, e);
}

int db_job_spec(struct db_conn *c, long long id, json_t **spec, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;

	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_JOB_SPEC, 1, p, e);
	if (!r)
		return -1;
	*spec = PQntuples(r) ? json_loads(PQgetvalue(r, 0, 0), 0, NULL) : NULL;
	PQclear(r);
	return *spec != NULL;
}

int db_job_heartbeat(struct db_conn *c, const struct db_heartbeat *hb, char *expires_at, size_t n,
		     struct err *e)
{
	char id[ID_LEN], secs[ID_LEN], prog[32], mid[ID_LEN];
	const char *p[6] = { id,	  secs,
			     hb->phase,	  isnan(hb->progress) ? NULL : prog,
			     hb->message, hb->machine_id ? mid : NULL };
	PGresult *r;
	int found;

	snprintf(id, sizeof(id), "%lld", hb->job_id);
	snprintf(secs, sizeof(secs), "%ld", hb->lease_s);
	snprintf(prog, sizeof(prog), "%.6g", hb->progress);
	snprintf(mid, sizeof(mid), "%lld", hb->machine_id);
	r = db_exec(c, ST_JOB_HEARTBEAT, 6, p, e);
	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		snprintf(expires_at, n, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return found;
}

long db_job_expire(struct db_conn *c, struct db_job_expired **jobs, struct err *e)
{
	PGresult *r = db_exec(c, ST_JOB_EXPIRE, 0, NULL, e);
	long n;

	*jobs = NULL;
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*jobs = xcalloc((size_t)n, sizeof(**jobs));
	for (long i = 0; i < n; i++) {
		(*jobs)[i].id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		snprintf((*jobs)[i].state, sizeof((*jobs)[i].state), "%s",
			 PQgetvalue(r, (int)i, 1));
		(*jobs)[i].machine_id = strtoll(PQgetvalue(r, (int)i, 2), NULL, 10);
		snprintf((*jobs)[i].kexec_host, sizeof((*jobs)[i].kexec_host), "%s",
			 PQgetvalue(r, (int)i, 3));
	}
	PQclear(r);
	return n;
}

/* the queue's statement, prepared with the others (db_stmt_table, db_int.h) */
enum queue_stmt { ST_QUEUE_COUNT, NR_QUEUE_STMTS };

static const struct db_stmt_def queue_stmts[NR_QUEUE_STMTS] = {
	/*
	 * a cheap fingerprint of the queue: long-poll waiters retry only when it
	 * changed; counted up to 1000 (index-only), whatever the queue's length
	 */
	[ST_QUEUE_COUNT] = { "queue_count",
			     "SELECT (SELECT count(*) FROM (SELECT 1 FROM jobs WHERE state = 'queued' "
			     "LIMIT 1000) q), coalesce((SELECT max(id) FROM jobs WHERE state = 'queued'), 0)" },
};

const struct db_stmt_table db_stmts_queue = DB_STMT_TABLE(queue_stmts);

/* ST_QUEUE_COUNT's columns */
enum { QUEUE_COUNT, QUEUE_MAX_ID };

int db_queue_count(struct db_conn *c, long long *count, long long *max_id, struct err *e)
{
	PGresult *r = db_query(c, &queue_stmts[ST_QUEUE_COUNT], 0, NULL, 0, e);

	if (!r)
		return -1;
	*count = strtoll(PQgetvalue(r, 0, QUEUE_COUNT), NULL, 10);
	*max_id = strtoll(PQgetvalue(r, 0, QUEUE_MAX_ID), NULL, 10);
	PQclear(r);
	return 0;
}

/* machines */

long long db_machine_register(struct db_conn *c, const struct db_machine_new *m, struct err *e)
{
	char cpus[ID_LEN], mem[ID_LEN], tok[ID_LEN];
	const char *p[10] = { m->hostname,
			      m->arch,
			      m->tbox_group,
			      m->nr_cpus >= 0 ? cpus : NULL,
			      m->memory_mb >= 0 ? mem : NULL,
			      m->cpu_model,
			      m->capabilities,
			      m->fingerprint,
			      m->token_id ? tok : NULL,
			      m->admin ? "true" : "false" };
	long long id;
	int got;

	snprintf(cpus, sizeof(cpus), "%lld", m->nr_cpus);
	snprintf(mem, sizeof(mem), "%lld", m->memory_mb);
	snprintf(tok, sizeof(tok), "%lld", m->token_id);
	got = exec_returning(c, ST_MACHINE_REGISTER, 10, p, &id, e);
	if (got < 0)
		return -1;
	if (!got)
		return err_setc(e, ERR_FORBIDDEN, "hostname",
				"machine '%s' (%s, %s) was registered by another token",
				m->hostname, m->arch, m->tbox_group);
	return id;
}

/* 1 with the two ids of r's first row, 0 when it has none */
static int two_ids(PGresult *r, long long *a, long long *b)
{
	int found = PQntuples(r) > 0;

	if (found) {
		*a = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		*b = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
	}
	PQclear(r);
	return found;
}

int db_machine_seen(struct db_conn *c, long long id, long long *token_id, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	long long got;
	PGresult *r;

	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_MACHINE_SEEN, 1, p, e);
	return r ? two_ids(r, &got, token_id) : -1;
}

int db_job_machine_owner(struct db_conn *c, long long job_id, long long *machine_id,
			 long long *token_id, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;

	snprintf(b, sizeof(b), "%lld", job_id);
	r = db_exec(c, ST_JOB_MACHINE_OWNER, 1, p, e);
	return r ? two_ids(r, machine_id, token_id) : -1;
}

int db_job_post_check(struct db_conn *c, long long job_id, long long token_id,
		      struct db_job_post *out, struct err *e)
{
	char jb[ID_LEN], tb[ID_LEN];
	const char *p[2] = { jb, token_id ? tb : NULL };
	PGresult *r;
	int found;

	memset(out, 0, sizeof(*out));
	snprintf(jb, sizeof(jb), "%lld", job_id);
	snprintf(tb, sizeof(tb), "%lld", token_id);
	r = db_exec(c, ST_JOB_POST_CHECK, 2, p, e);
	if (!r)
		return -1;
	found = PQntuples(r) == 1;
	if (found) {
		snprintf(out->commit, sizeof(out->commit), "%s", PQgetvalue(r, 0, 0));
		snprintf(out->testcase, sizeof(out->testcase), "%s", PQgetvalue(r, 0, 1));
		out->patched = PQgetvalue(r, 0, 2)[0] == 't';
		out->may_post = PQgetvalue(r, 0, 3)[0] == 't';
	}
	PQclear(r);
	return found;
}

int db_jobs_json(struct db_conn *c, const char *state, const char *limit, char **text,
		 struct err *e)
{
	return db_json_list(c, ST_JOBS_JSON, state, limit, text, e);
}

int db_job_json(struct db_conn *c, long long id, char **text, struct err *e)
{
	return db_json_by_id(c, ST_JOB_JSON, id, text, e);
}

int db_job_warnings_set(struct db_conn *c, long long job_id, const char *warnings, struct err *e)
{
	char idb[24];
	const char *p[2] = { idb, warnings };

	snprintf(idb, sizeof(idb), "%lld", job_id);
	return db_rows(c, ST_JOB_WARNINGS_SET, 2, p, e) < 0 ? -1 : 0;
}

int db_jobs_queued_by(struct db_conn *c, long long token_id, long long *n, struct err *e)
{
	char tb[24];
	const char *p[1] = { tb };

	snprintf(tb, sizeof(tb), "%lld", token_id);
	return db_one_int8(c, ST_JOBS_QUEUED_BY, 1, p, n, e);
}

int db_machine_cases_set(struct db_conn *c, long long machine_id, const char *cases, struct err *e)
{
	char idb[24];
	const char *p[2] = { idb, cases };

	snprintf(idb, sizeof(idb), "%lld", machine_id);
	return db_rows(c, ST_MACHINE_CASES_SET, 2, p, e) < 0 ? -1 : 0;
}

int db_machine_cases_json(struct db_conn *c, char **text, struct err *e)
{
	return db_json_text(c, ST_MACHINE_CASES, 0, NULL, text, e);
}

int db_machines_serving(struct db_conn *c, const char *capability, const char *tbox_group,
			const char *arch, long long *n, struct err *e)
{
	const char *p[3] = { capability, tbox_group, arch };

	return db_one_int8(c, ST_MACHINES_SERVING, 3, p, n, e);
}
