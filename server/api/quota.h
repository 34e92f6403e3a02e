#ifndef REGTRACK_SERVER_API_QUOTA_H
#define REGTRACK_SERVER_API_QUOTA_H

#include "err.h"

struct db_conn;

struct request;

/*
 * What one submit token may put in the job queue (without a limit, 300
 * jobs at priority 1000 jumped ahead of bisects and requests; 108k queued
 * jobs slowed every lease). An admin token has no limit.
 */

/*
 * 0 when a job of `priority` may be queued by the caller: at most
 * submit_priority_max. Else -1 with e: ERR_INVALID_FIELD, detail "priority".
 */
int quota_priority(const struct request *rq, long long priority, struct err *e)
	__attribute__((warn_unused_result));

/*
 * 0 when the caller's token holds fewer than submit_queue_max queued jobs
 * (0: no limit), counted on c before the insert (not under a lock:
 * concurrent submissions may pass it by as many as there are of them).
 * Else -1 with e: ERR_QUOTA (429 "quota_exceeded", detail "token"), or
 * the store's errors (db.h).
 */
int quota_queue(const struct request *rq, struct db_conn *c, struct err *e)
	__attribute__((warn_unused_result));

#endif
