#include "server/jobs/jobdone.h"
#include "failreason.h"
#include "server/abtest/abtest.h"
#include "server/db/db.h"
#include "server/db/jobs.h"
#include "server/jobs/ingest.h"
#include "server/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* e's detail as "results[i].DETAIL", naming the document that failed */
static void detail_of_result(struct err *e, size_t i)
{
	char detail[sizeof(e->detail)];

	snprintf(detail, sizeof(detail), "results[%zu].%.200s", i, e->detail);
	snprintf(e->detail, sizeof(e->detail), "%s", detail);
}

int jobdone_store(struct server *srv, struct db_conn *c, const struct jobdone *d, struct err *e)
{
	struct db_job_lock lock;
	size_t i, runs_created = 0, values_created = 0;
	char *reason = NULL;
	json_t *doc;
	int got;

	if (db_begin(c, e))
		return -1;
	got = db_job_lock(c, d->job_id, &lock, e);
	if (got < 0)
		goto rollback;
	if (!got) {
		err_setc(e, ERR_NOT_FOUND, "id", "no job %s", d->job_text);
		goto rollback;
	}
	if (!strcmp(lock.state, "done") && d->machine && lock.leased_by == d->machine) {
		db_rollback(c);
		return 1;
	}
	if (strcmp(lock.state, "leased") || (d->machine && lock.leased_by != d->machine)) {
		err_setc(e, ERR_LEASE_LOST, "id",
			 "job %s is not leased to this worker any more; nothing was stored",
			 d->job_text);
		goto rollback;
	}
	json_array_foreach (d->results, i, doc) {
		struct ingest_outcome out;

		if (ingest_result(c, doc, &d->docs[i], 1, 0, &out, e)) {
			detail_of_result(e, i);
			goto rollback;
		}
		runs_created += (size_t)out.created;
		values_created += out.created ? out.nr_values : 0;
	}
	if (strcmp(d->status, "ok") && strcmp(d->status, "same-image"))
		reason = failreason_pick(d->status, d->log_tail, lock.testcase);
	if ((d->image && db_job_set_image(c, d->job_id, d->image, d->same_as, e)) ||
	    db_job_finish(c, d->job_id, d->status, d->log_tail, d->kconfig, reason, e) ||
	    db_commit(c, e))
		goto rollback;
	free(reason);
	ingest_committed(srv, runs_created, values_created);
	/* the job is stored: an A/B request that cannot settle now settles when read */
	if (abtest_settle_job(c, d->job_id, e) < 0)
		slog_warn("job %lld: settling its request: %s", d->job_id, e->message);
	return 0;
rollback:
	free(reason);
	db_rollback(c);
	return -1;
}
