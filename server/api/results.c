/*
 * POST /api/v1/results (GET /api/v1/runs… are in api/runs.c).
 * Validation and storing: server/ingest.h ingest_result() (a job_id of no
 * job: 404 not_found; commit/testcase not the job's: 400 naming the field).
 * A run names a job only when its token may add to that job (job_poster):
 * else any submit or worker token could post runs into another's A/B
 * request, bisect or tracking job and turn its verdict.
 */
#include "server/api/api.h"
#include "server/jsonout.h"
#include "server/ingest.h"
#include "server/auth.h"
#include "server/db/jobs.h"
#include "server/api/args.h"
#include "resultdoc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * A run may join job_id only when a machine of the caller's token leases it
 * or leased it, or the job is of an A/B request the token submitted (an
 * admin token: any job). 404 "not_found" (detail job_id) when there is no
 * such job, 403 "forbidden" (detail job_id) when the token may not.
 */
static int poster_ok(struct request *rq, PGconn *c, long long job_id, struct err *e)
{
	int ok = 0;

	if (rq->scope == SCOPE_ADMIN)
		return 0;
	switch (db_job_poster(c, job_id, rq->token_id, &ok, e)) {
	case -1:
		return -1;
	case 0:
		return err_setc(e, ERR_NOT_FOUND, "job_id", "no job %lld", job_id);
	}
	if (!ok)
		return err_setc(e, ERR_FORBIDDEN, "job_id",
				"job %lld was not leased to a worker of this token, nor is it of "
				"a request this token submitted: its runs come from those",
				job_id);
	return 0;
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
	if (!c || (d.job_id && poster_ok(rq, c, d.job_id, &e)) ||
	    ingest_result(c, doc, &d, 0, &out, &e)) {
		json_decref(doc);
		goto fail;
	}
	if (out.created)
		ingest_committed(rq->srv, 1, out.nr_values);
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
