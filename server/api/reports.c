/*
 * Report mails:
 *   POST /api/v1/regressions/{id}/report (admin)  queue a report now -> 202 {outbox_id,
 *        regression_id, mail_enabled, held}: mail_enabled false and held the
 *        reason ("held: smtp_url not set", mailer.h mailer_hold_reason) when
 *        the configuration keeps mail from going out, held null otherwise
 *   GET  /api/v1/regressions/{id}/report (read)   the report mails as rendered
 *   GET  /api/v1/outbox[?regression=&limit=] (admin)  recent mails and their state
 *
 * A report asked for by hand is a 'bisect' report when the regression has
 * a bisect, else a 'range' report, and a reply in the thread when the
 * regression was reported before.
 *
 * GET .../report: newest first, {"regression_id", "mails": [{id, kind
 * (bisect|range|fixed), state (queued|held|sent|dry_run|skipped), reason
 * (held and skipped: why), rendered, subject, message_id, in_reply_to,
 * bisect_id, created_at, sent_at, body}]}. Rows
 * of the regression and of its bisect (a bisect started by hand records a
 * regression when it finds its culprit, so its report is found through
 * that record too). A queued row not yet rendered has rendered = false and
 * null subject and body; failed rows are left out; recipients and mail server errors are not shown (GET
 * /api/v1/outbox, admin, has them). 404 when there is no such regression,
 * "mails": [] when none was queued yet.
 */
#include "server/api/api.h"
#include "server/api/args.h"
#include "server/db/mail.h"
#include "server/mail/mailer.h"
#include "server/mail/outbox.h"
#include "server/server.h"

#include <stdlib.h>

enum MHD_Result api_outbox_get(struct request *rq)
{
	const char *reg = rq_arg(rq, "regression"), *lim = rq_arg(rq, "limit");
	char *end;
	long long v;
	const char *p[2] = { NULL, "100" };
	struct err e;
	struct db_conn *c;
	char *text = NULL;

	if (reg) {
		v = strtoll(reg, &end, 10);
		if (*end || v <= 0) {
			err_setc(&e, ERR_INVALID_FIELD, "regression",
				 "'regression' must be a positive integer");
			return reply_err(rq, &e);
		}
		p[0] = reg;
	}
	if (lim) {
		v = strtoll(lim, &end, 10);
		if (*end || v <= 0 || v > 1000) {
			err_setc(&e, ERR_INVALID_FIELD, "limit",
				 "'limit' must be an integer in [1, 1000]");
			return reply_err(rq, &e);
		}
		p[1] = lim;
	}
	c = rq_db(rq, &e);
	return reply_db_read(rq, c ? db_outbox_json(c, p[0], p[1], &text, &e) : -1, &text, &e);
}

enum MHD_Result api_regression_report(struct request *rq)
{
	char idtext[24], why[200];
	long long id, oid;
	struct db_conn *c;
	struct err e;
	int held;

	if (rq_path_id(rq, "regression", &id, idtext, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	if (db_begin(c, &e))
		return reply_err(rq, &e);
	oid = outbox_regression_report(c, id, &e);
	if (oid < 0 || db_commit(c, &e))
		goto fail;
	mailer_kick(rq->srv->mailer);
	held = mailer_hold_reason(rq->srv->cfg, why, sizeof(why));
	return reply_json(rq, 202,
			  json_pack("{s:I, s:I, s:b, s:s?}", "outbox_id", (json_int_t)oid,
				    "regression_id", (json_int_t)id, "mail_enabled",
				    rq->srv->mailer && !held, "held", held ? why : NULL));
fail:
	db_rollback(c);
	return reply_err(rq, &e);
}

enum MHD_Result api_regression_report_get(struct request *rq)
{
	return reply_by_id(rq, "regression", db_regression_report_json);
}
