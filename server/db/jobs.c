/*
 * Typed rows of jobs as the API and the tracker queue, show and cancel
 * them (jobs.h), and the statements they are made with. A worker's lease
 * of a job is leases.c's; the machines that register are machines.c's.
 */
#include "server/db/jobs.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for an integer in text */
#define ID_LEN 24

/*
 * What became of job j, as the pages and the list's ?state= filter say it:
 * its state, but a done job that made no run is `failed` when the worker
 * reported a failure (build-failed, boot-failed, run-failed) and `skipped`
 * when it built an image already measured (same-image: another commit's
 * runs stand for it, sql/0022)
 */
#define JOB_STATUS                                                                \
	"CASE WHEN j.state = 'done' AND j.outcome = 'same-image' THEN 'skipped' " \
	"WHEN j.state = 'done' AND coalesce(j.outcome, 'ok') <> 'ok' THEN 'failed' ELSE j.state END"
#define JOB_JSON                                                                                   \
	"json_build_object('id', j.id, 'state', j.state, 'tree', tr.name, 'commit', c.sha, "       \
	"'subject', c.subject, 'kconfig', j.kconfig, 'compiler', j.compiler, 'testcase', t.name, " \
	"'params', j.params, 'repeat', j.repeat, 'arch', j.arch, 'tbox_group', j.tbox_group, "     \
	"'capability', j.need_capability, 'priority', j.priority, 'attempts', j.attempts, "        \
	"'max_attempts', j.max_attempts, 'machine', m.hostname, 'machine_id', j.leased_by, "       \
	"'lease_expires_at', j.lease_expires_at, 'phase', j.phase, 'progress', j.progress, "       \
	"'message', j.message, 'outcome', j.outcome, 'fail_reason', j.fail_reason, "               \
	"'status', " JOB_STATUS ", 'same_image_as', j.same_image_as, "                             \
	"'image_sha256', j.boot_image, "                                                           \
	"'created_at', j.created_at, 'finished_at', j.finished_at, "                               \
	"'plan', (SELECT p.name FROM plans p WHERE p.id = j.plan_id), 'request', j.request_id, "   \
	"'monitors', " JOB_MONITORS ", "                                                           \
	"'runs', (SELECT coalesce(json_agg(r.run_id ORDER BY r.id), '[]') FROM runs r "            \
	"WHERE r.job_id = j.id)"
#define JOB_FROM                                                                                      \
	" FROM jobs j JOIN commits c ON c.id = j.commit_id JOIN testcases t ON t.id = j.testcase_id " \
	"LEFT JOIN trees tr ON tr.id = j.tree_id LEFT JOIN machines m ON m.id = j.leased_by "

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum job_stmt {
	ST_JOBS_JSON,
	ST_JOB_CANCEL,
	ST_JOB_EXISTS,
	ST_JOB_INSERT,
	ST_JOB_INSERT_TRACKED,
	ST_JOB_JSON,
	ST_JOB_KCONFIG,
	ST_JOB_SUPERSEDE,
	ST_JOBS_QUEUED_BY,
	ST_JOB_WARNINGS_SET,
	ST_JOB_SET_MONITORS,
	NR_JOB_STMTS
};

static const struct db_stmt_def stmts[NR_JOB_STMTS] = {
	/* $1 state (NULL = any), $2 limit */
	[ST_JOBS_JSON] = { "jobs_json",
			   "SELECT coalesce(json_agg(x.o ORDER BY x.id DESC), '[]')::text FROM (SELECT j.id, " JOB_JSON
			   ") AS o" JOB_FROM "WHERE $1::text IS NULL OR " JOB_STATUS " = $1 "
			   "ORDER BY j.id DESC LIMIT $2::integer) x" },
	/*
	 * cancels job $1 when queued or leased; returns the state it had (a
	 * leased job's worker learns it from its next heartbeat's 409)
	 */
	[ST_JOB_CANCEL] = { "job_cancel",
			    "WITH o AS (SELECT id, state FROM jobs WHERE id = $1::bigint FOR UPDATE) "
			    "UPDATE jobs SET state = 'cancelled', phase = 'cancelled', finished_at = now(), "
			    "lease_expires_at = NULL, phase_history = jobs.phase_history || jsonb_build_array("
			    "jsonb_build_object('phase', 'cancelled', 'at', now(), 'was', o.state, "
			    "'machine_id', jobs.leased_by)) "
			    "FROM o WHERE jobs.id = o.id AND o.state IN ('queued', 'leased') RETURNING o.state" },
	/* job $1's state (to tell 404 from 409 after a refusal, and say why) */
	[ST_JOB_EXISTS] = { "job_exists", "SELECT state FROM jobs WHERE id = $1::bigint" },
	/* $1 tree $2 commit $3 testcase $4 params $5 kconfig $6 compiler $7 arch $8 tbox_group
	 * $9 capability $10 repeat $11 priority $12 max_attempts $13 token $14 boot image */
	[ST_JOB_INSERT] = { "job_insert",
			    "INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, compiler, arch, "
			    "tbox_group, need_capability, repeat, priority, max_attempts, submitted_by, "
			    "boot_image) "
			    "VALUES ($1::bigint, $2::bigint, $3::integer, $4::jsonb, $5, $6, $7, $8, $9, "
			    "$10::integer, $11::integer, $12::integer, $13::bigint, $14) RETURNING id" },
	/* ST_JOB_INSERT's $1..$13, then $14 plan $15 track key $16 branch: a tracking job, made
	 * once per (plan, commit, setup) (sql/0014); no row when it exists */
	[ST_JOB_INSERT_TRACKED] = { "job_insert_tracked",
				    "INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, compiler, arch, "
				    "tbox_group, need_capability, repeat, priority, max_attempts, submitted_by, plan_id, "
				    "track_key, track_branch) VALUES ($1::bigint, $2::bigint, $3::integer, $4::jsonb, $5, "
				    "$6, $7, $8, $9, $10::integer, $11::integer, $12::integer, $13::bigint, $14::bigint, "
				    "$15, $16) ON CONFLICT (plan_id, commit_id, track_key) DO NOTHING RETURNING id" },
	/*
	 * one job, and what each of its runs got (run_guests: run id -> the accel, cpus and
	 * guest its worker recorded in runs.extra, JSON null where it recorded none), so the
	 * job page reads a job of many runs in one request; host_fingerprint stays out
	 * (GET /api/v1/runs/{id} gives it to a token only)
	 */
	[ST_JOB_JSON] = { "job_json",
			  "SELECT " JOB_JSON
			  ", 'phase_history', j.phase_history, 'log_tail', j.log_tail, "
			  "'warnings', j.warnings, "
			  "'has_kconfig', j.kconfig_text IS NOT NULL, "
			  "'run_guests', (SELECT coalesce(json_object_agg(r.run_id::text, "
			  "json_build_object('accel', r.extra->'accel', 'cpus', r.extra->'cpus', "
			  "'guest', r.extra->'guest')), '{}') FROM runs r WHERE r.job_id = j.id))::text" JOB_FROM
			  "WHERE j.id = $1::bigint" },
	[ST_JOB_KCONFIG] = { "job_kconfig", "SELECT kconfig_text FROM jobs WHERE id = $1::bigint" },
	/*
	 * $1 plan $2 branch $3 the new head (sha, for the record) $4 queue limit: the plan's
	 * queued jobs of the branch from earlier pushes (created before this transaction:
	 * created_at < now()) on a target (tbox_group, else arch) whose queue of tracking jobs
	 * is deeper than the limit are cancelled as superseded by the new head
	 */
	[ST_JOB_SUPERSEDE] = { "job_supersede",
			       "WITH depth AS (SELECT coalesce(tbox_group, '') AS tg, coalesce(arch, '') AS ar, "
			       "count(*) AS n FROM jobs WHERE state = 'queued' AND plan_id IS NOT NULL "
			       "GROUP BY 1, 2) "
			       "UPDATE jobs SET state = 'cancelled', phase = 'superseded', finished_at = now(), "
			       "fail_reason = format('superseded by %s of %s: more than %s tracking jobs queued for %s', "
			       "left($3, 12), $2, $4::integer, coalesce(jobs.tbox_group, jobs.arch)), "
			       "phase_history = phase_history || jsonb_build_array(jsonb_build_object("
			       "'phase', 'superseded', 'at', now(), 'by', $3::text)) "
			       "FROM depth WHERE jobs.plan_id = $1::bigint AND jobs.track_branch = $2 "
			       "AND jobs.state = 'queued' AND jobs.created_at < now() "
			       "AND depth.tg = coalesce(jobs.tbox_group, '') AND depth.ar = coalesce(jobs.arch, '') "
			       "AND depth.n > $4::integer RETURNING jobs.id" },
	/* $1 token: its queued jobs (sql/0028's index) */
	[ST_JOBS_QUEUED_BY] = { "jobs_queued_by",
				"SELECT count(*) FROM jobs WHERE submitted_by = $1::bigint "
				"AND state = 'queued'" },
	/* $1 job, $2 its warnings (text[]) (sql/0021) */
	[ST_JOB_WARNINGS_SET] = { "job_warnings_set",
				  "UPDATE jobs SET warnings = $2::text[] WHERE id = $1::bigint RETURNING id" },
	/* $1 job $2 monitors (normalized text): set once, on a new job (db_job_insert) */
	[ST_JOB_SET_MONITORS] = { "job_set_monitors",
				  "UPDATE jobs SET monitors = $2 WHERE id = $1::bigint" },
};

const struct db_stmt_table db_stmts_jobs = DB_STMT_TABLE(stmts);

long long db_job_insert(struct db_conn *c, const struct db_job_new *j, struct err *e)
{
	/* testcase, repeat, priority and max_attempts are integers in the SQL ($n::integer):
	 * sent as text */
	char tc[ID_LEN], rep[ID_LEN], prio[ID_LEN], max[ID_LEN];
	struct db_param p[16] = { db_id(j->tree_id),
				  db_int8(j->commit_id),
				  db_text(tc),
				  db_text(j->params),
				  db_text(j->kconfig),
				  db_text(j->compiler),
				  db_text(j->arch),
				  db_text(j->tbox_group),
				  db_text(j->capability),
				  db_text(rep),
				  db_text(prio),
				  db_text(max),
				  db_id(j->token_id),
				  db_int8(j->plan_id),
				  db_text(j->track_key),
				  db_text(j->track_branch) };
	long long id;

	snprintf(tc, sizeof(tc), "%lld", j->testcase_id);
	snprintf(rep, sizeof(rep), "%lld", j->repeat);
	snprintf(prio, sizeof(prio), "%lld", j->priority);
	snprintf(max, sizeof(max), "%lld", j->max_attempts);
	/* a job with monitors is inserted and given them in one transaction (its own when the
	 * caller has none): a worker never leases it without them */
	int own = j->monitors && *j->monitors && PQtransactionStatus(db_pg(c)) == PQTRANS_IDLE;

	if (own && db_begin(c, e))
		return -1;
	if (j->plan_id) {
		if (db_query_first_id(c, &stmts[ST_JOB_INSERT_TRACKED], 16, p, &id, e) < 0)
			goto fail;
	} else {
		/* ST_JOB_INSERT's $1..$13 are ST_JOB_INSERT_TRACKED's; $14 the boot image */
		p[13] = db_text(j->boot_image);
		if (db_query_first_id(c, &stmts[ST_JOB_INSERT], 14, p, &id, e) < 0)
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
	struct db_param p[2] = { db_int8(id), db_text(monitors) };

	if (!monitors || !*monitors)
		return 0;
	return db_query_do(c, &stmts[ST_JOB_SET_MONITORS], 2, p, e);
}

long db_job_supersede(struct db_conn *c, long long plan_id, const char *branch, const char *head,
		      long limit, struct err *e)
{
	/* the limit is an integer in the SQL ($4::integer): sent as text */
	char lim[ID_LEN];
	struct db_param p[4] = { db_int8(plan_id), db_text(branch), db_text(head), db_text(lim) };

	snprintf(lim, sizeof(lim), "%ld", limit);
	return (long)db_query_rows(c, &stmts[ST_JOB_SUPERSEDE], 4, p, e);
}

/* the first column of the one row statement s returns for job id into out: 1, 0 none, -1 */
static int job_one_text(struct db_conn *c, const struct db_stmt_def *s, long long id, char *out,
			size_t size, struct err *e)
{
	PGresult *r;
	int n;

	if (size)
		out[0] = 0;
	r = db_query_id(c, s, id, e);
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
	return job_one_text(c, &stmts[ST_JOB_EXISTS], id, state, size, e);
}

int db_job_cancel(struct db_conn *c, long long id, char *was, size_t size, struct err *e)
{
	return job_one_text(c, &stmts[ST_JOB_CANCEL], id, was, size, e);
}

int db_job_kconfig(struct db_conn *c, long long id, char **text, size_t *len, struct err *e)
{
	PGresult *r;

	*text = NULL;
	*len = 0;
	r = db_query_id(c, &stmts[ST_JOB_KCONFIG], id, e);
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

int db_jobs_json(struct db_conn *c, const char *state, const char *limit, char **text,
		 struct err *e)
{
	return db_query_json_list(c, &stmts[ST_JOBS_JSON], state, limit, text, e);
}

int db_job_json(struct db_conn *c, long long id, char **text, struct err *e)
{
	return db_query_json_by_id(c, &stmts[ST_JOB_JSON], id, text, e);
}

int db_job_warnings_set(struct db_conn *c, long long job_id, const char *warnings, struct err *e)
{
	struct db_param p[2] = { db_int8(job_id), db_text(warnings) };

	return db_query_rows(c, &stmts[ST_JOB_WARNINGS_SET], 2, p, e) < 0 ? -1 : 0;
}

int db_jobs_queued_by(struct db_conn *c, long long token_id, long long *n, struct err *e)
{
	struct db_param p[1] = { db_int8(token_id) };

	return db_query_int8(c, &stmts[ST_JOBS_QUEUED_BY], 1, p, n, e);
}
