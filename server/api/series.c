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
 *    after, change_pct, p_value, regression_id, …}], "detection": {…}}]}
 * change_points (regressions.h): what the detector found in that series;
 * index is the position in "commits" of the first commit after the change.
 * The runs of an A/B request's patched head (a commit on no branch) are not
 * points: drawn at the end they would read as the branch's newest commit.
 *
 * "detection" (server/detect/detect_explain.h): the reasons of the series' last
 * detection, {at, n_commits, settings, candidates: [{index, commit,
 * good_commit, stage, excursion, cycle, n_before, n_after, before, after,
 * change_pct, p_value, noise_sigma, noise_raised, effect, kept, reason}]},
 * null before the first. noise_raised (>= 1) is the factor noise_sigma was
 * raised by because the series' history moved more than its noise model
 * allowed (lib/stats/detect.h 2a; 1: not raised), so a candidate dropped
 * as "p above p_max" says whether the series' own moves did it. cycle P >
 * 0: the window was read net of a cycle of P commits that its history
 * holds (detect.h 2c: before, after and the noise are then those net of
 * it; a final estimate's p and noise, its levels as they are), 0: as it is. Both null in the
 * reasons of a detection stored before the server kept them (unknown).
 */
#include "server/api/api.h"
#include "server/db/series.h"
#include "server/api/args.h"
#include "server/detect/regressions.h"
#include "server/detect/detect_explain.h"
#include "server/jsonout.h"
#include "buf.h"
#include "xalloc.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The reply is written as text, not as a jansson tree (server/jsonout.h);
 * the small parts (setup, change points) still go through jansson. The
 * points come unordered and in binary (db_series_points()); here they are
 * put in the order "ORDER BY s.id, <series order>, r.id" would give
 * (setup, the commit's place in db_series_commits()'s order, run id) by
 * radix sorts of their row numbers, cheaper than PostgreSQL's sort of the
 * rows with their commits' columns (docs/internals/performance.md). The
 * mean is PostgreSQL's text (float8out), not lib/dtoa's, so the values
 * stay byte for byte what the text result gave (their shortest digits
 * differ on rounding-interval edges: 1e23); a run id is written as uuid_out
 * prints it.
 */

/* x as an unsigned key that sorts as x does */
static uint64_t key_of(long long x)
{
	return (uint64_t)x ^ (UINT64_C(1) << 63);
}

/*
 * Sorts idx[0..n) by key[idx[i]], stably: least significant byte first,
 * skipping the bytes that are the same in every key (row ids of one series
 * differ in two or three bytes). tmp has room for n. A few passes over n
 * 32-bit indexes instead of qsort()'s n log n calls of a comparison.
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
	const struct db_series_point *pts; /* the points, unordered */
	size_t *rank;			   /* rank[i]: row of pts[i]'s commit in the commits */
	uint32_t *order;		   /* points in series order, nr of them */
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
	z = days + 10957 + 719468; /* 2000-01-01 is day 10957 after 1970-01-01 */
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

/*
 * The points p in series order into sr; *cm the commits' rows (in series
 * order, none when there are no points). 0, or -1 with e (then sr and *cm
 * hold nothing to free).
 */
static int series_order(struct db_conn *c, const struct db_series_points *p,
			struct db_series_commits *cm, struct series_rows *sr, struct err *e)
{
	size_t n = p->nr, nids = 0, k = 0;
	const struct db_series_point *pts = p->rows;
	uint32_t *idx, *tmp;
	uint64_t *key;
	long long *ids;
	size_t *grp, *rank_of, *rank;

	memset(cm, 0, sizeof(*cm));
	memset(sr, 0, sizeof(*sr));
	sr->pts = pts;
	if (!n) {
		sr->order = xcalloc(1, sizeof(*sr->order));
		sr->rank = xcalloc(1, sizeof(*sr->rank));
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
		key[i] = key_of(pts[i].commit_id);
	}
	radix_sort(idx, tmp, key, n);
	for (size_t i = 0; i < n; i++) {
		if (!nids || ids[nids - 1] != pts[idx[i]].commit_id)
			ids[nids++] = pts[idx[i]].commit_id;
		grp[idx[i]] = nids - 1;
	}
	if (db_series_commits(c, ids, nids, cm, e)) {
		free(idx);
		free(tmp);
		free(key);
		free(grp);
		free(ids);
		sr->pts = NULL;
		return -1;
	}
	/* rank_of[j]: the place in series order of the commit ids[j] */
	rank_of = xcalloc(nids, sizeof(*rank_of));
	for (size_t j = 0; j < nids; j++)
		rank_of[j] = SIZE_MAX;
	for (size_t i = 0; i < cm->nr; i++) {
		long long id = cm->rows[i].id;
		size_t lo = 0, hi = nids;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ids[mid] < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nids && ids[lo] == id)
			rank_of[lo] = i;
	}
	/*
	 * every commit of a run is there (runs.commit_id references commits and
	 * commits are never deleted); a point whose commit is not would be left out
	 */
	rank = xcalloc(n, sizeof(*rank));
	for (size_t i = 0; i < n; i++) {
		rank[i] = rank_of[grp[i]];
		if (rank[i] != SIZE_MAX)
			idx[k++] = (uint32_t)i;
	}
	free(rank_of);
	free(grp);
	free(ids);
	/* stable sorts, least significant key first: run id, commit's rank, setup */
	for (size_t i = 0; i < n; i++)
		key[i] = key_of(pts[i].run_id);
	radix_sort(idx, tmp, key, k);
	for (size_t i = 0; i < n; i++)
		key[i] = (uint64_t)rank[i];
	radix_sort(idx, tmp, key, k);
	for (size_t i = 0; i < n; i++)
		key[i] = key_of(pts[i].setup_id);
	radix_sort(idx, tmp, key, k);
	free(tmp);
	free(key);
	sr->rank = rank;
	sr->order = idx;
	sr->nr = k;
	return 0;
}

/*
 * Appends the series of the points order[0..n) (of one setup, in series
 * order) to out: its setup, its commits (rows of cm), the points' columns
 * and the change points. 0, or -1 with e (413 when out is full, db errors).
 */
static int series_write(struct db_conn *c, struct buf *out, const struct series_rows *sr,
			const uint32_t *order, size_t n, const struct db_series_commits *cm,
			const char *metric, int first, struct err *e)
{
	const struct db_series_point *pts = sr->pts;
	const size_t *rank = sr->rank;
	json_t *setup = setup_json(c, pts[order[0]].setup_id, e), *cps, *why;
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
		const struct db_series_commit *cc = &cm->rows[rank[order[i]]];
		size_t tl;

		if (rank[order[i]] == last)
			continue;
		last = rank[order[i]];
		shas[nc] = cc->sha;
		bad |= (nc++ && buf_addch(out, ',')) || buf_addstr(out, "{\"sha\":") ||
		       jsonout_str(out, shas[nc - 1]) || buf_addstr(out, ",\"subject\":");
		bad |= jsonout_str_or_null(out, cc->subject);
		bad |= buf_addstr(out, ",\"commit_time\":");
		tl = cc->has_time ? time_json(cc->time_us, t) : 0;
		bad |= tl ? buf_add(out, t, tl) : buf_addstr(out, "null");
		bad |= buf_addch(out, '}');
	}
	bad |= buf_addstr(out, "],\"points\":{\"commit\":[");
	/* each point's commit: its index in "commits" */
	last = SIZE_MAX;
	nc = 0;
	for (size_t i = 0; i < n && !bad; i++) {
		size_t k = 0;

		if (rank[order[i]] != last) {
			last = rank[order[i]];
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
		       jsonout_pg_float(out, pts[order[i]].mean ? pts[order[i]].mean : "",
					!pts[order[i]].mean);
	bad |= buf_addstr(out, "],\"run_id\":[");
	for (size_t i = 0; i < n && !bad; i++) {
		size_t k = 0;

		if (i)
			t[k++] = ',';
		uuid_json(pts[order[i]].uuid, t + k);
		bad |= buf_add(out, t, k + 38);
	}
	if (bad) {
		free(shas);
		return err_setc(e, ERR_TOO_LARGE, "metric", "the series is too large");
	}
	cps = regression_change_points(c, pts[order[0]].setup_id, metric, shas, nc, e);
	why = cps ? detect_explain_json(c, pts[order[0]].setup_id, metric, shas, nc, e) : NULL;
	free(shas);
	if (!why) {
		json_decref(cps);
		return -1;
	}
	bad = buf_addstr(out, "]},\"change_points\":") || jsonout_json(out, cps) ||
	      buf_addstr(out, ",\"detection\":") || jsonout_json(out, why) || buf_addch(out, '}');
	json_decref(cps);
	json_decref(why);
	if (bad)
		return err_setc(e, ERR_TOO_LARGE, "metric", "the series is too large");
	return 0;
}

enum MHD_Result api_series_get(struct request *rq)
{
	struct db_setup_filter f;
	struct err e;
	const char *metric = rq_arg(rq, "metric");
	struct db_conn *c;
	struct db_series_points pts;
	struct db_series_commits cm;
	struct buf out = BUF_INIT(0);
	struct series_rows sr;
	int nr_series = 0, bad = 0;
	enum MHD_Result ret;

	if (setup_filter_from_query(rq, &f, &e))
		return reply_err(rq, &e);
	if (!f.testcase || !metric) {
		err_setc(&e, ERR_MISSING_FIELD, !f.testcase ? "testcase" : "metric",
			 "'%s' is required", !f.testcase ? "testcase" : "metric");
		return reply_err(rq, &e);
	}
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	if (db_series_points(c, metric, &f, &pts, &e))
		return reply_err(rq, &e);
	if (series_order(c, &pts, &cm, &sr, &e)) {
		db_series_points_free(&pts);
		return reply_err(rq, &e);
	}
	{
		/*
		 * The reply's room reserved once and its pages made present in
		 * one call (xprefault, xalloc.h), as the compare's is: grown by
		 * doubling, 10^5 points (8.3 MB) went through ~4,000 first-touch
		 * page faults and a copy at each doubling. A point is at most
		 * ~75 bytes (commit index, mean, run_id), a commit ~120 beside
		 * its subject; short of it the buffer still grows as before.
		 */
		size_t room = 4096 + sr.nr * 80;

		for (size_t i = 0; i < cm.nr; i++)
			room += 128 + (cm.rows[i].subject ? strlen(cm.rows[i].subject) * 2 : 0);
		if (!buf_reserve(&out, room))
			xprefault(out.data + out.len, room);
	}
	bad |= buf_addstr(&out, "{\"metric\":") || jsonout_str(&out, metric) ||
	       buf_addstr(&out, ",\"order\":\"topo_order, commit_time, first_seen\",\"series\":[");
	for (size_t i = 0, j; i < sr.nr && !bad; i = j) {
		long long sid = sr.pts[sr.order[i]].setup_id;

		for (j = i + 1; j < sr.nr && sr.pts[sr.order[j]].setup_id == sid; j++)
			;
		if (series_write(c, &out, &sr, sr.order + i, j - i, &cm, metric, !nr_series++, &e))
			goto fail;
	}
	bad |= buf_addstr(&out, "]}\n");
	if (bad) {
		err_setc(&e, ERR_TOO_LARGE, "metric", "the series is too large");
		goto fail;
	}
	ret = reply_text_buf(rq, 200, "application/json", &out);
	goto done;
fail:
	ret = reply_err(rq, &e);
done:
	db_series_points_free(&pts);
	db_series_commits_free(&cm);
	free(sr.rank);
	free(sr.order);
	buf_release(&out);
	return ret;
}
