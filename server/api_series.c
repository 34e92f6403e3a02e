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

#include <stdlib.h>
#include <string.h>

#include "banned.h"

enum MHD_Result api_series_get(struct request *rq)
{
	struct setup_filter f;
	struct err e;
	const char *metric = rq_arg(rq, "metric");
	PGconn *c;
	PGresult *r;
	json_t *out, *list, *cur = NULL, *commits = NULL, *pc = NULL, *pv = NULL, *pr = NULL;
	long long cur_setup = -1;
	const char *last_sha = "";

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
	list = json_array();
	for (int i = 0; i < PQntuples(r); i++) {
		long long setup = strtoll(PQgetvalue(r, i, 0), NULL, 10);
		const char *sha = PQgetvalue(r, i, 1);

		if (setup != cur_setup) {
			json_t *s = setup_json(c, setup, &e);
			if (!s) {
				PQclear(r);
				json_decref(list);
				return reply_err(rq, &e);
			}
			commits = json_array();
			pc = json_array();
			pv = json_array();
			pr = json_array();
			cur = json_pack("{s:o,s:o,s:{s:o,s:o,s:o}}", "setup", s, "commits", commits,
					"points", "commit", pc, "value", pv, "run_id", pr);
			json_array_append_new(list, cur);
			cur_setup = setup;
			last_sha = "";
		}
		if (strcmp(sha, last_sha)) {
			json_array_append_new(commits, json_pack("{s:s,s:o,s:o}", "sha", sha,
				"subject", PQgetisnull(r, i, 2) ? json_null() : json_string(PQgetvalue(r, i, 2)),
				"commit_time", PQgetisnull(r, i, 3) ? json_null() : json_string(PQgetvalue(r, i, 3))));
			last_sha = sha;
		}
		json_array_append_new(pc, json_integer((json_int_t)json_array_size(commits) - 1));
		json_array_append_new(pv, json_num(pg_double(PQgetvalue(r, i, 5))));
		json_array_append_new(pr, json_string(PQgetvalue(r, i, 4)));
	}
	PQclear(r);
	{
		size_t i;
		json_t *s;
		json_array_foreach(list, i, s) {
			json_int_t setup = json_integer_value(json_object_get(json_object_get(s, "setup"), "id"));
			json_t *cps = regression_change_points(c, setup, metric,
							       json_object_get(s, "commits"), &e);
			if (!cps) {
				json_decref(list);
				return reply_err(rq, &e);
			}
			json_object_set_new(s, "change_points", cps);
		}
	}
	out = json_pack("{s:s,s:s,s:o}", "metric", metric, "order",
			"topo_order, commit_time, first_seen", "series", list);
	return reply_json(rq, 200, out);
}
