/*
 * The regression side of bisects (bisects.h): the record a bisect started
 * by hand becomes, the records that share a bisect, the coordinator's
 * queue of regressions to bisect and the API's reads of them, with the
 * statements they are made with.
 */
#include "server/db/bisects.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/pgval.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum bisect_reg_stmt {
	ST_BISECT_RECORD,
	ST_BISECT_REG_LINK,
	ST_BISECT_REG_TODO,
	ST_BISECT_REG_ONE,
	ST_BISECT_REG_MATCH,
	ST_BISECT_REG_OF,
	ST_BISECT_SIBLING,
	ST_BISECT_SIBLINGS_OF,
	NR_BISECT_REG_STMTS
};

/*
 * A regression with what a bisect of it needs (REG_* below name the columns):
 * its setup, metric, good and bad commits and tree, and its size; the
 * caller adds WHERE and the lock.
 */
#define BISECT_REG_SELECT                                                                    \
	"SELECT r.id, t.name, s.params::text, s.kconfig, s.compiler, s.tbox_group, m.name, " \
	"gc.sha, bc.sha, tr.name, coalesce(r.hl_pct, r.change_pct) "                         \
	"FROM regressions r JOIN setups s ON s.id = r.setup_id "                             \
	"JOIN testcases t ON t.id = s.testcase_id "                                          \
	"JOIN metrics m ON m.id = r.metric_id JOIN commits gc ON gc.id = r.good_commit_id "  \
	"JOIN commits bc ON bc.id = r.bad_commit_id "                                        \
	"JOIN trees tr ON tr.id = coalesce(bc.tree_id, gc.tree_id) "

static const struct db_stmt_def stmts[NR_BISECT_REG_STMTS] = {
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
	[ST_BISECT_REG_TODO] = { "bisect_reg_todo", BISECT_REG_SELECT
				 "WHERE r.state = 'confirmed' "
				 "AND r.bisect_id IS NULL AND r.kind IN ('regression', 'change') "
				 "AND r.environment IS NULL "
				 "AND abs(coalesce(r.hl_pct, r.change_pct)) >= $1::float8 "
				 "ORDER BY r.id LIMIT 1 FOR UPDATE OF r SKIP LOCKED" },
	/* regression $1 as ST_BISECT_REG_TODO reads it, whatever its state and size, when it has no
	 * bisect ("bisect now", POST /api/v1/regressions/{id}/bisect), locked */
	[ST_BISECT_REG_ONE] = { "bisect_reg_one", BISECT_REG_SELECT
				"WHERE r.id = $1::bigint AND r.bisect_id IS NULL FOR UPDATE OF r" },
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
	/*
	 * Another record of the same setup and range that already has a bisect:
	 * the metrics of one setup share its jobs, so one bisect serves them all.
	 */
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
};

const struct db_stmt_table db_stmts_bisect_regs = DB_STMT_TABLE(stmts);

/* runs st and returns its first row's first column as an id (0 without a row), or -1 with e */
static long long first_id(struct db_conn *c, enum bisect_reg_stmt st, int n,
			  const struct db_param *p, struct err *e)
{
	long long id;

	if (db_query_first_id(c, &stmts[st], n, p, &id, e) < 0)
		return -1;
	return id;
}

/* --- records of a bisect ---------------------------------------------------- */

int db_bisect_record(struct db_conn *c, long long id, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };

	return db_query_do(c, &stmts[ST_BISECT_RECORD], 1, p, e);
}

/* ST_BISECT_SIBLINGS_OF's one column */
enum { SIBLINGS_ID };

int db_bisect_siblings_of(struct db_conn *c, long long id, long long **out, size_t *n,
			  struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_BISECT_SIBLINGS_OF], id, e);

	*out = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*out = xcalloc((size_t)PQntuples(r), sizeof(**out));
		for (int i = 0; i < PQntuples(r); i++)
			(*out)[i] = strtoll(PQgetvalue(r, i, SIBLINGS_ID), NULL, 10);
		*n = (size_t)PQntuples(r);
	}
	PQclear(r);
	return 0;
}

long long db_bisect_sibling(struct db_conn *c, long long reg_id, struct err *e)
{
	struct db_param p[1] = { db_int8(reg_id) };

	return first_id(c, ST_BISECT_SIBLING, 1, p, e);
}

int db_bisect_reg_link(struct db_conn *c, long long reg_id, long long bisect_id, struct err *e)
{
	struct db_param p[2] = { db_int8(reg_id), db_int8(bisect_id) };

	return db_query_do(c, &stmts[ST_BISECT_REG_LINK], 2, p, e);
}

/* --- the coordinator's queue of regressions --------------------------------- */

/* BISECT_REG_SELECT's columns (ST_BISECT_REG_TODO, ST_BISECT_REG_ONE) */
enum {
	REG_ID,
	REG_TESTCASE,
	REG_PARAMS,
	REG_KCONFIG,
	REG_COMPILER,
	REG_TBOX_GROUP,
	REG_METRIC,
	REG_GOOD,
	REG_BAD,
	REG_TREE,
	REG_SIZE_PCT
};

/* the row of st (one parameter, p) into t: 1, 0 when none, -1 with e */
static int reg_row(struct db_conn *c, enum bisect_reg_stmt st, struct db_param p,
		   struct db_bisect_reg_todo *t, struct err *e)
{
	PGresult *r;

	memset(t, 0, sizeof(*t));
	r = db_query(c, &stmts[st], 1, &p, 0, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	t->id = strtoll(PQgetvalue(r, 0, REG_ID), NULL, 10);
	t->testcase = xstrdup(PQgetvalue(r, 0, REG_TESTCASE));
	t->params = xstrdup(PQgetvalue(r, 0, REG_PARAMS));
	t->kconfig = xstrdup(PQgetvalue(r, 0, REG_KCONFIG));
	t->compiler = xstrdup(PQgetvalue(r, 0, REG_COMPILER));
	t->tbox_group = xstrdup(PQgetvalue(r, 0, REG_TBOX_GROUP));
	t->metric = xstrdup(PQgetvalue(r, 0, REG_METRIC));
	t->good = xstrdup(PQgetvalue(r, 0, REG_GOOD));
	t->bad = xstrdup(PQgetvalue(r, 0, REG_BAD));
	t->tree = xstrdup(PQgetvalue(r, 0, REG_TREE));
	t->size_pct = pg_double(PQgetvalue(r, 0, REG_SIZE_PCT));
	PQclear(r);
	return 1;
}

int db_bisect_reg_todo(struct db_conn *c, double min_pct, struct db_bisect_reg_todo *t,
		       struct err *e)
{
	/* a float8 in the SQL ($1::float8): sent as text, every digit kept */
	char minb[32];

	snprintf(minb, sizeof(minb), "%.17g", min_pct);
	return reg_row(c, ST_BISECT_REG_TODO, db_text(minb), t, e);
}

int db_bisect_reg_one(struct db_conn *c, long long id, struct db_bisect_reg_todo *t, struct err *e)
{
	return reg_row(c, ST_BISECT_REG_ONE, db_int8(id), t, e);
}

void db_bisect_reg_todo_release(struct db_bisect_reg_todo *t)
{
	free(t->testcase);
	free(t->params);
	free(t->kconfig);
	free(t->compiler);
	free(t->tbox_group);
	free(t->metric);
	free(t->good);
	free(t->bad);
	free(t->tree);
	memset(t, 0, sizeof(*t));
}

/* --- the API's reads -------------------------------------------------------- */

int db_regression_bisect_of(struct db_conn *c, long long regression_id, long long *bisect_id,
			    struct err *e)
{
	struct db_param p[1] = { db_int8(regression_id) };

	return db_query_int8(c, &stmts[ST_BISECT_REG_OF], 1, p, bisect_id, e);
}

int db_bisect_regression_match(struct db_conn *c, const struct db_bisect_reg_key *k,
			       long long *regression_id, struct err *e)
{
	struct db_param p[8] = { db_text(k->good),	 db_text(k->bad),     db_text(k->testcase),
				 db_text(k->metric),	 db_text(k->kconfig), db_text(k->compiler),
				 db_text(k->tbox_group), db_text(k->params) };

	return db_query_int8(c, &stmts[ST_BISECT_REG_MATCH], 8, p, regression_id, e);
}
