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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/*
 * The response is written as text, not as a jansson tree: 10^5 points were
 * 3 x 10^5 json_t allocations and a 8 MB dump (server/jsonout.h). The
 * small parts (setup, change points) still go through jansson.
 */

struct series_text {
	struct buf commits, pc, pv, pr;
	json_t *shas;             /* [{"sha"}…] for regression_change_points() */
	long long setup;
	size_t nr_commits;
};

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

enum MHD_Result api_series_get(struct request *rq)
{
	struct setup_filter f;
	struct err e;
	const char *metric = rq_arg(rq, "metric");
	PGconn *c;
	PGresult *r;
	struct buf out = BUF_INIT(0);
	struct series_text st;
	json_t *setup = NULL;
	const char *last_sha = "";
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
	memset(&st, 0, sizeof(st));
	buf_init(&st.commits, 0);
	buf_init(&st.pc, 0);
	buf_init(&st.pv, 0);
	buf_init(&st.pr, 0);
	st.setup = -1;
	bad |= buf_addstr(&out, "{\"metric\":") || jsonout_str(&out, metric) ||
	       buf_addstr(&out, ",\"order\":\"topo_order, commit_time, first_seen\",\"series\":[");
	for (int i = 0; i < PQntuples(r) && !bad; i++) {
		long long sid = strtoll(PQgetvalue(r, i, 0), NULL, 10);
		const char *sha = PQgetvalue(r, i, 1);
		int n;

		if (sid != st.setup) {
			if (setup && series_flush(c, &out, &st, setup, metric, !nr_series++, &e))
				goto fail;
			json_decref(setup);
			setup = setup_json(c, sid, &e);
			if (!setup)
				goto fail;
			series_reset(&st, sid);
			last_sha = "";
		}
		if (strcmp(sha, last_sha)) {
			bad |= (st.nr_commits && buf_addch(&st.commits, ',')) ||
			       buf_addstr(&st.commits, "{\"sha\":") || jsonout_str(&st.commits, sha) ||
			       buf_addstr(&st.commits, ",\"subject\":");
			bad |= PQgetisnull(r, i, 2) ? buf_addstr(&st.commits, "null")
						    : jsonout_str(&st.commits, PQgetvalue(r, i, 2));
			bad |= buf_addstr(&st.commits, ",\"commit_time\":");
			bad |= PQgetisnull(r, i, 3) ? buf_addstr(&st.commits, "null")
						    : jsonout_str(&st.commits, PQgetvalue(r, i, 3));
			bad |= buf_addch(&st.commits, '}');
			json_array_append_new(st.shas, json_pack("{s:s}", "sha", sha));
			st.nr_commits++;
			last_sha = sha;
		}
		n = snprintf(num, sizeof(num), "%zu", st.nr_commits - 1);
		if (st.pc.len)
			bad |= buf_addch(&st.pc, ',') | buf_addch(&st.pv, ',') | buf_addch(&st.pr, ',');
		bad |= buf_add(&st.pc, num, (size_t)n);
		bad |= jsonout_pg_float(&st.pv, PQgetvalue(r, i, 5), PQgetisnull(r, i, 5));
		bad |= jsonout_str(&st.pr, PQgetvalue(r, i, 4));
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
	json_decref(setup);
	json_decref(st.shas);
	buf_release(&st.commits);
	buf_release(&st.pc);
	buf_release(&st.pv);
	buf_release(&st.pr);
	buf_release(&out);
	return ret;
}
