/*
 * GET /api/v1/series?testcase=&metric=[&tbox_group=&kconfig=&compiler=&params=&mode=]
 *
 * One metric across commits, per setup (testcase + params + kconfig +
 * compiler + tbox_group + mode): commits in series order (the tree's
 * history once known, else commit_time, else first seen — "order" says
 * which keys), and every run as a point in columns:
 *   {"metric", "order", "series": [{"setup": {…}, "commits": [{sha, subject,
 *    commit_time}], "points": {"commit": [i…], "value": [mean of the run's
 *    iterations…], "run_id": […]}, "change_points": [{index, commit, before,
 *    after, change_pct, p_value, regression_id, …}]}]}
 * change_points (regressions.h): what the detector found in that series;
 * index is the position in "commits" of the first commit after the change.
 */
#include "server/api.h"
#include "server/query.h"
#include "server/regressions.h"
#include "server/jsonout.h"
#include "buf.h"
#include "xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/*
 * The response is written as text, not as a jansson tree: 10^5 points were
 * 3 x 10^5 json_t allocations and a 8 MB dump (server/jsonout.h). The
 * small parts (setup, change points) still go through jansson.
 *
 * The points come from ST_SERIES in no order and in PostgreSQL's binary
 * format (db_exec_binary: the ids as 8 bytes, the run id as 16, none of
 * them printed by PostgreSQL and parsed here again), the commits' columns
 * from ST_SERIES_COMMITS once per commit in series order; the points are
 * sorted here by (setup, commit's place in that order, run id), which is
 * the order "ORDER BY s.id, <series order>, r.id" gave (the series order
 * ends in the commit id, so it is total). make bench: the sort of 10^5
 * rows with the commit columns in PostgreSQL cost as much as the join.
 *
 * The mean alone comes as PostgreSQL's text (mean::text, float8out): its
 * shortest digits differ from libdouble-conversion's (lib/dtoa.h) where
 * the shorter text lies exactly on the edge of the double's rounding
 * interval (1e23 is "9.999999999999999e+22"; 1 in 3,000 random doubles,
 * tests/integration/test_series_values.py), and the reply stays byte for
 * byte what the text result gave. A run id is written as uuid_out prints it.
 */

/* ST_SERIES' columns, binary: setup id, commit id, runs.id, run_id, mean */
enum { COL_SETUP, COL_COMMIT, COL_RUN, COL_UUID, COL_MEAN, NR_COLS };
static const Oid col_type[NR_COLS] = { 20, 20, 20, 2950, 25 };   /* int8 x 3, uuid, text */

/* one row of ST_SERIES */
struct series_point {
	long long setup, commit, run;   /* setup id, commit id, runs.id */
	size_t rank;                    /* row of the commit in ST_SERIES_COMMITS */
	int row;                        /* row in ST_SERIES' result */
};

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int cmp_point(const void *a, const void *b)
{
	const struct series_point *x = a, *y = b;

	if (x->setup != y->setup)
		return (x->setup > y->setup) - (x->setup < y->setup);
	if (x->rank != y->rank)
		return (x->rank > y->rank) - (x->rank < y->rank);
	return (x->run > y->run) - (x->run < y->run);
}

/* a uuid's 16 bytes as "\"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\"" (38 bytes), as uuid_out */
static void uuid_json(const unsigned char *u, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	out[o++] = '"';
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[u[i] >> 4];
		out[o++] = hex[u[i] & 15];
	}
	out[o] = '"';
}

/* n in decimal into out (room for 20 bytes); returns the length */
static size_t utoa(size_t n, char *out)
{
	char t[24];
	size_t k = 0, o = 0;

	do {
		t[k++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	while (k)
		out[o++] = t[--k];
	return o;
}

/* 0, or -1 with e when r is not ST_SERIES' columns in binary */
static int series_check(const PGresult *r, struct err *e)
{
	if (PQnfields(r) != NR_COLS)
		return err_set(e, 500, "db_error", "series", "series: %d columns", PQnfields(r));
	for (int k = 0; k < NR_COLS; k++)
		if (PQfformat(r, k) != 1 || PQftype(r, k) != col_type[k])
			return err_set(e, 500, "db_error", "series",
				       "series: column %d is not of type %u in binary", k,
				       (unsigned)col_type[k]);
	return 0;
}

/*
 * The points of r (ST_SERIES) in series order, with each point's rank set;
 * *cr the commits' rows (ST_SERIES_COMMITS, NULL when there are no points).
 * Returns the points (caller frees; *np of them) or NULL with e.
 */
static struct series_point *series_order(PGconn *c, PGresult *r, PGresult **cr, size_t *np,
					 struct err *e)
{
	size_t n = (size_t)PQntuples(r), nids = 0, k = 0;
	struct series_point *pts;
	long long *ids;
	size_t *rank_of;
	struct buf arr = BUF_INIT(0);
	const char *p[1];
	char num[24];
	int bad = 0;

	*cr = NULL;
	if (series_check(r, e))
		return NULL;
	pts = xcalloc(n ? n : 1, sizeof(*pts));
	ids = xcalloc(n ? n : 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++) {
		int row = (int)i;

		if (PQgetisnull(r, row, COL_SETUP) || PQgetisnull(r, row, COL_COMMIT) ||
		    PQgetisnull(r, row, COL_RUN) || PQgetisnull(r, row, COL_UUID) ||
		    PQgetlength(r, row, COL_UUID) != 16) {
			free(pts);
			free(ids);
			return err_set(e, 500, "db_error", "series", "series: row %d malformed", row),
			       NULL;
		}
		pts[i].setup = pg_bin_int8(PQgetvalue(r, row, COL_SETUP));
		pts[i].commit = pg_bin_int8(PQgetvalue(r, row, COL_COMMIT));
		pts[i].run = pg_bin_int8(PQgetvalue(r, row, COL_RUN));
		pts[i].row = row;
		ids[i] = pts[i].commit;
	}
	/* the distinct commit ids, sorted: ids[0..nids) */
	qsort(ids, n, sizeof(*ids), cmp_ll);
	for (size_t i = 0; i < n; i++)
		if (!nids || ids[nids - 1] != ids[i])
			ids[nids++] = ids[i];
	*np = 0;
	if (!n) {
		free(ids);
		return pts;
	}
	bad |= buf_addch(&arr, '{');
	for (size_t i = 0; i < nids; i++) {
		int m = snprintf(num, sizeof(num), i ? ",%lld" : "%lld", ids[i]);

		bad |= buf_add(&arr, num, (size_t)m);
	}
	bad |= buf_addch(&arr, '}');
	(void)bad;                      /* no cap on arr: appends cannot fail */
	p[0] = arr.data;
	*cr = db_exec(c, ST_SERIES_COMMITS, 1, p, e);
	buf_release(&arr);
	if (!*cr) {
		free(ids);
		free(pts);
		return NULL;
	}
	/* rank_of[j]: the place in series order of the commit ids[j] */
	rank_of = xcalloc(nids, sizeof(*rank_of));
	for (size_t j = 0; j < nids; j++)
		rank_of[j] = SIZE_MAX;
	for (int i = 0; i < PQntuples(*cr); i++) {
		long long id = strtoll(PQgetvalue(*cr, i, 0), NULL, 10);
		long long *f = bsearch(&id, ids, nids, sizeof(*ids), cmp_ll);

		if (f)
			rank_of[f - ids] = (size_t)i;
	}
	/*
	 * every commit of a run is there (runs.commit_id references commits and
	 * commits are never deleted); a point whose commit is not would be left out
	 */
	for (size_t i = 0; i < n; i++) {
		long long *f = bsearch(&pts[i].commit, ids, nids, sizeof(*ids), cmp_ll);

		pts[i].rank = f ? rank_of[f - ids] : SIZE_MAX;
		if (pts[i].rank != SIZE_MAX)
			pts[k++] = pts[i];
	}
	free(rank_of);
	free(ids);
	qsort(pts, k, sizeof(*pts), cmp_point);
	*np = k;
	return pts;
}

/*
 * Appends the series of the points pts[0..n) (one setup, in series order)
 * to out: its setup, its commits (rows of cr), the points' columns and the
 * change points. 0, or -1 with e (413 when out is full, db errors).
 */
static int series_write(PGconn *c, struct buf *out, const struct series_point *pts, size_t n,
			PGresult *r, PGresult *cr, const char *metric, int first, struct err *e)
{
	json_t *setup = setup_json(c, pts[0].setup, e), *shas, *cps;
	struct buf commits = BUF_INIT(0);
	size_t last = SIZE_MAX, nc = 0;
	char t[48];
	int bad = 0;

	if (!setup)
		return -1;
	/* the commits, and their shas for regression_change_points() */
	shas = json_array();
	for (size_t i = 0; i < n; i++) {
		int cm = (int)pts[i].rank;
		const char *sha;
		json_t *o;

		if (pts[i].rank == last)
			continue;
		last = pts[i].rank;
		sha = PQgetvalue(cr, cm, 1);
		bad |= (nc++ && buf_addch(&commits, ',')) || buf_addstr(&commits, "{\"sha\":") ||
		       jsonout_str(&commits, sha) || buf_addstr(&commits, ",\"subject\":");
		bad |= PQgetisnull(cr, cm, 2) ? buf_addstr(&commits, "null")
					      : jsonout_str(&commits, PQgetvalue(cr, cm, 2));
		bad |= buf_addstr(&commits, ",\"commit_time\":");
		bad |= PQgetisnull(cr, cm, 3) ? buf_addstr(&commits, "null")
					      : jsonout_str(&commits, PQgetvalue(cr, cm, 3));
		bad |= buf_addch(&commits, '}');
		o = json_object();
		json_object_set_new_nocheck(o, "sha", json_string(sha));
		json_array_append_new(shas, o);
	}
	(void)bad;                      /* no cap on commits: appends cannot fail */
	cps = regression_change_points(c, pts[0].setup, metric, shas, e);
	json_decref(shas);
	if (!cps) {
		json_decref(setup);
		buf_release(&commits);
		return -1;
	}
	bad = (!first && buf_addch(out, ',')) || buf_addstr(out, "{\"setup\":") ||
	      jsonout_json(out, setup) || buf_addstr(out, ",\"commits\":[") ||
	      buf_add(out, commits.data, commits.len) || buf_addstr(out, "],\"points\":{\"commit\":[");
	json_decref(setup);
	buf_release(&commits);
	/* each point's commit: its index in "commits" */
	last = SIZE_MAX;
	nc = 0;
	for (size_t i = 0; i < n && !bad; i++) {
		size_t k = 0;

		if (pts[i].rank != last) {
			last = pts[i].rank;
			nc++;
		}
		if (i)
			t[k++] = ',';
		k += utoa(nc - 1, t + k);
		bad |= buf_add(out, t, k);
	}
	bad |= buf_addstr(out, "],\"value\":[");
	for (size_t i = 0; i < n && !bad; i++)
		bad |= (i && buf_addch(out, ',')) ||
		       jsonout_pg_float(out, PQgetvalue(r, pts[i].row, COL_MEAN),
					PQgetisnull(r, pts[i].row, COL_MEAN));
	bad |= buf_addstr(out, "],\"run_id\":[");
	for (size_t i = 0; i < n && !bad; i++) {
		size_t k = 0;

		if (i)
			t[k++] = ',';
		uuid_json((const unsigned char *)PQgetvalue(r, pts[i].row, COL_UUID), t + k);
		bad |= buf_add(out, t, k + 38);
	}
	bad |= buf_addstr(out, "]},\"change_points\":") || jsonout_json(out, cps) ||
	       buf_addch(out, '}');
	json_decref(cps);
	if (bad)
		return err_set(e, 413, "too_large", "metric", "the series is too large");
	return 0;
}

enum MHD_Result api_series_get(struct request *rq)
{
	struct setup_filter f;
	struct err e;
	const char *metric = rq_arg(rq, "metric");
	PGconn *c;
	PGresult *r, *cr = NULL;
	struct buf out = BUF_INIT(0);
	struct series_point *pts;
	size_t np = 0;
	int nr_series = 0, bad = 0;
	enum MHD_Result ret;

	if (setup_filter_from_query(rq, &f, &e))
		return reply_err(rq, &e);
	if (!f.testcase)
		return reply_errf(rq, 400, "missing_field", "testcase", "'testcase' is required");
	if (!metric)
		return reply_errf(rq, 400, "missing_field", "metric", "'metric' is required");
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	{
		const char *p[7] = { metric, f.testcase, f.tbox_group, f.kconfig, f.compiler,
				     f.params_key, f.mode };
		r = db_exec_binary(c, ST_SERIES, 7, p, &e);
	}
	if (!r)
		return reply_err(rq, &e);
	pts = series_order(c, r, &cr, &np, &e);
	if (!pts) {
		PQclear(r);
		return reply_err(rq, &e);
	}
	bad |= buf_addstr(&out, "{\"metric\":") || jsonout_str(&out, metric) ||
	       buf_addstr(&out, ",\"order\":\"topo_order, commit_time, first_seen\",\"series\":[");
	for (size_t i = 0, j; i < np && !bad; i = j) {
		for (j = i + 1; j < np && pts[j].setup == pts[i].setup; j++)
			;
		if (series_write(c, &out, pts + i, j - i, r, cr, metric, !nr_series++, &e))
			goto fail;
	}
	bad |= buf_addstr(&out, "]}\n");
	if (bad) {
		err_set(&e, 413, "too_large", "metric", "the series is too large");
		goto fail;
	}
	ret = reply_text(rq, 200, "application/json", out.data, out.len);
	goto done;
fail:
	ret = reply_err(rq, &e);
done:
	PQclear(r);
	PQclear(cr);
	free(pts);
	buf_release(&out);
	return ret;
}
