#ifndef REGTRACK_SERVER_INGEST_H
#define REGTRACK_SERVER_INGEST_H

#include <jansson.h>

#include "err.h"
#include "resultdoc.h"
#include "server/db/runs.h" /* db_commit_upsert(), which bisect.c calls */

struct db_conn;

struct server;

/* What ingest_result() did. */
struct ingest_outcome {
	long long id; /* runs.id */
	int created;  /* 1 = stored now, 0 = an identical copy was already stored */
	/*
	 * The run's metrics and numbers as stored after the call: the
	 * document's when created; else what the store holds for the run,
	 * which for a run whose raw values retention dropped (means_only 1)
	 * is one number, its mean, for each metric that has one.
	 */
	size_t nr_metrics, nr_values;
	int means_only;
};

/*
 * Stores one checked result document in one transaction: commit, tree,
 * testcase, setup (testcase + params + kconfig + compiler + tbox_group +
 * mode + monitors; the params' machine shape in its one spelling,
 * vmspec_canonical(), so pin "true" and pin true are one setup, and a
 * shape vmspec_parse() refuses is a 400 naming "params.KEY"; a document
 * of kconfig "host" without a job_id that names accel..numa is the 400 of
 * vmspec_host_check(), as a host job is), machine,
 * the profile (run_profiles, when the document has one), metrics
 * (registry defaults for new names from
 * lib/stats/metric.h), the run, and every replicate of every metric (names
 * resolved to ids in one query, then one COPY of a row per metric, not an
 * INSERT per value). Idempotent by run_id: the same run_id with the same
 * content (SHA-256 of the canonical JSON: sorted keys, compact, integers
 * as reals so that [1] and [1.0] agree, run_id in lower case, the params'
 * machine shape in its one spelling so that "pin": "1" and "pin": true
 * agree; a run stored before the shape was rewritten matches by its params
 * as posted, one stored before the numbers were normalised by the
 * document as parsed) stores
 * nothing and sets created = 0; with other content it fails with 409
 * "conflict" (detail "run_id"). Fields the schema has no column for are
 * kept in runs.extra.
 *
 * With nested = 1 it runs inside the caller's open transaction, fenced by
 * a savepoint, and leaves committing to the caller.
 *
 * A document with a job_id must name a job that exists, else 404
 * "not_found" with detail "job_id" (404, not 422: as POST /api/v1/jobs
 * answers a tree it does not know), and be of that job's commit and
 * testcase, else 400 "invalid_field" with detail "commit" or "testcase";
 * with poster_token (not 0) that token must also be one that may post to
 * the job (db_job_post_check(): its machine leased it, or the job is of
 * its A/B request), else 403 "forbidden" with detail "job_id". The job is
 * read once for all of these. A document without a job_id of kconfig
 * "host" takes no guest shape (vmspec_host_job_check(): 400 detail
 * "params.KEY"; pin false and hugepages "none" ask for nothing and pass)
 * and no mode "icount" (400 detail "mode").
 *
 * doc and d are borrowed; doc is not changed. Errors (-1, e filled,
 * nothing stored): 404, 403, 400 and 409 as above, 503 when the database
 * is unavailable, 500 on other db errors.
 */
int ingest_result(struct db_conn *c, json_t *doc, const struct resultdoc *d, int nested,
		  long long poster_token, struct ingest_outcome *out, struct err *e)
	__attribute__((warn_unused_result));

/*
 * What every ingest path does once its transaction has committed (POST
 * /api/v1/results after ingest_result(), a job's completion after its
 * COMMIT): adds values_created to srv->values_ingested and, when a run was
 * stored (runs_created > 0: maybe a new tree or commit), drops the cached
 * GET /api/v1/trees reply (api_trees_changed()). The detection queue needs
 * nothing here: its row was inserted inside the transaction and its
 * trigger's NOTIFY is delivered at the commit. Not called on a rollback,
 * so the counter counts only stored values.
 */
void ingest_committed(struct server *srv, size_t runs_created, size_t values_created);

#endif
