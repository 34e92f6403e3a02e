/*
 * Typed binary reads of compares and series (see series.h; api/series.c,
 * api/compare.c), and the statements they are made with.
 */
#include "server/db/series.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/pgval.h"
#include "server/db/stmts.h"
#include "buf.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum series_stmt {
	ST_COMPARE,
	ST_COMPARE_METRICS,
	ST_COMPARE_FINGERPRINTS,
	ST_COMPARE_AA,
	ST_REQUEST_AA_METRICS,
	ST_SERIES,
	ST_SERIES_COMMITS,
	ST_SETUP_KEY_EXISTS,
	ST_SETUP_STORED,
	NR_SERIES_STMTS
};

/* $G: a second params_key beside $P (struct db_setup_filter's params_given), or NULL */
#define RUN_FILTERS(T, K, C, P, M, N, G)                                           \
	"($" #T "::text IS NULL OR s.tbox_group = $" #T ") AND "                   \
	"($" #K "::text IS NULL OR s.kconfig = $" #K ") AND "                      \
	"($" #C "::text IS NULL OR s.compiler = $" #C ") AND "                     \
	"($" #P "::text IS NULL OR s.params_key IN ($" #P ", $" #G "::text)) AND " \
	"($" #M "::text IS NULL OR s.mode = $" #M ") AND "                         \
	"($" #N "::text IS NULL OR s.monitors = $" #N ")"

/* ST_SERIES' runs r: ok, in the matching setups ($2 testcase, $3..$9 filters), on a branch */
#define SERIES_RUNS                                                                    \
	"r.status = 'ok' AND r.setup_id = ANY (ARRAY(SELECT s.id FROM setups s "       \
	"JOIN testcases t ON t.id = s.testcase_id WHERE t.name = $2 AND " RUN_FILTERS( \
		3, 4, 5, 6, 7, 8, 9) ")) "                                             \
				     "AND " NOT_PATCHED_HEAD_RUN("r")

static const struct db_stmt_def stmts[NR_SERIES_STMTS] = {
	/*
	 * $1 base commit id, $2 head commit id, $3 testcase, $4..$10 filters: the
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
				 4, 5, 6, 7, 8, 9, 10) " "
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
	 * $1 metric, $2 testcase, $3..$9 filters: every run of the metric in the
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
	 * regtrack_raw_from(), sql/0039) are read from run_means instead, as
	 * run_points() reads them, the same mean to the bit, but one probe of
	 * the run's month and the metric's place in its id list rather than a
	 * row for each of the run's metrics (figures: docs/internals/
	 * performance.md); that part is skipped whole while no month was
	 * dropped.
	 */
	[ST_SERIES] = { "series",
			"SELECT r.setup_id, r.commit_id, r.id, r.run_id, v.mean::text "
			"FROM metrics m JOIN run_values v ON v.metric_id = m.id "
			"JOIN runs r ON r.id + 0 = v.run_id "
			"WHERE m.name = $1 AND r.received_at >= (SELECT regtrack_raw_from()) "
			"AND " SERIES_RUNS " UNION ALL "
			"SELECT r.setup_id, r.commit_id, r.id, r.run_id, x.means[x.k]::text "
			"FROM metrics m CROSS JOIN runs r "
			"CROSS JOIN LATERAL (SELECT rm.means, array_position(rm.metric_ids, m.id) AS k "
			"FROM run_means rm WHERE rm.run_id = r.id "
			"AND rm.stored_on = (r.received_at AT TIME ZONE 'UTC')::date) x "
			"WHERE m.name = $1 AND x.k IS NOT NULL "
			"AND r.received_at < (SELECT regtrack_raw_from()) "
			"AND (SELECT regtrack_raw_from()) > '-infinity' AND " SERIES_RUNS },
	/*
	 * $1 commit ids (bigint[]): id, sha, subject, commit time, in series
	 * order; read in binary, the time formatted by api/series.c (cheaper
	 * than to_char in the statement)
	 */
	[ST_SERIES_COMMITS] = { "series_commits",
				"SELECT c.id, c.sha, c.subject, c.commit_time "
				"FROM commits c WHERE c.id = ANY ($1::bigint[]) ORDER BY " COMMIT_ORDER },
	/* $1 params_key: a row when a setup has it (the hash index setups_params_key) */
	[ST_SETUP_KEY_EXISTS] = { "setup_key_exists",
				  "SELECT 1 FROM setups WHERE params_key = $1 LIMIT 1" },
	/* $1 testcase name, $2 kconfig, $3 params_key: a row when such a setup is stored */
	[ST_SETUP_STORED] = { "setup_stored",
			      "SELECT 1 FROM setups s JOIN testcases t ON t.id = s.testcase_id "
			      "WHERE t.name = $1 AND s.kconfig = $2 AND s.params_key = $3 LIMIT 1" },
};

const struct db_stmt_table db_stmts_series = DB_STMT_TABLE(stmts);

#define INT8_OID 20
#define TEXT_OID 25
#define INT4_OID 23
#define FLOAT8_OID 701
#define TIMESTAMPTZ_OID 1184
#define UUID_OID 2950

/* 0, or -1 with e when r's columns are not nc of these types in binary */
static int result_check(const PGresult *r, const Oid *types, int nc, const char *what,
			struct err *e)
{
	if (PQnfields(r) != nc)
		return err_setc(e, ERR_DB, what, "%s: %d columns", what, PQnfields(r));
	for (int k = 0; k < nc; k++)
		if (PQfformat(r, k) != 1 || PQftype(r, k) != types[k])
			return err_setc(e, ERR_DB, what,
					"%s: column %d is not of type %u in binary", what, k,
					(unsigned)types[k]);
	return 0;
}

/*
 * The rows of ST_COMPARE or ST_COMPARE_AA into *out: column 1 is the is_base
 * bool (aa 0) or the kernel number (aa 1). Takes r (cleared). 0 or -1 with e.
 */
/* ST_COMPARE's and ST_COMPARE_AA's columns (RUNS_COMMIT: the aa's only) */
enum { RUNS_SETUP, RUNS_BASE_OR_KERNEL, RUNS_METRIC_IDS, RUNS_MEANS, RUNS_COMMIT };

static int read_runs(PGresult *r, int aa, struct db_compare_runs *out, struct err *e)
{
	size_t nrun, nvals = 0;
	int *ip;
	double *vp;
	int bad = 0;

	nrun = (size_t)PQntuples(r);
	out->runs = xcalloc(nrun ? nrun : 1, sizeof(*out->runs));
	out->nr = nrun;
	if (nrun && aa &&
	    (PQnfields(r) != 5 || PQftype(r, RUNS_BASE_OR_KERNEL) != INT8_OID ||
	     PQftype(r, RUNS_COMMIT) != INT8_OID))
		bad = 1;
	for (size_t i = 0; i < nrun && !bad; i++) {
		long a = pg_bin_array_len(PQgetvalue(r, (int)i, RUNS_METRIC_IDS),
					  (size_t)PQgetlength(r, (int)i, RUNS_METRIC_IDS),
					  INT4_OID);
		long b = pg_bin_array_len(PQgetvalue(r, (int)i, RUNS_MEANS),
					  (size_t)PQgetlength(r, (int)i, RUNS_MEANS), FLOAT8_OID);

		if (a < 0 || a != b) {
			bad = 1;
			break;
		}
		out->runs[i].n = a;
		nvals += (size_t)a;
	}
	if (!bad) {
		ip = out->id_pool_ = xmalloc((nvals ? nvals : 1) * sizeof(*ip));
		vp = out->mean_pool_ = xmalloc((nvals ? nvals : 1) * sizeof(*vp));
		out->nr_values = nvals;
		for (size_t i = 0; i < nrun; i++) {
			struct db_compare_run *u = &out->runs[i];

			u->setup_id = pg_bin_int8(PQgetvalue(r, (int)i, RUNS_SETUP));
			if (aa) {
				u->kernel = pg_bin_int8(PQgetvalue(r, (int)i, RUNS_BASE_OR_KERNEL));
				u->commit_id = pg_bin_int8(PQgetvalue(r, (int)i, RUNS_COMMIT));
			} else
				u->is_base = PQgetvalue(r, (int)i, RUNS_BASE_OR_KERNEL)[0] != 0;
			u->metric_ids = ip;
			u->means = vp;
			bad |= pg_bin_array_int4(PQgetvalue(r, (int)i, RUNS_METRIC_IDS),
						 (size_t)PQgetlength(r, (int)i, RUNS_METRIC_IDS),
						 ip);
			bad |= pg_bin_array_float8(PQgetvalue(r, (int)i, RUNS_MEANS),
						   (size_t)PQgetlength(r, (int)i, RUNS_MEANS), vp);
			ip += u->n;
			vp += u->n;
		}
	}
	PQclear(r);
	if (bad) {
		db_compare_runs_free(out);
		return err_setc(e, ERR_DB, "compare", "run_means: malformed arrays");
	}
	return 0;
}

int db_compare_runs(struct db_conn *c, long long base_id, long long head_id,
		    const struct db_setup_filter *f, struct db_compare_runs *out, struct err *e)
{
	struct db_param params[10] = { db_int8(base_id),       db_int8(head_id),
				       db_text(f->testcase),   db_text(f->tbox_group),
				       db_text(f->kconfig),    db_text(f->compiler),
				       db_text(f->params_key), db_text(f->mode),
				       db_text(f->monitors),   db_text(f->params_given) };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_COMPARE], 10, params, 1, e);
	if (!r)
		return -1;
	return read_runs(r, 0, out, e);
}

int db_compare_aa(struct db_conn *c, long long base_id, long long head_id,
		  const long long *setup_ids, size_t n, struct db_compare_runs *out, struct err *e)
{
	struct buf arr = BUF_INIT(0);
	struct db_param params[3];
	PGresult *r;
	int bad = buf_addch(&arr, '{');

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		bad |= buf_addf(&arr, i ? ",%lld" : "%lld", setup_ids[i]);
	bad |= buf_addch(&arr, '}');
	(void)bad; /* no cap on arr: appends cannot fail */
	params[0] = db_text(arr.data);
	params[1] = db_int8(base_id);
	params[2] = db_int8(head_id);
	r = db_query(c, &stmts[ST_COMPARE_AA], 3, params, 1, e);
	buf_release(&arr);
	if (!r)
		return -1;
	return read_runs(r, 1, out, e);
}

void db_compare_runs_free(struct db_compare_runs *r)
{
	free(r->runs);
	free(r->id_pool_);
	free(r->mean_pool_);
	memset(r, 0, sizeof(*r));
}

/* ST_COMPARE_METRICS' columns */
enum { METRICS_ID, METRICS_NAME, METRICS_UNIT, METRICS_HIGHER_IS_BETTER, METRICS_IS_MONITOR };

int db_compare_metrics(struct db_conn *c, const int *ids, size_t n, const char *prefix,
		       struct db_compare_metrics *out, struct err *e)
{
	struct buf arr = BUF_INIT(0);
	struct db_param params[2];
	PGresult *r;
	int bad = 0;

	memset(out, 0, sizeof(*out));
	/* the ids as an int4[] literal */
	bad |= buf_addch(&arr, '{');
	for (size_t i = 0; i < n; i++) {
		/* without printf: its parsing per id was a twentieth of a compare's CPU */
		char t[16], *p = t + sizeof(t);
		long long v = ids[i];
		unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		if (v < 0)
			*--p = '-';
		if (i)
			*--p = ',';
		bad |= buf_add(&arr, p, (size_t)(t + sizeof(t) - p));
	}
	bad |= buf_addch(&arr, '}');
	(void)bad; /* no cap on arr: appends cannot fail */
	params[0] = db_text(arr.data);
	params[1] = db_text(prefix);
	r = db_query(c, &stmts[ST_COMPARE_METRICS], 2, params, 1, e);
	buf_release(&arr);
	if (!r)
		return -1;
	out->nr = (size_t)PQntuples(r);
	out->rows = xcalloc(out->nr ? out->nr : 1, sizeof(*out->rows));
	for (size_t i = 0; i < out->nr; i++) {
		struct db_compare_metric *m = &out->rows[i];

		m->id = pg_bin_int4(PQgetvalue(r, (int)i, METRICS_ID));
		m->name = PQgetvalue(r, (int)i, METRICS_NAME);
		m->unit = PQgetvalue(r, (int)i, METRICS_UNIT);
		m->higher_is_better = PQgetisnull(r, (int)i, METRICS_HIGHER_IS_BETTER) ?
					      -1 :
					      PQgetvalue(r, (int)i, METRICS_HIGHER_IS_BETTER)[0] !=
						      0;
		m->is_monitor = PQgetvalue(r, (int)i, METRICS_IS_MONITOR)[0] != 0;
	}
	out->res_ = db_res_of(r);
	return 0;
}

void db_compare_metrics_free(struct db_compare_metrics *m)
{
	free(m->rows);
	PQclear(db_pgres(m->res_));
	memset(m, 0, sizeof(*m));
}

/* ST_SERIES' columns: setup id, commit id, runs.id, run_id, mean */
enum { COL_SETUP, COL_COMMIT, COL_RUN, COL_UUID, COL_MEAN, NR_COLS };
static const Oid col_type[NR_COLS] = { INT8_OID, INT8_OID, INT8_OID, UUID_OID, TEXT_OID };

int db_series_points(struct db_conn *c, const char *metric, const struct db_setup_filter *f,
		     struct db_series_points *out, struct err *e)
{
	struct db_param params[9] = { db_text(metric),	       db_text(f->testcase),
				      db_text(f->tbox_group),  db_text(f->kconfig),
				      db_text(f->compiler),    db_text(f->params_key),
				      db_text(f->mode),	       db_text(f->monitors),
				      db_text(f->params_given) };
	PGresult *r;
	size_t n;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_SERIES], 9, params, 1, e);
	if (!r)
		return -1;
	if (result_check(r, col_type, NR_COLS, "series", e))
		goto fail;
	n = (size_t)PQntuples(r);
	if (n > UINT32_MAX) {
		err_setc(e, ERR_TOO_LARGE, "metric", "the series is too large");
		goto fail;
	}
	out->rows = xcalloc(n ? n : 1, sizeof(*out->rows));
	for (size_t i = 0; i < n; i++) {
		int row = (int)i;
		struct db_series_point *p = &out->rows[i];

		if (PQgetisnull(r, row, COL_SETUP) || PQgetisnull(r, row, COL_COMMIT) ||
		    PQgetisnull(r, row, COL_RUN) || PQgetlength(r, row, COL_UUID) != 16) {
			free(out->rows);
			out->rows = NULL;
			err_setc(e, ERR_DB, "series", "series: row %d malformed", row);
			goto fail;
		}
		p->setup_id = pg_bin_int8(PQgetvalue(r, row, COL_SETUP));
		p->commit_id = pg_bin_int8(PQgetvalue(r, row, COL_COMMIT));
		p->run_id = pg_bin_int8(PQgetvalue(r, row, COL_RUN));
		p->uuid = (const unsigned char *)PQgetvalue(r, row, COL_UUID);
		p->mean = PQgetisnull(r, row, COL_MEAN) ? NULL : PQgetvalue(r, row, COL_MEAN);
	}
	out->nr = n;
	out->res_ = db_res_of(r);
	return 0;
fail:
	PQclear(r);
	return -1;
}

void db_series_points_free(struct db_series_points *p)
{
	free(p->rows);
	PQclear(db_pgres(p->res_));
	memset(p, 0, sizeof(*p));
}

/* ST_SERIES_COMMITS' columns: id, sha, subject, commit_time */
enum { CC_ID, CC_SHA, CC_SUBJECT, CC_TIME, NR_CCOLS };
static const Oid ccol_type[NR_CCOLS] = { INT8_OID, TEXT_OID, TEXT_OID, TIMESTAMPTZ_OID };

/* v in decimal into out (24 bytes); returns the length */
static size_t lltoa(long long v, char *out)
{
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	char t[24];
	size_t k = 0, o = 0;

	if (v < 0)
		out[o++] = '-';
	do {
		t[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (k)
		out[o++] = t[--k];
	return o;
}

int db_series_commits(struct db_conn *c, const long long *ids, size_t n,
		      struct db_series_commits *out, struct err *e)
{
	struct buf arr = BUF_INIT(0);
	struct db_param p[1];
	char num[32];
	PGresult *r;
	size_t k = 0;
	int bad = 0;

	memset(out, 0, sizeof(*out));
	/* the ids as a bigint[] literal */
	bad |= buf_addch(&arr, '{');
	for (size_t i = 0; i < n; i++) {
		size_t m = 0;

		if (i)
			num[m++] = ',';
		m += lltoa(ids[i], num + m);
		bad |= buf_add(&arr, num, m);
	}
	bad |= buf_addch(&arr, '}');
	(void)bad; /* no cap on arr: appends cannot fail */
	p[0] = db_text(arr.data);
	r = db_query(c, &stmts[ST_SERIES_COMMITS], 1, p, 1, e);
	buf_release(&arr);
	if (!r)
		return -1;
	if (result_check(r, ccol_type, NR_CCOLS, "series_commits", e)) {
		PQclear(r);
		return -1;
	}
	out->rows = xcalloc(PQntuples(r) ? (size_t)PQntuples(r) : 1, sizeof(*out->rows));
	for (int i = 0; i < PQntuples(r); i++) {
		struct db_series_commit *cm = &out->rows[k];

		if (PQgetisnull(r, i, CC_ID) || PQgetisnull(r, i, CC_SHA))
			continue;
		cm->id = pg_bin_int8(PQgetvalue(r, i, CC_ID));
		cm->sha = PQgetvalue(r, i, CC_SHA);
		cm->subject = PQgetisnull(r, i, CC_SUBJECT) ? NULL : PQgetvalue(r, i, CC_SUBJECT);
		cm->has_time = !PQgetisnull(r, i, CC_TIME) && PQgetlength(r, i, CC_TIME) == 8;
		cm->time_us = cm->has_time ? pg_bin_int8(PQgetvalue(r, i, CC_TIME)) : 0;
		k++;
	}
	out->nr = k;
	out->res_ = db_res_of(r);
	return 0;
}

void db_series_commits_free(struct db_series_commits *cm)
{
	free(cm->rows);
	PQclear(db_pgres(cm->res_));
	memset(cm, 0, sizeof(*cm));
}

/* ST_COMPARE_FINGERPRINTS' columns */
enum { FINGERPRINTS_BASE, FINGERPRINTS_HEAD };

int db_compare_fingerprints(struct db_conn *c, long long base_id, long long head_id,
			    const long long *setup_ids, size_t n, json_t **base, json_t **head,
			    struct err *e)
{
	struct buf arr = BUF_INIT(0);
	struct db_param params[3];
	PGresult *r;
	int bad = buf_addch(&arr, '{');

	for (size_t i = 0; i < n; i++)
		bad |= buf_addf(&arr, i ? ",%lld" : "%lld", setup_ids[i]);
	bad |= buf_addch(&arr, '}');
	(void)bad; /* no cap on arr: appends cannot fail */
	params[0] = db_int8(base_id);
	params[1] = db_int8(head_id);
	params[2] = db_text(arr.data);
	*base = *head = NULL;
	r = db_query(c, &stmts[ST_COMPARE_FINGERPRINTS], 3, params, 0, e);
	buf_release(&arr);
	if (!r)
		return -1;
	if (PQntuples(r) == 1) {
		*base = json_loads(PQgetvalue(r, 0, FINGERPRINTS_BASE), 0, NULL);
		*head = json_loads(PQgetvalue(r, 0, FINGERPRINTS_HEAD), 0, NULL);
	}
	PQclear(r);
	if (!*base)
		*base = json_array();
	if (!*head)
		*head = json_array();
	return 0;
}

static int cmp_aa_metric(const void *x, const void *y)
{
	const struct db_request_aa_metric *a = x, *b = y;

	if (a->group != b->group)
		return (a->group > b->group) - (a->group < b->group);
	return strcmp(a->metric, b->metric);
}

/* ST_REQUEST_AA_METRICS' columns */
enum { AA_GROUP, AA_METRIC, AA_METRIC_ID, AA_SETUP, AA_BASE, AA_HEAD };

long db_request_aa_metrics(struct db_conn *c, long long request_id,
			   struct db_request_aa_metric **out, struct err *e)
{
	struct db_param p[1] = { db_int8(request_id) };
	PGresult *r;
	long n;

	*out = NULL;
	r = db_query(c, &stmts[ST_REQUEST_AA_METRICS], 1, p, 0, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*out = xcalloc((size_t)n, sizeof(**out));
	for (long i = 0; i < n; i++) {
		struct db_request_aa_metric *m = &(*out)[i];

		m->group = (int)strtol(PQgetvalue(r, (int)i, AA_GROUP), NULL, 10);
		m->metric = xstrdup(PQgetvalue(r, (int)i, AA_METRIC));
		m->metric_id = strtoll(PQgetvalue(r, (int)i, AA_METRIC_ID), NULL, 10);
		m->setup_id = strtoll(PQgetvalue(r, (int)i, AA_SETUP), NULL, 10);
		m->base_commit = strtoll(PQgetvalue(r, (int)i, AA_BASE), NULL, 10);
		m->head_commit = strtoll(PQgetvalue(r, (int)i, AA_HEAD), NULL, 10);
	}
	PQclear(r);
	if (n > 1)
		qsort(*out, (size_t)n, sizeof(**out), cmp_aa_metric);
	return n;
}

void db_request_aa_metrics_free(struct db_request_aa_metric *m, long n)
{
	for (long i = 0; i < n; i++)
		free(m[i].metric);
	free(m);
}

int db_setup_key_exists(struct db_conn *c, const char *params_key, struct err *e)
{
	struct db_param p[1] = { db_text(params_key) };
	long long n = db_query_rows(c, &stmts[ST_SETUP_KEY_EXISTS], 1, p, e);

	return n < 0 ? -1 : n > 0;
}

int db_setup_stored(struct db_conn *c, const char *testcase, const char *kconfig,
		    const char *params_key, struct err *e)
{
	struct db_param p[3] = { db_text(testcase), db_text(kconfig), db_text(params_key) };
	long long n = db_query_rows(c, &stmts[ST_SETUP_STORED], 3, p, e);

	return n < 0 ? -1 : n > 0;
}
