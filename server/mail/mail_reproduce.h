#ifndef REGTRACK_SERVER_MAIL_REPRODUCE_H
#define REGTRACK_SERVER_MAIL_REPRODUCE_H

#include "err.h"
#include "server/config.h"
#include "server/mail/mail_gather.h"

struct db_conn;

/*
 * How a report's reader runs its data points again, added to g once
 * mail_gather() has found the culprit and the table (the mailer calls it
 * for every report but a follow-up; metric_id: the record's metric):
 *  - in.reproduce: the curl that queues one run at the first bad commit
 *    (a range: its bad end) as a job of the service at public_url (needs
 *    a submit token);
 *  - in.reproduce_local: the token-free `regtrack-worker reproduce` of the
 *    first bad commit and of its parent (a range: bad and good end), as
 *    abtest_reproduce_command() writes them (--arch from the record's
 *    arch, --measure from its params, else icount for an icount setup;
 *    --repeat the runs the table has at the head, at least 1);
 *  - in.config_url: public_url/api/v1/jobs/ID/kconfig, the .config of the
 *    first bad commit's build (db_kconfig_pick_job()), NULL when no build
 *    of it stored one.
 * The strings live in g until mail_gather_release(). 0, or -1 with e
 * (database errors of db/kconfig.h).
 */
int mail_reproduce(struct db_conn *c, const struct config *cfg, struct mail_gathered *g,
		   long long regression_id, long long metric_id, struct err *e)
	__attribute__((warn_unused_result));

#endif
