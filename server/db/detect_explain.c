/*
 * The reasons of the last detection of each series (see
 * db/detect_explain.h), and the statements they are written and read with.
 */
#include "server/db/detect_explain.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum detect_explain_stmt { ST_DETECT_EXPLAIN_SET, ST_DETECT_EXPLAIN_JSON, NR_DETECT_EXPLAIN_STMTS };

static const struct db_stmt_def stmts[NR_DETECT_EXPLAIN_STMTS] = {
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
	 * (noise_raised and cycle null in a row stored before the server kept them)
	 */
	[ST_DETECT_EXPLAIN_JSON] = { "detect_explain_json",
				     "SELECT json_build_object('at', to_char(d.detected_at AT TIME ZONE 'UTC', "
				     "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), 'n_commits', d.n_commits, "
				     "'settings', d.settings, 'candidates', coalesce((SELECT json_agg(json_build_object("
				     "'commit', cb.sha, 'good_commit', cg.sha, 'stage', x.c->'stage', "
				     "'excursion', x.c->'excursion', 'cycle', x.c->'cycle', "
				     "'n_before', x.c->'n_before', "
				     "'n_after', x.c->'n_after', 'before', x.c->'before', 'after', x.c->'after', "
				     "'change_pct', x.c->'change_pct', 'p_value', x.c->'p_value', "
				     "'noise_sigma', x.c->'noise_sigma', 'noise_raised', x.c->'noise_raised', "
				     "'effect', x.c->'effect', "
				     "'kept', x.c->'kept', 'reason', x.c->'reason') ORDER BY x.o) "
				     "FROM json_array_elements(d.candidates) WITH ORDINALITY AS x(c, o) "
				     "LEFT JOIN commits cb ON cb.id = (x.c->>'commit_id')::bigint "
				     "LEFT JOIN commits cg ON cg.id = (x.c->>'good_commit_id')::bigint), '[]'))::text "
				     "FROM detect_explain d JOIN metrics m ON m.id = d.metric_id "
				     "WHERE d.setup_id = $1::bigint AND m.name = $2" },
};

const struct db_stmt_table db_stmts_det_explain = DB_STMT_TABLE(stmts);

int db_detect_explain_set(struct db_conn *c, long long setup_id, const char *rows, struct err *e)
{
	struct db_param p[2] = { db_int8(setup_id), db_text(rows) };

	return db_query_do(c, &stmts[ST_DETECT_EXPLAIN_SET], 2, p, e);
}

/* ST_DETECT_EXPLAIN_JSON's column */
enum { EXPLAIN_JSON };

int db_detect_explain_json(struct db_conn *c, long long setup_id, const char *metric, json_t **out,
			   struct err *e)
{
	struct db_param p[2] = { db_int8(setup_id), db_text(metric) };
	PGresult *r;

	*out = NULL;
	r = db_query(c, &stmts[ST_DETECT_EXPLAIN_JSON], 2, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r))
		*out = json_loads(PQgetvalue(r, 0, EXPLAIN_JSON), 0, NULL);
	if (PQntuples(r) && !*out) {
		PQclear(r);
		return err_setc(e, ERR_DB, "", "bad JSON from the database");
	}
	PQclear(r);
	return 0;
}
