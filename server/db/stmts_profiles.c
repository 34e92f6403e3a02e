/* Statements of run profiles and profile diffs (ingest.c, api/profiles.c); see db.h and sql/0018. */
#include "server/db/stmts.h"

/*
 * the columns of every ST_PROFILE_RUNS_*: head side (bool), the run's
 * commit, its folded text (NULL when TEXT(n)'s parameter is true: the
 * runs without their stacks, which a stored value of TOAST never reads
 * then), its setup, the profile's event, and the run's work: the mean of
 * the first of the metrics named in WORK's parameter (space-separated,
 * lib/profile.h's PROFILE_WORK_METRICS) it has, that metric's name, and
 * its setup's runtime param (text; NULLs when none), then runs.id
 */
#define WORK_COLS ", p.event, w.mean, w.name, s.params->>'runtime', r.id "
#define TEXT(n) "CASE WHEN $" n "::boolean THEN NULL ELSE p.folded END"
#define WORK(n)                                                                                     \
	"LEFT JOIN LATERAL (SELECT m.name, (SELECT avg(x) FROM unnest(rv.vals) x) AS mean "         \
	"FROM run_points(r.id, r.received_at) rv JOIN metrics m ON m.id = rv.metric_id WHERE true " \
	"AND m.name = ANY (string_to_array($" n                                                     \
	"::text, ' ')) ORDER BY m.name LIMIT 1) w ON true "
const struct db_stmt_def db_stmts_profiles[DB_NR_STMTS] = {
	/* $1 bisect: its state, first bad commit and the parent it was verified against */
	[ST_PROFILE_BISECT_ENDS] = { "profile_bisect_ends",
				     "SELECT b.state, fb.sha, b.verification->>'parent' FROM bisects b "
				     "LEFT JOIN commits fb ON fb.id = b.first_bad_id WHERE b.id = $1::bigint" },
	/* $1 job $2 monitors (normalized text): set once, on a new job (db_job_insert) */
	[ST_JOB_SET_MONITORS] = { "job_set_monitors",
				  "UPDATE jobs SET monitors = $2 WHERE id = $1::bigint" },
	/*
	 * $1 bisect $2 parent $3 first bad (commit ids): its profile round's
	 * jobs at those commits, and how many are still out (queued or leased)
	 */
	[ST_BISECT_PROFILE_JOBS] = { "bisect_profile_jobs",
				     "SELECT count(*), count(*) FILTER (WHERE state IN ('queued', 'leased')) "
				     "FROM jobs WHERE bisect_id = $1::bigint AND monitors <> '' "
				     "AND commit_id IN ($2::bigint, $3::bigint)" },
	/*
	 * $1 bisect $2 commit $3 capability $4 repeat $5 priority $6 max_attempts $7 round:
	 * a job of its profile round, ST_BISECT_JOB_INSERT's with the bisect's monitors
	 */
	[ST_BISECT_PROFILE_JOB_INSERT] = { "bisect_profile_job_insert",
					   "INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, "
					   "compiler, arch, tbox_group, need_capability, repeat, priority, "
					   "max_attempts, bisect_id, bisect_round, monitors) "
					   "SELECT b.tree_id, $2::bigint, b.testcase_id, b.params, b.kconfig, "
					   "b.compiler, b.arch, b.tbox_group, $3, $4::integer, $5::integer, "
					   "$6::integer, b.id, $7::integer, b.monitors "
					   "FROM bisects b WHERE b.id = $1::bigint AND b.monitors <> '' RETURNING id" },
	/* $1 bisect: the monitors of its profile round; the phase is 'profile' from then */
	[ST_BISECT_MONITORS] = { "bisect_monitors",
				 "SELECT monitors FROM bisects WHERE id = $1::bigint" },
	[ST_BISECT_SET_MONITORS] = { "bisect_set_monitors",
				     "UPDATE bisects SET monitors = $2 WHERE id = $1::bigint" },
	/* $1 runs.id $2 event $3 samples $4 folded */
	[ST_PROFILE_INSERT] = { "profile_insert",
				"INSERT INTO run_profiles (run_id, event, samples, folded) "
				"VALUES ($1::bigint, $2, $3::bigint, $4)" },
	/* $1 run_id (uuid): the run (runs.id) and its profile, NULLs when it has none */
	[ST_PROFILE_OF_RUN] = { "profile_of_run",
				"SELECT r.id, p.event, p.samples, p.folded FROM runs r "
				"LEFT JOIN run_profiles p ON p.run_id = r.id WHERE r.run_id = $1::uuid" },
	/* $1 request: its base and head commits (head NULL: patches not yet applied) */
	[ST_PROFILE_REQUEST_ENDS] = { "profile_request_ends",
				      "SELECT base_sha, head_sha FROM requests WHERE id = $1::bigint" },
	/*
	 * $1 bisect $2 work metrics $3 without texts: the profiled runs of its profile round
	 * (jobs with monitors, server/bisect/bisect_step.c) at its first bad commit
	 * (head) and at the parent the verification compared it with (base)
	 */
	[ST_PROFILE_RUNS_BISECT] = { "profile_runs_bisect",
				     "SELECT r.commit_id = b.first_bad_id, c.sha, " TEXT(
					     "3") ", r.setup_id" WORK_COLS "FROM bisects b "
						  "JOIN jobs j ON j.bisect_id = b.id AND j.monitors <> '' "
						  "JOIN runs r ON r.job_id = j.id AND r.status = 'ok' "
						  "JOIN run_profiles p ON p.run_id = r.id JOIN commits c ON c.id = r.commit_id "
						  "JOIN setups s ON s.id = r.setup_id " WORK(
							  "2") "WHERE b.id = $1::bigint AND (r.commit_id = b.first_bad_id "
							       "OR c.sha = b.verification->>'parent') ORDER BY r.id" },
	/*
	 * $1 base commit id, $2 head commit id, $3 testcase, $4..$9 the setup
	 * filters of ST_COMPARE (db/stmts_series.c), $10 work metrics, $11
	 * without texts: the
	 * profiled runs (status ok) of both commits
	 */
	[ST_PROFILE_RUNS_COMMITS] = { "profile_runs_commits",
				      "SELECT r.commit_id = $2::bigint, c.sha, " TEXT(
					      "11") ", r.setup_id" WORK_COLS "FROM runs r "
						    "JOIN run_profiles p ON p.run_id = r.id JOIN commits c ON c.id = r.commit_id "
						    "JOIN setups s ON s.id = r.setup_id JOIN testcases t ON t.id = s.testcase_id " WORK(
							    "10") "WHERE r.commit_id IN ($1::bigint, $2::bigint) AND r.status = 'ok' "
								  "AND ($3::text IS NULL OR t.name = $3) "
								  "AND ($4::text IS NULL OR s.tbox_group = $4) "
								  "AND ($5::text IS NULL OR s.kconfig = $5) "
								  "AND ($6::text IS NULL OR s.compiler = $6) "
								  "AND ($7::text IS NULL OR s.params_key = $7) "
								  "AND ($8::text IS NULL OR s.mode = $8) "
								  "AND ($9::text IS NULL OR s.monitors = $9) ORDER BY r.id" },
	/*
	 * $1 request $2 target (NULL = any) $3 testcase (NULL = any) $4 work
	 * metrics $5 without texts: the profiled runs of its base and head jobs; a job's target is
	 * its group's in the request's spec (ab_group indexes spec.groups)
	 */
	[ST_PROFILE_RUNS_REQUEST] = { "profile_runs_request",
				      "SELECT j.ab_side = 'head', c.sha, " TEXT(
					      "5") ", r.setup_id" WORK_COLS "FROM jobs j "
						   "JOIN requests rq ON rq.id = j.request_id "
						   "JOIN runs r ON r.job_id = j.id AND r.status = 'ok' "
						   "JOIN run_profiles p ON p.run_id = r.id JOIN commits c ON c.id = r.commit_id "
						   "JOIN setups s ON s.id = r.setup_id " WORK(
							   "4") "JOIN testcases t ON t.id = j.testcase_id WHERE j.request_id = $1::bigint "
								"AND ($2::text IS NULL OR "
								"rq.spec->'groups'->(j.ab_group::integer)->>'target' = $2) "
								"AND ($3::text IS NULL OR t.name = $3) ORDER BY r.id" },
};
