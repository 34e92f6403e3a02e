/*
 * The regression records as the detector and triage write them (see
 * db/regressions.h): the upsert of a range found, the covering and
 * triaged-metric reads that keep a narrower range from being a new
 * record, the withdrawal of ranges no longer found, state moves with their
 * history, a record's environment change and a series' change points;
 * the statements they are made with. The API's JSON reads of records are
 * regression_json.c's.
 */
#include "server/db/regressions.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "buf.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum regr_stmt {
	ST_REGR_ENVIRONMENT,
	ST_REGR_COVERING,
	ST_REGR_TRIAGED_METRICS,
	ST_REGR_HISTORY_ADD,
	ST_REGR_SET_STATE,
	ST_REGR_UNDETECT,
	ST_REGR_UPSERT,
	ST_SERIES_CHANGE_POINTS,
	NR_REGR_STMTS
};

static const struct db_stmt_def stmts[NR_REGR_STMTS] = {
	/* $1 record $2 its environment change (jsonb, sql/0022) or NULL */
	[ST_REGR_ENVIRONMENT] = { "regr_environment",
				  "UPDATE regressions SET environment = $2::jsonb WHERE id = $1::bigint "
				  "AND environment IS DISTINCT FROM $2::jsonb" },
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
	 * $28 outliers_after $29 pair_hl_pct $30 pair_direction $31 noise_sigma
	 * $32 noise_cycle (NULL: none known);
	 * returns id, state before (NULL = new row), state after */
	[ST_REGR_UPSERT] = { "regr_upsert",
			     "WITH old AS (SELECT id, state FROM regressions WHERE setup_id = $1::bigint AND "
			     "metric_id = $2::integer AND good_commit_id = $3::bigint AND bad_commit_id = $4::bigint), "
			     "up AS (INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
			     "state, change_pct, ci_lo_pct, ci_hi_pct, p_value, verdict, mean_before, mean_after, "
			     "n_before, n_after, commits_after, pair_change_pct, pair_p_value, pair_verdict, "
			     "det_before, det_after, det_change_pct, det_p_value, hl_pct, shift, direction, "
			     "outliers_before, outliers_after, pair_hl_pct, pair_direction, noise_sigma, "
			     "noise_cycle) "
			     "VALUES ($1::bigint, $2::integer, "
			     "$3::bigint, $4::bigint, $5, CASE WHEN $23::boolean THEN 'confirmed' ELSE 'new' END, "
			     "$6::float8, $7::float8, $8::float8, $9::float8, $10, $11::float8, $12::float8, "
			     "$13::integer, $14::integer, $15::integer, $16::float8, $17::float8, $18, $19::float8, "
			     "$20::float8, $21::float8, $22::float8, $24::float8, $25::float8, $26::smallint, "
			     "$27::integer, $28::integer, $29::float8, $30::smallint, $31::float8, $32::integer) "
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
			     "noise_sigma = EXCLUDED.noise_sigma, noise_cycle = EXCLUDED.noise_cycle, "
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

const struct db_stmt_table db_stmts_regressions = DB_STMT_TABLE(stmts);

/* --- helpers --------------------------------------------------------------- */

static long long get_ll(PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static double get_num(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NAN : strtod(PQgetvalue(r, row, col), NULL);
}

/* a float8 parameter (b: its text, sz bytes): SQL NULL for NAN and infinities */
static struct db_param num_param(char *b, size_t sz, double v)
{
	if (!isfinite(v))
		return db_text(NULL);
	snprintf(b, sz, "%.17g", v);
	return db_text(b);
}

/* an integer parameter of an $n::integer (metric ids): text, as the SQL takes it */
static struct db_param int_param(char *b, size_t sz, long long v)
{
	snprintf(b, sz, "%lld", v);
	return db_text(b);
}

/* --- records ---------------------------------------------------------------- */

/* ST_REGR_COVERING's column */
enum { COVERING_ID };

int db_regr_covering(struct db_conn *c, long long setup_id, long long metric_id,
		     long long good_commit, long long bad_commit, long long *id, struct err *e)
{
	char mb[24];
	struct db_param p[4] = { db_int8(setup_id), int_param(mb, sizeof(mb), metric_id),
				 db_int8(good_commit), db_int8(bad_commit) };
	PGresult *r = db_query(c, &stmts[ST_REGR_COVERING], 4, p, 0, e);
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		*id = get_ll(r, 0, COVERING_ID);
	PQclear(r);
	return found;
}

/* ST_REGR_TRIAGED_METRICS's column */
enum { TRIAGED_METRIC };

int db_regr_triaged_metrics(struct db_conn *c, long long setup_id, long long **ids, size_t *n,
			    struct err *e)
{
	PGresult *r;

	*ids = NULL;
	*n = 0;
	r = db_query_id(c, &stmts[ST_REGR_TRIAGED_METRICS], setup_id, e);
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*ids = xmalloc((size_t)PQntuples(r) * sizeof(**ids));
		for (int i = 0; i < PQntuples(r); i++)
			(*ids)[i] = get_ll(r, i, TRIAGED_METRIC);
		*n = (size_t)PQntuples(r);
	}
	PQclear(r);
	return 0;
}

/* ST_REGR_UPSERT's columns */
enum { UPSERT_ID, UPSERT_OLD_STATE, UPSERT_NEW_STATE };

int db_regr_upsert(struct db_conn *c, const struct db_regr_upsert *u, struct db_regr_upserted *out,
		   struct err *e)
{
	char mb[24], nums[24][32];
	struct db_param p[32];
	PGresult *r;

	p[0] = db_int8(u->setup_id);
	p[1] = int_param(mb, sizeof(mb), u->metric_id);
	p[2] = db_int8(u->good_commit);
	p[3] = db_int8(u->bad_commit);
	p[4] = db_text(u->kind);
	p[5] = num_param(nums[0], 32, u->change_pct);
	p[6] = num_param(nums[1], 32, u->ci_lo_pct);
	p[7] = num_param(nums[2], 32, u->ci_hi_pct);
	p[8] = num_param(nums[3], 32, u->p_value);
	p[9] = db_text(u->verdict);
	p[10] = num_param(nums[4], 32, u->mean_before);
	p[11] = num_param(nums[5], 32, u->mean_after);
	p[12] = num_param(nums[6], 32, (double)u->n_before);
	p[13] = num_param(nums[7], 32, (double)u->n_after);
	p[14] = num_param(nums[8], 32, (double)u->commits_after);
	p[15] = num_param(nums[9], 32, u->pair_change_pct);
	p[16] = num_param(nums[10], 32, u->pair_p_value);
	p[17] = db_text(u->pair_verdict);
	p[18] = num_param(nums[11], 32, u->det_before);
	p[19] = num_param(nums[12], 32, u->det_after);
	p[20] = num_param(nums[13], 32, u->det_change_pct);
	p[21] = num_param(nums[14], 32, u->det_p_value);
	p[22] = db_text(u->confirm ? "t" : "f");
	p[23] = num_param(nums[15], 32, u->hl_pct);
	p[24] = num_param(nums[16], 32, u->shift);
	p[25] = num_param(nums[17], 32, (double)u->direction);
	p[26] = num_param(nums[18], 32, (double)u->outliers_before);
	p[27] = num_param(nums[19], 32, (double)u->outliers_after);
	p[28] = num_param(nums[20], 32, u->pair_hl_pct);
	p[29] = num_param(nums[21], 32, (double)u->pair_direction);
	p[30] = num_param(nums[22], 32, u->noise_sigma);
	p[31] = num_param(nums[23], 32, u->noise_cycle < 0 ? NAN : (double)u->noise_cycle);
	r = db_query(c, &stmts[ST_REGR_UPSERT], 32, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return err_setc(e, ERR_DB, "regr_upsert", "upsert returned no row");
	}
	out->id = get_ll(r, 0, UPSERT_ID);
	out->created = PQgetisnull(r, 0, UPSERT_OLD_STATE);
	snprintf(out->old_state, sizeof(out->old_state), "%s", PQgetvalue(r, 0, UPSERT_OLD_STATE));
	snprintf(out->new_state, sizeof(out->new_state), "%s", PQgetvalue(r, 0, UPSERT_NEW_STATE));
	PQclear(r);
	return 0;
}

/* ST_REGR_UNDETECT's columns */
enum { UNDETECT_WITHDRAWN, UNDETECT_UNDETECTED };

int db_regr_undetect(struct db_conn *c, long long setup_id, const long long *kept, size_t n,
		     size_t *withdrawn, size_t *undetected, struct err *e)
{
	struct buf ids = BUF_INIT(0);
	struct db_param p[2];
	PGresult *r;
	int over = buf_addch(&ids, '{');

	for (size_t i = 0; i < n; i++)
		over |= buf_addf(&ids, "%s%lld", i ? "," : "", kept[i]);
	over |= buf_addch(&ids, '}');
	if (over)
		abort(); /* no cap: only out of memory, which xalloc makes fatal anyway */
	/* the kept ids as a bigint[] literal: the SQL takes $2::bigint[] as text */
	p[0] = db_int8(setup_id);
	p[1] = db_text(ids.data);
	r = db_query(c, &stmts[ST_REGR_UNDETECT], 2, p, 0, e);
	buf_release(&ids);
	if (!r)
		return -1;
	*withdrawn = strtoull(PQgetvalue(r, 0, UNDETECT_WITHDRAWN), NULL, 10);
	*undetected = strtoull(PQgetvalue(r, 0, UNDETECT_UNDETECTED), NULL, 10);
	PQclear(r);
	return 0;
}

/* ST_REGR_SET_STATE's columns */
enum { SET_STATE_FROM, SET_STATE_TO };

int db_regr_set_state(struct db_conn *c, long long id, const char *state, char *from, char *to,
		      struct err *e)
{
	struct db_param p[2] = { db_int8(id), db_text(state) };
	PGresult *r = db_query(c, &stmts[ST_REGR_SET_STATE], 2, p, 0, e);

	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	snprintf(from, 16, "%s", PQgetvalue(r, 0, SET_STATE_FROM));
	snprintf(to, 16, "%s", PQgetvalue(r, 0, SET_STATE_TO));
	PQclear(r);
	return 1;
}

int db_regr_history_add(struct db_conn *c, long long id, const char *who, long long token_id,
			const char *from, const char *to, const char *note, struct err *e)
{
	struct db_param p[6] = { db_int8(id),	db_text(who), db_id(token_id),
				 db_text(from), db_text(to),  db_text(note) };

	return db_query_do(c, &stmts[ST_REGR_HISTORY_ADD], 6, p, e);
}

int db_regr_set_environment(struct db_conn *c, long long id, const char *env, struct err *e)
{
	struct db_param p[2] = { db_int8(id), db_text(env) };

	return db_query_do(c, &stmts[ST_REGR_ENVIRONMENT], 2, p, e);
}

/* ST_SERIES_CHANGE_POINTS's columns */
enum {
	CP_ID,
	CP_COMMIT,
	CP_GOOD_COMMIT,
	CP_BEFORE,
	CP_AFTER,
	CP_CHANGE_PCT,
	CP_P_VALUE,
	CP_KIND,
	CP_STATE,
	CP_HL_PCT,
	CP_DIRECTION
};

int db_series_change_points(struct db_conn *c, long long setup_id, const char *metric,
			    struct db_change_point **out, size_t *n, struct err *e)
{
	struct db_param p[2] = { db_int8(setup_id), db_text(metric) };
	PGresult *r;

	*out = NULL;
	*n = 0;
	r = db_query(c, &stmts[ST_SERIES_CHANGE_POINTS], 2, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*n = (size_t)PQntuples(r);
		*out = xcalloc(*n, sizeof(**out));
	}
	for (int i = 0; i < PQntuples(r); i++) {
		struct db_change_point *cp = &(*out)[i];

		cp->regression_id = get_ll(r, i, CP_ID);
		snprintf(cp->commit, sizeof(cp->commit), "%s", PQgetvalue(r, i, CP_COMMIT));
		snprintf(cp->good_commit, sizeof(cp->good_commit), "%s",
			 PQgetvalue(r, i, CP_GOOD_COMMIT));
		cp->before = get_num(r, i, CP_BEFORE);
		cp->after = get_num(r, i, CP_AFTER);
		cp->change_pct = get_num(r, i, CP_CHANGE_PCT);
		cp->p_value = get_num(r, i, CP_P_VALUE);
		snprintf(cp->kind, sizeof(cp->kind), "%s", PQgetvalue(r, i, CP_KIND));
		snprintf(cp->state, sizeof(cp->state), "%s", PQgetvalue(r, i, CP_STATE));
		cp->hl_pct = get_num(r, i, CP_HL_PCT);
		cp->direction = PQgetisnull(r, i, CP_DIRECTION) ? 0 :
								  (int)get_ll(r, i, CP_DIRECTION);
	}
	PQclear(r);
	return 0;
}
