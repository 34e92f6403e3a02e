/* Statements of the detection queue and regressions (db/regressions.c, api/regressions.c); see db.h. */
#include "server/db/stmts.h"

#define REG_JSON                                                                                 \
	"json_build_object('id', g.id, 'kind', g.kind, 'state', g.state, 'testcase', t.name, "   \
	"'params', s.params, 'kconfig', s.kconfig, 'compiler', s.compiler, "                     \
	"'tbox_group', s.tbox_group, 'mode', s.mode, 'setup_id', s.id, 'metric', m.name, "       \
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
	"'detected_at', g.detected_at, 'group_id', grp.gid, 'group_size', grp.gsize)"
#define REG_FROM                                                                                  \
	" FROM regressions g JOIN setups s ON s.id = g.setup_id "                                 \
	"JOIN testcases t ON t.id = s.testcase_id JOIN metrics m ON m.id = g.metric_id "          \
	"JOIN commits cg ON cg.id = g.good_commit_id JOIN commits cb ON cb.id = g.bad_commit_id " \
	"CROSS JOIN LATERAL (SELECT min(o.id) AS gid, count(*) AS gsize FROM regressions o "      \
	"WHERE o.good_commit_id = g.good_commit_id AND o.bad_commit_id = g.bad_commit_id) grp "

const struct db_stmt_def db_stmts_regressions[DB_NR_STMTS] = {
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
	 * every run mean of one setup, per metric in series order (as ST_SERIES),
	 * but the runs of an A/B request's head built from an mbox: their commit is
	 * the one `git am` made on a worker, on no branch (issue 18); in the series
	 * it would read as a step after the branch tip
	 */
	[ST_DETECT_SERIES] = { "detect_series",
			       "SELECT v.metric_id, m.name, m.higher_is_better, m.is_monitor, r.commit_id, v.mean "
			       "FROM runs r JOIN run_values v ON v.run_id = r.id JOIN metrics m ON m.id = v.metric_id "
			       "JOIN commits c ON c.id = r.commit_id "
			       "WHERE r.setup_id = $1::bigint AND r.status = 'ok' "
			       "AND NOT EXISTS (SELECT 1 FROM jobs j JOIN requests q ON q.id = j.request_id "
			       "WHERE j.id = r.job_id AND j.ab_side = 'head' AND q.patches IS NOT NULL) "
			       "ORDER BY v.metric_id, " COMMIT_ORDER ", r.id" },
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
	 * $28 outliers_after $29 pair_hl_pct $30 pair_direction;
	 * returns id, state before (NULL = new row), state after */
	[ST_REGR_UPSERT] = { "regr_upsert",
			     "WITH old AS (SELECT id, state FROM regressions WHERE setup_id = $1::bigint AND "
			     "metric_id = $2::integer AND good_commit_id = $3::bigint AND bad_commit_id = $4::bigint), "
			     "up AS (INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
			     "state, change_pct, ci_lo_pct, ci_hi_pct, p_value, verdict, mean_before, mean_after, "
			     "n_before, n_after, commits_after, pair_change_pct, pair_p_value, pair_verdict, "
			     "det_before, det_after, det_change_pct, det_p_value, hl_pct, shift, direction, "
			     "outliers_before, outliers_after, pair_hl_pct, pair_direction) VALUES ($1::bigint, $2::integer, "
			     "$3::bigint, $4::bigint, $5, CASE WHEN $23::boolean THEN 'confirmed' ELSE 'new' END, "
			     "$6::float8, $7::float8, $8::float8, $9::float8, $10, $11::float8, $12::float8, "
			     "$13::integer, $14::integer, $15::integer, $16::float8, $17::float8, $18, $19::float8, "
			     "$20::float8, $21::float8, $22::float8, $24::float8, $25::float8, $26::smallint, "
			     "$27::integer, $28::integer, $29::float8, $30::smallint) "
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
};
