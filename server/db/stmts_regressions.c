/* Statements of the detection queue and regressions (db/regressions.c, api/regressions.c); see db.h. */
#include "server/db/stmts.h"

#define REG_JSON                                                                                 \
	"json_build_object('id', g.id, 'kind', g.kind, 'state', g.state, 'testcase', t.name, "   \
	"'params', s.params, 'kconfig', s.kconfig, 'compiler', s.compiler, "                     \
	"'tbox_group', s.tbox_group, 'mode', s.mode, 'setup_id', s.id, 'arch', " ARCH_S ", "     \
	"'metric', m.name, "                                                                     \
	"'unit', m.unit, 'higher_is_better', m.higher_is_better, "                               \
	"'good', json_build_object('sha', cg.sha, 'subject', cg.subject), "                      \
	"'bad', json_build_object('sha', cb.sha, 'subject', cb.subject), "                       \
	"'change_pct', g.change_pct, 'hl_pct', g.hl_pct, 'shift', g.shift, "                     \
	"'direction', g.direction, 'ci_pct', json_build_array(g.ci_lo_pct, g.ci_hi_pct), "       \
	"'p_value', g.p_value, 'verdict', g.verdict, 'mean_before', g.mean_before, "             \
	"'mean_after', g.mean_after, 'n_before', g.n_before, 'n_after', g.n_after, "             \
	"'commits_after', g.commits_after, "                                                     \
	"'outliers', json_build_array(g.outliers_before, g.outliers_after), "                    \
	"'pair', json_build_object('change_pct', g.pair_change_pct, 'hl_pct', g.pair_hl_pct, "   \
	"'direction', g.pair_direction, 'p_value', g.pair_p_value, 'verdict', g.pair_verdict), " \
	"'detector', json_build_object('before', g.det_before, 'after', g.det_after, "           \
	"'change_pct', g.det_change_pct, 'p_value', g.det_p_value), 'detected', g.detected, "    \
	"'bisect_id', g.bisect_id, 'created_at', g.created_at, 'updated_at', g.updated_at, "     \
	"'detected_at', g.detected_at, 'group_id', grp.gid, 'group_size', grp.gsize, "           \
	"'environment', g.environment, 'noise_sigma', g.noise_sigma)"
#define REG_FROM                                                                                  \
	" FROM regressions g JOIN setups s ON s.id = g.setup_id "                                 \
	"JOIN testcases t ON t.id = s.testcase_id JOIN metrics m ON m.id = g.metric_id "          \
	"JOIN commits cg ON cg.id = g.good_commit_id JOIN commits cb ON cb.id = g.bad_commit_id " \
	"CROSS JOIN LATERAL (SELECT min(o.id) AS gid, count(*) AS gsize FROM regressions o "      \
	"WHERE o.good_commit_id = g.good_commit_id AND o.bad_commit_id = g.bad_commit_id) grp "

/*
 * The arch of setup alias s in the kernel's names (x86_64, arm64): from its
 * kconfig's first word as lib/arch.c's arch_of_kconfig() reads it, else
 * from its newest run (the qemu guest's arch, else the machine's).
 */
#define SETUP_ARCH(s)                                                                                 \
	"(SELECT CASE WHEN a.n IN ('x86_64', 'amd64', 'x86-64') THEN 'x86_64' "                       \
	"WHEN a.n IN ('aarch64', 'arm64') THEN 'arm64' ELSE a.n END FROM (SELECT coalesce("           \
	"CASE WHEN split_part(" s ".kconfig, '-', 1) IN ('x86_64', 'amd64', 'aarch64', 'arm64') "     \
	"THEN split_part(" s                                                                          \
	".kconfig, '-', 1) END, (SELECT coalesce(ru.extra->'guest'->>'arch', "                        \
	"ma.arch) FROM runs ru LEFT JOIN machines ma ON ma.id = ru.machine_id WHERE ru.setup_id = " s \
	".id ORDER BY ru.id DESC LIMIT 1)) AS n) a)"
/* commit alias c's place in series order (COMMIT_ORDER) as one comparable row */
#define COMMIT_KEY(c)                                                                       \
	"ROW(coalesce(" c ".topo_order, 9223372036854775807), coalesce(" c ".commit_time, " \
	"'infinity'::timestamptz), " c ".first_seen, " c ".id)"
/* the bisect of record alias g: the one it links, else the newest started for it */
#define REG_BISECT(g)                                                                              \
	"coalesce(" g ".bisect_id, (SELECT max(xb.id) FROM bisects xb WHERE xb.regression_id = " g \
	".id))"
/* commit alias c's diffstat (sql/0007) as BISECT_JSON has it, or NULL */
#define DIFFSTAT_JSON(c)                                                                                 \
	"(SELECT json_build_object('files_changed', ds.files_changed, 'insertions', ds.insertions, "     \
	"'deletions', ds.deletions, 'files', (SELECT coalesce(json_agg(json_build_object('path', "       \
	"cf.path, 'insertions', cf.insertions, 'deletions', cf.deletions) ORDER BY cf.path), '[]') "     \
	"FROM (SELECT * FROM commit_files WHERE commit_id = ds.commit_id ORDER BY path LIMIT 100) cf)) " \
	"FROM commit_diffstat ds WHERE ds.commit_id = " c ".id)"
/* the same, for the aliases of ST_REGRESSION_STORY_JSON */
#define ARCH_S SETUP_ARCH("s")
#define ARCH_OS SETUP_ARCH("os")
#define KEY_CG COMMIT_KEY("cg")
#define KEY_CB COMMIT_KEY("cb")
#define KEY_OCG COMMIT_KEY("ocg")
#define KEY_OCB COMMIT_KEY("ocb")
#define BISECT_G REG_BISECT("g")
#define BISECT_O REG_BISECT("o")
#define DIFFSTAT_FB DIFFSTAT_JSON("fb")

/*
 * The CTEs me (record $1), mefb, o, ofb and seen: seen holds the same change on
 * other arches (regressions.h has the rule), one record per arch, columns arch,
 * same_fb, regression_id, hl_pct, change_pct, bid and j (its also_seen JSON object).
 * ST_REGRESSION_STORY_JSON (the page) and ST_REGRESSION_ALSO_SEEN (the mail)
 * read it both.
 */
#define ALSO_SEEN_WITH                                                                                             \
	"WITH me AS (SELECT g.id, g.metric_id, g.kind, s.testcase_id, s.params_key, "                              \
	"" ARCH_S " AS arch, " KEY_CG " AS lo, " KEY_CB " AS hi, " BISECT_G " AS bid "                             \
	"FROM regressions g JOIN setups s ON s.id = g.setup_id "                                                   \
	"JOIN commits cg ON cg.id = g.good_commit_id JOIN commits cb ON cb.id = g.bad_commit_id "                  \
	"WHERE g.id = $1::bigint), "                                                                               \
	"mefb AS (SELECT b.first_bad_id AS fb FROM me JOIN bisects b ON b.id = me.bid "                            \
	"AND b.state = 'done'), "                                                                                  \
	"o AS (SELECT o.id, o.kind, o.state, o.hl_pct, o.change_pct, o.ci_lo_pct, o.ci_hi_pct, "                   \
	"o.p_value, os.tbox_group, os.kconfig, " ARCH_OS " AS arch, " KEY_OCG " AS lo, "                           \
	"" KEY_OCB " AS hi, ocb.sha AS bad_sha, ocb.subject AS bad_subject, " BISECT_O " AS bid "                  \
	"FROM me JOIN setups os ON os.testcase_id = me.testcase_id "                                               \
	"AND os.params_key = me.params_key JOIN regressions o ON o.setup_id = os.id "                              \
	"AND o.metric_id = me.metric_id AND o.kind = me.kind AND o.id <> me.id "                                   \
	"AND o.state <> 'invalid' JOIN commits ocg ON ocg.id = o.good_commit_id "                                  \
	"JOIN commits ocb ON ocb.id = o.bad_commit_id), "                                                          \
	"ofb AS (SELECT o.*, fb.id AS fb_id, fb.sha AS fb_sha, fb.subject AS fb_subject "                          \
	"FROM o LEFT JOIN bisects b ON b.id = o.bid AND b.state = 'done' "                                         \
	"LEFT JOIN commits fb ON fb.id = b.first_bad_id), "                                                        \
	"seen AS (SELECT DISTINCT ON (ofb.arch) ofb.arch, "                                                        \
	"(ofb.fb_id = mefb.fb) IS TRUE AS same_fb, ofb.id AS regression_id, ofb.hl_pct, ofb.change_pct, ofb.bid, " \
	"json_build_object('arch', ofb.arch, 'regression_id', ofb.id, 'kind', ofb.kind, "                          \
	"'state', ofb.state, 'hl_pct', ofb.hl_pct, 'change_pct', ofb.change_pct, "                                 \
	"'ci_pct', json_build_array(ofb.ci_lo_pct, ofb.ci_hi_pct), 'p_value', ofb.p_value, "                       \
	"'tbox_group', ofb.tbox_group, 'kconfig', ofb.kconfig, 'bisect_id', ofb.bid, "                             \
	"'first_bad', json_build_object('sha', coalesce(ofb.fb_sha, ofb.bad_sha), "                                \
	"'subject', CASE WHEN ofb.fb_id IS NULL THEN ofb.bad_subject ELSE ofb.fb_subject END, "                    \
	"'source', CASE WHEN ofb.fb_id IS NULL THEN 'range' ELSE 'bisect' END), "                                  \
	"'match', CASE WHEN (ofb.fb_id = mefb.fb) IS TRUE THEN 'first_bad' ELSE 'range' END, "                     \
	"'url', '/regressions/' || ofb.id) AS j "                                                                  \
	"FROM ofb CROSS JOIN me LEFT JOIN mefb ON true "                                                           \
	"WHERE ofb.arch IS NOT NULL AND ofb.arch IS DISTINCT FROM me.arch "                                        \
	"AND ((ofb.fb_id = mefb.fb) IS TRUE OR (ofb.lo < me.hi AND me.lo < ofb.hi)) "                              \
	"ORDER BY ofb.arch, 2 DESC, ofb.id) "

const struct db_stmt_def db_stmts_regressions[DB_NR_STMTS] = {
	/* $1 record $2 its environment change (jsonb, sql/0022) or NULL */
	[ST_REGR_ENVIRONMENT] = { "regr_environment",
				  "UPDATE regressions SET environment = $2::jsonb WHERE id = $1::bigint "
				  "AND environment IS DISTINCT FROM $2::jsonb" },
	/* the oldest queued setup that no one is examining now */
	[ST_DETECT_CLAIM] = { "detect_claim",
			      "UPDATE detect_queue SET claimed_at = now() WHERE id = ("
			      "SELECT q.id FROM detect_queue q WHERE q.claimed_at IS NULL AND NOT EXISTS ("
			      "SELECT 1 FROM detect_queue o WHERE o.setup_id = q.setup_id AND o.claimed_at IS NOT NULL) "
			      "ORDER BY q.id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, setup_id" },
	[ST_DETECT_DONE] = { "detect_done", "DELETE FROM detect_queue WHERE id = $1::bigint" },
	/* the setup of a stored run waits for detection; cheap, in the ingest
	 * transaction. DO UPDATE, not DO NOTHING: the no-op update locks the
	 * pending row until the run is committed, so the detector's claim (FOR
	 * UPDATE SKIP LOCKED) cannot take it and read the series without this
	 * run, then delete the only row that stood for it (a lost run) */
	[ST_DETECT_ENQUEUE] = { "detect_enqueue",
				"INSERT INTO detect_queue (setup_id) VALUES ($1::bigint) "
				"ON CONFLICT (setup_id) WHERE claimed_at IS NULL "
				"DO UPDATE SET setup_id = EXCLUDED.setup_id" },
	/* a claim given back after a failure: queued again (unless already queued) */
	[ST_DETECT_RELEASE] = { "detect_release",
				"WITH d AS (DELETE FROM detect_queue WHERE id = $1::bigint RETURNING setup_id) "
				"INSERT INTO detect_queue (setup_id) SELECT setup_id FROM d "
				"ON CONFLICT (setup_id) WHERE claimed_at IS NULL DO NOTHING" },
	/* claims of a server that died mid-detection */
	[ST_DETECT_REQUEUE_STALE] = { "detect_requeue_stale",
				      "WITH d AS (DELETE FROM detect_queue WHERE claimed_at < now() - interval '10 minutes' "
				      "RETURNING setup_id) INSERT INTO detect_queue (setup_id) SELECT DISTINCT setup_id FROM d "
				      "ON CONFLICT (setup_id) WHERE claimed_at IS NULL DO NOTHING" },
	/*
	 * $1 setup: its ok runs in series order (as ST_SERIES), each run's commit
	 * and its run_means row (sql/0011: metric ids ascending, means alongside),
	 * read in binary and put in (metric, series order) by db/detect_series.c;
	 * but the runs of an A/B request's head built from an mbox: their commit
	 * is the one `git am` made on a worker, on no branch; in the series it
	 * would read as a step after the branch tip. run_means is partitioned by
	 * the UTC day of received_at (sql/0034): naming it makes each run one
	 * index probe of one month. OFFSET 0 keeps the lateral read a per-run
	 * probe: flattened into a join, the planner hashed every month's rows
	 * (EXPLAIN ANALYZE: docs/internals/performance.md).
	 */
	[ST_DETECT_SERIES] = { "detect_series",
			       "SELECT r.commit_id, rm.metric_ids, rm.means FROM runs r "
			       "JOIN commits c ON c.id = r.commit_id CROSS JOIN LATERAL ("
			       "SELECT m.metric_ids, m.means FROM run_means m WHERE m.run_id = r.id "
			       "AND m.stored_on = (r.received_at AT TIME ZONE 'UTC')::date OFFSET 0) rm "
			       "WHERE r.setup_id = $1::bigint AND r.status = 'ok' AND " NOT_PATCHED_HEAD_RUN(
				       "r") " ORDER BY " COMMIT_ORDER ", r.id" },
	/* $1 state $2 kind $3 testcase $4 metric (NULL = any) $5 limit $6 group leaders only */
	[ST_REGRESSIONS_JSON] = { "regressions_json",
				  "SELECT coalesce(json_agg(x.o ORDER BY x.created_at DESC, x.id DESC), '[]')::text FROM ("
				  "SELECT g.id, g.created_at, " REG_JSON " AS o" REG_FROM
				  "WHERE ($1::text IS NULL OR g.state = $1) AND ($2::text IS NULL OR g.kind = $2) AND "
				  "($3::text IS NULL OR t.name = $3) AND ($4::text IS NULL OR m.name = $4) AND "
				  "(NOT coalesce($6::boolean, false) OR grp.gid = g.id) "
				  "ORDER BY g.created_at DESC, g.id DESC LIMIT $5::integer) x" },
	/* every record of the same range as $1, the group leader (smallest id) first */
	[ST_REGRESSION_GROUP_JSON] = { "regression_group_json",
				       "SELECT coalesce(json_agg(" REG_JSON
				       " ORDER BY g.id), '[]')::text" REG_FROM
				       "WHERE (g.good_commit_id, g.bad_commit_id) = (SELECT good_commit_id, bad_commit_id "
				       "FROM regressions WHERE id = $1::bigint)" },
	[ST_REGRESSION_HISTORY_JSON] = { "regression_history_json",
					 "SELECT coalesce(json_agg(json_build_object('at', h.at, 'who', h.who, "
					 "'from', h.from_state, 'to', h.to_state, 'note', h.note) ORDER BY h.id), '[]')::text "
					 "FROM regression_history h WHERE h.regression_id = $1::bigint" },
	[ST_REGRESSION_JSON] = { "regression_json",
				 "SELECT " REG_JSON "::text" REG_FROM "WHERE g.id = $1::bigint" },
	/*
	 * A record of the same series already past triage (bisecting, bisected,
	 * reported, fixed, invalid, wontfix) whose range holds the range $3..$4
	 * in the tree's order: a narrower range found later (the bisect's own
	 * runs fill the gap) is the same change, not a new one.
	 */
	[ST_REGR_COVERING] = { "regr_covering",
			       "SELECT o.id FROM regressions o JOIN commits og ON og.id = o.good_commit_id "
			       "JOIN commits ob ON ob.id = o.bad_commit_id, commits ng, commits nb "
			       "WHERE o.setup_id = $1::bigint AND o.metric_id = $2::integer "
			       "AND ng.id = $3::bigint AND nb.id = $4::bigint "
			       "AND o.state NOT IN ('new', 'confirmed') "
			       "AND NOT (o.good_commit_id = $3::bigint AND o.bad_commit_id = $4::bigint) "
			       "AND ng.topo_order >= og.topo_order AND nb.topo_order <= ob.topo_order "
			       "ORDER BY o.id LIMIT 1" },
	/*
	 * $1 setup: the metrics with a record past triage (ST_REGR_COVERING's
	 * candidates), ascending; read once per detection of the setup, so the
	 * other metrics' change points skip ST_REGR_COVERING
	 */
	[ST_REGR_TRIAGED_METRICS] = { "regr_triaged_metrics",
				      "SELECT DISTINCT metric_id FROM regressions WHERE setup_id = $1::bigint "
				      "AND state NOT IN ('new', 'confirmed') ORDER BY 1" },
	/*
	 * $1 setup: per commit (ascending) the distinct host fingerprints of its
	 * ok runs in the setup, as ST_COMPARE_FINGERPRINTS gives one commit's;
	 * read once per detection of the setup, not once per change point
	 */
	[ST_SETUP_FINGERPRINTS] = { "setup_fingerprints",
				    "SELECT commit_id, json_agg(DISTINCT host_fingerprint)::text FROM runs "
				    "WHERE setup_id = $1::bigint AND status = 'ok' AND host_fingerprint IS NOT NULL "
				    "GROUP BY commit_id ORDER BY commit_id" },
	/* $1 regression $2 who (NULL = the token's name) $3 token id $4 from $5 to $6 note */
	[ST_REGR_HISTORY_ADD] = { "regr_history_add",
				  "INSERT INTO regression_history (regression_id, who, token_id, from_state, to_state, note) "
				  "VALUES ($1::bigint, coalesce($2::text, (SELECT 'token:' || name FROM api_tokens "
				  "WHERE id = $3::bigint), 'anonymous'), $3::bigint, $4, $5, $6) RETURNING id" },
	/* $1 id, $2 new state (NULL = keep): returns the state before and after */
	[ST_REGR_SET_STATE] = { "regr_set_state",
				"UPDATE regressions r SET state = coalesce($2::text, o.state), updated_at = now() "
				"FROM (SELECT id, state FROM regressions WHERE id = $1::bigint FOR UPDATE) o "
				"WHERE r.id = o.id RETURNING o.state, r.state" },
	/* $1 setup, $2 ids the latest detection found: the others are withdrawn when still
	 * `new`, else kept with detected = false and a history note */
	[ST_REGR_UNDETECT] = { "regr_undetect",
			       "WITH gone AS (SELECT id, state FROM regressions WHERE setup_id = $1::bigint AND detected "
			       "AND id <> ALL ($2::bigint[])), "
			       "del AS (DELETE FROM regressions r USING gone WHERE r.id = gone.id AND gone.state = 'new' "
			       "RETURNING r.id), "
			       "upd AS (UPDATE regressions r SET detected = false FROM gone WHERE r.id = gone.id AND "
			       "gone.state <> 'new' RETURNING r.id, r.state), "
			       "h AS (INSERT INTO regression_history (regression_id, who, from_state, to_state, note) "
			       "SELECT id, 'detector', state, state, 'no longer detected: the latest detection of the "
			       "series does not find this range' FROM upd) "
			       "SELECT (SELECT count(*) FROM del), (SELECT count(*) FROM upd)" },
	/* $1 setup $2 metric $3 good $4 bad $5 kind $6..$9 change_pct ci_lo ci_hi p $10 verdict
	 * $11 mean_before $12 mean_after $13 n_before $14 n_after $15 commits_after
	 * $16 pair_change_pct $17 pair_p $18 pair_verdict $19..$22 det before after change p
	 * $23 confirmed by the rule $24 hl_pct $25 shift $26 direction $27 outliers_before
	 * $28 outliers_after $29 pair_hl_pct $30 pair_direction $31 noise_sigma;
	 * returns id, state before (NULL = new row), state after */
	[ST_REGR_UPSERT] = { "regr_upsert",
			     "WITH old AS (SELECT id, state FROM regressions WHERE setup_id = $1::bigint AND "
			     "metric_id = $2::integer AND good_commit_id = $3::bigint AND bad_commit_id = $4::bigint), "
			     "up AS (INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
			     "state, change_pct, ci_lo_pct, ci_hi_pct, p_value, verdict, mean_before, mean_after, "
			     "n_before, n_after, commits_after, pair_change_pct, pair_p_value, pair_verdict, "
			     "det_before, det_after, det_change_pct, det_p_value, hl_pct, shift, direction, "
			     "outliers_before, outliers_after, pair_hl_pct, pair_direction, noise_sigma) "
			     "VALUES ($1::bigint, $2::integer, "
			     "$3::bigint, $4::bigint, $5, CASE WHEN $23::boolean THEN 'confirmed' ELSE 'new' END, "
			     "$6::float8, $7::float8, $8::float8, $9::float8, $10, $11::float8, $12::float8, "
			     "$13::integer, $14::integer, $15::integer, $16::float8, $17::float8, $18, $19::float8, "
			     "$20::float8, $21::float8, $22::float8, $24::float8, $25::float8, $26::smallint, "
			     "$27::integer, $28::integer, $29::float8, $30::smallint, $31::float8) "
			     "ON CONFLICT (setup_id, metric_id, good_commit_id, bad_commit_id) DO UPDATE SET "
			     "kind = EXCLUDED.kind, change_pct = EXCLUDED.change_pct, ci_lo_pct = EXCLUDED.ci_lo_pct, "
			     "ci_hi_pct = EXCLUDED.ci_hi_pct, p_value = EXCLUDED.p_value, verdict = EXCLUDED.verdict, "
			     "mean_before = EXCLUDED.mean_before, mean_after = EXCLUDED.mean_after, "
			     "n_before = EXCLUDED.n_before, n_after = EXCLUDED.n_after, "
			     "commits_after = EXCLUDED.commits_after, pair_change_pct = EXCLUDED.pair_change_pct, "
			     "pair_p_value = EXCLUDED.pair_p_value, pair_verdict = EXCLUDED.pair_verdict, "
			     "det_before = EXCLUDED.det_before, det_after = EXCLUDED.det_after, "
			     "det_change_pct = EXCLUDED.det_change_pct, det_p_value = EXCLUDED.det_p_value, "
			     "hl_pct = EXCLUDED.hl_pct, shift = EXCLUDED.shift, direction = EXCLUDED.direction, "
			     "outliers_before = EXCLUDED.outliers_before, outliers_after = EXCLUDED.outliers_after, "
			     "pair_hl_pct = EXCLUDED.pair_hl_pct, pair_direction = EXCLUDED.pair_direction, "
			     "noise_sigma = EXCLUDED.noise_sigma, "
			     "detected = true, detected_at = now(), "
			     "state = CASE WHEN regressions.state = 'new' AND EXCLUDED.state = 'confirmed' "
			     "THEN 'confirmed' ELSE regressions.state END, "
			     "updated_at = CASE WHEN regressions.state = 'new' AND EXCLUDED.state = 'confirmed' "
			     "THEN now() ELSE regressions.updated_at END "
			     "RETURNING id, state) "
			     "SELECT up.id, old.state, up.state FROM up LEFT JOIN old ON old.id = up.id" },
	/* $1 setup $2 metric name: the change points the latest detection found */
	[ST_SERIES_CHANGE_POINTS] = { "series_change_points",
				      "SELECT g.id, cb.sha, cg.sha, g.det_before, g.det_after, g.det_change_pct, "
				      "g.det_p_value, g.kind, g.state, g.hl_pct, g.direction "
				      "FROM regressions g JOIN metrics m ON m.id = g.metric_id "
				      "JOIN commits cb ON cb.id = g.bad_commit_id JOIN commits cg ON cg.id = g.good_commit_id "
				      "WHERE g.setup_id = $1::bigint AND m.name = $2 AND g.detected ORDER BY g.id" },
	/*
	 * $1 record: what its page tells besides the record (db_regression_story_json):
	 * its arch, its bisect (the culprit with subject, author, diffstat, its
	 * parent, confidence, verification) and the same change on other arches
	 * (regressions.h has the rule), one record per arch
	 */
	[ST_REGRESSION_STORY_JSON] = { "regression_story_json", ALSO_SEEN_WITH
				       "SELECT json_build_object('arch', me.arch, 'bisect', (SELECT json_build_object("
				       "'id', b.id, 'state', b.state, 'outcome', b.outcome, 'confidence', b.confidence, "
				       "'first_bad_commit', CASE WHEN fb.id IS NULL THEN NULL ELSE json_build_object("
				       "'sha', fb.sha, 'subject', fb.subject, 'author', fb.author, "
				       "'commit_time', fb.commit_time, 'diffstat', " DIFFSTAT_FB
				       ") END, "
				       "'parent', (SELECT json_build_object('sha', p.sha, 'subject', p.subject) "
				       "FROM commits p WHERE p.sha = fb.parents[1]), 'verification', b.verification, "
				       "'parent_stand_in', " PARENT_STAND_IN_JSON ", "
				       "'profile_diff', '/api/v1/bisects/' || b.id || '/profile-diff') "
				       "FROM bisects b LEFT JOIN commits fb ON fb.id = b.first_bad_id WHERE b.id = me.bid), "
				       "'also_seen', (SELECT coalesce(json_agg(seen.j ORDER BY seen.arch), '[]') "
				       "FROM seen))::text FROM me" },
	/*
	 * $1 record: its arch, and the same change on other arches as rows (arch,
	 * regression_id, hl_pct, change_pct, bisect id, same first bad commit) by
	 * arch; one row of NULLs after the first column when there is none, no
	 * row when there is no such record
	 */
	[ST_REGRESSION_ALSO_SEEN] = { "regression_also_seen", ALSO_SEEN_WITH
				      "SELECT me.arch, seen.arch, seen.regression_id, seen.hl_pct, "
				      "seen.change_pct, seen.bid, seen.same_fb FROM me LEFT JOIN seen ON true "
				      "ORDER BY seen.arch" },
	/* $1 setup $2 commit: the tracking job (one a push queued) that ran the commit in the setup */
	[ST_TIP_JOB] = { "tip_job",
			 "SELECT j.id, j.track_branch FROM runs r JOIN jobs j ON j.id = r.job_id "
			 "WHERE r.setup_id = $1::bigint AND r.commit_id = $2::bigint AND j.plan_id IS NOT NULL "
			 "AND j.track_branch IS NOT NULL ORDER BY j.id LIMIT 1" },
	/* $1 setup $2 commit: per metric, the oldest record whose first bad commit it is */
	[ST_TIP_RECORD] = { "tip_record",
			    "SELECT DISTINCT ON (metric_id) metric_id, id FROM regressions "
			    "WHERE setup_id = $1::bigint AND bad_commit_id = $2::bigint ORDER BY metric_id, id" },
	/*
	 * $1 that job $2 the commit before the tip $3 the tip $4 runs: one more job of each,
	 * the same setup and priority, track_key KEY + ' tip' so the unique index of
	 * sql/0014 makes each once; no track_branch: a push never supersedes them
	 */
	[ST_TIP_REQUEST] = { "tip_request",
			     "INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, compiler, arch, "
			     "tbox_group, need_capability, repeat, priority, max_attempts, plan_id, track_key, "
			     "monitors) "
			     "SELECT j.tree_id, x.id, j.testcase_id, j.params, j.kconfig, j.compiler, j.arch, "
			     "j.tbox_group, j.need_capability, $4::integer, j.priority, j.max_attempts, j.plan_id, "
			     "j.track_key || ' tip', j.monitors FROM jobs j CROSS JOIN unnest(ARRAY[$2::bigint, $3::bigint]) "
			     "AS x(id) WHERE j.id = $1::bigint "
			     "ON CONFLICT (plan_id, commit_id, track_key) DO NOTHING RETURNING id" },
	/* $1 setup: the commits with runs of an extra tip job (track_key 'KEY tip'), by id */
	[ST_TIP_COMMITS] = { "tip_commits",
			     "SELECT DISTINCT r.commit_id FROM runs r JOIN jobs j ON j.id = r.job_id "
			     "WHERE r.setup_id = $1::bigint AND j.plan_id IS NOT NULL "
			     "AND right(j.track_key, 4) = ' tip' ORDER BY 1" },
	/*
	 * $1 setup $2 [{m: metric id, n: commits, s: settings, c: candidates}]
	 * (JSON text): the reasons of this detection of the setup's series
	 * replace the last ones (sql/0023), all in one statement
	 */
	[ST_DETECT_EXPLAIN_SET] = { "detect_explain_set",
				    "INSERT INTO detect_explain (setup_id, metric_id, n_commits, settings, candidates) "
				    "SELECT $1::bigint, (x->>'m')::integer, (x->>'n')::integer, x->'s', x->'c' "
				    "FROM json_array_elements($2::json) x "
				    "ON CONFLICT (setup_id, metric_id) DO UPDATE SET detected_at = now(), "
				    "n_commits = EXCLUDED.n_commits, settings = EXCLUDED.settings, "
				    "candidates = EXCLUDED.candidates" },
	/*
	 * $1 setup $2 metric name: the last detection's reasons as one JSON object
	 * {at, n_commits, settings, candidates: [{commit, good_commit (shas), stage,
	 * ...}]} in the stored order (no row: never detected); the numbers as stored
	 */
	[ST_DETECT_EXPLAIN_JSON] = { "detect_explain_json",
				     "SELECT json_build_object('at', to_char(d.detected_at AT TIME ZONE 'UTC', "
				     "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), 'n_commits', d.n_commits, "
				     "'settings', d.settings, 'candidates', coalesce((SELECT json_agg(json_build_object("
				     "'commit', cb.sha, 'good_commit', cg.sha, 'stage', x.c->'stage', "
				     "'excursion', x.c->'excursion', 'n_before', x.c->'n_before', "
				     "'n_after', x.c->'n_after', 'before', x.c->'before', 'after', x.c->'after', "
				     "'change_pct', x.c->'change_pct', 'p_value', x.c->'p_value', "
				     "'noise_sigma', x.c->'noise_sigma', 'effect', x.c->'effect', "
				     "'kept', x.c->'kept', 'reason', x.c->'reason') ORDER BY x.o) "
				     "FROM json_array_elements(d.candidates) WITH ORDINALITY AS x(c, o) "
				     "LEFT JOIN commits cb ON cb.id = (x.c->>'commit_id')::bigint "
				     "LEFT JOIN commits cg ON cg.id = (x.c->>'good_commit_id')::bigint), '[]'))::text "
				     "FROM detect_explain d JOIN metrics m ON m.id = d.metric_id "
				     "WHERE d.setup_id = $1::bigint AND m.name = $2" },
};
