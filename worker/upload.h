#ifndef REGTRACK_WORKER_UPLOAD_H
#define REGTRACK_WORKER_UPLOAD_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"
#include "apiclient.h"
#include "worker/spool.h"

/*
 * Sending spooled entries to the server. A spool entry is
 *   {"kind": "complete", "job_id": N, "path": "/api/v1/jobs/N/complete",
 *    "body": {completion}, "spooled_at": "RFC 3339"}
 * or {"kind": "result", "path": "/api/v1/results", "body": {result doc}, ...}.
 *
 * What each server answer does to the entry (one table in upload.c):
 *   2xx                      acknowledged: the file is removed
 *   409 on a "complete"      the lease was lost: another worker redoes the
 *                            job; the file is moved to spool/dropped/ and
 *                            logged, never sent again (kept for a person)
 *   409 on a "result"        same run_id with other content: spool/rejected/
 *   400, 404, 413, 422       refused for good: spool/rejected/, logged with
 *                            the server's error; a "complete" refused with
 *                            400, 413 or 422 is followed by a new entry that
 *                            completes the job as run-failed with the reason
 *                            (upload_refused_fallback()), sent at once
 *   401, 403, 408, 429, 5xx, no answer (server down, timeout)
 *                            kept; sent again later (with backoff)
 */
enum upload_verdict {
	UPLOAD_SENT,
	UPLOAD_DROPPED,
	UPLOAD_REJECTED,
	UPLOAD_RETRY,
};

/* A new "complete" entry for job `job_id`; takes ownership of `body`. */
json_t *upload_entry_complete(long long job_id, json_t *body);

/*
 * Sends one entry (borrowed) and says what to do with it; e is filled
 * (for the log) for every verdict but UPLOAD_SENT. An entry without a
 * string "path" starting "/api/v1/" and an object "body" is UPLOAD_REJECTED.
 */
enum upload_verdict upload_send(struct api_client *c, const json_t *entry, struct err *e);

/*
 * For a "complete" entry (borrowed) the server refused for good with
 * why->status 400, 413 or 422: a new "complete" entry for the same job
 * and machine_id with status "run-failed", no results, and a log_tail of
 * the refused one's last 32 KiB followed by "regtrack-worker: the server
 * refused the completion (...): HTTP STATUS CODE: MESSAGE at DETAIL" and
 * the path `kept` of the refused copy. It carries "fallback": true, and a
 * refused fallback gets none (NULL), as do other entries and statuses.
 * Without it the job would stay leased until its lease expired, be run
 * again max_attempts times and end failed without the reason.
 */
json_t *upload_refused_fallback(const json_t *entry, const char *kept, const struct err *why);

/*
 * Sends the spooled entries oldest first, acting on each verdict as in the
 * table above, and stops at the first UPLOAD_RETRY (so order is kept and a
 * down server costs one request). Fallback entries made on the way
 * (upload_refused_fallback()) are sent in the same call. *left is the
 * number of entries still queued. Counts of this call go to *sent and
 * *set_aside (either may be NULL). Returns 0, or -1 when the spool itself fails (e filled,
 * ERR_IO).
 */
int upload_flush(struct spool *s, struct api_client *c, size_t *left, size_t *sent,
		 size_t *set_aside, struct err *e) __attribute__((warn_unused_result));

#endif
