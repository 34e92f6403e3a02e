/* The mailer thread (mailer.h): claims outbox rows, renders, sends or writes them, retries. */
#include "server/mail/mailer.h"
#include "server/inbox/inbox_reply.h"
#include "server/abtest/abtest.h"
#include "attr.h"
#include "server/bgthread.h"
#include "server/db/db.h"
#include "server/db/mail.h"
#include "server/db/outbox.h"
#include "server/log.h"
#include "server/mail/mail_gather.h"
#include "server/mail/mail_reproduce.h"
#include "server/server.h"
#include "server/mail/smtp.h"
#include "report.h"
#include "xalloc.h"

#include <errno.h>
#include <stdatomic.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#define MAX_RCPT 64
/* rows handled per wake-up before the thread sleeps again */
#define MAX_ROWS 50

struct mailer {
	struct server *srv;
	struct bgthread *thread;
	/* set before bgthread_stop(): the step may run before m->thread is assigned */
	atomic_int stopping;
	int announced; /* announce() ran (the thread's first step) */
};

int mailer_check_config(const struct config *cfg, struct err *e)
{
	char addr[256];

	if (strcmp(cfg->smtp_starttls, "none") && strcmp(cfg->smtp_starttls, "try") &&
	    strcmp(cfg->smtp_starttls, "required"))
		return err_setc(e, ERR_CONFIG, "smtp_starttls",
				"'smtp_starttls' must be none, try or required, not '%s'",
				cfg->smtp_starttls);
	if (report_addr_spec(cfg->mail_from, addr, sizeof(addr)))
		return err_setc(e, ERR_CONFIG, "mail_from",
				"'mail_from' has no valid address: '%s'", cfg->mail_from);
	return 0;
}

int mailer_hold_reason(const struct config *cfg, char *out, size_t size)
{
	const char *url = cfg->public_url, *from_why = "", *url_why = "";
	size_t n = strlen(url);
	char addr[256];

	if (!*cfg->smtp_url && !*cfg->mail_dry_run_dir) {
		snprintf(out, size, "held: smtp_url not set");
		return 1;
	}
	/* a dry run writes files: nothing reaches a reader who could copy the tags */
	if (*cfg->mail_dry_run_dir)
		return 0;
	if (!report_addr_spec(cfg->mail_from, addr, sizeof(addr)) &&
	    !strcasecmp(addr, MAILER_DEFAULT_FROM))
		from_why = "mail_from is the default (" MAILER_DEFAULT_FROM ")";
	while (n && url[n - 1] == '/')
		n--;
	if (!cfg->public_url_given)
		url_why = "public_url not set";
	else if (n == strlen(MAILER_DEFAULT_PUBLIC_URL) &&
		 !strncmp(url, MAILER_DEFAULT_PUBLIC_URL, n))
		url_why = "public_url is the default (" MAILER_DEFAULT_PUBLIC_URL ")";
	if (!*from_why && !*url_why)
		return 0;
	snprintf(out, size, "held: %s%s%s", from_why, *from_why && *url_why ? " and " : "",
		 url_why);
	return 1;
}

/* what to set when mailer_hold_reason() holds mail */
static const char *hold_hint(const struct config *cfg)
{
	if (!*cfg->smtp_url && !*cfg->mail_dry_run_dir)
		return "smtp_url (--smtp) or mail_dry_run_dir set";
	return "mail_from and public_url (--public-url) set: a report's Reported-by and Closes "
	       "tags name them, and they end up in upstream commits";
}

/* ---- recipients ----------------------------------------------------- */

struct rcpts {
	char *a[MAX_RCPT];
	size_t n;
};

static void rcpt_add(struct rcpts *r, const char *addr)
{
	if (!report_addr_ok(addr) || r->n == MAX_RCPT)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (!strcasecmp(r->a[i], addr))
			return;
	r->a[r->n++] = xstrdup(addr);
}

static void rcpt_release(struct rcpts *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->a[i]);
	r->n = 0;
}

/* Adds each comma-separated address of list. */
static void rcpt_add_list(struct rcpts *r, const char *list)
{
	char *t = xstrdup(list), *save = NULL;

	for (char *w = strtok_r(t, ", ", &save); w; w = strtok_r(NULL, ", ", &save))
		rcpt_add(r, w);
	free(t);
}

int mailer_path_match(const char *pat, const char *file)
{
	size_t n = strlen(pat);

	if (!n)
		return 0;
	if (strpbrk(pat, "*?["))
		return !fnmatch(pat, file, 0);
	if (strncmp(pat, file, n))
		return 0;
	return pat[n - 1] == '/' || file[n] == '\0' || file[n] == '/';
}

int mailer_paths_match(const char *pats, const char *const *files)
{
	char *t, *save = NULL;
	int hit = 0;

	if (!files)
		return 0;
	t = xstrdup(pats);
	for (char *g = strtok_r(t, "\n", &save); g && !hit; g = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; files[i] && !hit; i++)
			hit = mailer_path_match(g, files[i]);
	free(t);
	return hit;
}

int mailer_sub_match(const char *metric_glob, const char *paths, const char *metric,
		     const char *const *files)
{
	if (*metric_glob && fnmatch(metric_glob, metric, 0))
		return 0;
	return !*paths || mailer_paths_match(paths, files);
}

static int match_subscriptions(struct db_conn *c, const char *tree, const char *testcase,
			       const char *metric, const char *const *files, struct rcpts *r,
			       struct err *e)
{
	struct db_mail_subs subs;

	if (db_mail_subs_match(c, tree, testcase, &subs, e))
		return -1;
	for (size_t i = 0; i < subs.n; i++) {
		const struct db_mail_sub *s = &subs.v[i];

		if (mailer_sub_match(s->metric, s->paths, metric, files))
			rcpt_add(r, s->email);
	}
	db_mail_subs_free(&subs);
	return 0;
}

/* ---- rendering one row ---------------------------------------------- */

static void new_message_id(const struct config *cfg, char out[200])
{
	char addr[256], u[40];
	const char *at;
	uuid_t id;

	if (report_addr_spec(cfg->mail_from, addr, sizeof(addr)))
		snprintf(addr, sizeof(addr), "regtrack@localhost");
	at = strchr(addr, '@');
	uuid_generate_random(id);
	uuid_unparse_lower(id, u);
	snprintf(out, 200, "<%s@%s>", u, at ? at + 1 : "localhost");
}

/*
 * The thread of the same culprit's report on another arch (an also_seen
 * record with the same first bad commit: both bisects named this commit):
 * its first report before row `id`, as db_outbox_sibling_root(). 1 with
 * out, 0 none, -1 with e.
 */
static int sibling_root(struct db_conn *c, const struct db_story *story, long long id,
			struct db_outbox_root *out, struct err *e)
{
	struct buf rids = BUF_INIT(0), bids = BUF_INIT(0);
	int found = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < story->nr_also; i++) {
		long long rid = story->also[i].regression_id, bid = story->also[i].bisect_id;

		if (!story->also[i].same_first_bad)
			continue;
		if (rid > 0 && buf_addf(&rids, "%s%lld", rids.len ? "," : "{", rid))
			goto out;
		if (bid > 0 && buf_addf(&bids, "%s%lld", bids.len ? "," : "{", bid))
			goto out;
	}
	if (!rids.len && !bids.len)
		goto out;
	if ((rids.len ? buf_addch(&rids, '}') : buf_addstr(&rids, "{}")) ||
	    (bids.len ? buf_addch(&bids, '}') : buf_addstr(&bids, "{}")))
		goto out;
	found = db_outbox_sibling_root(c, rids.data, bids.data, id, out, e);
out:
	buf_release(&rids);
	buf_release(&bids);
	return found;
}

/*
 * Renders row `id` and stores the text. Returns 0 rendered, 1 the row was
 * settled without mail (skipped/failed/deferred), -1 with e.
 */
static int render_row(struct db_conn *c, const struct config *cfg, long long id, const char *kind,
		      long long regression_id, long long bisect_id, struct err *e)
{
	enum report_kind rk = !strcmp(kind, "bisect") ? REPORT_BISECT :
			      !strcmp(kind, "fixed")  ? REPORT_FIXED :
							REPORT_RANGE;
	char msgid[200];
	struct rcpts rc = { { 0 }, 0 };
	struct buf to = BUF_INIT(0);
	struct mail_gathered g;
	struct report rep = { 0 };
	struct db_outbox_root root = { 0 };
	int ret = -1, found;

	if (!regression_id && bisect_id) {
		regression_id = db_mail_bisect_regression(c, bisect_id, e);
		if (regression_id < 0)
			return -1;
	}
	if (!regression_id)
		return db_outbox_give_up(c, id, "failed", "no regression for this report", e) ? -1 :
												1;

	/* the thread: the regression's first report before this row */
	found = db_outbox_thread_root(c, regression_id, id, &root, e);
	if (found < 0)
		return -1;
	if (found && !*root.message_id) {
		/* the first mail is not rendered yet: ours waits */
		free(root.subject);
		return db_outbox_defer(c, id, e) ? -1 : 1;
	}
	if (rk == REPORT_FIXED && !root.id)
		return db_outbox_give_up(c, id, "failed", "regression was never reported", e) ? -1 :
												1;
	if (rk == REPORT_FIXED && !cfg->mail_report_fixed) {
		free(root.subject);
		return db_outbox_give_up(c, id, "skipped", "mail_report_fixed = 0", e) ? -1 : 1;
	}

	if (mail_gather(c, cfg, regression_id, rk, &g, e)) {
		if (e->id == ERR_NOT_FOUND)
			ret = db_outbox_give_up(c, id, "failed", e->message, e) ? -1 : 1;
		goto out;
	}
	if (rk != REPORT_FIXED && mail_reproduce(c, cfg, &g, regression_id, g.reg.metric_id, e))
		goto out;
	if (rk == REPORT_BISECT && !g.in.is_regression && !cfg->mail_report_improvements) {
		ret = db_outbox_give_up(c, id, "skipped",
					"improvement and mail_report_improvements = 0", e) ?
			      -1 :
			      1;
		goto out;
	}
	/*
	 * The first report of this culprit on another arch: ours is a reply in
	 * its thread (one thread per culprit), once that one is rendered
	 */
	if (!root.id && rk != REPORT_FIXED) {
		found = sibling_root(c, &g.story, id, &root, e);
		if (found < 0)
			goto out;
		if (found && !*root.message_id) {
			ret = db_outbox_defer(c, id, e) ? -1 : 1;
			goto out;
		}
	}
	g.in.orig_subject = root.subject;
	if (report_render(&g.in, &rep, e)) {
		ret = db_outbox_give_up(c, id, "failed", e->message, e) ? -1 : 1;
		goto out;
	}
	/* a re-send in an existing thread is a reply too */
	if (rk != REPORT_FIXED && root.id) {
		char *s = xstrfmt("Re: %s", root.subject);
		free(rep.subject);
		rep.subject = s;
	}

	if (match_subscriptions(c, g.in.tree, g.in.testcase ? g.in.testcase : "", g.in.metric,
				g.file_paths, &rc, e))
		goto out;
	if (cfg->mail_to_author && g.in.culprit_email)
		rcpt_add(&rc, g.in.culprit_email);
	rcpt_add_list(&rc, cfg->mail_cc);
	if (!rc.n) {
		ret = db_outbox_give_up(c, id, "skipped", "no recipients", e) ? -1 : 1;
		goto out;
	}
	for (size_t i = 0; i < rc.n; i++)
		if ((i && buf_addch(&to, ' ')) || buf_addstr(&to, rc.a[i]))
			goto out;
	new_message_id(cfg, msgid);
	if (db_outbox_render(c, id, rep.subject, rep.body.data, msgid,
			     *root.message_id ? root.message_id : NULL, to.data, regression_id,
			     root.id, e))
		goto out;
	ret = 0;
out:
	mail_gather_release(&g);
	report_release(&rep);
	rcpt_release(&rc);
	buf_release(&to);
	free(root.subject);
	return ret;
}

/* Renders the result mail of A/B request request_id (abtest_mail) into row id; as render_row. */
static int render_request(struct db_conn *c, const struct config *cfg, long long id,
			  long long request_id, struct err *e)
{
	char msgid[200], *subject, *body, *to;

	if (abtest_mail(c, cfg->public_url, request_id, &subject, &body, &to, e)) {
		if (e->id == ERR_NOT_FOUND)
			return db_outbox_give_up(c, id, "failed", e->message, e) ? -1 : 1;
		return -1;
	}
	new_message_id(cfg, msgid);
	if (db_outbox_render(c, id, subject, body, msgid, NULL, to, 0, 0, e)) {
		free(subject);
		free(body);
		free(to);
		return -1;
	}
	free(subject);
	free(body);
	free(to);
	return 0;
}

/* ---- sending one row ------------------------------------------------ */

static int write_dry_run(const char *dir, const char *id, const char *msg, size_t len,
			 struct err *e)
{
	char path[4096], tmp[4200];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s.eml", dir, id);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return err_setc(e, ERR_IO, dir, "cannot create the dry-run directory: %s",
				strerror(errno));
	f = fopen(tmp, "wb");
	if (!f)
		return err_setc(e, ERR_IO, tmp, "cannot create the dry-run file: %s",
				strerror(errno));
	ok = fwrite(msg, 1, len, f) == len;
	ok = !fflush(f) && !fsync(fileno(f)) && ok;
	ok = !fclose(f) && ok;
	if (!ok || rename(tmp, path)) {
		unlink(tmp);
		return err_setc(e, ERR_IO, path, "cannot write the dry-run file");
	}
	return 0;
}

/* Composes and sends (or writes) rendered row id; 0 sent, -1 with e. */
static int deliver(struct db_conn *c, const struct config *cfg, long long id, const char **state,
		   struct err *e)
{
	struct db_outbox_row row;
	struct buf msg = BUF_INIT(0);
	struct rcpts rc = { { 0 }, 0 }, cc = { { 0 }, 0 }, all = { { 0 }, 0 };
	char name[24];
	int ret = -1, found = db_outbox_row(c, id, &row, e);

	if (found <= 0)
		return found < 0 ?
			       -1 :
			       err_setc(e, ERR_INTERNAL, "outbox", "outbox row %lld is gone", id);
	{
		char *t = xstrdup(row.recipients), *save = NULL;
		for (char *w = strtok_r(t, " ", &save); w; w = strtok_r(NULL, " ", &save))
			rcpt_add(&rc, w);
		free(t);
	}
	rcpt_add_list(&cc, row.cc);
	rcpt_add_list(&all, row.recipients);
	rcpt_add_list(&all, row.cc);
	{
		struct report_mail m = {
			.from = cfg->mail_from,
			.to = (const char *const *)rc.a,
			.nr_to = rc.n,
			.cc = (const char *const *)cc.a,
			.nr_cc = cc.n,
			.subject = row.subject,
			.message_id = row.message_id,
			.in_reply_to = row.in_reply_to,
			.references = row.in_reply_to,
			.date = time(NULL),
			.body = row.body,
		};
		if (report_compose(&msg, &m, e))
			goto out;
	}
	if (*cfg->mail_dry_run_dir) {
		*state = "dry_run";
		snprintf(name, sizeof(name), "%lld", id);
		ret = write_dry_run(cfg->mail_dry_run_dir, name, msg.data, msg.len, e);
	} else {
		*state = "sent";
		ret = smtp_send(cfg, all.a, all.n, msg.data, msg.len, e);
	}
out:
	db_outbox_row_free(&row);
	buf_release(&msg);
	rcpt_release(&rc);
	rcpt_release(&cc);
	rcpt_release(&all);
	return ret;
}

int mailer_run_once(struct db_conn *c, const struct config *cfg, struct err *e)
{
	struct db_outbox_claim row;
	const char *state = "sent";
	char why[200];
	struct err se;
	int found, rc;

	if (db_begin(c, e))
		return -1;
	found = db_outbox_claim(c, &row, e);
	if (found < 0)
		goto fail;
	if (!found) {
		db_rollback(c);
		return 0;
	}
	if (mailer_hold_reason(cfg, why, sizeof(why))) {
		slog_warn("mail %lld (%s) %s; it goes out once the server starts with %s", row.id,
			  row.kind, why, hold_hint(cfg));
		if (db_outbox_give_up(c, row.id, "held", why, e))
			goto fail;
		return db_commit(c, e) ? -1 : 1;
	}
	if (!row.rendered) {
		char msgid[200];

		new_message_id(cfg, msgid);
		rc = !strcmp(row.kind, "request") ?
			     render_request(c, cfg, row.id, row.request_id, e) :
		     !strcmp(row.kind, "inbox") ? inbox_reply_render(c, cfg, row.id, msgid, e) :
						  render_row(c, cfg, row.id, row.kind,
							     row.regression_id, row.bisect_id, e);
		if (rc < 0)
			goto fail;
		if (rc > 0)
			return db_commit(c, e) ? -1 : 1;
	}
	if (deliver(c, cfg, row.id, &state, &se)) {
		slog_warn("mail %lld: %s (will retry)", row.id, se.message);
		rc = db_outbox_retry(c, row.id, se.message, cfg->mail_retry_max_s, e);
	} else {
		rc = db_outbox_done(c, row.id, state, e);
	}
	if (rc)
		goto fail;
	return db_commit(c, e) ? -1 : 1;
fail:
	db_rollback(c);
	return -1;
}

/* ---- the thread ----------------------------------------------------- */

/*
 * Says at start what keeps mail from going out (and what to set), or
 * queues again the rows an earlier server held when nothing does now.
 */
static void announce(const struct config *cfg, struct db_conn *c)
{
	char why[200];
	struct err e;
	long long n;

	if (mailer_hold_reason(cfg, why, sizeof(why))) {
		slog_warn("mail %s: report and A/B mails are kept in the outbox as 'held' until the "
			  "server starts with %s",
			  why, hold_hint(cfg));
		return;
	}
	n = db_outbox_release_held(c, &e);
	if (n < 0)
		slog_error("mailer: held mails: %s", e.message);
	else if (n > 0)
		slog_info("mailer: %lld held mail%s queued again", n, n == 1 ? "" : "s");
}

/* One wake-up: up to MAX_ROWS due rows, then sleep mail_poll_ms (or until kicked). */
static long mailer_step(void *arg, int *fd UNUSED)
{
	struct mailer *m = arg;
	const struct config *cfg = m->srv->cfg;
	struct err e;
	struct db_conn *c = db_conn(m->srv->db, &e);

	if (!c)
		return cfg->mail_poll_ms;
	if (!m->announced) {
		announce(cfg, c);
		m->announced = 1;
	}
	for (int i = 0; i < MAX_ROWS && !atomic_load(&m->stopping); i++) {
		int rc = mailer_run_once(c, cfg, &e);

		if (rc < 0)
			slog_error("mailer: %s", e.message);
		if (rc <= 0)
			break;
	}
	return cfg->mail_poll_ms;
}

struct mailer *mailer_start(struct server *srv)
{
	struct mailer *m;
	struct err e;

	m = xcalloc(1, sizeof(*m));
	m->srv = srv;
	m->thread = bgthread_start("mailer", mailer_step, m, &e);
	if (!m->thread) {
		slog_error("mailer: %s", e.message);
		free(m);
		return NULL;
	}
	return m;
}

void mailer_kick(struct mailer *m)
{
	if (m)
		bgthread_kick(m->thread);
}

void mailer_stop(struct mailer *m)
{
	if (!m)
		return;
	atomic_store(&m->stopping, 1);
	bgthread_stop(m->thread);
	free(m);
}
