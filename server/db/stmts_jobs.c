/* Statements of jobs, workers and leases (api/jobs.c, api/workers.c, lease.c); see db.h. */
#include "server/db/stmts.h"

/* jobs.monitors ("perf-profile,perf-stat", sql/0018) as a JSON array */
#define JOB_MONITORS \
	"CASE WHEN j.monitors = '' THEN '[]'::json ELSE to_json(string_to_array(j.monitors, ',')) END"
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
#define JOB_FROM                                                                                      \
	" FROM jobs j JOIN commits c ON c.id = j.commit_id JOIN testcases t ON t.id = j.testcase_id " \
	"LEFT JOIN trees tr ON tr.id = j.tree_id LEFT JOIN machines m ON m.id = j.leased_by "

const struct db_stmt_def db_stmts_jobs[DB_NR_STMTS] = {
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
	[ST_JOB_JSON] = { "job_json", "SELECT " JOB_JSON
				      ", 'phase_history', j.phase_history, 'log_tail', j.log_tail, "
				      "'warnings', j.warnings, "
				      "'has_kconfig', j.kconfig_text IS NOT NULL)::text" JOB_FROM
				      "WHERE j.id = $1::bigint" },
	[ST_JOB_KCONFIG] = { "job_kconfig", "SELECT kconfig_text FROM jobs WHERE id = $1::bigint" },
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
	/* $9 the registering token, $10 admin: another token's machine is not updated (no row) */
	[ST_MACHINE_REGISTER] = { "machine_register",
				  "INSERT INTO machines (hostname, arch, tbox_group, nr_cpus, memory_mb, cpu_model, "
				  "capabilities, fingerprint, token_id) VALUES ($1, $2, $3, $4::integer, $5::bigint, $6, "
				  "$7::text[], $8::jsonb, $9::bigint) ON CONFLICT (hostname, arch, tbox_group) DO UPDATE SET "
				  "nr_cpus = EXCLUDED.nr_cpus, memory_mb = EXCLUDED.memory_mb, "
				  "cpu_model = EXCLUDED.cpu_model, capabilities = EXCLUDED.capabilities, "
				  "fingerprint = EXCLUDED.fingerprint, last_seen = now(), "
				  "token_id = COALESCE(machines.token_id, EXCLUDED.token_id) "
				  "WHERE machines.token_id IS NULL OR machines.token_id = EXCLUDED.token_id OR $10::boolean "
				  "RETURNING id" },
	[ST_MACHINE_SEEN] = { "machine_seen",
			      "UPDATE machines SET last_seen = now() WHERE id = $1::bigint RETURNING id, "
			      "COALESCE(token_id, 0)" },
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
	/* $1 token: its queued jobs (sql/0028's index) */
	[ST_JOBS_QUEUED_BY] = { "jobs_queued_by",
				"SELECT count(*) FROM jobs WHERE submitted_by = $1::bigint "
				"AND state = 'queued'" },
	/* $1 machine, $2 its cases (jsonb; NULL: it sent none) (sql/0021) */
	[ST_MACHINE_CASES_SET] = { "machine_cases_set",
				   "UPDATE machines SET cases = $2::jsonb WHERE id = $1::bigint RETURNING id" },
	/* every registered case table, one object per machine that sent one (server/track/casecheck.c) */
	[ST_MACHINE_CASES] = { "machine_cases",
			       "SELECT coalesce(json_agg(cases ORDER BY id), '[]')::text FROM machines "
			       "WHERE cases IS NOT NULL" },
	/* registered workers with capability $1, tbox_group $2 and arch $3 (NULL: any) */
	[ST_MACHINES_SERVING] = { "machines_serving",
				  "SELECT count(*) FROM machines WHERE $1 = ANY(capabilities) "
				  "AND ($2::text IS NULL OR tbox_group = $2) AND ($3::text IS NULL OR arch = $3)" },
	/* $1 job, $2 its warnings (text[]) (sql/0021) */
	[ST_JOB_WARNINGS_SET] = { "job_warnings_set",
				  "UPDATE jobs SET warnings = $2::text[] WHERE id = $1::bigint RETURNING id" },
	/* $1 job $2 monitors (normalized text): set once, on a new job (db_job_insert) */
	[ST_JOB_SET_MONITORS] = { "job_set_monitors",
				  "UPDATE jobs SET monitors = $2 WHERE id = $1::bigint" },
};
