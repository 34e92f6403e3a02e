#ifndef REGTRACK_WORKER_JOBSPEC_H
#define REGTRACK_WORKER_JOBSPEC_H

#include <jansson.h>

#include "err.h"
#include "worker/execute.h"

/*
 * Fills spec from job, the "job" object of a lease reply
 * (POST /api/v1/jobs/lease): id, tree, url, commit, kconfig, compiler
 * (default "gcc"), testcase, params, repeat (default 1), patches, monitors,
 * skip_images. The strings and JSON in spec are borrowed views into job,
 * valid while it lives. Returns 0, or -1 with e ERR_INVALID_JOB naming the
 * field: commit, kconfig or testcase missing or empty, params not an
 * object, repeat not an integer in 1..1000. Everything else (the tree and
 * url of a kernel job, the monitors) job_execute checks.
 */
int job_spec_from_json(const json_t *job, struct job_spec *spec, struct err *e)
	__attribute__((warn_unused_result));

#endif
