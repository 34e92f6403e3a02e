/*
 * POST /api/v1/results, GET /api/v1/runs/{run_id}
 * Validation and storing: server/ingest.h ingest_result() (a job_id of no
 * job: 404 not_found; commit/testcase not the job's: 400 naming the field).
 */
#include "server/api/api.h"
#include "server/db/pgval.h"
#include "server/ingest.h"
#include "server/api/args.h"
#include "resultdoc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/*
 * The work of POST /api/v1/results (parse, check, store), on a pool thread
 * (http_defer): leaves the reply in rq->deferred / deferred_status.
 */
static void results_ingest(struct request *rq)
{
	struct resultdoc d;
	struct ingest_outcome out;
	struct err e;
	json_t *doc;
	PGconn *c;

	doc = rq_json(rq, &e);
	if (!doc)
		goto fail;
	if (resultdoc_check(doc, &d, &e)) {
		json_decref(doc);
		goto fail;
	}
	c = rq_db(rq, &e);
	if (!c || ingest_result(c, doc, &d, 0, &out, &e)) {
		json_decref(doc);
		goto fail;
	}
	if (out.created) {
		atomic_fetch_add(&rq->srv->values_ingested, out.nr_values);
		api_trees_changed(); /* maybe a new commit or tree */
	}
	rq->deferred_status = out.created ? 201 : 200;
	rq->deferred = json_pack("{s:s,s:b,s:I,s:I}", "run_id", d.run_id, "created", out.created,
				 "metrics", (json_int_t)out.nr_metrics, "values",
				 (json_int_t)out.nr_values);
	json_decref(doc);
	return;
fail:
	rq->deferred_status = (unsigned)(e.status >= 400 && e.status <= 599 ? e.status : 500);
	rq->deferred = err_json(&e);
}

/*
 * POST /api/v1/results: a 5,000-metric document takes tens of ms to parse
 * and store, so that runs on the pool, off the libmicrohttpd thread (see
 * http_defer for why).
 */
enum MHD_Result api_results_post(struct request *rq)
{
	json_t *body;

	if (!rq->resumed) {
		if (!http_defer(rq, results_ingest))
			return MHD_YES; /* back here once it is done */
		results_ingest(rq); /* no pool (stopping): here and now */
	}
	body = rq->deferred;
	rq->deferred = NULL;
	return reply_json(rq, rq->deferred_status, body);
}

static void set_text(json_t *o, const char *key, PGresult *r, int col)
{
	if (PQgetisnull(r, 0, col))
		json_object_set_new(o, key, json_null());
	else
		json_object_set_new(o, key, json_string(PQgetvalue(r, 0, col)));
}

enum MHD_Result api_run_get(struct request *rq)
{
	const char *run_id = rq->path_params[0];
	const char *p[1] = { run_id };
	struct err e;
	PGresult *r, *v;
	PGconn *c;
	json_t *o, *metrics, *params, *extra;
	char id[24];
	const char *vp[1] = { id };

	if (!is_uuid(run_id))
		return reply_errf(rq, 400, "invalid_field", "run_id", "'%s' is not a UUID", run_id);
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	r = db_exec(c, ST_RUN_GET, 1, p, &e);
	if (!r)
		return reply_err(rq, &e);
	if (PQntuples(r) != 1) {
		PQclear(r);
		return reply_errf(rq, 404, "not_found", "run_id", "no run '%s'", run_id);
	}
	snprintf(id, sizeof(id), "%s", PQgetvalue(r, 0, 0));
	v = db_exec(c, ST_RUN_VALUES, 1, vp, &e);
	if (!v) {
		PQclear(r);
		return reply_err(rq, &e);
	}
	o = json_object();
	set_text(o, "run_id", r, 1);
	set_text(o, "commit", r, 2);
	set_text(o, "commit_subject", r, 3);
	set_text(o, "testcase", r, 4);
	params = json_loads(PQgetvalue(r, 0, 5), 0, NULL);
	json_object_set_new(o, "params", params ? params : json_object());
	set_text(o, "kconfig", r, 6);
	set_text(o, "compiler", r, 7);
	set_text(o, "tbox_group", r, 8);
	set_text(o, "mode", r, 9);
	set_text(o, "status", r, 10);
	set_text(o, "started_at", r, 11);
	json_object_set_new(o, "duration_s", json_num(pg_double(PQgetvalue(r, 0, 12))));
	set_text(o, "branch", r, 13);
	set_text(o, "tree", r, 14);
	json_object_set_new(o, "job_id", PQgetisnull(r, 0, 15) ? json_null()
				: json_integer(strtoll(PQgetvalue(r, 0, 15), NULL, 10)));
	extra = json_loads(PQgetvalue(r, 0, 16), 0, NULL);
	json_object_set_new(o, "extra", extra ? extra : json_object());
	set_text(o, "received_at", r, 17);
	json_object_set_new(o, "machine", json_pack("{s:o,s:o}",
		"hostname", PQgetisnull(r, 0, 18) ? json_null() : json_string(PQgetvalue(r, 0, 18)),
		"arch", PQgetisnull(r, 0, 19) ? json_null() : json_string(PQgetvalue(r, 0, 19))));
	metrics = json_object();
	for (int i = 0; i < PQntuples(v); i++) {
		json_t *vals = json_loads(PQgetvalue(v, i, 1), 0, NULL);
		json_object_set_new(metrics, PQgetvalue(v, i, 0), vals ? vals : json_array());
	}
	json_object_set_new(o, "metrics", metrics);
	PQclear(r);
	PQclear(v);
	return reply_json(rq, 200, o);
}

/* GET /api/v1/runs[?limit=] (default 20, at most 500): the newest runs, newest first */
enum MHD_Result api_runs_get(struct request *rq)
{
	static const char *const no_states[] = { NULL };

	if (rq_arg(rq, "state"))
		return reply_errf(rq, 400, "invalid_field", "state", "runs have no state filter");
	return reply_list(rq, no_states, 20, 500, ST_RUNS_RECENT_JSON);
}
