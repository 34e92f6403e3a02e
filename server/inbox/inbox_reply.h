#ifndef REGTRACK_SERVER_INBOX_REPLY_H
#define REGTRACK_SERVER_INBOX_REPLY_H

#include "err.h"

struct db_conn;

/*
 * A tested series' reply in its list thread.
 *
 * inbox_reply_step(): after a poll of an inbox, each `queued` series whose
 * A/B request ended becomes `tested` with the request's verdict; a
 * regression or an improvement (and, when the inbox has reply_no_change,
 * no change and inconclusive too) also queues its one reply, an outbox row
 * of kind 'inbox' (a unique index: never a second one for a series), and
 * the series is `replied`; both in one transaction. A failed request
 * (build, boot, apply) is `tested` with its reason and no reply.
 *
 * inbox_reply_render(): the mailer renders such a row: the A/B result mail
 * (abtest_mail_text(): the robot's form, an LKP table per target, the
 * request page, the reproduce commands) under "Re: " and the anchor's
 * subject, In-Reply-To/References the anchor (the cover letter, or patch
 * 1), To the anchor's sender, Cc the inbox's lists only when it has
 * cc_list; a regression's reply starts with the Reported-by:/Closes: tags
 * the fix should carry (the sender of mail_from, the request page).
 */
struct server;
struct config;

/* One pass over inbox inbox_id's ended requests (see above); failures logged. */
void inbox_reply_step(struct server *srv, struct db_conn *c, long long inbox_id);

/*
 * Renders outbox row id (kind 'inbox') with message id msgid ("<...>"):
 * 0 rendered, 1 given up (no such series: row failed), -1 with e.
 */
int inbox_reply_render(struct db_conn *c, const struct config *cfg, long long id, const char *msgid,
		       struct err *e) __attribute__((warn_unused_result));

#endif
