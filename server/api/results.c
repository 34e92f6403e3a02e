/*
 * POST /api/v1/results (GET /api/v1/runs… are in api/runs.c).
 * Validation and storing: server/jobs/ingest.h ingest_result() (a job_id of no
 * job: 404 not_found; commit/testcase not the job's: 400 naming the field).
 * A run names a job only when its token may add to that job (ingest's check):
 * else any submit or worker token could post runs into another's A/B
 * request, bisect or tracking job and turn its verdict.
 */
#include "server/api/api.h"
#include "server/jsonout.h"
#include "server/jobs/ingest.h"
#include "server/http/auth.h"
#include "server/db/jobs.h"
#include "server/api/args.h"
#include "resultdoc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	struct db_conn *c;

	doc = rq_json(rq, &e);
	if (!doc)
		goto fail;
	if (resultdoc_check(doc, &d, &e)) {
		json_decref(doc);
		goto fail;
	}
	c = rq_db(rq, &e);
	/* a run joins a job only where its token may post (ingest_result's check) */
	if (!c ||
	    ingest_result(c, doc, &d, 0, rq->scope == SCOPE_ADMIN ? 0 : rq->token_id, &out, &e)) {
		json_decref(doc);
		goto fail;
	}
	if (out.created)
		ingest_committed(rq->srv, 1, out.nr_values);
	rq->deferred_status = out.created ? 201 : 200;
	/* metrics and values count what is stored for the run (ingest.h), as the run page lists it */
	rq->deferred = json_pack("{s:s,s:b,s:I,s:I,s:s}", "run_id", d.run_id, "created",
				 out.created, "metrics", (json_int_t)out.nr_metrics, "values",
				 (json_int_t)out.nr_values, "values_kept",
				 out.means_only ? "mean" : "raw");
	json_decref(doc);
	return;
fail:
	rq->deferred_status = (unsigned)(e.status >= 400 && e.status <= 599 ? e.status : 500);
	rq->deferred = err_json(&e);
}

/*
 * POST /api/v1/results: a large document takes tens of ms to parse
 * and store, so that runs on the pool, off the libmicrohttpd thread (see
 * http_defer for why).
 */
enum MHD_Result api_results_post(struct request *rq)
{
	json_t *body;

	if (!rq->resumed) {
		if (!http_defer(rq, results_ingest))
			return MHD_YES; /* back here once it is done */
		results_ingest(rq);	/* no pool (stopping): here and now */
	}
	body = rq->deferred;
	rq->deferred = NULL;
	return reply_json(rq, rq->deferred_status, body);
}
