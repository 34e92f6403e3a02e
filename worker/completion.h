#ifndef REGTRACK_WORKER_COMPLETION_H
#define REGTRACK_WORKER_COMPLETION_H

#include <jansson.h>

#include "err.h"

/*
 * The completion of a job (`POST /api/v1/jobs/{id}/complete` body) and the
 * result documents inside it, built from the leased job, the machine and
 * what the executor returned. Pure apart from the random run ids.
 *
 * Body: {"status": STATUS, "results": [DOC, ...], "log_tail": TEXT,
 *        "kconfig": TEXT}   ("kconfig" is the final .config; omitted when NULL)
 *
 * One DOC per element of `runs` (DESIGN.md "The result document"):
 *   run_id        new random UUID (libuuid), so a retried upload is stored once
 *   job_id, tree, branch (when the job has one), commit, kconfig (the
 *   name), compiler, testcase, params       copied from the job
 *   machine       copied from `machine`
 *   status        the run's own "status" when it has one, else STATUS
 *   every field of the run (metrics, started_at, duration_s, mode, accel,
 *   kernel_release, ...) copied as is; a run cannot override the job
 *   fields above.
 *
 * Text (log_tail, kconfig) is made valid UTF-8 (each invalid byte becomes
 * '?') because JSON strings must be; log_tail keeps its last
 * COMPLETION_MAX_LOG bytes.
 */
#define COMPLETION_MAX_LOG (64 * 1024)

/*
 * job: the "job" object of a lease reply (borrowed); machine: the machine
 * object (borrowed); status: ok|build-failed|boot-failed|run-failed|
 * same-image (the image equals one already measured: no runs); runs:
 * array of run objects (borrowed, may be NULL = none); log_tail, kconfig
 * may be NULL. Returns a new reference (caller json_decref()s), or NULL
 * with e filled: ERR_INVALID_FIELD when job has no integer "id" or status is not
 * one of the five, or a run is not an object.
 */
json_t *completion_build(const json_t *job, const json_t *machine, const char *status,
			 const json_t *runs, const char *log_tail, const char *kconfig,
			 struct err *e);

/* 1 if status is ok, build-failed, boot-failed, run-failed or same-image. */
int completion_status_valid(const char *status);

/*
 * A copy of s[0..n) with every byte that is not part of valid UTF-8 (and
 * every NUL) replaced by '?'. New, caller frees with free().
 */
char *completion_utf8_clean(const char *s, size_t n);

#endif
