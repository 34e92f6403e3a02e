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
	 * (EXPLAIN ANALYZE: docs/internals/performance.md). metric_ids is NULL
	 * where it equals the row before's (a setup's runs nearly always report
	 * the same metrics): comparing the arrays costs PostgreSQL less than
	 * sending each (1.6-1.9 s -> 0.6-0.9 s for 14,000 runs x 200 metrics).
	 */
	[ST_DETECT_SERIES] = { "detect_series",
			       "SELECT r.commit_id, CASE WHEN rm.metric_ids = lag(rm.metric_ids) "
			       "OVER w THEN NULL ELSE rm.metric_ids END, rm.means FROM runs r "
			       "JOIN commits c ON c.id = r.commit_id CROSS JOIN LATERAL ("
			       "SELECT m.metric_ids, m.means FROM run_means m WHERE m.run_id = r.id "
			       "AND m.stored_on = (r.received_at AT TIME ZONE 'UTC')::date OFFSET 0) rm "
			       "WHERE r.setup_id = $1::bigint AND r.status = 'ok' AND " NOT_PATCHED_HEAD_RUN(
				       "r") " WINDOW w AS (ORDER BY " COMMIT_ORDER ", r.id) "
					    "ORDER BY " COMMIT_ORDER ", r.id" },
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

/*
 * The metric ids of the rows, each given a slot (first seen first) with its
 * count of means: open addressing over the ids, and a row whose id array
 * is byte for byte the one before it (a setup's runs nearly always report
 * the same metrics) takes that row's slots without a lookup.
 */
struct id_map {
	int *key;
	uint32_t *at;  /* slot of key[h]; UINT32_MAX: empty */
	size_t cap;    /* power of two, at least twice n */
	int *ids;      /* per slot: its metric id */
	size_t *count; /* per slot: the means of that metric */
	size_t n, alloc_ids, alloc_count;
	uint32_t *row; /* the slots of the last row's ids, in its order */
	size_t nrow;
	const char *last; /* the last row's id array (binary) */
	int last_len;
};

static void id_map_rehash(struct id_map *m, size_t cap)
{
	free(m->key);
	free(m->at);
	m->cap = cap;
	m->key = xmalloc(cap * sizeof(*m->key));
	m->at = xmalloc(cap * sizeof(*m->at));
	memset(m->at, 0xff, cap * sizeof(*m->at));
	for (size_t s = 0; s < m->n; s++) {
		size_t h = ((uint32_t)m->ids[s] * 2654435761u) & (cap - 1);

		while (m->at[h] != UINT32_MAX)
			h = (h + 1) & (cap - 1);
		m->key[h] = m->ids[s];
		m->at[h] = (uint32_t)s;
	}
}

/* id's slot, a new one when unseen */
static uint32_t id_slot(struct id_map *m, int id)
{
	size_t h;

	if (2 * (m->n + 1) > m->cap)
		id_map_rehash(m, m->cap ? 2 * m->cap : 512);
	h = ((uint32_t)id * 2654435761u) & (m->cap - 1);
	while (m->at[h] != UINT32_MAX) {
		if (m->key[h] == id)
			return m->at[h];
		h = (h + 1) & (m->cap - 1);
	}
	ALLOC_GROW(m->ids, m->n + 1, m->alloc_ids);
	ALLOC_GROW(m->count, m->n + 1, m->alloc_count);
	m->key[h] = id;
	m->at[h] = (uint32_t)m->n;
	m->ids[m->n] = id;
	m->count[m->n] = 0;
	return (uint32_t)m->n++;
}

/*
 * The slots of row i's metric ids (m->row[0..m->nrow)): those of the row
 * before when its ids are NULL (ST_DETECT_SERIES: the same as that row's)
 * or the same bytes, else looked up (ib: room for the row's ids). 0, or -1
 * when the array is malformed or the first row's is NULL.
 */
static int row_slots(struct id_map *m, PGresult *r, int i, int *ib)
{
	const char *v = PQgetvalue(r, i, SERIES_METRIC_IDS);
	int len = PQgetlength(r, i, SERIES_METRIC_IDS);
	long n;

	if (PQgetisnull(r, i, SERIES_METRIC_IDS))
		return m->last ? 0 : -1;
	if (m->last && len == m->last_len && !memcmp(v, m->last, (size_t)len))
		return 0;
	n = pg_bin_array_len(v, (size_t)len, INT4_OID);
	if (n < 0 || pg_bin_array_int4(v, (size_t)len, ib))
		return -1;
	for (long j = 0; j < n; j++)
		m->row[j] = id_slot(m, ib[j]);
	m->nrow = (size_t)n;
	m->last = v;
	m->last_len = len;
	return 0;
}

static void id_map_free(struct id_map *m)
{
	free(m->key);
	free(m->at);
	free(m->ids);
	free(m->count);
	free(m->row);
	memset(m, 0, sizeof(*m));
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int cmp_metric_id(const void *a, const void *b)
{
	const struct db_compare_metric *const *x = a, *const *y = b;

	return (*x)->id < (*y)->id ? -1 : (*x)->id > (*y)->id;
}

/*
 * Pass 1 over the rows of ST_DETECT_SERIES: checks them, gives each metric
 * id a slot in m and counts its means; *widest: the most means of a row,
 * *total: all of them. 0 or -1 with e on a malformed row.
 */
static int count_rows(PGresult *r, struct id_map *m, size_t *widest, size_t *total, struct err *e)
{
	size_t nrow = (size_t)PQntuples(r);
	int *ib = NULL;
	int bad = PQnfields(r) != NR_SERIES_COLS || PQftype(r, SERIES_COMMIT) != INT8_OID ||
		  nrow > UINT32_MAX;

	*widest = *total = 0;
	for (size_t i = 0; i < nrow && !bad; i++) {
		/* NULL ids: the row before's (row_slots) */
		long a = PQgetisnull(r, (int)i, SERIES_METRIC_IDS) ?
				 (m->last ? (long)m->nrow : -1) :
				 pg_bin_array_len(PQgetvalue(r, (int)i, SERIES_METRIC_IDS),
						  (size_t)PQgetlength(r, (int)i, SERIES_METRIC_IDS),
						  INT4_OID);
		long b = pg_bin_array_len(PQgetvalue(r, (int)i, SERIES_MEANS),
					  (size_t)PQgetlength(r, (int)i, SERIES_MEANS), FLOAT8_OID);

		bad = a < 0 || a != b;
		if (bad)
			break;
		if ((size_t)a > *widest) {
			*widest = (size_t)a;
			ib = xrealloc(ib, *widest * sizeof(*ib));
			m->row = xrealloc(m->row, *widest * sizeof(*m->row));
		}
		bad = row_slots(m, r, (int)i, ib);
		for (size_t j = 0; j < m->nrow && !bad; j++)
			m->count[m->row[j]]++;
		*total += (size_t)a;
	}
	free(ib);
	if (bad)
		return err_setc(e, ERR_DB, "detect", "run_means: malformed row");
	return 0;
}

int db_detect_series(struct db_conn *c, long long setup_id, struct db_detect_series *s,
		     struct err *e)
{
	struct db_param p[1] = { db_int8(setup_id) };
	struct db_compare_metrics *mt = xcalloc(1, sizeof(*mt));
	const struct db_compare_metric **by_id = NULL, **meta = NULL;
	struct id_map m = { 0 };
	size_t n = 0, nids, widest = 0, *pos = NULL;
	uint32_t *order = NULL;
	int *ids = NULL, *ib = NULL;
	double *db = NULL;
	PGresult *r;

	memset(s, 0, sizeof(*s));
	s->res = mt;
	r = db_query(c, &stmts[ST_DETECT_SERIES], 1, p, 1, e);
	if (!r)
		goto fail;
	if (count_rows(r, &m, &widest, &n, e))
		goto fail;
	/* the distinct metric ids, ascending */
	nids = m.n;
	ids = xmalloc((nids ? nids : 1) * sizeof(*ids));
	memcpy(ids, m.ids, nids * sizeof(*ids));
	qsort(ids, nids, sizeof(*ids), cmp_int);
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
	/*
	 * Each slot's metric and its first point: the metrics ascending, each
	 * metric's means in row (series) order, which is "metric, then series
	 * order" as the callers read them
	 */
	meta = xmalloc((nids ? nids : 1) * sizeof(*meta));
	pos = xmalloc((nids ? nids : 1) * sizeof(*pos));
	order = xmalloc((nids ? nids : 1) * sizeof(*order));
	for (size_t k = 0; k < nids; k++) {
		const int *at = bsearch(&m.ids[k], ids, nids, sizeof(*ids), cmp_int);

		order[at - ids] = (uint32_t)k;
	}
	for (size_t i = 0, start = 0; i < nids; i++) {
		if (by_id[i]->id != ids[i]) {
			err_setc(e, ERR_DB, "detect", "metric %d not found", ids[i]);
			goto fail;
		}
		meta[order[i]] = by_id[i];
		pos[order[i]] = start;
		start += m.count[order[i]];
	}
	/*
	 * pass 2: every mean to its place (2.8 million points, 112 MB, for
	 * 14,000 runs x 200 metrics: its pages present before the scattered
	 * writes, in 2 MiB pages where the kernel has them, xalloc.h)
	 */
	s->p = xcalloc(n + 1, sizeof(*s->p));
	xprefault_huge(s->p, (n + 1) * sizeof(*s->p));
	ib = xmalloc((widest ? widest : 1) * sizeof(*ib));
	db = xmalloc((widest ? widest : 1) * sizeof(*db));
	m.last = NULL;
	for (int i = 0; i < PQntuples(r); i++) {
		long long commit = pg_bin_int8(PQgetvalue(r, i, SERIES_COMMIT));

		if (row_slots(&m, r, i, ib) ||
		    pg_bin_array_float8(PQgetvalue(r, i, SERIES_MEANS),
					(size_t)PQgetlength(r, i, SERIES_MEANS), db)) {
			err_setc(e, ERR_DB, "detect", "run_means: malformed arrays");
			goto fail;
		}
		for (size_t j = 0; j < m.nrow; j++) {
			uint32_t k = m.row[j];
			struct db_detect_point *pt = &s->p[pos[k]++];

			pt->metric_id = m.ids[k];
			pt->metric = meta[k]->name;
			pt->higher_is_better = meta[k]->higher_is_better;
			pt->is_monitor = meta[k]->is_monitor;
			pt->commit_id = commit;
			pt->value = db[j];
		}
	}
	s->n = n;
	PQclear(r);
	free(by_id);
	free(meta);
	free(pos);
	free(order);
	free(ids);
	free(ib);
	free(db);
	id_map_free(&m);
	return 0;
fail:
	PQclear(r);
	free(by_id);
	free(meta);
	free(pos);
	free(order);
	free(ids);
	free(ib);
	free(db);
	id_map_free(&m);
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
