#ifndef REGTRACK_SERVER_JOBDONE_H
#define REGTRACK_SERVER_JOBDONE_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"
#include "resultdoc.h"
#include "server/server.h"

struct db_conn;

/*
 * A worker's completion of a job (POST /api/v1/jobs/{id}/complete), the
 * workflow behind the handler: api/jobs.c parses and validates the body
 * and checks the caller's token owns the machine, then jobdone_store()
 * stores it in one transaction and the handler replies.
 */

/* A completion as the handler validated it; every pointer is borrowed. */
struct jobdone {
	long long job_id;
	const char *job_text;	/* the path's job id, as error messages name it */
	long long machine;	/* the body's machine_id; 0: not given (admin) */
	const char *status;	/* ok, build-failed, boot-failed, run-failed, same-image */
	const char *log_tail;	/* NULL: none */
	const char *kconfig;	/* NULL: none */
	const char *image;	/* image_sha256, 64 hex; NULL: none */
	const char *same_as;	/* same_image_as, 40 hex; NULL unless same-image */
	json_t *results;	/* the result documents (array), NULL: none */
	struct resultdoc *docs; /* results' checked views, one per document, job_id set */
};

/*
 * Stores d on c in one transaction: locks the job; checks it is still
 * leased to d->machine (any machine when 0); ingests each result document
 * (ingest_result(), nested); records the image; finishes the job with its
 * outcome, log tail, .config and, for an outcome other than ok and
 * same-image, the fail reason picked from the log tail; commits. Then
 * counts what was stored (ingest_committed()) and settles the job's A/B
 * request, if any (a failure there is logged: the request settles when it
 * is next read).
 * Returns 0 when stored, 1 when the job was already done by d->machine (a
 * retried completion whose first copy was stored: nothing changes), -1
 * with e and nothing stored: ERR_NOT_FOUND (no such job, detail "id"),
 * ERR_LEASE_LOST (the job is not leased to d->machine any more), a result
 * document's errors from ingest_result() with its detail prefixed by
 * "results[i].", the store's (db.h).
 */
int jobdone_store(struct server *srv, struct db_conn *c, const struct jobdone *d, struct err *e)
	__attribute__((warn_unused_result));

#endif
