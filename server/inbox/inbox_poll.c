/* The inbox poller: public-inbox v2 epochs into inbox_messages (see inbox_poll.h). */
#include "server/inbox/inbox_poll.h"
#include "clock.h"
#include "fsutil.h"
#include "mailhdr.h"
#include "names.h"
#include "server/bgthread.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/db/inbox.h"
#include "server/track/gitmirror_git.h"
#include "server/inbox/inbox_reply.h"
#include "server/inbox/inbox_series.h"
#include "server/log.h"
#include "server/server.h"
#include "attr.h"
#include "buf.h"
#include "utf8.h"
#include "xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_EPOCHS 1000	      /* lore's largest lists have a few dozen */
#define MAX_MESSAGE (8 << 20) /* bytes of one message read; a larger one is skipped */
#define MAX_PER_POLL 20000    /* messages one poll reads of an epoch; the next goes on */
#define MAX_LIST (64 << 20)   /* bytes of an epoch's commit list */

struct inbox_poller {
	struct server *srv;
	pthread_mutex_t lock; /* guards t against a kick racing the stop */
	struct bgthread *t;
	atomic_int stopping;
	volatile sig_atomic_t stop; /* set with stopping: kills the series step's child */
};

static int is_url(const char *u)
{
	return !strncmp(u, "http://", 7) || !strncmp(u, "https://", 8);
}

/* where epoch n comes from: URL/n, or PATH/git/n.git */
static void epoch_source(const char *url, int n, char *out, size_t size)
{
	size_t l = strlen(url);

	while (l > 1 && url[l - 1] == '/')
		l--;
	snprintf(out, size, is_url(url) ? "%.*s/%d" : "%.*s/git/%d.git", (int)l, url, n);
}

/*
 * Mirrors epoch n into dir: a fetch when it is there, else a clone.
 * 1 done, 0 the epoch does not exist (a path without it; for a URL, a
 * clone that fails when `may_end`), -1 with e.
 */
static int sync_epoch(const char *url, int n, const char *dir, int may_end, int timeout,
		      struct err *e)
{
	char src[4600], tmp[4400];
	struct stat st;

	epoch_source(url, n, src, sizeof(src));
	if (!is_url(url) && stat(src, &st))
		return 0;
	if (!stat(dir, &st)) {
		const char *set[] = { "git", "-C", dir, "remote", "set-url", "origin", src, NULL };
		const char *argv[] = { "git", "-C", dir, "fetch", "--prune", "--quiet", NULL };

		if (gitmirror_run(set, NULL, timeout, 1 << 16, NULL, e) ||
		    gitmirror_run(argv, NULL, timeout, 1 << 20, NULL, e))
			return -1;
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", dir, (long)getpid());
	{
		const char *rm[] = { "rm", "-rf", "--", tmp, NULL };
		const char *argv[] = { "git", "clone", "--mirror", "--quiet", "--", src, tmp, NULL };
		struct err ce;

		if (gitmirror_run(rm, NULL, 600, 1 << 16, NULL, e))
			return -1;
		if (gitmirror_run(argv, NULL, timeout, 1 << 20, NULL, &ce)) {
			if (may_end)
				return 0;
			*e = ce;
			return -1;
		}
	}
	if (rename(tmp, dir))
		return err_setc(e, ERR_IO, dir, "cannot rename the new epoch mirror: %s",
				strerror(errno));
	return 1;
}

/* the first Message-ID-like field value's id, or a made-up one from the commit */
static void message_id_of(const char *raw, size_t len, const char *commit, char *out, size_t size)
{
	char v[1024];

	if (!mailhdr_get(raw, len, "Message-ID", v, sizeof(v)) || !mailhdr_msgid(v, 0, out, size))
		snprintf(out, size, "no-message-id-%s@inbox", commit);
}

/* the References: ids as a text[] literal (ids never hold '"' or '\\': those are dropped) */
static char *refs_literal(const char *refs)
{
	struct buf b = BUF_INIT(0);
	char id[1024];
	int over = buf_addch(&b, '{');
	char *s;

	for (size_t k = 0; k < 256 && mailhdr_msgid(refs, k, id, sizeof(id)); k++) {
		over |= buf_addstr(&b, k ? ",\"" : "\"");
		for (const char *q = id; *q; q++)
			if (*q != '"' && *q != '\\')
				over |= buf_addch(&b, *q);
		over |= buf_addch(&b, '"');
	}
	over |= buf_addch(&b, '}');
	if (over)
		abort(); /* no cap: only out of memory, fatal anyway */
	s = xstrdup(b.data);
	buf_release(&b);
	return s;
}

/*
 * After `git cat-file blob COMMIT:m` failed: 1 when the commit holds no
 * message to read (a deletion, or one past MAX_MESSAGE: passed over), 0
 * when it could not be read now (the position stays before it), e kept.
 */
static int unreadable_for_good(const char *dir, const char *commit, int timeout)
{
	char spec[64];
	const char *size[] = { "git", "-C", dir, "cat-file", "-s", spec, NULL };
	const char *probe[] = { "git", "-C", dir, "cat-file", "-e", spec, NULL };
	struct buf out = BUF_INIT(1 << 10);
	struct err e;
	int gone;

	snprintf(spec, sizeof(spec), "%s:m", commit);
	if (!gitmirror_run(size, NULL, timeout, 1 << 10, &out, &e)) {
		gone = strtoll(out.data, NULL, 10) > MAX_MESSAGE;
		buf_release(&out);
		return gone;
	}
	buf_release(&out);
	/* no m: a deletion when the commit itself reads */
	snprintf(spec, sizeof(spec), "%s^{commit}", commit);
	return !gitmirror_run(probe, NULL, timeout, 1 << 10, NULL, &e);
}

/* a poll writes only while its server holds the inbox's lock (a reconnect drops it) */
static int hold_lock(struct db_conn *c, long long id, struct err *e)
{
	int got = db_inbox_poll_hold(c, id, e);

	if (!got)
		err_setc(e, ERR_BUSY, "inbox",
			 "another server took the inbox's poll while a reconnect lost its lock");
	return got == 1 ? 0 : -1;
}

/* reads commit's message and stores it with the epoch's new position, in one transaction */
static int store_message(struct server *srv, struct db_conn *c, long long id, int epoch,
			 const char *dir, const char *commit, long *added, struct err *e)
{
	char spec[64], mid[1024], irt[1024], v[4096], subject[1024], author[512], rcpt[4200];
	char sent[40] = "", refsv[8192], to[2048], cc[2048];
	struct buf raw = BUF_INIT(MAX_MESSAGE);
	const char *argv[] = { "git", "-C", dir, "cat-file", "blob", spec, NULL };
	char *refs = NULL, *hex = NULL;
	time_t t;
	int got, ret = -1;

	snprintf(spec, sizeof(spec), "%s:m", commit);
	if (gitmirror_run(argv, NULL, (int)srv->cfg->poll_timeout_s, MAX_MESSAGE, &raw, e)) {
		if (!unreadable_for_good(dir, commit, (int)srv->cfg->poll_timeout_s))
			goto out;
		slog_warn("inbox %lld epoch %d commit %.12s: no message read, passed over: %s (%s)",
			  id, epoch, commit, e->message, e->detail);
		if (db_begin(c, e))
			goto out;
		if (hold_lock(c, id, e) || db_inbox_epoch_set(c, id, epoch, commit, 0, e) ||
		    db_commit(c, e)) {
			db_rollback(c);
			goto out;
		}
		ret = 0;
		goto out;
	}
	/* what is shown is UTF-8; b4 and git am get the bytes as sent */
	if (!utf8_valid(raw.data, raw.len)) {
		hex = xmalloc(2 * raw.len + 1);
		for (size_t k = 0; k < raw.len; k++)
			snprintf(hex + 2 * k, 3, "%02x", (unsigned char)raw.data[k]);
		hex[2 * raw.len] = '\0';
	}
	utf8_scrub(raw.data, raw.len);
	message_id_of(raw.data, raw.len, commit, mid, sizeof(mid));
	irt[0] = '\0';
	if (mailhdr_get(raw.data, raw.len, "In-Reply-To", v, sizeof(v)))
		mailhdr_msgid(v, 0, irt, sizeof(irt));
	mailhdr_get(raw.data, raw.len, "References", refsv, sizeof(refsv));
	/* no In-Reply-To: the parent is the last of References (the first is the root) */
	if (!irt[0] && refsv[0]) {
		size_t k = 0;

		while (mailhdr_msgid(refsv, k, irt, sizeof(irt)))
			k++;
		if (k)
			mailhdr_msgid(refsv, k - 1, irt, sizeof(irt));
	}
	refs = refs_literal(refsv);
	mailhdr_get(raw.data, raw.len, "Subject", subject, sizeof(subject));
	mailhdr_get(raw.data, raw.len, "From", author, sizeof(author));
	mailhdr_get(raw.data, raw.len, "To", to, sizeof(to));
	mailhdr_get(raw.data, raw.len, "Cc", cc, sizeof(cc));
	snprintf(rcpt, sizeof(rcpt), "%.2040s%s%.2040s", to, to[0] && cc[0] ? ", " : "", cc);
	if (mailhdr_get(raw.data, raw.len, "Date", v, sizeof(v)) && !mailhdr_date(v, &t)) {
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(sent, sizeof(sent), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	if (db_begin(c, e))
		goto out;
	if (hold_lock(c, id, e)) {
		db_rollback(c);
		goto out;
	}
	{
		struct db_inbox_message m = {
			.epoch = epoch,
			.git_commit = commit,
			.message_id = mid,
			.in_reply_to = irt[0] ? irt : NULL,
			.refs = refs,
			.subject = subject,
			.author = author,
			.recipients = rcpt,
			.sent_at = sent[0] ? sent : NULL,
			.raw = raw.data,
			.raw_hex = hex,
		};

		got = db_inbox_message_insert(c, id, &m, e);
	}
	if (got < 0 || db_inbox_epoch_set(c, id, epoch, commit, got, e) || db_commit(c, e)) {
		db_rollback(c);
		goto out;
	}
	*added += got;
	ret = 0;
out:
	free(refs);
	free(hex);
	buf_release(&raw);
	return ret;
}

/*
 * reads epoch's commits after `last` ("" none) oldest first; *added counts messages stored.
 * An epoch without a position before the inbox's first good poll starts at its head (the
 * archive's past is not tested), or reads back to p->since.
 */
static int read_epoch(struct inbox_poller *pl, struct db_conn *c, long long id,
		      const struct db_inbox_poll *p, int epoch, const char *dir, const char *last,
		      long *added, struct err *e)
{
	struct server *srv = pl->srv;
	int timeout = (int)srv->cfg->poll_timeout_s;
	char range[100];
	struct buf out = BUF_INIT(MAX_LIST);
	const char *argv[] = { "git", "-C", dir, "rev-list", "--reverse", range, NULL };
	const char *probe[] = { "git", "-C", dir, "cat-file", "-e", range, NULL };
	const char *headv[] = { "git", "-C", dir, "rev-parse", "--verify", "HEAD^{commit}", NULL };
	char since[40], head[41] = "";
	char *save = NULL, *line;
	long n = 0;
	int ret = -1;
	struct err pe;

	/* an epoch rewritten under its last commit (an admin's purge): read it all again */
	if (last[0]) {
		snprintf(range, sizeof(range), "%s^{commit}", last);
		if (gitmirror_run(probe, NULL, timeout, 1 << 10, NULL, &pe))
			last = "";
	}
	if (last[0])
		snprintf(range, sizeof(range), "%s..HEAD", last);
	else
		snprintf(range, sizeof(range), "HEAD");
	if (!last[0] && !p->started) {
		if (gitmirror_run(headv, NULL, timeout, 1 << 10, &out, e)) {
			/* an epoch without a commit yet (a new list) has no past: read from its
			 * first message on */
			const char *refs[] = { "git", "-C", dir, "for-each-ref", "--count=1", NULL };

			if (!gitmirror_run(refs, NULL, timeout, 1 << 10, &out, &pe) && !out.len)
				ret = 0;
			goto out;
		}
		if (out.len < 40 || !names_full_sha((out.data[40] = '\0', out.data))) {
			err_setc(e, ERR_GIT, "HEAD", "epoch %d: HEAD is not a commit", epoch);
			goto out;
		}
		memcpy(head, out.data, 41);
		if (p->since < 0) {
			if (!hold_lock(c, id, e) && !db_inbox_epoch_set(c, id, epoch, head, 0, e))
				ret = 0;
			goto out;
		}
		/* the commits the archive received since then (a list's history is linear) */
		snprintf(since, sizeof(since), "--since=@%lld", p->since);
		snprintf(range, sizeof(range), "%s", head);
		{
			const char *rl[] = { "git",	  "-C",	 dir,	"rev-list",
					     "--reverse", since, range, NULL };

			if (gitmirror_run(rl, NULL, timeout, MAX_LIST, &out, e))
				goto out;
		}
	} else if (gitmirror_run(argv, NULL, timeout, MAX_LIST, &out, e)) {
		goto out;
	}
	/* the oldest first, MAX_PER_POLL of them (--max-count would keep the newest) */
	for (line = strtok_r(out.data, "\n", &save);
	     line && n < MAX_PER_POLL && !atomic_load(&pl->stopping);
	     line = strtok_r(NULL, "\n", &save)) {
		if (!names_full_sha(line))
			continue;
		if (store_message(srv, c, id, epoch, dir, line, added, e))
			goto out;
		n++;
	}
	/* every one since read: the position is the head, even when none was new */
	if (head[0] && !line && !atomic_load(&pl->stopping) &&
	    (hold_lock(c, id, e) || db_inbox_epoch_set(c, id, epoch, head, 0, e)))
		goto out;
	ret = 0;
out:
	buf_release(&out);
	return ret;
}

/* one poll of a claimed inbox: every epoch synced and read; 0 or -1 with e */
static int poll_epochs(struct inbox_poller *pl, struct db_conn *c, long long id,
		       const struct db_inbox_poll *p, long *added, struct err *e)
{
	struct server *srv = pl->srv;
	int timeout = (int)srv->cfg->poll_timeout_s;
	struct db_inbox_epoch *ep = NULL;
	size_t nep = 0;
	char parent[4096];
	int ret = -1;

	if (!names_plain(p->name, NAMES_PLAIN_MAX))
		return err_setc(e, ERR_INVALID_FIELD, "name", "inbox name '%s' is not plain",
				p->name);
	snprintf(parent, sizeof(parent), "%s/inboxes/%s", srv->cfg->data_dir, p->name);
	if (fs_mkdirs(parent, 0755, e) || db_inbox_epochs(c, id, &ep, &nep, e))
		return -1;
	for (int n = 0; n < MAX_EPOCHS && !atomic_load(&pl->stopping); n++) {
		char dir[4200];
		const char *last = "";
		int got;

		for (size_t i = 0; i < nep; i++)
			if (ep[i].epoch == n)
				last = ep[i].last;
		snprintf(dir, sizeof(dir), "%s/%d.git", parent, n);
		/* a URL's epoch that cannot be cloned ends the list only past the known ones */
		got = sync_epoch(p->url, n, dir, n > 0 && (!nep || n > ep[nep - 1].epoch), timeout,
				 e);
		if (got < 0)
			goto out;
		if (!got) {
			if (!n) {
				char src[4600];

				epoch_source(p->url, 0, src, sizeof(src));
				err_setc(e, ERR_GIT, "url", "no epoch 0 at '%s'", src);
				goto out;
			}
			break;
		}
		if (read_epoch(pl, c, id, p, n, dir, last, added, e))
			goto out;
	}
	ret = 0;
out:
	free(ep);
	return ret;
}

static void poll_one(struct inbox_poller *pl, struct db_conn *c, long long id,
		     const struct db_inbox_poll *p)
{
	long long t0 = mono_ms();
	char msg[700];
	struct err ge, e;
	long added = 0;
	int ok = !poll_epochs(pl, c, id, p, &added, &ge);

	if (!ok)
		snprintf(msg, sizeof(msg), "%s%s%s", ge.message, ge.detail[0] ? ": " : "",
			 ge.detail);
	/* deadlines pass and complete series are checked even while the inbox is unreachable;
	 * not after a reconnect lost the lock to another server */
	if (!hold_lock(c, id, &e)) {
		if (inbox_series_step(pl->srv, c, id, &pl->stop, &e) && ok) {
			ok = 0;
			snprintf(msg, sizeof(msg), "series: %s", e.message);
		}
		inbox_reply_step(pl->srv, c, id);
	} else if (ok) {
		ok = 0;
		snprintf(msg, sizeof(msg), "%s", e.message);
	}
	if (db_inbox_poll_done(c, id, (long)(mono_ms() - t0), ok ? NULL : msg, &e))
		slog_warn("inbox '%s': recording the poll: %s", p->name, e.message);
	if (ok)
		slog_info("inbox '%s' polled in %lld ms, %ld new message(s)", p->name,
			  mono_ms() - t0, added);
	else
		slog_warn("inbox '%s': poll failed: %s", p->name, msg);
}

static long poll_step(void *arg, int *fd UNUSED)
{
	struct inbox_poller *pl = arg;
	struct server *srv = pl->srv;
	struct err e;
	struct db_conn *c = db_conn(srv->db, &e);
	long long *ids;
	size_t n;

	if (!c)
		return srv->cfg->poll_tick_ms;
	if (db_inbox_poll_due(c, &ids, &n, &e)) {
		slog_warn("inbox poller: %s", e.message);
		return srv->cfg->poll_tick_ms;
	}
	for (size_t i = 0; i < n && !atomic_load(&pl->stopping); i++) {
		struct db_inbox_poll p;
		int got = db_inbox_poll_lock(c, ids[i], &e);

		if (got <= 0)
			continue; /* another server polls it */
		got = db_inbox_poll_claim(c, ids[i], &p, &e);
		if (got > 0)
			poll_one(pl, c, ids[i], &p);
		db_inbox_poll_release(&p);
		db_inbox_poll_unlock(c, ids[i]);
	}
	free(ids);
	return srv->cfg->poll_tick_ms;
}

struct inbox_poller *inbox_poller_start(struct server *srv)
{
	struct inbox_poller *pl = xcalloc(1, sizeof(*pl));
	struct err e;

	pl->srv = srv;
	pthread_mutex_init(&pl->lock, NULL);
	pl->t = bgthread_start("inbox", poll_step, pl, &e);
	if (!pl->t) {
		slog_error("%s", e.message);
		pthread_mutex_destroy(&pl->lock);
		free(pl);
		return NULL;
	}
	return pl;
}

void inbox_poller_kick(struct inbox_poller *pl)
{
	if (!pl)
		return;
	pthread_mutex_lock(&pl->lock);
	if (pl->t)
		bgthread_kick(pl->t);
	pthread_mutex_unlock(&pl->lock);
}

void inbox_poller_stop(struct inbox_poller *pl)
{
	struct bgthread *t;

	if (!pl)
		return;
	atomic_store(&pl->stopping, 1);
	pl->stop = 1;
	pthread_mutex_lock(&pl->lock);
	t = pl->t;
	pl->t = NULL;
	pthread_mutex_unlock(&pl->lock);
	bgthread_stop(t);
	pthread_mutex_destroy(&pl->lock);
	free(pl);
}
