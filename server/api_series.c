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
 * The points come from ST_SERIES in no order, the commits' columns from
 * ST_SERIES_COMMITS once per commit in series order; the points are sorted
 * here by (setup, commit's place in that order, run id), which is the
 * order "ORDER BY s.id, <series order>, r.id" gave (the series order ends
 * in the commit id, so it is total). make bench: the sort of 10^5 rows with
 * the commit columns in PostgreSQL cost as much as the join.
 */

struct series_text {
	struct buf commits, pc, pv, pr;
	json_t *shas;             /* [{"sha"}…] for regression_change_points() */
	long long setup;
	size_t nr_commits;
};

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

static void series_reset(struct series_text *st, long long setup)
{
	buf_reset(&st->commits);
	buf_reset(&st->pc);
	buf_reset(&st->pv);
	buf_reset(&st->pr);
	json_decref(st->shas);
	st->shas = json_array();
	st->setup = setup;
	st->nr_commits = 0;
}

/* appends the finished series st (its setup json s) to out */
static int series_flush(PGconn *c, struct buf *out, struct series_text *st, json_t *s,
			const char *metric, int first, struct err *e)
{
	json_t *cps = regression_change_points(c, st->setup, metric, st->shas, e);
	int r;

	if (!cps)
		return -1;
	r = (!first && buf_addch(out, ',')) || buf_addstr(out, "{\"setup\":") || jsonout_json(out, s) ||
	    buf_addstr(out, ",\"commits\":[") || buf_add(out, st->commits.data, st->commits.len) ||
	    buf_addstr(out, "],\"points\":{\"commit\":[") ||
	    buf_add(out, st->pc.data, st->pc.len) || buf_addstr(out, "],\"value\":[") ||
	    buf_add(out, st->pv.data, st->pv.len) || buf_addstr(out, "],\"run_id\":[") ||
	    buf_add(out, st->pr.data, st->pr.len) || buf_addstr(out, "]},\"change_points\":") ||
	    jsonout_json(out, cps) || buf_addch(out, '}');
	json_decref(cps);
	if (r)
		return err_set(e, 413, "too_large", "metric", "the series is too large");
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
	struct series_point *pts = xcalloc(n ? n : 1, sizeof(*pts));
	long long *ids = xcalloc(n ? n : 1, sizeof(*ids));
	size_t *rank_of;
	struct buf arr = BUF_INIT(0);
	const char *p[1];
	int bad = 0;

	*cr = NULL;
	for (size_t i = 0; i < n; i++) {
		pts[i].setup = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		pts[i].commit = strtoll(PQgetvalue(r, (int)i, 1), NULL, 10);
		pts[i].run = strtoll(PQgetvalue(r, (int)i, 2), NULL, 10);
		pts[i].row = (int)i;
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
	for (size_t i = 0; i < nids; i++)
		bad |= buf_addf(&arr, i ? ",%lld" : "%lld", ids[i]);
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

enum MHD_Result api_series_get(struct request *rq)
{
	struct setup_filter f;
	struct err e;
	const char *metric = rq_arg(rq, "metric");
	PGconn *c;
	PGresult *r, *cr = NULL;
	struct buf out = BUF_INIT(0);
	struct series_text st;
	struct series_point *pts;
	json_t *setup = NULL;
	size_t np = 0, last_rank = SIZE_MAX;
	int nr_series = 0, bad = 0;
	enum MHD_Result ret;
	char num[24];

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
		r = db_exec(c, ST_SERIES, 7, p, &e);
	}
	if (!r)
		return reply_err(rq, &e);
	pts = series_order(c, r, &cr, &np, &e);
	if (!pts) {
		PQclear(r);
		return reply_err(rq, &e);
	}
	memset(&st, 0, sizeof(st));
	buf_init(&st.commits, 0);
	buf_init(&st.pc, 0);
	buf_init(&st.pv, 0);
	buf_init(&st.pr, 0);
	st.setup = -1;
	bad |= buf_addstr(&out, "{\"metric\":") || jsonout_str(&out, metric) ||
	       buf_addstr(&out, ",\"order\":\"topo_order, commit_time, first_seen\",\"series\":[");
	for (size_t i = 0; i < np && !bad; i++) {
		long long sid = pts[i].setup;
		int row = pts[i].row, cm = (int)pts[i].rank;
		int n;

		if (sid != st.setup) {
			if (setup && series_flush(c, &out, &st, setup, metric, !nr_series++, &e))
				goto fail;
			json_decref(setup);
			setup = setup_json(c, sid, &e);
			if (!setup)
				goto fail;
			series_reset(&st, sid);
			last_rank = SIZE_MAX;
		}
		if (pts[i].rank != last_rank) {
			const char *sha = PQgetvalue(cr, cm, 1);

			bad |= (st.nr_commits && buf_addch(&st.commits, ',')) ||
			       buf_addstr(&st.commits, "{\"sha\":") || jsonout_str(&st.commits, sha) ||
			       buf_addstr(&st.commits, ",\"subject\":");
			bad |= PQgetisnull(cr, cm, 2) ? buf_addstr(&st.commits, "null")
						      : jsonout_str(&st.commits, PQgetvalue(cr, cm, 2));
			bad |= buf_addstr(&st.commits, ",\"commit_time\":");
			bad |= PQgetisnull(cr, cm, 3) ? buf_addstr(&st.commits, "null")
						      : jsonout_str(&st.commits, PQgetvalue(cr, cm, 3));
			bad |= buf_addch(&st.commits, '}');
			json_array_append_new(st.shas, json_pack("{s:s}", "sha", sha));
			st.nr_commits++;
			last_rank = pts[i].rank;
		}
		n = snprintf(num, sizeof(num), "%zu", st.nr_commits - 1);
		if (st.pc.len)
			bad |= buf_addch(&st.pc, ',') | buf_addch(&st.pv, ',') | buf_addch(&st.pr, ',');
		bad |= buf_add(&st.pc, num, (size_t)n);
		bad |= jsonout_pg_float(&st.pv, PQgetvalue(r, row, 4), PQgetisnull(r, row, 4));
		bad |= jsonout_str(&st.pr, PQgetvalue(r, row, 3));
	}
	if (!bad && setup && series_flush(c, &out, &st, setup, metric, !nr_series++, &e))
		goto fail;
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
	json_decref(setup);
	json_decref(st.shas);
	buf_release(&st.commits);
	buf_release(&st.pc);
	buf_release(&st.pv);
	buf_release(&st.pr);
	buf_release(&out);
	return ret;
}
