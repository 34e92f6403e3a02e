/* Submit tokens' share of the job queue; see quota.h. */
#include "server/api/quota.h"
#include "server/api/api.h"
#include "server/http/auth.h"
#include "server/db/jobs.h"

#include <stdio.h>

int quota_priority(const struct request *rq, long long priority, struct err *e)
{
	long max = rq->srv->cfg->submit_priority_max;

	if (rq->scope == SCOPE_ADMIN || priority <= max)
		return 0;
	return err_setc(e, ERR_INVALID_FIELD, "priority",
			"'priority' %lld is above submit_priority_max (%ld): a submit token's jobs "
			"may not pass the server's own (A/B requests, bisects) at will",
			priority, max);
}

int quota_queue(const struct request *rq, struct db_conn *c, struct err *e)
{
	long max = rq->srv->cfg->submit_queue_max;
	long long n;

	if (rq->scope == SCOPE_ADMIN || max <= 0)
		return 0;
	if (db_jobs_queued_by(c, rq->token_id, &n, e))
		return -1;
	if (n >= max)
		return err_setc(e, ERR_QUOTA, "token",
				"this token has %lld queued jobs, as many as submit_queue_max (%ld) "
				"allows: wait for them to run, or cancel some",
				n, max);
	return 0;
}
