/*
 * Typed rows of a worker's lease of a job (jobs.h): the lease and its
 * renewal, what the worker is told, the expiry of silent leases, the
 * queue's fingerprint the lease waiters poll, the checks of who holds a
 * job and may post to it, and its end (lock, image, finish); and the
 * statements they are made with.
 */
#include "server/db/jobs.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a number in text */
#define NUM_LEN 32

/*
 * The lease's skip_images (sql/0022; worker/execute.h): the images already
 * measured that make this job's runs redundant, each with the commit whose
 * runs stand for it (a same-image job's own same_image_as). A bisect job:
 * its bisect's other commits' images (their runs are its samples). A
 * tracking job: its commit's first parent's image in the job's own setup,
 * from any job. Only jobs of the same monitors count: a profiled run is
 * a setup of its own, so a bisect's profile round (sql/0018) is never
 * skipped for its unprofiled steps' images. Others (A/B requests,
 * submitted jobs) always run.
 */
#define SKIP_IMAGES                                                                                  \
	"'skip_images', (SELECT coalesce(json_agg(DISTINCT jsonb_build_object('image_sha256', "      \
	"o.image_sha256, 'commit', coalesce(o.same_image_as, oc.sha))), '[]') FROM jobs o "          \
	"JOIN commits oc ON oc.id = o.commit_id WHERE o.image_sha256 IS NOT NULL "                   \
	"AND o.state = 'done' AND o.outcome IN ('ok', 'same-image') AND o.commit_id <> j.commit_id " \
	"AND o.monitors IS NOT DISTINCT FROM j.monitors "                                            \
	"AND ((j.bisect_id IS NOT NULL AND o.bisect_id = j.bisect_id) "                              \
	"OR (j.plan_id IS NOT NULL AND oc.sha = c.parents[1] AND o.tree_id = j.tree_id "             \
	"AND o.kconfig = j.kconfig AND o.compiler = j.compiler AND o.testcase_id = j.testcase_id "   \
	"AND o.params = j.params)))"

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum lease_stmt {
	ST_JOB_EXPIRE,
	ST_JOB_FINISH,
	ST_JOB_IMAGE,
	ST_JOB_HEARTBEAT,
	ST_JOB_LEASE,
	ST_JOB_LEASE_AGAIN,
	ST_JOB_LOCK,
	ST_JOB_SPEC,
	ST_JOB_MACHINE_OWNER,
	ST_JOB_POST_CHECK,
	ST_QUEUE_COUNT,
	NR_LEASE_STMTS
};

static const struct db_stmt_def stmts[NR_LEASE_STMTS] = {
	[ST_JOB_EXPIRE] = { "job_expire",
			    "WITH x AS (SELECT id, leased_by AS by_machine FROM jobs WHERE state = 'leased' AND lease_expires_at < now() "
			    "FOR UPDATE SKIP LOCKED) "
			    "UPDATE jobs SET state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END, "
			    "fail_reason = CASE WHEN attempts >= max_attempts THEN format("
			    "'lease expired without a heartbeat on attempt %s of %s (machine %s, phase %s)', "
			    "attempts, max_attempts, leased_by, phase) ELSE fail_reason END, "
			    "finished_at = CASE WHEN attempts >= max_attempts THEN now() END, "
			    "phase_history = phase_history || jsonb_build_array(jsonb_build_object("
			    "'phase', 'lease-expired', 'at', now(), 'machine_id', leased_by, 'last_phase', phase)), "
			    "phase = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END, "
			    "leased_by = NULL, lease_expires_at = NULL "
			    "FROM x WHERE jobs.id = x.id RETURNING jobs.id, jobs.state, x.by_machine, "
			    /* the host name of a bare-metal machine: its power may need cycling */
			    "(SELECT m.hostname FROM machines m WHERE m.id = x.by_machine AND "
			    "EXISTS (SELECT 1 FROM unnest(m.capabilities) cap(v) WHERE v LIKE 'kexec-%')) " },
	/* $1 job $2 outcome $3 log tail $4 .config $5 why it produced no run (NULL: ok) */
	[ST_JOB_FINISH] = { "job_finish",
			    "UPDATE jobs SET state = 'done', outcome = $2, log_tail = scrub_userinfo($3), "
			    "kconfig_text = $4, fail_reason = scrub_userinfo($5), "
			    "finished_at = now(), phase = 'done', progress = 1, lease_expires_at = NULL, "
			    "phase_history = phase_history || jsonb_build_array(jsonb_build_object("
			    "'phase', 'done', 'at', now(), 'outcome', $2::text)) WHERE id = $1::bigint" },
	/* $1 job $2 its image's SHA-256 $3 the commit of the same image (same-image; or NULL) */
	[ST_JOB_IMAGE] = { "job_image",
			   "UPDATE jobs SET image_sha256 = $2, same_image_as = $3 WHERE id = $1::bigint" },
	/* $1 job $2 lease seconds $3 phase $4 progress $5 message $6 machine (NULL = any);
	 * phase_history gains an entry per phase, and per step of phase run (a new message:
	 * "host run 2/6"), not per renewal */
	[ST_JOB_HEARTBEAT] = { "job_heartbeat",
			       "UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $2::float8), "
			       "phase = coalesce($3::text, phase), progress = $4::float8, "
			       "message = scrub_userinfo($5::text), "
			       "phase_history = CASE WHEN $3::text IS NOT NULL AND ($3::text IS DISTINCT FROM phase "
			       "OR ($3::text = 'run' AND $5::text IS DISTINCT FROM message)) "
			       "THEN phase_history || jsonb_build_array(jsonb_build_object('phase', $3::text, "
			       "'at', now(), 'progress', $4::float8, 'message', scrub_userinfo($5::text))) "
			       "ELSE phase_history END "
			       "WHERE id = $1::bigint AND state = 'leased' AND lease_expires_at > now() AND "
			       "($6::bigint IS NULL OR leased_by = $6::bigint) RETURNING lease_expires_at" },
	/*
	 * $1 machine, $2 lease seconds, $3 lease request (uuid; NULL: none): the
	 * first matching queued job by priority, then age, skipping locked rows.
	 * A/B request jobs (sql/0016) come in A B A B order of id; a group of
	 * them not pinned to a tbox_group yet offers only its first job (round
	 * 0, base), and leasing that pins the group (pin) to the machine's
	 * tbox_group, so both sides run on the same class of machines.
	 * The first of each (capability, tbox_group or none, arch or none) the
	 * machine matches, each from jobs_queue_target (sql/0030) in its order,
	 * then the first of those: jobs for targets no machine has are never
	 * read (one scan of the queue in priority order read 100k such jobs
	 * per lease: 420 ms)
	 */
	[ST_JOB_LEASE] = { "job_lease",
			   "WITH m AS (SELECT id, arch, tbox_group, capabilities FROM machines WHERE id = $1::bigint), "
			   "j AS (SELECT c.id, c.request_id, c.ab_group FROM m, unnest(m.capabilities) cap(v), "
			   "unnest(ARRAY[m.tbox_group, '']) tg(v), unnest(ARRAY[m.arch, '']) ar(v), "
			   "LATERAL (SELECT jobs.id, jobs.request_id, jobs.ab_group, jobs.priority FROM jobs "
			   "WHERE jobs.state = 'queued' AND jobs.need_capability = cap.v "
			   "AND coalesce(jobs.tbox_group, '') = tg.v AND coalesce(jobs.arch, '') = ar.v "
			   "AND (jobs.request_id IS NULL OR jobs.tbox_group IS NOT NULL "
			   "OR (jobs.ab_pair = 0 AND jobs.ab_side = 'base')) "
			   "ORDER BY jobs.priority DESC, jobs.id LIMIT 1 FOR UPDATE OF jobs SKIP LOCKED) c "
			   "ORDER BY c.priority DESC, c.id LIMIT 1), "
			   "pin AS (UPDATE jobs s SET tbox_group = m.tbox_group FROM j, m "
			   "WHERE j.request_id IS NOT NULL AND s.request_id = j.request_id "
			   "AND s.ab_group = j.ab_group AND s.id <> j.id AND s.tbox_group IS NULL RETURNING s.id) "
			   "UPDATE jobs SET state = 'leased', attempts = jobs.attempts + 1, leased_by = $1::bigint, "
			   "tbox_group = CASE WHEN jobs.request_id IS NULL THEN jobs.tbox_group ELSE m.tbox_group END, "
			   "leased_at = now(), lease_expires_at = now() + make_interval(secs => $2::float8), "
			   "lease_request = $3::uuid, "
			   "phase = 'leased', progress = 0, message = NULL, "
			   "phase_history = jobs.phase_history || jsonb_build_array(jsonb_build_object("
			   "'phase', 'leased', 'at', now(), 'machine_id', $1::bigint, 'attempt', jobs.attempts + 1)) "
			   "FROM j, m WHERE jobs.id = j.id RETURNING jobs.id" },
	/*
	 * $1 machine, $2 lease request (uuid), $3 lease seconds: the job this
	 * machine leased under that request, if still leased to it (sql/0012),
	 * its lease renewed
	 */
	[ST_JOB_LEASE_AGAIN] = { "job_lease_again",
				 "UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3::float8) "
				 "WHERE lease_request = $2::uuid AND leased_by = $1::bigint AND state = 'leased' "
				 "RETURNING id" },
	[ST_JOB_LOCK] = { "job_lock",
			  "SELECT j.state, coalesce(j.leased_by, 0), j.attempts, j.outcome, t.name FROM jobs j "
			  "JOIN testcases t ON t.id = j.testcase_id WHERE j.id = $1::bigint FOR UPDATE OF j" },
	[ST_JOB_SPEC] = { "job_spec",
			  "SELECT json_build_object('id', j.id, 'tree', tr.name, 'url', tr.url, "
			  "'branch', tr.branches[1], 'commit', c.sha, 'kconfig', j.kconfig, "
			  "'compiler', j.compiler, 'testcase', t.name, 'params', j.params, 'repeat', j.repeat, "
			  "'arch', j.arch, 'tbox_group', j.tbox_group, 'attempt', j.attempts, "
			  "'lease_expires_at', j.lease_expires_at, 'image_sha256', j.boot_image, "
			  "'request', j.request_id, 'side', j.ab_side, 'round', j.ab_pair, "
			  "'patches', (SELECT rq.patches FROM requests rq WHERE rq.id = j.request_id "
			  "AND j.ab_side = 'head'), 'monitors', " JOB_MONITORS ", " SKIP_IMAGES
			  ")::text "
			  "FROM jobs j JOIN commits c ON c.id = j.commit_id JOIN testcases t ON t.id = j.testcase_id "
			  "LEFT JOIN trees tr ON tr.id = j.tree_id WHERE j.id = $1::bigint" },
	[ST_JOB_MACHINE_OWNER] = { "job_machine_owner",
				   "SELECT m.id, COALESCE(m.token_id, 0) FROM jobs j JOIN machines m ON m.id = j.leased_by "
				   "WHERE j.id = $1::bigint" },
	/*
	 * $1 job, $2 token (NULL: any may): what a run posted to the job is
	 * checked against, in one read of the job: its commit, its testcase,
	 * whether it is the patched head of an A/B request (its runs are of the
	 * commit git am made), and whether that token may post to it (a machine
	 * the token registered leases it or leased it once: its phase_history
	 * keeps every lease; or the job is of an A/B request the token
	 * submitted); no row: no such job
	 */
	[ST_JOB_POST_CHECK] = { "job_post_check",
				"SELECT c.sha, t.name, j.ab_side = 'head' AND EXISTS (SELECT 1 FROM requests r "
				"WHERE r.id = j.request_id AND r.patches IS NOT NULL), "
				"$2::bigint IS NULL OR EXISTS (SELECT 1 FROM machines m "
				"WHERE m.token_id = $2::bigint "
				"AND (m.id = j.leased_by OR j.phase_history @> jsonb_build_array("
				"jsonb_build_object('phase', 'leased', 'machine_id', m.id)))) "
				"OR EXISTS (SELECT 1 FROM requests r WHERE r.id = j.request_id "
				"AND r.submitted_by = $2::bigint) "
				"FROM jobs j JOIN commits c ON c.id = j.commit_id "
				"JOIN testcases t ON t.id = j.testcase_id WHERE j.id = $1::bigint" },
	/*
	 * a cheap fingerprint of the queue: long-poll waiters retry only when it
	 * changed; counted up to 1000 (index-only), whatever the queue's length
	 */
	[ST_QUEUE_COUNT] = { "queue_count",
			     "SELECT (SELECT count(*) FROM (SELECT 1 FROM jobs WHERE state = 'queued' "
			     "LIMIT 1000) q), coalesce((SELECT max(id) FROM jobs WHERE state = 'queued'), 0)" },
};

const struct db_stmt_table db_stmts_leases = DB_STMT_TABLE(stmts);

/* leases */

int db_job_lease_again(struct db_conn *c, long long machine_id, const char *request_id,
		       long lease_s, long long *job_id, struct err *e)
{
	/* the seconds are a float8 in the SQL ($3::float8): sent as text */
	char secs[NUM_LEN];
	struct db_param p[3] = { db_int8(machine_id), db_text(request_id), db_text(secs) };

	snprintf(secs, sizeof(secs), "%ld", lease_s);
	return db_query_first_id(c, &stmts[ST_JOB_LEASE_AGAIN], 3, p, job_id, e);
}

int db_job_lease(struct db_conn *c, long long machine_id, long lease_s, const char *request_id,
		 long long *job_id, struct err *e)
{
	/* the seconds are a float8 in the SQL ($2::float8): sent as text */
	char secs[NUM_LEN];
	struct db_param p[3] = { db_int8(machine_id), db_text(secs), db_text(request_id) };

	snprintf(secs, sizeof(secs), "%ld", lease_s);
	return db_query_first_id(c, &stmts[ST_JOB_LEASE], 3, p, job_id, e);
}

int db_job_spec(struct db_conn *c, long long id, json_t **spec, struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_JOB_SPEC], id, e);

	*spec = NULL;
	if (!r)
		return -1;
	*spec = PQntuples(r) ? json_loads(PQgetvalue(r, 0, 0), 0, NULL) : NULL;
	PQclear(r);
	return *spec != NULL;
}

int db_job_heartbeat(struct db_conn *c, const struct db_heartbeat *hb, char *expires_at, size_t n,
		     struct err *e)
{
	/* the seconds and the progress are float8s in the SQL: sent as text */
	char secs[NUM_LEN], prog[NUM_LEN];
	struct db_param p[6] = { db_int8(hb->job_id),  db_text(secs),
				 db_text(hb->phase),   db_text(isnan(hb->progress) ? NULL : prog),
				 db_text(hb->message), db_id(hb->machine_id) };
	PGresult *r;
	int found;

	snprintf(secs, sizeof(secs), "%ld", hb->lease_s);
	snprintf(prog, sizeof(prog), "%.6g", hb->progress);
	r = db_query(c, &stmts[ST_JOB_HEARTBEAT], 6, p, 0, e);
	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		snprintf(expires_at, n, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return found;
}

/* ST_JOB_EXPIRE's columns */
enum { EXPIRE_ID, EXPIRE_STATE, EXPIRE_MACHINE, EXPIRE_KEXEC_HOST };

long db_job_expire(struct db_conn *c, struct db_job_expired **jobs, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_JOB_EXPIRE], 0, NULL, 0, e);
	long n;

	*jobs = NULL;
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*jobs = xcalloc((size_t)n, sizeof(**jobs));
	for (long i = 0; i < n; i++) {
		struct db_job_expired *j = &(*jobs)[i];

		j->id = strtoll(PQgetvalue(r, (int)i, EXPIRE_ID), NULL, 10);
		snprintf(j->state, sizeof(j->state), "%s", PQgetvalue(r, (int)i, EXPIRE_STATE));
		j->machine_id = strtoll(PQgetvalue(r, (int)i, EXPIRE_MACHINE), NULL, 10);
		snprintf(j->kexec_host, sizeof(j->kexec_host), "%s",
			 PQgetvalue(r, (int)i, EXPIRE_KEXEC_HOST));
	}
	PQclear(r);
	return n;
}

/* ST_QUEUE_COUNT's columns */
enum { QUEUE_COUNT, QUEUE_MAX_ID };

int db_queue_count(struct db_conn *c, long long *count, long long *max_id, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_QUEUE_COUNT], 0, NULL, 0, e);

	if (!r)
		return -1;
	*count = strtoll(PQgetvalue(r, 0, QUEUE_COUNT), NULL, 10);
	*max_id = strtoll(PQgetvalue(r, 0, QUEUE_MAX_ID), NULL, 10);
	PQclear(r);
	return 0;
}

/* who holds a job */

/* ST_JOB_MACHINE_OWNER's columns */
enum { OWNER_MACHINE, OWNER_TOKEN };

int db_job_machine_owner(struct db_conn *c, long long job_id, long long *machine_id,
			 long long *token_id, struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_JOB_MACHINE_OWNER], job_id, e);
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found) {
		*machine_id = strtoll(PQgetvalue(r, 0, OWNER_MACHINE), NULL, 10);
		*token_id = strtoll(PQgetvalue(r, 0, OWNER_TOKEN), NULL, 10);
	}
	PQclear(r);
	return found;
}

/* ST_JOB_POST_CHECK's columns */
enum { POST_COMMIT, POST_TESTCASE, POST_PATCHED, POST_MAY_POST };

int db_job_post_check(struct db_conn *c, long long job_id, long long token_id,
		      struct db_job_post *out, struct err *e)
{
	struct db_param p[2] = { db_int8(job_id), db_id(token_id) };
	PGresult *r;
	int found;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_JOB_POST_CHECK], 2, p, 0, e);
	if (!r)
		return -1;
	found = PQntuples(r) == 1;
	if (found) {
		snprintf(out->commit, sizeof(out->commit), "%s", PQgetvalue(r, 0, POST_COMMIT));
		snprintf(out->testcase, sizeof(out->testcase), "%s",
			 PQgetvalue(r, 0, POST_TESTCASE));
		out->patched = PQgetvalue(r, 0, POST_PATCHED)[0] == 't';
		out->may_post = PQgetvalue(r, 0, POST_MAY_POST)[0] == 't';
	}
	PQclear(r);
	return found;
}

/* a job's end */

/* ST_JOB_LOCK's columns */
enum { LOCK_STATE, LOCK_LEASED_BY, LOCK_ATTEMPTS, LOCK_OUTCOME, LOCK_TESTCASE };

int db_job_lock(struct db_conn *c, long long id, struct db_job_lock *out, struct err *e)
{
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query_id(c, &stmts[ST_JOB_LOCK], id, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	snprintf(out->state, sizeof(out->state), "%s", PQgetvalue(r, 0, LOCK_STATE));
	out->leased_by = strtoll(PQgetvalue(r, 0, LOCK_LEASED_BY), NULL, 10);
	out->attempts = (int)strtol(PQgetvalue(r, 0, LOCK_ATTEMPTS), NULL, 10);
	snprintf(out->outcome, sizeof(out->outcome), "%s", PQgetvalue(r, 0, LOCK_OUTCOME));
	snprintf(out->testcase, sizeof(out->testcase), "%s", PQgetvalue(r, 0, LOCK_TESTCASE));
	PQclear(r);
	return 1;
}

int db_job_finish(struct db_conn *c, long long id, const char *outcome, const char *log_tail,
		  const char *kconfig, const char *fail_reason, struct err *e)
{
	struct db_param p[5] = { db_int8(id), db_text(outcome), db_text(log_tail), db_text(kconfig),
				 db_text(fail_reason) };

	return db_query_do(c, &stmts[ST_JOB_FINISH], 5, p, e);
}

int db_job_set_image(struct db_conn *c, long long id, const char *image_sha256,
		     const char *same_image_as, struct err *e)
{
	struct db_param p[3] = { db_int8(id), db_text(image_sha256), db_text(same_image_as) };

	return db_query_do(c, &stmts[ST_JOB_IMAGE], 3, p, e);
}
