/* Statements of bisects (db/bisects.c, api/bisects.c); see db.h. */
#include "server/db/stmts.h"

#define BISECT_JSON                                                                                  \
	"'id', b.id, 'state', b.state, 'tree', tr.name, 'good', g.sha, 'bad', bd.sha, "              \
	"'testcase', t.name, 'params', b.params, 'kconfig', b.kconfig, 'compiler', b.compiler, "     \
	"'arch', b.arch, 'tbox_group', b.tbox_group, 'metric', b.metric, "                           \
	"'runs_per_step', b.runs_per_step, 'ref_runs', b.ref_runs, 'k', b.max_k, 'round', b.round, " \
	"'phase', b.phase, 'nr_candidates', b.nr_candidates, 'nr_range', b.nr_range, "               \
	"'level', b.level, 'descents', b.descents, "                                                 \
	"'monitors', CASE WHEN b.monitors = '' THEN '[]'::json "                                     \
	"ELSE to_json(string_to_array(b.monitors, ',')) END, "                                       \
	"'outcome', b.outcome, 'first_bad_commit', CASE WHEN fb.id IS NULL THEN NULL ELSE "          \
	"json_build_object('sha', fb.sha, 'subject', fb.subject, 'author', fb.author, "              \
	"'commit_time', fb.commit_time, 'diffstat', (SELECT json_build_object('files_changed', "     \
	"ds.files_changed, 'insertions', ds.insertions, 'deletions', ds.deletions, 'files', "        \
	"(SELECT coalesce(json_agg(json_build_object('path', cf.path, 'insertions', cf.insertions, " \
	"'deletions', cf.deletions) ORDER BY cf.path), '[]') FROM (SELECT * FROM commit_files "      \
	"WHERE commit_id = ds.commit_id ORDER BY path LIMIT 100) cf)) FROM commit_diffstat ds "      \
	"WHERE ds.commit_id = fb.id), 'outside_build', outside_build_areas(fb.id, CASE "             \
	"WHEN coalesce(b.arch, split_part(b.kconfig, '-', 1)) IN ('x86_64', 'x86') THEN 'x86' "      \
	"WHEN coalesce(b.arch, split_part(b.kconfig, '-', 1)) IN ('aarch64', 'arm64') "              \
	"THEN 'arm64' END)) END, "                                                                   \
	"'confidence', b.confidence, 'reason', b.reason, 'regression_id', b.regression_id, "         \
	"'jobs_used', (SELECT count(*) FROM jobs j WHERE j.bisect_id = b.id), "                      \
	"'runs_used', (SELECT count(*) FROM runs r JOIN jobs j ON j.id = r.job_id "                  \
	"WHERE j.bisect_id = b.id), "                                                                \
	"'wall_time_s', extract(epoch FROM coalesce(b.finished_at, now()) - b.created_at), "         \
	"'created_at', b.created_at, 'started_at', b.started_at, 'finished_at', b.finished_at"
#define BISECT_FROM                                                                              \
	" FROM bisects b JOIN trees tr ON tr.id = b.tree_id JOIN commits g ON g.id = b.good_id " \
	"JOIN commits bd ON bd.id = b.bad_id JOIN testcases t ON t.id = b.testcase_id "          \
	"LEFT JOIN commits fb ON fb.id = b.first_bad_id "

const struct db_stmt_def db_stmts_bisects[DB_NR_STMTS] = {
	/* $1 state (NULL = any) $2 limit */
	[ST_BISECTS_JSON] = { "bisects_json",
			      "SELECT coalesce(json_agg(x.o ORDER BY x.id DESC), '[]')::text FROM (SELECT b.id, "
			      "json_build_object(" BISECT_JSON ") AS o" BISECT_FROM
			      "WHERE $1::text IS NULL OR b.state = $1 ORDER BY b.id DESC LIMIT $2::integer) x" },
	[ST_BISECT_ACTIVE] = { "bisect_active",
			       "SELECT id FROM bisects WHERE state IN ('queued', 'running') ORDER BY id" },
	/* cancels a bisect and its jobs not yet finished; returns the bisect when it was active */
	[ST_BISECT_CANCEL] = { "bisect_cancel",
			       "WITH j AS (UPDATE jobs SET state = 'cancelled', finished_at = now(), "
			       "lease_expires_at = NULL WHERE bisect_id = $1::bigint AND state IN ('queued', 'leased') "
			       "RETURNING id) UPDATE bisects SET state = 'cancelled', phase = 'end', finished_at = now(), "
			       "reason = coalesce($2, 'cancelled') WHERE id = $1::bigint AND state IN ('queued', 'running') "
			       "RETURNING id, (SELECT count(*) FROM j)" },
	/* the candidates of the bisect's current level */
	[ST_BISECT_CANDIDATES] = { "bisect_candidates",
				   "SELECT bc.idx, c.id, c.sha FROM bisect_commits bc JOIN commits c ON c.id = bc.commit_id "
				   "JOIN bisects b ON b.id = bc.bisect_id AND b.level = bc.level "
				   "WHERE bc.bisect_id = $1::bigint ORDER BY bc.idx" },
	/* $1 bisect $2 shas (text[], oldest first) $3 level (sql/0009) */
	[ST_BISECT_COMMITS_INSERT] = { "bisect_commits_insert",
				       "INSERT INTO bisect_commits (bisect_id, level, idx, commit_id) "
				       "SELECT $1::bigint, $3::integer, u.ord - 1, c.id "
				       "FROM unnest($2::text[]) WITH ORDINALITY AS u (sha, ord) JOIN commits c ON c.sha = u.sha" },
	/* $1 bisect $2 new level $3 its good end (commit id) $4 the level left (jsonb object) */
	[ST_BISECT_DESCEND] = { "bisect_descend",
				"UPDATE bisects SET level = $2::integer, level_good_id = $3::bigint, "
				"descents = descents || jsonb_build_array($4::jsonb), phase = 'refs' "
				"WHERE id = $1::bigint" },
	[ST_BISECT_EXISTS] = { "bisect_exists", "SELECT 1 FROM bisects WHERE id = $1::bigint" },
	/* $1 bisect $2 state $3 outcome $4 first bad $5 candidates $6 confidence $7 reason
	 * $8 verification $9 model */
	[ST_BISECT_FINISH] = { "bisect_finish",
			       "UPDATE bisects SET state = $2, outcome = $3, first_bad_id = $4::bigint, "
			       "candidate_ids = $5::bigint[], confidence = $6::float8, reason = $7, "
			       "verification = $8::jsonb, model = coalesce($9::jsonb, model), phase = 'end', "
			       "finished_at = now() WHERE id = $1::bigint RETURNING coalesce(regression_id, 0)" },
	/* $1 tree $2 good $3 bad $4 testcase $5 params $6 kconfig $7 compiler $8 arch $9 tbox_group
	 * $10 metric $11 runs_per_step $12 ref_runs $13 k $14 regression $15 token */
	[ST_BISECT_INSERT] = { "bisect_insert",
			       "INSERT INTO bisects (tree_id, good_id, bad_id, testcase_id, params, kconfig, compiler, "
			       "arch, tbox_group, metric, runs_per_step, ref_runs, max_k, regression_id, submitted_by) "
			       "VALUES ($1::bigint, $2::bigint, $3::bigint, $4::integer, $5::jsonb, $6, $7, $8, $9, $10, "
			       "$11::integer, $12::integer, $13::integer, $14::bigint, $15::bigint) RETURNING id" },
	[ST_BISECT_JOBS] = { "bisect_jobs",
			     "SELECT commit_id, bisect_round, state, coalesce(outcome, ''), "
			     "coalesce(image_sha256, ''), coalesce(same_image_as, '') FROM jobs "
			     "WHERE bisect_id = $1::bigint AND monitors = '' ORDER BY id" },
	/* $1 bisect $2 commit $3 capability $4 repeat $5 priority $6 max_attempts $7 round */
	[ST_BISECT_JOB_INSERT] = { "bisect_job_insert",
				   "INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, compiler, arch, "
				   "tbox_group, need_capability, repeat, priority, max_attempts, bisect_id, bisect_round) "
				   "SELECT b.tree_id, $2::bigint, b.testcase_id, b.params, b.kconfig, b.compiler, b.arch, "
				   "b.tbox_group, $3, $4::integer, $5::integer, $6::integer, b.id, $7::integer "
				   "FROM bisects b WHERE b.id = $1::bigint RETURNING id" },
	[ST_BISECT_JSON] = { "bisect_json",
			     "SELECT json_build_object(" BISECT_JSON ", "
			     "'candidates', (SELECT coalesce(json_agg(json_build_object('sha', c.sha, 'subject', "
			     "c.subject) ORDER BY u.o), '[]') FROM unnest(b.candidate_ids) WITH ORDINALITY AS u (cid, o) "
			     "JOIN commits c ON c.id = u.cid), 'verification', b.verification, 'model', b.model, "
			     "'parent_stand_in', " PARENT_STAND_IN_JSON ", "
			     "'steps', (SELECT coalesce(json_agg(json_build_object('commit', c.sha, 'subject', "
			     "c.subject, 'round', s.round, 'level', s.level, 'role', s.role, 'samples', s.samples, "
			     "'verdict', s.verdict, "
			     "'evidence', s.evidence) ORDER BY s.id), '[]') FROM bisect_steps s "
			     "JOIN commits c ON c.id = s.commit_id WHERE s.bisect_id = b.id))::text" BISECT_FROM
			     "WHERE b.id = $1::bigint" },
	/* locks one active bisect for its coordinator step (skipped when another server holds it) */
	[ST_BISECT_LOCK] = { "bisect_lock",
			     "SELECT b.state, b.round, tr.name, tr.url, array_to_string(tr.branches, ' '), g.sha, "
			     "bd.sha, b.kconfig, b.arch, b.tbox_group, coalesce(b.params->>'measure', ''), "
			     "b.runs_per_step, b.ref_runs, b.max_k, coalesce(b.regression_id, 0), b.tree_id, "
			     "b.metric, coalesce(b.nr_candidates, 0), b.level, lg.sha, lg.id, (b.descents->-1)::text, "
			     "b.params::text FROM bisects b JOIN trees tr ON tr.id = b.tree_id JOIN commits g ON g.id = b.good_id "
			     "JOIN commits bd ON bd.id = b.bad_id "
			     "JOIN commits lg ON lg.id = coalesce(b.level_good_id, b.good_id) "
			     "WHERE b.id = $1::bigint AND b.state IN ('queued', 'running') FOR UPDATE OF b SKIP LOCKED" },
	/*
	 * A bisect started by hand that found its first bad commit becomes a
	 * regression (or improvement) record of first bad vs its parent, state
	 * bisected, so it is reported and shown like one detection found; the
	 * bisect points to it. Sizes come from the verification round; its kind
	 * from the verification's direction (the HL shift's sign; a verification
	 * stored before it had one: the sign of the means' difference, never of
	 * LKP's %change, which flips with a negative base).
	 */
	[ST_BISECT_RECORD] = { "bisect_record",
			       "WITH b AS (SELECT * FROM bisects WHERE id = $1::bigint), "
			       "f AS (SELECT c.id, c.parents[1] AS parent FROM commits c, b WHERE c.id = b.first_bad_id), "
			       "p AS (SELECT c.id FROM commits c, f WHERE c.sha = f.parent), "
			       "s AS (SELECT s.id FROM setups s, b WHERE s.testcase_id = b.testcase_id "
			       "AND s.params = b.params AND s.kconfig = b.kconfig AND s.compiler = b.compiler "
			       "AND (b.tbox_group IS NULL OR s.tbox_group = b.tbox_group) "
			       "AND s.mode = coalesce(b.params->>'measure', 'wallclock') AND s.monitors = '' "
			       "ORDER BY s.id LIMIT 1), "
			       "m AS (SELECT m.id, m.higher_is_better FROM metrics m, b WHERE m.name = b.metric), "
			       "v AS (SELECT b.verification AS j, coalesce((b.verification->>'direction')::int, "
			       "sign((b.verification->'mean'->>1)::float8 - (b.verification->'mean'->>0)::float8)::int) "
			       "AS dir FROM b), "
			       "ins AS (INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, "
			       "kind, state, change_pct, ci_lo_pct, ci_hi_pct, p_value, verdict, mean_before, "
			       "mean_after, n_before, n_after, commits_after, pair_change_pct, pair_p_value, "
			       "pair_verdict, detected, bisect_id, hl_pct, direction, pair_hl_pct, pair_direction) "
			       "SELECT s.id, m.id, p.id, f.id, CASE WHEN m.higher_is_better IS NULL "
			       "OR coalesce(v.dir, 0) = 0 THEN 'change' "
			       "WHEN (v.dir < 0) = m.higher_is_better THEN 'regression' "
			       "ELSE 'improvement' END, 'bisected', (v.j->>'change_pct')::float8, "
			       "(v.j->'ci_pct'->>0)::float8, (v.j->'ci_pct'->>1)::float8, (v.j->>'p_value')::float8, "
			       "coalesce(v.j->>'verdict', 'need-more-runs'), (v.j->'mean'->>0)::float8, "
			       "(v.j->'mean'->>1)::float8, coalesce((v.j->'n'->>0)::int, 0), "
			       "coalesce((v.j->'n'->>1)::int, 0), 1, (v.j->>'change_pct')::float8, "
			       "(v.j->>'p_value')::float8, coalesce(v.j->>'verdict', 'need-more-runs'), false, $1::bigint, "
			       "(v.j->>'hl_pct')::float8, v.dir, (v.j->>'hl_pct')::float8, v.dir "
			       "FROM f, p, s, m, v "
			       "ON CONFLICT (setup_id, metric_id, good_commit_id, bad_commit_id) DO UPDATE SET "
			       "bisect_id = coalesce(regressions.bisect_id, EXCLUDED.bisect_id) RETURNING id), "
			       "hist AS (INSERT INTO regression_history (regression_id, who, from_state, to_state, note) "
			       "SELECT id, 'bisect', NULL, 'bisected', 'recorded by bisect ' || $1 || ' (started by hand)' "
			       "FROM ins) "
			       "UPDATE bisects SET regression_id = ins.id FROM ins WHERE bisects.id = $1::bigint "
			       "RETURNING ins.id" },
	[ST_BISECT_REG_LINK] = { "bisect_reg_link",
				 "UPDATE regressions SET bisect_id = $2::bigint, updated_at = now() WHERE id = $1::bigint" },
	/* $1 smallest |size|: a confirmed regression without a bisect, locked, not a change of
	 * environment (sql/0022: no commit to find). The size is
	 * the HL shift (a failed run moves the means' %change, not it); records from
	 * before sql/0015 have only change_pct */
	[ST_BISECT_REG_TODO] = { "bisect_reg_todo",
				 "SELECT r.id, t.name, s.params::text, s.kconfig, s.compiler, s.tbox_group, m.name, "
				 "gc.sha, bc.sha, tr.name, coalesce(r.hl_pct, r.change_pct) "
				 "FROM regressions r JOIN setups s ON s.id = r.setup_id "
				 "JOIN testcases t ON t.id = s.testcase_id "
				 "JOIN metrics m ON m.id = r.metric_id JOIN commits gc ON gc.id = r.good_commit_id "
				 "JOIN commits bc ON bc.id = r.bad_commit_id "
				 "JOIN trees tr ON tr.id = coalesce(bc.tree_id, gc.tree_id) WHERE r.state = 'confirmed' "
				 "AND r.bisect_id IS NULL AND r.kind IN ('regression', 'change') "
				 "AND r.environment IS NULL "
				 "AND abs(coalesce(r.hl_pct, r.change_pct)) >= $1::float8 "
				 "ORDER BY r.id LIMIT 1 FOR UPDATE OF r SKIP LOCKED" },
	/* regression $1 as ST_BISECT_REG_TODO reads it, whatever its state and size, when it has no
	 * bisect ("bisect now", POST /api/v1/regressions/{id}/bisect), locked */
	[ST_BISECT_REG_ONE] = { "bisect_reg_one",
				"SELECT r.id, t.name, s.params::text, s.kconfig, s.compiler, s.tbox_group, m.name, "
				"gc.sha, bc.sha, tr.name, coalesce(r.hl_pct, r.change_pct) "
				"FROM regressions r JOIN setups s ON s.id = r.setup_id "
				"JOIN testcases t ON t.id = s.testcase_id "
				"JOIN metrics m ON m.id = r.metric_id JOIN commits gc ON gc.id = r.good_commit_id "
				"JOIN commits bc ON bc.id = r.bad_commit_id "
				"JOIN trees tr ON tr.id = coalesce(bc.tree_id, gc.tree_id) WHERE r.id = $1::bigint AND r.bisect_id IS NULL FOR UPDATE OF r" },
	/* $1 bisect $2 round $3 phase $4 model */
	[ST_BISECT_ROUND] = { "bisect_round",
			      "UPDATE bisects SET round = $2::integer, phase = $3, model = $4::jsonb WHERE id = $1::bigint" },
	/*
	 * $1 bisect, $2 reuse: every ok run of the bisect's series at its commits (idx -1 = the
	 * good endpoint), one value a run (the mean over its iterations); the bisect's own jobs
	 * only unless $2; unprofiled runs only, and none of a profile round's job even when
	 * its worker ran no monitor (those runs do not decide, sql/0018)
	 */
	[ST_BISECT_SAMPLES] = { "bisect_samples",
				"SELECT x.idx, (SELECT avg(v) FROM unnest(rv.vals) v) "
				"FROM bisects b JOIN (SELECT bc.idx, bc.commit_id FROM bisect_commits bc JOIN bisects l "
				"ON l.id = bc.bisect_id AND l.level = bc.level WHERE bc.bisect_id = $1::bigint "
				"UNION ALL SELECT -1, coalesce(level_good_id, good_id) FROM bisects WHERE id = $1::bigint) x "
				"ON true "
				"JOIN runs r ON r.commit_id = x.commit_id JOIN setups s ON s.id = r.setup_id "
				"JOIN LATERAL run_points(r.id, r.received_at) rv ON true JOIN metrics m ON m.id = rv.metric_id "
				"LEFT JOIN machines mc ON mc.id = r.machine_id LEFT JOIN jobs j ON j.id = r.job_id "
				"WHERE b.id = $1::bigint AND r.status = 'ok' AND m.name = b.metric "
				"AND s.testcase_id = b.testcase_id AND s.params = b.params AND s.kconfig = b.kconfig "
				"AND s.compiler = b.compiler AND (b.tbox_group IS NULL OR s.tbox_group = b.tbox_group) "
				"AND s.monitors = '' AND coalesce(j.monitors, '') = '' "
				"AND (b.arch IS NULL OR mc.arch = b.arch) AND (j.bisect_id = b.id OR $2::boolean) "
				"ORDER BY x.idx, r.id" },
	/*
	 * Another record of the same setup and range that already has a bisect:
	 * the metrics of one setup share its jobs, so one bisect serves them all.
	 */
	/*
	 * A bisect asked for by hand (api/bisects.c): the regression without a
	 * bisect of its range ($1 good, $2 bad), testcase $3, metric $4 and setup
	 * ($5 kconfig, $6 compiler, $7 tbox_group or NULL: any, $8 params)
	 */
	[ST_BISECT_REG_MATCH] = { "bisect_reg_match",
				  "SELECT r.id FROM regressions r JOIN setups s ON s.id = r.setup_id "
				  "JOIN testcases t ON t.id = s.testcase_id JOIN metrics m ON m.id = r.metric_id "
				  "JOIN commits gc ON gc.id = r.good_commit_id "
				  "JOIN commits bc ON bc.id = r.bad_commit_id WHERE r.bisect_id IS NULL "
				  "AND gc.sha = $1 AND bc.sha = $2 AND t.name = $3 AND m.name = $4 "
				  "AND s.kconfig = $5 AND s.compiler = $6 AND ($7::text IS NULL OR "
				  "s.tbox_group = $7) AND s.params = $8::jsonb ORDER BY r.id LIMIT 1" },
	/* regression $1's bisect (0: none); no row: no such regression */
	[ST_BISECT_REG_OF] = { "bisect_reg_of",
			       "SELECT coalesce(bisect_id, 0) FROM regressions WHERE id = $1::bigint" },
	[ST_BISECT_SIBLING] = { "bisect_sibling",
				"SELECT o.bisect_id FROM regressions o, regressions r WHERE r.id = $1::bigint "
				"AND o.id <> r.id AND o.setup_id = r.setup_id AND o.good_commit_id = r.good_commit_id "
				"AND o.bad_commit_id = r.bad_commit_id AND o.bisect_id IS NOT NULL "
				"ORDER BY o.id LIMIT 1" },
	/* the other records that share bisect $1 and still wait for it */
	[ST_BISECT_SIBLINGS_OF] = { "bisect_siblings_of",
				    "SELECT r.id FROM regressions r JOIN bisects b ON b.id = r.bisect_id "
				    "WHERE r.bisect_id = $1::bigint AND r.id <> coalesce(b.regression_id, 0) "
				    "AND r.state = 'bisecting' ORDER BY r.id" },
	/* $1 bisect $2 candidates $3 commits in the whole range */
	[ST_BISECT_START] = { "bisect_start",
			      "UPDATE bisects SET state = 'running', started_at = coalesce(started_at, now()), "
			      "nr_candidates = $2::integer, nr_range = $3::integer, phase = 'refs' WHERE id = $1::bigint" },
	[ST_BISECT_STEPS_COUNT] = { "bisect_steps_count",
				    "SELECT count(*) FROM bisect_steps WHERE bisect_id = $1::bigint AND round = $2::integer" },
	/* $1 bisect $2 commit $3 round $4 role $5 verdict $6 samples $7 evidence */
	[ST_BISECT_STEP_INSERT] = { "bisect_step_insert",
				    "INSERT INTO bisect_steps (bisect_id, commit_id, round, role, verdict, samples, evidence, "
				    "level) VALUES ($1::bigint, $2::bigint, $3::integer, $4, $5, $6::float8[], $7::jsonb, "
				    "(SELECT level FROM bisects WHERE id = $1::bigint))" },
	/* $1 arch $2 tbox_group $3 capability: matching machines seen lately, and the idle ones */
	[ST_BISECT_WORKERS] = { "bisect_workers",
				"SELECT count(*) FILTER (WHERE NOT x.busy), count(*) FROM (SELECT m.id, EXISTS ("
				"SELECT 1 FROM jobs j WHERE j.leased_by = m.id AND j.state = 'leased') AS busy "
				"FROM machines m WHERE m.last_seen > now() - make_interval(secs => $4::float8) "
				"AND ($1::text IS NULL OR m.arch = $1) AND ($2::text IS NULL OR m.tbox_group = $2) "
				"AND $3 = ANY (m.capabilities)) x" },
};
