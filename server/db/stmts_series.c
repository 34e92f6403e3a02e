/* Statements of series and compare reads (api/series.c, api/compare.c); see db.h. */
#include "server/db/stmts.h"

#define RUN_FILTERS(T, K, C, P, M, N)                            \
	"($" #T "::text IS NULL OR s.tbox_group = $" #T ") AND " \
	"($" #K "::text IS NULL OR s.kconfig = $" #K ") AND "    \
	"($" #C "::text IS NULL OR s.compiler = $" #C ") AND "   \
	"($" #P "::text IS NULL OR s.params_key = $" #P ") AND " \
	"($" #M "::text IS NULL OR s.mode = $" #M ") AND "       \
	"($" #N "::text IS NULL OR s.monitors = $" #N ")"

/* ST_SERIES' runs r: ok, in the matching setups ($2 testcase, $3..$8 filters), on a branch */
#define SERIES_RUNS                                                                    \
	"r.status = 'ok' AND r.setup_id = ANY (ARRAY(SELECT s.id FROM setups s "       \
	"JOIN testcases t ON t.id = s.testcase_id WHERE t.name = $2 AND " RUN_FILTERS( \
		3, 4, 5, 6, 7, 8) ")) "                                                \
				  "AND " NOT_PATCHED_HEAD_RUN("r")

const struct db_stmt_def db_stmts_series[DB_NR_STMTS] = {
	/*
	 * $1 base commit id, $2 head commit id, $3 testcase, $4..$9 filters: the
	 * runs of both commits with their means (sql/0011 run_means: metric ids
	 * ascending, means alongside: a row per run, not per value), base runs
	 * flagged, by setup. Read in binary (db/series.c db_compare_runs()).
	 * run_means is partitioned by month of stored_on, the UTC day of the
	 * run's received_at (sql/0034): naming it lets each run probe its one
	 * partition rather than every month's.
	 */
	[ST_COMPARE] = { "compare",
			 "SELECT r.setup_id, r.commit_id = $1::bigint, m.metric_ids, m.means "
			 "FROM runs r JOIN run_means m ON m.run_id = r.id "
			 "AND m.stored_on = (r.received_at AT TIME ZONE 'UTC')::date "
			 "JOIN setups s ON s.id = r.setup_id JOIN testcases t ON t.id = s.testcase_id "
			 "WHERE r.commit_id IN ($1::bigint, $2::bigint) AND r.status = 'ok' AND "
			 "($3::text IS NULL OR t.name = $3) AND " RUN_FILTERS(
				 4, 5, 6, 7, 8, 9) " "
						   "ORDER BY r.setup_id" },
	/* $1 metric ids (int4[]), $2 name prefix or NULL: in name order (the compare's row order) */
	[ST_COMPARE_METRICS] = { "compare_metrics",
				 "SELECT id, name, unit, higher_is_better, is_monitor FROM metrics "
				 "WHERE id = ANY ($1::int4[]) AND ($2::text IS NULL OR starts_with(name, $2)) "
				 "ORDER BY name" },
	/*
	 * $1 base commit id $2 head commit id $3 setup ids (int8[]): the distinct
	 * host fingerprints (sql/0022) of each side's ok runs in those setups
	 */
	[ST_COMPARE_FINGERPRINTS] = { "compare_fingerprints",
				      "SELECT (SELECT coalesce(json_agg(DISTINCT host_fingerprint), '[]') "
				      "FROM runs WHERE commit_id = $1::bigint AND setup_id = ANY ($3::int8[]) "
				      "AND status = 'ok' AND host_fingerprint IS NOT NULL)::text, "
				      "(SELECT coalesce(json_agg(DISTINCT host_fingerprint), '[]') FROM runs "
				      "WHERE commit_id = $2::bigint AND setup_id = ANY ($3::int8[]) "
				      "AND status = 'ok' AND host_fingerprint IS NOT NULL)::text" },
	/*
	 * $1 setup ids (int8[]), $2 base commit id, $3 head commit id: the A/A
	 * history of the icount ones among those setups (mode icount or
	 * params.measure icount; none for wall-clock): their ok runs with their
	 * means (run_means), but for the runs of the two compared commits, by
	 * kernel: a kernel is the runs of one image (sql/0022 image_sha256) or,
	 * without one, of one commit, numbered in setup order; only kernels of
	 * two runs or more; each run's commit id last. Read in binary
	 * (db/series.c db_compare_aa()).
	 */
	[ST_COMPARE_AA] = { "compare_aa",
			    "WITH h AS (SELECT r.setup_id, coalesce('i' || r.image_sha256, "
			    "'c' || r.commit_id::text) AS k, m.metric_ids, m.means, r.commit_id "
			    "FROM runs r JOIN run_means m ON m.run_id = r.id "
			    "AND m.stored_on = (r.received_at AT TIME ZONE 'UTC')::date "
			    "JOIN setups s ON s.id = r.setup_id "
			    "WHERE r.setup_id = ANY ($1::int8[]) AND r.status = 'ok' "
			    "AND r.commit_id <> ALL (ARRAY[$2::bigint, $3::bigint]) "
			    "AND (s.mode = 'icount' OR s.params->>'measure' = 'icount')) "
			    "SELECT h.setup_id, dense_rank() OVER (ORDER BY h.setup_id, h.k), "
			    "h.metric_ids, h.means, h.commit_id FROM h WHERE (h.setup_id, h.k) IN "
			    "(SELECT setup_id, k FROM h GROUP BY 1, 2 HAVING count(*) >= 2) "
			    "ORDER BY 2" },
	/*
	 * $1 request id: per (group = jobs.ab_group, metric) of its ok runs, the
	 * metric's id, the setup (of the group's runs, one: a request pins each
	 * group to one setup) and the base and head commits, for the A/A spread
	 * of the verdict (server/detect/aa_history.h). Text.
	 */
	[ST_REQUEST_AA_METRICS] = { "request_aa_metrics",
				    "SELECT j.ab_group::integer, m.name, m.id, min(r.setup_id), "
				    "coalesce(min(r.commit_id) FILTER (WHERE j.ab_side = 'base'), 0), "
				    "coalesce(min(r.commit_id) FILTER (WHERE j.ab_side = 'head'), 0) "
				    "FROM jobs j JOIN runs r ON r.job_id = j.id AND r.status = 'ok' "
				    "JOIN LATERAL run_points(r.id, r.received_at) v ON true JOIN metrics m ON m.id = v.metric_id "
				    "WHERE j.request_id = $1::bigint GROUP BY 1, 2, 3" },
	/*
	 * $1 metric, $2 testcase, $3..$8 filters: every run of the metric in the
	 * matching setups as (setup id, commit id, run id, run_id, mean as
	 * PostgreSQL's text), in no particular order, read in binary
	 * (db/series.c db_series_points(); api/series.c puts them in series
	 * order, and says why the mean is text). The (run id, mean) pairs come
	 * from an index-only scan of run_values_metric (sql/0010), "r.id + 0"
	 * keeps the planner from probing runs' key once per value, and the
	 * matching setups are found once (an InitPlan) to filter the runs' scan;
	 * an A/B request's patched head is on no branch: its runs are left out
	 * (NOT_PATCHED_HEAD_RUN, as detection leaves them out); the plans and
	 * figures behind each: docs/internals/performance.md. The runs of a
	 * month whose raw values were dropped (received before
	 * regtrack_raw_from(), sql/0039) are read from run_means by
	 * run_points() instead: the same mean, to the bit; that part is
	 * skipped whole while no month was dropped.
	 */
	[ST_SERIES] = { "series",
			"SELECT r.setup_id, r.commit_id, r.id, r.run_id, v.mean::text "
			"FROM metrics m JOIN run_values v ON v.metric_id = m.id "
			"JOIN runs r ON r.id + 0 = v.run_id "
			"WHERE m.name = $1 AND r.received_at >= (SELECT regtrack_raw_from()) "
			"AND " SERIES_RUNS " UNION ALL "
			"SELECT r.setup_id, r.commit_id, r.id, r.run_id, v.mean::text "
			"FROM metrics m CROSS JOIN runs r "
			"JOIN LATERAL run_points(r.id, r.received_at) v ON v.metric_id = m.id "
			"WHERE m.name = $1 AND r.received_at < (SELECT regtrack_raw_from()) "
			"AND (SELECT regtrack_raw_from()) > '-infinity' AND " SERIES_RUNS },
	/*
	 * $1 commit ids (bigint[]): id, sha, subject, commit time, in series
	 * order; read in binary, the time formatted by api/series.c (cheaper
	 * than to_char in the statement)
	 */
	[ST_SERIES_COMMITS] = { "series_commits",
				"SELECT c.id, c.sha, c.subject, c.commit_time "
				"FROM commits c WHERE c.id = ANY ($1::bigint[]) ORDER BY " COMMIT_ORDER },
};
