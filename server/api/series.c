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
#include "server/api/api.h"
#include "server/db/pgval.h"
#include "server/api/args.h"
#include "server/regressions.h"
#include "server/jsonout.h"
#include "buf.h"
#include "xalloc.h"

#include <limits.h>
#include <stdint.h>
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
 * from ST_SERIES_COMMITS once per commit in series order (binary too: the
 * commit time as microseconds, printed here as to_char printed it); the
 * points are put here in the order (setup, commit's place in that order,
 * run id) by radix sorts of their row numbers, which is the order
 * "ORDER BY s.id, <series order>, r.id" gave (the series order ends in
 * the commit id, so it is total). make bench: the sort of 10^5 rows with
 * the commit columns in PostgreSQL cost as much as the join.
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
/* ST_SERIES_COMMITS' columns, binary: id, sha, subject, commit_time */
enum { CC_ID, CC_SHA, CC_SUBJECT, CC_TIME, NR_CCOLS };
static const Oid ccol_type[NR_CCOLS] = { 20, 25, 25, 1184 };     /* int8, text x 2, timestamptz */

/* one row of ST_SERIES */
struct series_point {
	long long setup, commit, run;   /* setup id, commit id, runs.id */
	size_t rank;                    /* row of the commit in ST_SERIES_COMMITS */
};

/* x as an unsigned key that sorts as x does */
static uint64_t key_of(long long x)
{
	return (uint64_t)x ^ (UINT64_C(1) << 63);
}

/*
 * Sorts idx[0..n) by key[idx[i]], stably: least significant byte first,
 * skipping the bytes that are the same in every key (row ids of one series
 * differ in two or three bytes). tmp has room for n. A few passes over n
 * 32-bit indexes instead of qsort()'s n log n calls of a comparison: 10^5
 * points in three keys (run, commit's rank, setup).
 */
static void radix_sort(uint32_t *idx, uint32_t *tmp, const uint64_t *key, size_t n)
{
	uint64_t or_ = 0, and_ = ~UINT64_C(0);
	uint32_t *src = idx, *dst = tmp;

	for (size_t i = 0; i < n; i++) {
		or_ |= key[idx[i]];
		and_ &= key[idx[i]];
	}
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };
		uint32_t *t;

		if (!(((or_ ^ and_) >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			count[((key[src[i]] >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < n; i++)
			dst[count[(key[src[i]] >> shift) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != idx)
		memcpy(idx, src, n * sizeof(*idx));
}

/* the points' order: series order (setup, commit's rank, run id) */
struct series_rows {
	struct series_point *pts;       /* one per row of ST_SERIES */
	uint32_t *order;                /* rows in series order, nr of them */
	size_t nr;
};

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

/* 0, or -1 with e when r's columns are not nc of these types in binary */
static int result_check(const PGresult *r, const Oid *types, int nc, const char *what,
			struct err *e)
{
	if (PQnfields(r) != nc)
		return err_set(e, 500, "db_error", what, "%s: %d columns", what, PQnfields(r));
	for (int k = 0; k < nc; k++)
		if (PQfformat(r, k) != 1 || PQftype(r, k) != types[k])
			return err_set(e, 500, "db_error", what,
				       "%s: column %d is not of type %u in binary", what, k,
				       (unsigned)types[k]);
	return 0;
}

/*
 * A timestamptz in binary (microseconds since 2000-01-01 00:00:00 UTC) as
 * to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') prints it, in
 * quotes: the fraction of a second dropped, the year of a BC date as its
 * absolute value, at least four digits. Returns the length (out: 48 bytes),
 * or 0 for infinity and -infinity (to_char gives NULL). Days to a date:
 * the proleptic Gregorian civil_from_days of H. Hinnant, "chrono-Compatible
 * Low-Level Date Algorithms".
 */
static size_t time_json(long long us, char *out)
{
	long long s, days, z, era, doe, yoe, y, doy, mp, d, m, sod;
	long long f[5];
	size_t o = 0, w;
	char yd[24];

	if (us == LLONG_MAX || us == LLONG_MIN)
		return 0;
	s = us / 1000000 - (us % 1000000 < 0);
	days = s / 86400 - (s % 86400 < 0);
	sod = s - days * 86400;
	z = days + 10957 + 719468;      /* 2000-01-01 is day 10957 after 1970-01-01 */
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	/* "YYYY-MM-DDTHH:MI:SSZ" in quotes, the year zero-padded to four digits */
	w = utoa((size_t)(y <= 0 ? 1 - y : y), yd);
	out[o++] = '"';
	for (size_t k = w; k < 4; k++)
		out[o++] = '0';
	memcpy(out + o, yd, w);
	o += w;
	f[0] = m, f[1] = d, f[2] = sod / 3600, f[3] = sod / 60 % 60, f[4] = sod % 60;
	for (int k = 0; k < 5; k++) {
		out[o++] = "--T::"[k];
		out[o++] = (char)('0' + f[k] / 10);
		out[o++] = (char)('0' + f[k] % 10);
	}
	out[o++] = 'Z';
	out[o++] = '"';
	return o;
}

/* v in decimal into out (24 bytes); returns the length */
static size_t lltoa(long long v, char *out)
{
	if (v < 0) {
		out[0] = '-';
		return 1 + utoa((size_t)0 - (size_t)v, out + 1);
	}
	return utoa((size_t)v, out);
}

/*
 * The points of r (ST_SERIES) in series order into sr; *cr the commits'
 * rows (ST_SERIES_COMMITS, NULL when there are no points). 0, or -1 with e
 * (then sr and *cr hold nothing to free).
 */
static int series_order(PGconn *c, PGresult *r, PGresult **cr, struct series_rows *sr,
			struct err *e)
{
	size_t n = (size_t)PQntuples(r), nids = 0, k = 0;
	struct series_point *pts;
	uint32_t *idx, *tmp;
	uint64_t *key;
	long long *ids;
	size_t *grp, *rank_of;
	struct buf arr = BUF_INIT(0);
	const char *p[1];
	char num[32];
	int bad = 0;

	*cr = NULL;
	memset(sr, 0, sizeof(*sr));
	if (result_check(r, col_type, NR_COLS, "series", e))
		return -1;
	if (n > UINT32_MAX)
		return err_set(e, 413, "too_large", "metric", "the series is too large");
	pts = xcalloc(n ? n : 1, sizeof(*pts));
	for (size_t i = 0; i < n; i++) {
		int row = (int)i;

		if (PQgetisnull(r, row, COL_SETUP) || PQgetisnull(r, row, COL_COMMIT) ||
		    PQgetisnull(r, row, COL_RUN) || PQgetlength(r, row, COL_UUID) != 16) {
			free(pts);
			return err_set(e, 500, "db_error", "series", "series: row %d malformed", row);
		}
		pts[i].setup = pg_bin_int8(PQgetvalue(r, row, COL_SETUP));
		pts[i].commit = pg_bin_int8(PQgetvalue(r, row, COL_COMMIT));
		pts[i].run = pg_bin_int8(PQgetvalue(r, row, COL_RUN));
	}
	sr->pts = pts;
	if (!n) {
		sr->order = xcalloc(1, sizeof(*sr->order));
		return 0;
	}
	idx = xcalloc(n, sizeof(*idx));
	tmp = xcalloc(n, sizeof(*tmp));
	key = xcalloc(n, sizeof(*key));
	grp = xcalloc(n, sizeof(*grp));
	ids = xcalloc(n, sizeof(*ids));
	/* the distinct commit ids ascending, ids[0..nids); grp[i]: point i's among them */
	for (size_t i = 0; i < n; i++) {
		idx[i] = (uint32_t)i;
		key[i] = key_of(pts[i].commit);
	}
	radix_sort(idx, tmp, key, n);
	for (size_t i = 0; i < n; i++) {
		if (!nids || ids[nids - 1] != pts[idx[i]].commit)
			ids[nids++] = pts[idx[i]].commit;
		grp[idx[i]] = nids - 1;
	}
	bad |= buf_addch(&arr, '{');
	for (size_t i = 0; i < nids; i++) {
		size_t m = 0;

		if (i)
			num[m++] = ',';
		m += lltoa(ids[i], num + m);
		bad |= buf_add(&arr, num, m);
	}
	bad |= buf_addch(&arr, '}');
	(void)bad;                      /* no cap on arr: appends cannot fail */
	p[0] = arr.data;
	*cr = db_exec_binary(c, ST_SERIES_COMMITS, 1, p, e);
	buf_release(&arr);
	if (!*cr || result_check(*cr, ccol_type, NR_CCOLS, "series_commits", e)) {
		PQclear(*cr);
		*cr = NULL;
		free(idx);
		free(tmp);
		free(key);
		free(grp);
		free(ids);
		free(pts);
		sr->pts = NULL;
		return -1;
	}
	/* rank_of[j]: the place in series order of the commit ids[j] */
	rank_of = xcalloc(nids, sizeof(*rank_of));
	for (size_t j = 0; j < nids; j++)
		rank_of[j] = SIZE_MAX;
	for (int i = 0; i < PQntuples(*cr); i++) {
		long long id;
		size_t lo = 0, hi = nids;

		if (PQgetisnull(*cr, i, CC_ID) || PQgetisnull(*cr, i, CC_SHA))
			continue;
		id = pg_bin_int8(PQgetvalue(*cr, i, CC_ID));
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ids[mid] < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nids && ids[lo] == id)
			rank_of[lo] = (size_t)i;
	}
	/*
	 * every commit of a run is there (runs.commit_id references commits and
	 * commits are never deleted); a point whose commit is not would be left out
	 */
	for (size_t i = 0; i < n; i++) {
		pts[i].rank = rank_of[grp[i]];
		if (pts[i].rank != SIZE_MAX)
			idx[k++] = (uint32_t)i;
	}
	free(rank_of);
	free(grp);
	free(ids);
	/* stable sorts, least significant key first: run id, commit's rank, setup */
	for (size_t i = 0; i < n; i++)
		key[i] = key_of(pts[i].run);
	radix_sort(idx, tmp, key, k);
	for (size_t i = 0; i < n; i++)
		key[i] = (uint64_t)pts[i].rank;
	radix_sort(idx, tmp, key, k);
	for (size_t i = 0; i < n; i++)
		key[i] = key_of(pts[i].setup);
	radix_sort(idx, tmp, key, k);
	free(tmp);
	free(key);
	sr->order = idx;
	sr->nr = k;
	return 0;
}

/*
 * Appends the series of the rows order[0..n) (points of one setup, in
 * series order) to out: its setup, its commits (rows of cr), the points'
 * columns and the change points. 0, or -1 with e (413 when out is full,
 * db errors).
 */
static int series_write(PGconn *c, struct buf *out, const struct series_point *pts,
			const uint32_t *order, size_t n, PGresult *r, PGresult *cr,
			const char *metric, int first, struct err *e)
{
	json_t *setup = setup_json(c, pts[order[0]].setup, e), *cps;
	const char **shas;
	size_t last = SIZE_MAX, nc = 0;
	char t[48];
	int bad;

	if (!setup)
		return -1;
	bad = (!first && buf_addch(out, ',')) || buf_addstr(out, "{\"setup\":") ||
	      jsonout_json(out, setup) || buf_addstr(out, ",\"commits\":[");
	json_decref(setup);
	/* the commits, and their shas for regression_change_points() */
	shas = xcalloc(n, sizeof(*shas));
	for (size_t i = 0; i < n && !bad; i++) {
		int cm = (int)pts[order[i]].rank;
		size_t tl;

		if (pts[order[i]].rank == last)
			continue;
		last = pts[order[i]].rank;
		shas[nc] = PQgetvalue(cr, cm, CC_SHA);
		bad |= (nc++ && buf_addch(out, ',')) || buf_addstr(out, "{\"sha\":") ||
		       jsonout_str(out, shas[nc - 1]) || buf_addstr(out, ",\"subject\":");
		bad |= PQgetisnull(cr, cm, CC_SUBJECT)
			       ? buf_addstr(out, "null")
			       : jsonout_str(out, PQgetvalue(cr, cm, CC_SUBJECT));
		bad |= buf_addstr(out, ",\"commit_time\":");
		tl = PQgetisnull(cr, cm, CC_TIME) || PQgetlength(cr, cm, CC_TIME) != 8
			     ? 0 : time_json(pg_bin_int8(PQgetvalue(cr, cm, CC_TIME)), t);
		bad |= tl ? buf_add(out, t, tl) : buf_addstr(out, "null");
		bad |= buf_addch(out, '}');
	}
	bad |= buf_addstr(out, "],\"points\":{\"commit\":[");
	/* each point's commit: its index in "commits" */
	last = SIZE_MAX;
	nc = 0;
	for (size_t i = 0; i < n && !bad; i++) {
		size_t k = 0;

		if (pts[order[i]].rank != last) {
			last = pts[order[i]].rank;
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
		       jsonout_pg_float(out, PQgetvalue(r, (int)order[i], COL_MEAN),
					PQgetisnull(r, (int)order[i], COL_MEAN));
	bad |= buf_addstr(out, "],\"run_id\":[");
	for (size_t i = 0; i < n && !bad; i++) {
		size_t k = 0;

		if (i)
			t[k++] = ',';
		uuid_json((const unsigned char *)PQgetvalue(r, (int)order[i], COL_UUID), t + k);
		bad |= buf_add(out, t, k + 38);
	}
	if (bad) {
		free(shas);
		return err_set(e, 413, "too_large", "metric", "the series is too large");
	}
	cps = regression_change_points(c, pts[order[0]].setup, metric, shas, nc, e);
	free(shas);
	if (!cps)
		return -1;
	bad = buf_addstr(out, "]},\"change_points\":") || jsonout_json(out, cps) ||
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
	struct series_rows sr;
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
	if (series_order(c, r, &cr, &sr, &e)) {
		PQclear(r);
		return reply_err(rq, &e);
	}
	bad |= buf_addstr(&out, "{\"metric\":") || jsonout_str(&out, metric) ||
	       buf_addstr(&out, ",\"order\":\"topo_order, commit_time, first_seen\",\"series\":[");
	for (size_t i = 0, j; i < sr.nr && !bad; i = j) {
		long long sid = sr.pts[sr.order[i]].setup;

		for (j = i + 1; j < sr.nr && sr.pts[sr.order[j]].setup == sid; j++)
			;
		if (series_write(c, &out, sr.pts, sr.order + i, j - i, r, cr, metric,
				 !nr_series++, &e))
			goto fail;
	}
	bad |= buf_addstr(&out, "]}\n");
	if (bad) {
		err_set(&e, 413, "too_large", "metric", "the series is too large");
		goto fail;
	}
	ret = reply_text_buf(rq, 200, "application/json", &out);
	goto done;
fail:
	ret = reply_err(rq, &e);
done:
	PQclear(r);
	PQclear(cr);
	free(sr.pts);
	free(sr.order);
	buf_release(&out);
	return ret;
}
