/*
 * A setup's series as detection reads them (db_detect_series(), see
 * regressions.h): the setup's runs with their run_means row, in binary, put
 * in the order (metric, series order) here; and the host fingerprints of
 * its runs per commit (db_setup_fingerprints()). The statements they are
 * read with are here too.
 *
 * Why not the run_values rows: a run's values are found by run id, and
 * run_values is partitioned by the day the values were stored, which a
 * read by run id cannot name, so PostgreSQL scanned every month of every
 * setup (a sequential scan of all run_values, 10^6 values for a 145-run
 * series: EXPLAIN ANALYZE in docs/internals/performance.md): the cost grew
 * with the history, not with the series. run_means holds a run's means in
 * one row whose stored_on is always its received_at's UTC day, so each run
 * is one index probe of one partition, and a setup of R runs x M metrics is
 * R rows, not R x M sorted with their commits' columns.
 */
#include "server/db/regressions.h"
#include "server/db/series.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/pgval.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum detect_series_stmt { ST_DETECT_SERIES, ST_SETUP_FINGERPRINTS, NR_DETECT_SERIES_STMTS };

static const struct db_stmt_def stmts[NR_DETECT_SERIES_STMTS] = {
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
	/*
	 * $1 setup: per commit (ascending) the distinct host fingerprints of its
	 * ok runs in the setup, as ST_COMPARE_FINGERPRINTS gives one commit's;
	 * read once per detection of the setup, not once per change point
	 */
	[ST_SETUP_FINGERPRINTS] = { "setup_fingerprints",
				    "SELECT commit_id, json_agg(DISTINCT host_fingerprint)::text FROM runs "
				    "WHERE setup_id = $1::bigint AND status = 'ok' AND host_fingerprint IS NOT NULL "
				    "GROUP BY commit_id ORDER BY commit_id" },
};

const struct db_stmt_table db_stmts_det_series = DB_STMT_TABLE(stmts);

/* ST_DETECT_SERIES's columns */
enum { SERIES_COMMIT, SERIES_METRIC_IDS, SERIES_MEANS, NR_SERIES_COLS };

#define INT8_OID 20
#define INT4_OID 23
#define FLOAT8_OID 701

/* one mean of one run: its metric, its run's row (series order), the mean */
struct entry {
	int metric;
	uint32_t row;
	double mean;
};

/* metric, then row: the rows come in series order, so this is "metric, series order" */
static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int cmp_metric_id(const void *a, const void *b)
{
	const struct db_compare_metric *const *x = a, *const *y = b;

	return (*x)->id < (*y)->id ? -1 : (*x)->id > (*y)->id;
}

/*
 * The rows of ST_DETECT_SERIES as entries (*out, *nout) and each row's
 * commit (*commit); clears r. 0 or -1 with e on a malformed row.
 */
static int read_rows(PGresult *r, struct entry **out, size_t *nout, long long **commit,
		     struct err *e)
{
	size_t nrow = (size_t)PQntuples(r), total = 0, k = 0, widest = 0;
	struct entry *ent;
	int *ib;
	double *db;
	int bad = PQnfields(r) != NR_SERIES_COLS || PQftype(r, SERIES_COMMIT) != INT8_OID ||
		  nrow > UINT32_MAX;

	for (size_t i = 0; i < nrow && !bad; i++) {
		long a = pg_bin_array_len(PQgetvalue(r, (int)i, SERIES_METRIC_IDS),
					  (size_t)PQgetlength(r, (int)i, SERIES_METRIC_IDS),
					  INT4_OID);
		long b = pg_bin_array_len(PQgetvalue(r, (int)i, SERIES_MEANS),
					  (size_t)PQgetlength(r, (int)i, SERIES_MEANS), FLOAT8_OID);

		bad = a < 0 || a != b;
		total += bad ? 0 : (size_t)a;
		if (!bad && (size_t)a > widest)
			widest = (size_t)a;
	}
	if (bad) {
		PQclear(r);
		return err_setc(e, ERR_DB, "detect", "run_means: malformed row");
	}
	ent = xmalloc((total ? total : 1) * sizeof(*ent));
	*commit = xmalloc((nrow ? nrow : 1) * sizeof(**commit));
	ib = xmalloc((widest ? widest : 1) * sizeof(*ib));
	db = xmalloc((widest ? widest : 1) * sizeof(*db));
	for (size_t i = 0; i < nrow && !bad; i++) {
		long n = pg_bin_array_len(PQgetvalue(r, (int)i, SERIES_METRIC_IDS),
					  (size_t)PQgetlength(r, (int)i, SERIES_METRIC_IDS),
					  INT4_OID);

		(*commit)[i] = pg_bin_int8(PQgetvalue(r, (int)i, SERIES_COMMIT));
		bad |= pg_bin_array_int4(PQgetvalue(r, (int)i, SERIES_METRIC_IDS),
					 (size_t)PQgetlength(r, (int)i, SERIES_METRIC_IDS), ib);
		bad |= pg_bin_array_float8(PQgetvalue(r, (int)i, SERIES_MEANS),
					   (size_t)PQgetlength(r, (int)i, SERIES_MEANS), db);
		for (long j = 0; j < n && !bad; j++)
			ent[k++] = (struct entry){ ib[j], (uint32_t)i, db[j] };
	}
	free(ib);
	free(db);
	PQclear(r);
	if (bad) {
		free(ent);
		free(*commit);
		*commit = NULL;
		return err_setc(e, ERR_DB, "detect", "run_means: malformed arrays");
	}
	qsort(ent, k, sizeof(*ent), cmp_entry);
	*out = ent;
	*nout = k;
	return 0;
}

int db_detect_series(struct db_conn *c, long long setup_id, struct db_detect_series *s,
		     struct err *e)
{
	struct db_param p[1] = { db_int8(setup_id) };
	struct db_compare_metrics *mt = xcalloc(1, sizeof(*mt));
	const struct db_compare_metric **by_id = NULL;
	struct entry *ent = NULL;
	long long *commit = NULL;
	size_t n = 0, nids = 0;
	int *ids = NULL;
	PGresult *r;

	memset(s, 0, sizeof(*s));
	s->res = mt;
	r = db_query(c, &stmts[ST_DETECT_SERIES], 1, p, 1, e);
	if (!r || read_rows(r, &ent, &n, &commit, e))
		goto fail;
	/* the distinct metric ids, ascending (ent is sorted by metric) */
	ids = xmalloc((n ? n : 1) * sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		if (!nids || ids[nids - 1] != ent[i].metric)
			ids[nids++] = ent[i].metric;
	if (nids && db_compare_metrics(c, ids, nids, NULL, mt, e))
		goto fail;
	if (mt->nr != nids) {
		err_setc(e, ERR_DB, "detect", "%zu of %zu metrics found", mt->nr, nids);
		goto fail;
	}
	/* mt->rows are in name order: by id, they line up with ids[] */
	by_id = xmalloc((nids ? nids : 1) * sizeof(*by_id));
	for (size_t i = 0; i < nids; i++)
		by_id[i] = &mt->rows[i];
	qsort(by_id, nids, sizeof(*by_id), cmp_metric_id);
	s->p = xcalloc(n + 1, sizeof(*s->p));
	for (size_t i = 0, m = 0; i < n; i++) {
		struct db_detect_point *pt = &s->p[i];

		while (by_id[m]->id != ent[i].metric)
			m++; /* both ascending, every id present */
		pt->metric_id = ent[i].metric;
		pt->metric = by_id[m]->name;
		pt->higher_is_better = by_id[m]->higher_is_better;
		pt->is_monitor = by_id[m]->is_monitor;
		pt->commit_id = commit[ent[i].row];
		pt->value = ent[i].mean;
	}
	s->n = n;
	free(by_id);
	free(ids);
	free(ent);
	free(commit);
	return 0;
fail:
	free(by_id);
	free(ids);
	free(ent);
	free(commit);
	db_detect_series_free(s);
	return -1;
}

/* ST_SETUP_FINGERPRINTS's columns */
enum { FPS_COMMIT, FPS_JSON };

int db_setup_fingerprints(struct db_conn *c, long long setup_id, struct db_commit_fps *out,
			  struct err *e)
{
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query_id(c, &stmts[ST_SETUP_FINGERPRINTS], setup_id, e);
	if (!r)
		return -1;
	out->res_ = r;
	out->n = (size_t)PQntuples(r);
	out->commit = xmalloc((out->n ? out->n : 1) * sizeof(*out->commit));
	out->fps = xmalloc((out->n ? out->n : 1) * sizeof(*out->fps));
	for (size_t i = 0; i < out->n; i++) {
		out->commit[i] = strtoll(PQgetvalue(r, (int)i, FPS_COMMIT), NULL, 10);
		out->fps[i] = PQgetvalue(r, (int)i, FPS_JSON);
	}
	return 0;
}

void db_setup_fingerprints_free(struct db_commit_fps *f)
{
	PQclear(f->res_);
	free(f->commit);
	free(f->fps);
	memset(f, 0, sizeof(*f));
}

void db_detect_series_free(struct db_detect_series *s)
{
	if (s->res) {
		db_compare_metrics_free(s->res);
		free(s->res);
	}
	free(s->p);
	memset(s, 0, sizeof(*s));
}
