/*
 * The regression records as the API shows them (see db/regressions.h):
 * the list, one record, its group and history as JSON, and its story
 * (its arch, its bisect, the same change seen on other arches) as JSON for
 * the page and as rows for the mail; the statements they are read with.
 */
#include "server/db/regressions.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	"'environment', g.environment, 'noise_sigma', g.noise_sigma, "                           \
	"'noise_cycle', g.noise_cycle)"
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

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum regr_json_stmt {
	ST_REGRESSIONS_JSON,
	ST_REGRESSION_GROUP_JSON,
	ST_REGRESSION_HISTORY_JSON,
	ST_REGRESSION_JSON,
	ST_REGRESSION_STORY_JSON,
	ST_REGRESSION_ALSO_SEEN,
	NR_REGR_JSON_STMTS
};

static const struct db_stmt_def stmts[NR_REGR_JSON_STMTS] = {
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
};

const struct db_stmt_table db_stmts_regr_json = DB_STMT_TABLE(stmts);

/* the one column of the JSON reads */
enum { JSON_TEXT };

json_t *db_regressions_json(struct db_conn *c, const char *state, const char *kind,
			    const char *testcase, const char *metric, long long limit, int leaders,
			    struct err *e)
{
	char lim[24];
	/* the limit and the flag are an integer and a boolean in the SQL: sent as text */
	struct db_param p[6] = { db_text(state),  db_text(kind), db_text(testcase),
				 db_text(metric), db_text(lim),	 db_text(leaders ? "t" : NULL) };
	PGresult *r;
	json_t *j;

	snprintf(lim, sizeof(lim), "%lld", limit);
	r = db_query(c, &stmts[ST_REGRESSIONS_JSON], 6, p, 0, e);
	if (!r)
		return NULL;
	j = json_loads(PQgetvalue(r, 0, JSON_TEXT), 0, NULL);
	PQclear(r);
	if (!j)
		err_setc(e, ERR_DB, "", "bad JSON from the database");
	return j;
}

/* statement s of record id, one JSON column: 1 with *out (new), 0 no row, -1 */
static int one_json(struct db_conn *c, const struct db_stmt_def *s, long long id, json_t **out,
		    struct err *e)
{
	PGresult *r = db_query_id(c, s, id, e);

	*out = NULL;
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	*out = json_loads(PQgetvalue(r, 0, JSON_TEXT), 0, NULL);
	PQclear(r);
	if (!*out)
		return err_setc(e, ERR_DB, s->name, "bad JSON from the database");
	return 1;
}

int db_regression_json(struct db_conn *c, long long id, json_t **out, struct err *e)
{
	return one_json(c, &stmts[ST_REGRESSION_JSON], id, out, e);
}

int db_regression_group_json(struct db_conn *c, long long id, json_t **out, struct err *e)
{
	return one_json(c, &stmts[ST_REGRESSION_GROUP_JSON], id, out, e);
}

int db_regression_history_json(struct db_conn *c, long long id, json_t **out, struct err *e)
{
	return one_json(c, &stmts[ST_REGRESSION_HISTORY_JSON], id, out, e);
}

int db_regression_story_json(struct db_conn *c, long long id, json_t **out, struct err *e)
{
	return one_json(c, &stmts[ST_REGRESSION_STORY_JSON], id, out, e);
}

/* ST_REGRESSION_ALSO_SEEN's columns */
enum { AS_SELF_ARCH, AS_ARCH, AS_REGRESSION_ID, AS_HL_PCT, AS_CHANGE_PCT, AS_BISECT, AS_SAME_FB };

static long long get_ll(PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static double get_num(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NAN : strtod(PQgetvalue(r, row, col), NULL);
}

int db_regression_story(struct db_conn *c, long long id, struct db_story *out, struct err *e)
{
	PGresult *r;
	int n;

	memset(out, 0, sizeof(*out));
	r = db_query_id(c, &stmts[ST_REGRESSION_ALSO_SEEN], id, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	if (!n) {
		PQclear(r);
		return 0;
	}
	out->res = db_res_of(r);
	out->arch = PQgetisnull(r, 0, AS_SELF_ARCH) ? NULL : PQgetvalue(r, 0, AS_SELF_ARCH);
	out->also = xcalloc((size_t)n, sizeof(*out->also));
	for (int i = 0; i < n; i++) {
		struct db_also_seen *a = &out->also[out->nr_also];

		if (PQgetisnull(r, i, AS_ARCH))
			continue; /* the one row of a record seen nowhere else */
		a->arch = PQgetvalue(r, i, AS_ARCH);
		a->regression_id = get_ll(r, i, AS_REGRESSION_ID);
		a->hl_pct = get_num(r, i, AS_HL_PCT);
		a->change_pct = get_num(r, i, AS_CHANGE_PCT);
		a->bisect_id = PQgetisnull(r, i, AS_BISECT) ? 0 : get_ll(r, i, AS_BISECT);
		a->same_first_bad = PQgetvalue(r, i, AS_SAME_FB)[0] == 't';
		out->nr_also++;
	}
	return 1;
}

void db_story_free(struct db_story *s)
{
	PQclear(db_pgres(s->res));
	free(s->also);
	memset(s, 0, sizeof(*s));
}
