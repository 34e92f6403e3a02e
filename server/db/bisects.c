/*
 * The bisects' rows as typed values (bisects.h; the coordinator in
 * server/bisect/, api/bisects.c) and the statements they are made with;
 * the records a bisect links to and the coordinator's queue of
 * regressions are in bisect_regs.c.
 */
#include "server/db/bisects.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/pgval.h"
#include "server/db/stmts.h"
#include "buf.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum bisect_stmt {
	ST_BISECTS_JSON,
	ST_BISECT_ACTIVE,
	ST_BISECT_CANCEL,
	ST_BISECT_CANDIDATES,
	ST_BISECT_COMMITS_INSERT,
	ST_BISECT_DESCEND,
	ST_BISECT_EXISTS,
	ST_BISECT_FINISH,
	ST_BISECT_INSERT,
	ST_BISECT_JOBS,
	ST_BISECT_JOB_INSERT,
	ST_BISECT_JSON,
	ST_BISECT_LOCK,
	ST_BISECT_ROUND,
	ST_BISECT_SAMPLES,
	ST_BISECT_START,
	ST_BISECT_STEPS_COUNT,
	ST_BISECT_STEP_INSERT,
	ST_BISECT_WORKERS,
	NR_BISECT_STMTS
};

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

static const struct db_stmt_def stmts[NR_BISECT_STMTS] = {
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

const struct db_stmt_table db_stmts_bisects = DB_STMT_TABLE(stmts);

/* --- helpers --------------------------------------------------------------- */

static long long get_id(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static char *get_dup(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : xstrdup(PQgetvalue(r, row, col));
}

/* runs st and returns its first row's first column as an id (0 without a row), or -1 with e */
static long long first_id(struct db_conn *c, enum bisect_stmt st, int n, const struct db_param *p,
			  struct err *e)
{
	long long id;

	if (db_query_first_id(c, &stmts[st], n, p, &id, e) < 0)
		return -1;
	return id;
}

/* --- the bisect row --------------------------------------------------------- */

/* ST_BISECT_LOCK's columns */
enum {
	LOCK_STATE,
	LOCK_ROUND,
	LOCK_TREE,
	LOCK_URL,
	LOCK_BRANCHES,
	LOCK_GOOD,
	LOCK_BAD,
	LOCK_KCONFIG,
	LOCK_ARCH,
	LOCK_TBOX,
	LOCK_MEASURE,
	LOCK_RUNS_PER_STEP,
	LOCK_REF_RUNS,
	LOCK_MAX_K,
	LOCK_REGRESSION,
	LOCK_TREE_ID,
	LOCK_METRIC,
	LOCK_NR_CANDIDATES,
	LOCK_LEVEL,
	LOCK_LEVEL_GOOD,
	LOCK_LEVEL_GOOD_ID,
	LOCK_DESCENT,
	LOCK_PARAMS
};

int db_bisect_lock(struct db_conn *c, long long id, struct db_bisect_row *b, struct err *e)
{
	PGresult *r;

	memset(b, 0, sizeof(*b));
	r = db_query_id(c, &stmts[ST_BISECT_LOCK], id, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	b->id = id;
	snprintf(b->state, sizeof(b->state), "%s", PQgetvalue(r, 0, LOCK_STATE));
	b->round = (int)get_id(r, 0, LOCK_ROUND);
	b->tree = get_dup(r, 0, LOCK_TREE);
	b->url = get_dup(r, 0, LOCK_URL);
	b->branches = get_dup(r, 0, LOCK_BRANCHES);
	b->good = get_dup(r, 0, LOCK_GOOD);
	b->bad = get_dup(r, 0, LOCK_BAD);
	b->kconfig = get_dup(r, 0, LOCK_KCONFIG);
	b->arch = get_dup(r, 0, LOCK_ARCH);
	b->tbox = get_dup(r, 0, LOCK_TBOX);
	b->measure = get_dup(r, 0, LOCK_MEASURE);
	b->runs_per_step = (int)get_id(r, 0, LOCK_RUNS_PER_STEP);
	b->ref_runs = (int)get_id(r, 0, LOCK_REF_RUNS);
	b->max_k = (int)get_id(r, 0, LOCK_MAX_K);
	b->regression_id = get_id(r, 0, LOCK_REGRESSION);
	b->tree_id = get_id(r, 0, LOCK_TREE_ID);
	b->metric = get_dup(r, 0, LOCK_METRIC);
	b->nr_candidates = (int)get_id(r, 0, LOCK_NR_CANDIDATES);
	b->level = (int)get_id(r, 0, LOCK_LEVEL);
	b->level_good = get_dup(r, 0, LOCK_LEVEL_GOOD);
	b->level_good_id = get_id(r, 0, LOCK_LEVEL_GOOD_ID);
	b->descent = get_dup(r, 0, LOCK_DESCENT);
	b->params = get_dup(r, 0, LOCK_PARAMS);
	PQclear(r);
	return 1;
}

void db_bisect_row_release(struct db_bisect_row *b)
{
	free(b->tree);
	free(b->url);
	free(b->branches);
	free(b->good);
	free(b->bad);
	free(b->kconfig);
	free(b->arch);
	free(b->tbox);
	free(b->measure);
	free(b->params);
	free(b->metric);
	free(b->level_good);
	free(b->descent);
	memset(b, 0, sizeof(*b));
}

long long db_bisect_insert(struct db_conn *c, const struct db_bisect_new *b, struct err *e)
{
	/* the testcase id and the counts are integers in the SQL ($n::integer): sent as text */
	char tcid[24], rps[24], rr[24], kk[24];
	struct db_param p[15] = { db_int8(b->tree_id),
				  db_int8(b->good_id),
				  db_int8(b->bad_id),
				  db_text(tcid),
				  db_text(b->params),
				  db_text(b->kconfig),
				  db_text(b->compiler),
				  db_text(b->arch),
				  db_text(b->tbox_group),
				  db_text(b->metric),
				  db_text(rps),
				  db_text(rr),
				  db_text(kk),
				  db_id(b->regression_id),
				  db_id(b->token_id) };

	snprintf(tcid, sizeof(tcid), "%lld", b->testcase_id);
	snprintf(rps, sizeof(rps), "%d", b->runs_per_step);
	snprintf(rr, sizeof(rr), "%d", b->ref_runs);
	snprintf(kk, sizeof(kk), "%d", b->k);
	return first_id(c, ST_BISECT_INSERT, 15, p, e);
}

int db_bisect_cancel(struct db_conn *c, long long id, const char *reason, struct err *e)
{
	struct db_param p[2] = { db_int8(id), db_text(reason) };
	long long n = db_query_rows(c, &stmts[ST_BISECT_CANCEL], 2, p, e);

	if (n < 0)
		return -1;
	return n ? 1 : 0;
}

int db_bisect_finish(struct db_conn *c, const struct db_bisect_end *end, long long *regression_id,
		     struct err *e)
{
	char conf[32];
	struct db_param p[9] = { db_int8(end->id),
				 db_text(end->state),
				 db_text(end->outcome),
				 db_id(end->first_bad),
				 db_text(end->candidates),
				 db_text(isfinite(end->confidence) ? conf : NULL),
				 db_text(end->reason && *end->reason ? end->reason : NULL),
				 db_text(end->verification),
				 db_text(end->model) };
	long long reg;

	snprintf(conf, sizeof(conf), "%.17g", end->confidence);
	reg = first_id(c, ST_BISECT_FINISH, 9, p, e);
	if (reg < 0)
		return -1;
	*regression_id = reg;
	return 0;
}

/* --- levels and rounds ------------------------------------------------------ */

long long db_bisect_commits_insert(struct db_conn *c, long long id, const char *const *shas,
				   size_t n, int level, struct err *e)
{
	/* the level is an integer in the SQL ($3::integer): sent as text */
	char lv[24];
	struct buf arr = BUF_INIT(0);
	struct db_param p[3] = { db_int8(id), db_text(NULL), db_text(lv) };
	PGresult *r;
	long long stored;
	int over = buf_addch(&arr, '{');

	for (size_t i = 0; i < n; i++)
		over |= buf_addf(&arr, "%s%s", i ? "," : "", shas[i]);
	over |= buf_addch(&arr, '}');
	if (over) {
		buf_release(&arr);
		return err_setc(e, ERR_INTERNAL, "shas", "too many commits");
	}
	snprintf(lv, sizeof(lv), "%d", level);
	p[1] = db_text(arr.data);
	r = db_query(c, &stmts[ST_BISECT_COMMITS_INSERT], 3, p, 0, e);
	buf_release(&arr);
	if (!r)
		return -1;
	stored = strtoll(PQcmdTuples(r), NULL, 10);
	PQclear(r);
	return stored;
}

int db_bisect_start(struct db_conn *c, long long id, size_t nr_candidates, size_t nr_range,
		    struct err *e)
{
	/* the counts are integers in the SQL ($n::integer): sent as text */
	char n1[24], n2[24];
	struct db_param p[3] = { db_int8(id), db_text(n1), db_text(n2) };

	snprintf(n1, sizeof(n1), "%zu", nr_candidates);
	snprintf(n2, sizeof(n2), "%zu", nr_range);
	return db_query_do(c, &stmts[ST_BISECT_START], 3, p, e);
}

int db_bisect_descend(struct db_conn *c, long long id, int level, long long good_id,
		      const char *descent, struct err *e)
{
	/* the level is an integer in the SQL ($2::integer): sent as text */
	char lv[24];
	struct db_param p[4] = { db_int8(id), db_text(lv), db_int8(good_id), db_text(descent) };

	snprintf(lv, sizeof(lv), "%d", level);
	return db_query_do(c, &stmts[ST_BISECT_DESCEND], 4, p, e);
}

int db_bisect_round(struct db_conn *c, long long id, int round, const char *phase,
		    const char *model, struct err *e)
{
	/* the round is an integer in the SQL ($2::integer): sent as text */
	char rb[24];
	struct db_param p[4] = { db_int8(id), db_text(rb), db_text(phase), db_text(model) };

	snprintf(rb, sizeof(rb), "%d", round);
	return db_query_do(c, &stmts[ST_BISECT_ROUND], 4, p, e);
}

/* ST_BISECT_CANDIDATES' columns */
enum { CAND_IDX, CAND_COMMIT_ID, CAND_SHA };

int db_bisect_candidates(struct db_conn *c, long long id, struct db_bisect_candidate **out,
			 size_t *n, struct err *e)
{
	PGresult *r;

	*out = NULL;
	*n = 0;
	r = db_query_id(c, &stmts[ST_BISECT_CANDIDATES], id, e);
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*n = (size_t)PQntuples(r);
		*out = xcalloc(*n, sizeof(**out));
		for (size_t i = 0; i < *n; i++) {
			(*out)[i].commit_id = get_id(r, (int)i, CAND_COMMIT_ID);
			snprintf((*out)[i].sha, sizeof((*out)[i].sha), "%s",
				 PQgetvalue(r, (int)i, CAND_SHA));
		}
	}
	PQclear(r);
	return 0;
}

/* ST_BISECT_JOBS' columns */
enum { JOBS_COMMIT_ID, JOBS_ROUND, JOBS_STATE, JOBS_OUTCOME, JOBS_IMAGE, JOBS_SAME_IMAGE_AS };

int db_bisect_jobs(struct db_conn *c, long long id, struct db_bisect_job **out, size_t *n,
		   struct err *e)
{
	PGresult *r;

	*out = NULL;
	*n = 0;
	r = db_query_id(c, &stmts[ST_BISECT_JOBS], id, e);
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*n = (size_t)PQntuples(r);
		*out = xcalloc(*n, sizeof(**out));
		for (size_t i = 0; i < *n; i++) {
			struct db_bisect_job *j = &(*out)[i];

			j->commit_id = get_id(r, (int)i, JOBS_COMMIT_ID);
			j->round = (int)get_id(r, (int)i, JOBS_ROUND);
			snprintf(j->state, sizeof(j->state), "%s",
				 PQgetvalue(r, (int)i, JOBS_STATE));
			snprintf(j->outcome, sizeof(j->outcome), "%s",
				 PQgetvalue(r, (int)i, JOBS_OUTCOME));
			snprintf(j->image_sha256, sizeof(j->image_sha256), "%s",
				 PQgetvalue(r, (int)i, JOBS_IMAGE));
			snprintf(j->same_image_as, sizeof(j->same_image_as), "%s",
				 PQgetvalue(r, (int)i, JOBS_SAME_IMAGE_AS));
		}
	}
	PQclear(r);
	return 0;
}

/* ST_BISECT_SAMPLES' columns */
enum { SAMPLES_IDX, SAMPLES_VALUE };

int db_bisect_samples(struct db_conn *c, long long id, int reuse, struct db_bisect_sample **out,
		      size_t *n, struct err *e)
{
	struct db_param p[2] = { db_int8(id), db_text(reuse ? "true" : "false") };
	PGresult *r;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	r = db_query(c, &stmts[ST_BISECT_SAMPLES], 2, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r))
		*out = xcalloc((size_t)PQntuples(r), sizeof(**out));
	for (int i = 0; i < PQntuples(r); i++) {
		if (PQgetisnull(r, i, SAMPLES_VALUE))
			continue;
		(*out)[k].idx = strtol(PQgetvalue(r, i, SAMPLES_IDX), NULL, 10);
		(*out)[k].value = pg_double(PQgetvalue(r, i, SAMPLES_VALUE));
		k++;
	}
	*n = k;
	PQclear(r);
	return 0;
}

long long db_bisect_steps_count(struct db_conn *c, long long id, int round, struct err *e)
{
	/* the round is an integer in the SQL ($2::integer): sent as text */
	char rb[24];
	struct db_param p[2] = { db_int8(id), db_text(rb) };

	snprintf(rb, sizeof(rb), "%d", round);
	return first_id(c, ST_BISECT_STEPS_COUNT, 2, p, e);
}

int db_bisect_step_insert(struct db_conn *c, const struct db_bisect_step *s, struct err *e)
{
	/* the round is an integer in the SQL ($3::integer): sent as text */
	char rb[24];
	struct buf sm = BUF_INIT(0);
	struct db_param p[7] = { db_int8(s->bisect_id), db_int8(s->commit_id), db_text(rb),
				 db_text(s->role),	db_text(s->verdict),   db_text(NULL),
				 db_text(s->evidence) };
	int over = buf_addch(&sm, '{'), ret;

	for (size_t i = 0; i < s->n; i++)
		over |= buf_addf(&sm, "%s%.17g", i ? "," : "", s->samples[i]);
	over |= buf_addch(&sm, '}');
	if (over) {
		buf_release(&sm);
		return err_setc(e, ERR_INTERNAL, "samples", "too many samples");
	}
	snprintf(rb, sizeof(rb), "%d", s->round);
	p[5] = db_text(sm.data);
	ret = db_query_do(c, &stmts[ST_BISECT_STEP_INSERT], 7, p, e);
	buf_release(&sm);
	return ret;
}

/* --- probes ---------------------------------------------------------------- */

/* ST_BISECT_WORKERS' columns */
enum { WORKERS_IDLE, WORKERS_TOTAL };

int db_bisect_workers(struct db_conn *c, const char *arch, const char *tbox, const char *cap,
		      const char *window_s, long *idle, long *total, struct err *e)
{
	struct db_param p[4] = { db_text(arch), db_text(tbox), db_text(cap), db_text(window_s) };
	PGresult *r = db_query(c, &stmts[ST_BISECT_WORKERS], 4, p, 0, e);

	if (!r)
		return -1;
	*idle = (long)get_id(r, 0, WORKERS_IDLE);
	*total = (long)get_id(r, 0, WORKERS_TOTAL);
	PQclear(r);
	return 0;
}

int db_bisect_job_insert(struct db_conn *c, long long id, long long commit_id, const char *cap,
			 int repeat, long priority, long max_attempts, int round, struct err *e)
{
	/* the counts and the round are integers in the SQL ($n::integer): sent as text */
	char rep[24], pr[24], ma[24], rb[24];
	struct db_param p[7] = { db_int8(id), db_int8(commit_id), db_text(cap), db_text(rep),
				 db_text(pr), db_text(ma),	  db_text(rb) };

	snprintf(rep, sizeof(rep), "%d", repeat);
	snprintf(pr, sizeof(pr), "%ld", priority);
	snprintf(ma, sizeof(ma), "%ld", max_attempts);
	snprintf(rb, sizeof(rb), "%d", round);
	return db_query_do(c, &stmts[ST_BISECT_JOB_INSERT], 7, p, e);
}

/* --- the coordinator's queue ------------------------------------------------ */

/* ST_BISECT_ACTIVE's one column */
enum { ACTIVE_ID };

int db_bisect_active(struct db_conn *c, long long **out, size_t *n, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_BISECT_ACTIVE], 0, NULL, 0, e);

	*out = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*out = xcalloc((size_t)PQntuples(r), sizeof(**out));
		for (int i = 0; i < PQntuples(r); i++)
			(*out)[i] = get_id(r, i, ACTIVE_ID);
		*n = (size_t)PQntuples(r);
	}
	PQclear(r);
	return 0;
}

/* --- the API's reads -------------------------------------------------------- */

int db_bisects_json(struct db_conn *c, const char *state, const char *limit, char **text,
		    struct err *e)
{
	/* the limit is an integer in the SQL ($2::integer): sent as text */
	struct db_param p[2] = { db_text(state), db_text(limit) };

	return db_query_json(c, &stmts[ST_BISECTS_JSON], 2, p, text, e);
}

int db_bisect_json(struct db_conn *c, long long id, char **text, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };

	if (!db_query_json(c, &stmts[ST_BISECT_JSON], 1, p, text, e))
		return 1;
	return e->id == ERR_NOT_FOUND ? 0 : -1;
}

int db_bisect_exists(struct db_conn *c, long long id, struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_BISECT_EXISTS], id, e);
	int n;

	if (!r)
		return -1;
	n = PQntuples(r) > 0;
	PQclear(r);
	return n;
}
