#ifndef REGTRACK_SERVER_OUTBOX_H
#define REGTRACK_SERVER_OUTBOX_H

#include "err.h"

struct db_conn;

/*
 * The outbox (sql/0005_mail.sql): each report mail is one row, inserted in
 * the same transaction as the state change that causes it, so a report is
 * queued if and only if that change commits. A row records what to render
 * (its kind and the regression / bisect it is about); the mailer thread
 * (mailer.h) renders it on first claim and sends it, retrying through mail
 * server outages. None of these functions begins or commits a transaction:
 * the caller owns it.
 *
 * Kinds:
 *   bisect  a bisect found its first bad commit (full report with culprit)
 *   range   a report of a regression's detected range, without a culprit
 *           (on demand, or for confirmed regressions left unbisected)
 *   fixed   the regression was marked fixed: a reply in the thread of the
 *           regression's first report (In-Reply-To/References)
 */

/*
 * Call inside the transaction that marks bisect `bisect_id` done with a
 * first bad commit. Queues one 'bisect' report. Returns 0, or -1 with e
 * filled (the store's errors (db.h): 503 db_unavailable, 500 db_error); the caller
 * then rolls back.
 */
int outbox_bisect_done(struct db_conn *c, long long bisect_id, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Queues one 'fixed' follow-up of regression `regression_id`. The trigger
 * outbox_regression_fixed (sql/0005) already does this in the transaction
 * of every UPDATE that sets a regression's state to 'fixed', so callers
 * that change the state need not call this (it would queue a second one).
 * It is rendered as a reply to the
 * regression's first report and sent only after that one (no follow-up is
 * sent when the regression was never reported: the row ends 'failed' with
 * last_error saying so). Returns the outbox id or -1 with e as above.
 */
long long outbox_regression_fixed(struct db_conn *c, long long regression_id, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Queues a report on demand (POST /api/v1/regressions/{id}/report): a
 * 'bisect' report when a done bisect of the regression named a culprit,
 * else a 'range' report. A regression already reported gets the new mail
 * as a reply in its thread. Returns the outbox id or -1 with e as above,
 * or 404 "not_found" when there is no such regression.
 */
long long outbox_regression_report(struct db_conn *c, long long regression_id, struct err *e)
	__attribute__((warn_unused_result));

#endif
