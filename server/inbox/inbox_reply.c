/* A tested series' reply in its list thread (see inbox_reply.h). */
#include "server/inbox/inbox_reply.h"
#include "mailmsg.h"
#include "server/abtest/abtest.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/db/inbox_reply.h"
#include "server/db/outbox.h"
#include "server/log.h"
#include "server/server.h"
#include "attr.h"
#include "buf.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int wants_reply(const struct db_inbox_ended *s)
{
	if (strcmp(s->state, "done") || !s->verdict)
		return 0;
	if (!strcmp(s->verdict, "regression") || !strcmp(s->verdict, "improvement"))
		return 1;
	return s->reply_no_change;
}

void inbox_reply_step(struct server *srv UNUSED, struct db_conn *c, long long inbox_id)
{
	struct db_inbox_ended *rows;
	size_t n;
	struct err e;

	if (db_inbox_series_ended(c, inbox_id, &rows, &n, &e)) {
		slog_warn("inbox %lld: replies: %s", inbox_id, e.message);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct db_inbox_ended *s = &rows[i];
		long long outbox = 0;
		int want = wants_reply(s), got = 0;
		char why[600] = "";

		if (strcmp(s->state, "done"))
			snprintf(why, sizeof(why), "request %s%s%s", s->state,
				 s->fail_reason ? ": " : "", s->fail_reason ? s->fail_reason : "");
		if (db_begin(c, &e))
			break;
		if (want)
			got = db_inbox_reply_queue(c, s->id, &outbox, &e);
		if (got < 0 ||
		    db_inbox_series_ended_set(c, s->id, want ? "replied" : "tested",
					      s->verdict ? s->verdict : s->state,
					      why[0] ? why : NULL, outbox, &e) ||
		    db_commit(c, &e)) {
			db_rollback(c);
			slog_warn("inbox series %lld: %s", s->id, e.message);
			continue;
		}
		slog_info("inbox series %lld: %s%s", s->id, s->verdict ? s->verdict : s->state,
			  got > 0 ? ", reply queued" : "");
	}
	db_inbox_ended_free(rows, n);
}

/* the lists (one a line) as a text[] literal of plain addresses */
static char *cc_literal(const char *lists)
{
	struct buf b = BUF_INIT(0);
	char *t = xstrdup(lists), *s;
	int over = buf_addch(&b, '{'), k = 0;

	for (char *save = NULL, *w = strtok_r(t, "\n", &save); w; w = strtok_r(NULL, "\n", &save))
		if (report_addr_ok(w))
			over |= buf_addf(&b, "%s\"%s\"", k++ ? "," : "", w);
	over |= buf_addch(&b, '}');
	if (over)
		abort(); /* no cap: out of memory only, fatal anyway */
	s = xstrdup(b.data);
	buf_release(&b);
	free(t);
	return s;
}

int inbox_reply_render(struct db_conn *c, const struct config *cfg, long long id, const char *msgid,
		       struct err *e)
{
	struct db_inbox_reply_input in;
	char *subject = NULL, *body = NULL, *cc = NULL, *re = NULL;
	char to[REPORT_ADDR_MAX + 1], from[REPORT_ADDR_MAX + 1], irt[1100];
	struct buf b = BUF_INIT(0);
	int got = db_inbox_reply_input(c, id, &in, e), ret = -1, over = 0;

	if (got <= 0)
		return got < 0 ?
			       -1 :
			       (db_outbox_give_up(c, id, "failed", "no series for this reply", e) ?
					-1 :
					1);
	if (report_addr_spec(in.author, to, sizeof(to))) {
		ret = db_outbox_give_up(c, id, "failed", "the series' sender has no usable address",
					e) ?
			      -1 :
			      1;
		goto out;
	}
	if (abtest_mail_text(c, cfg->public_url, in.request_id, in.title, &subject, &body, e))
		goto out;
	if (report_addr_spec(cfg->mail_from, from, sizeof(from)))
		snprintf(from, sizeof(from), "regtrack@localhost");
	if (!strcmp(in.verdict, "regression")) {
		size_t l = strlen(cfg->public_url);

		over |= buf_addf(&b,
				 "If you fix the issue in a separate patch/commit (i.e. not just a "
				 "new version of\nthe same patch/commit), kindly add following tags\n"
				 "| Reported-by: regtrack <%s>\n| Closes: %.*s/requests/%lld\n\n",
				 from, (int)(l && cfg->public_url[l - 1] == '/' ? l - 1 : l),
				 cfg->public_url, in.request_id);
	}
	over |= buf_addstr(&b, body);
	if (over) {
		err_setc(e, ERR_INTERNAL, "body", "the reply of outbox row %lld is too large", id);
		goto out;
	}
	re = strncasecmp(in.subject, "Re:", 3) ? xstrfmt("Re: %s", in.subject) :
						 xstrdup(in.subject);
	snprintf(irt, sizeof(irt), "<%s>", in.anchor);
	cc = cc_literal(in.cc);
	if (db_outbox_render(c, id, re, b.data, msgid, irt, to, 0, 0, e) ||
	    db_outbox_set_cc(c, id, cc, e))
		goto out;
	ret = 0;
out:
	free(subject);
	free(body);
	free(cc);
	free(re);
	buf_release(&b);
	db_inbox_reply_input_release(&in);
	return ret;
}
