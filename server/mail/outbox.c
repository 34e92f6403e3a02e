/* Queues report mails in the caller's transaction (outbox.h). */
#include "server/mail/outbox.h"
#include "server/db/mail.h"
#include "server/db/outbox.h"

int outbox_bisect_done(struct db_conn *c, long long bisect_id, struct err *e)
{
	return db_outbox_insert(c, "bisect", 0, bisect_id, e) < 0 ? -1 : 0;
}

long long outbox_regression_fixed(struct db_conn *c, long long regression_id, struct err *e)
{
	return db_outbox_insert(c, "fixed", regression_id, 0, e);
}

long long outbox_regression_report(struct db_conn *c, long long regression_id, struct err *e)
{
	long long bisect_id;
	int found = db_mail_regression_exists(c, regression_id, &bisect_id, e);

	if (found < 0)
		return -1;
	if (!found)
		return err_setc(e, ERR_NOT_FOUND, "regression", "no regression %lld",
				regression_id);
	return db_outbox_insert(c, bisect_id > 0 ? "bisect" : "range", regression_id, bisect_id, e);
}
