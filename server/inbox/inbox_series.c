/* Series assembly from an inbox's messages (see inbox_series.h). */
#include "server/inbox/inbox_series.h"
#include "fsutil.h"
#include "maintainers.h"
#include "names.h"
#include "patchsubj.h"
#include "runcmd.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/db/inbox_series.h"
#include "server/track/gitmirror.h"
#include "server/track/gitmirror_git.h"
#include "server/log.h"
#include "server/server.h"
#include "buf.h"
#include "mbox.h"
#include "xalloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_MBOX (16 << 20) /* bytes of a series' thread or am-ready mbox */

/* line-separated items of s (modified in place) into words[0..max) */
static size_t split_lines(char *s, const char **words, size_t max)
{
	size_t n = 0;

	for (char *save = NULL, *w = strtok_r(s, "\n", &save); w && n < max;
	     w = strtok_r(NULL, "\n", &save))
		words[n++] = w;
	return n;
}

/* whether recipients name one of the inbox's lists ("" lists: any) */
static int to_a_list(const char *lists, const char *recipients)
{
	char *t = xstrdup(lists);
	const char *w[64];
	size_t n = split_lines(t, w, 64);
	int ok = !n;

	for (size_t i = 0; i < n && !ok; i++)
		ok = strcasestr(recipients, w[i]) != NULL;
	free(t);
	return ok;
}

/* the series a part belongs to: its anchor's Message-ID into out */
static int anchor_of(struct db_conn *c, long long inbox_id, const struct db_inbox_unassigned *m,
		     const struct patchsubj *ps, char *out, size_t size, struct err *e)
{
	char *refs = xstrdup(m->refs), subj[1024];
	int found = 0;

	snprintf(out, size, "%s", m->message_id);
	if (ps->part == 0) {
		free(refs);
		return 0;
	}
	for (char *save = NULL, *r = strtok_r(refs, " ", &save); r && !found;
	     r = strtok_r(NULL, " ", &save)) {
		struct patchsubj rp;
		int got = db_inbox_message_subject(c, inbox_id, r, subj, sizeof(subj), e);

		if (got < 0) {
			free(refs);
			return -1;
		}
		/* not stored yet: the cover letter may come later than its parts */
		if (!got || (patchsubj_parse(subj, &rp) && rp.version == ps->version &&
			     rp.part <= 1 && rp.total == ps->total)) {
			snprintf(out, size, "%s", r);
			found = 1;
		}
	}
	free(refs);
	return 0;
}

/* step 1: the new messages into series */
static int assign(struct db_conn *c, long long inbox_id, const struct db_inbox_filter *f,
		  struct err *e)
{
	struct db_inbox_unassigned *rows;
	size_t n;
	char *pt = xstrdup(f->prefixes);
	const char *prefixes[64];
	size_t np = split_lines(pt, prefixes, 64);
	int ret = -1;

	if (db_inbox_unassigned(c, inbox_id, &rows, &n, e)) {
		free(pt);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct db_inbox_unassigned *m = &rows[i];
		struct patchsubj ps;
		char anchor[1024];
		long long sid = 0;

		if (db_begin(c, e))
			goto out;
		if (patchsubj_parse(m->subject, &ps) && to_a_list(f->lists, m->recipients) &&
		    patchsubj_prefix_match(ps.prefix, prefixes, np)) {
			struct db_inbox_series_new s = {
				.anchor = anchor,
				.title = ps.title,
				.author = "",
				.cover = ps.part == 0,
				.version = ps.version,
				.total = ps.total,
				.resend = ps.resend,
				.lead = ps.part <= 1,
			};

			if (anchor_of(c, inbox_id, m, &ps, anchor, sizeof(anchor), e))
				goto rollback;
			sid = db_inbox_series_upsert(c, inbox_id, &s, e);
			if (sid < 0)
				goto rollback;
		}
		if (db_inbox_message_assign(c, m->id, sid, ps.part, e) || db_commit(c, e))
			goto rollback;
		continue;
rollback:
		db_rollback(c);
		goto out;
	}
	ret = 0;
out:
	db_inbox_unassigned_free(rows, n);
	free(pt);
	return ret;
}

/* the 40-hex sha after "base-commit: " at a line's start in text, or 0 */
static int base_commit(const char *text, char sha[41])
{
	for (const char *p = text; (p = strstr(p, "base-commit: ")); p++) {
		if (p != text && p[-1] != '\n')
			continue;
		p += strlen("base-commit: ");
		if (strspn(p, "0123456789abcdef") >= 40 &&
		    (p[40] == '\n' || !p[40] || p[40] == '\r')) {
			memcpy(sha, p, 40);
			sha[40] = '\0';
			return 1;
		}
	}
	return 0;
}

/*
 * whether the am-ready mbox touches a path under one of paths or one of m's (NULL: none);
 * neither given: any
 */
static int touches(const char *mbox, const char *paths, const struct maintainers *m, char *first,
		   size_t size)
{
	char *t = xstrdup(paths), one[4096];
	const char *w[64];
	size_t n = split_lines(t, w, 64);
	int ok = !n && !m;

	first[0] = '\0';
	for (const char *p = mbox; !ok && (p = strstr(p, "\ndiff --git a/")); p++) {
		const char *path = p + strlen("\ndiff --git a/"), *end = strstr(path, " b/");
		size_t l = end ? (size_t)(end - path) : 0;

		if (!first[0])
			snprintf(first, size, "%.*s", (int)l, path);
		for (size_t i = 0; i < n && !ok; i++)
			ok = l >= strlen(w[i]) && !strncmp(path, w[i], strlen(w[i]));
		if (!ok && m && l < sizeof(one)) {
			memcpy(one, path, l);
			one[l] = '\0';
			ok = maintainers_match(m, one);
		}
	}
	free(t);
	return ok;
}

static int write_file(const char *path, const char *data, size_t len, struct err *e)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(data, 1, len, f) == len;

	if (f)
		ok = !fclose(f) && ok;
	if (!ok)
		return err_setc(e, ERR_IO, path, "cannot write '%s'", path);
	return 0;
}

/*
 * runs argv in cwd with env, stdin from stdin_path (NULL: none), killed when *stop: 0 with
 * out; -1 with e when it failed, -2 with e when it ran past timeout or was stopped (may pass)
 */
static int run(const char *const *argv, const char *cwd, const char *const *env,
	       const char *stdin_path, int timeout, volatile sig_atomic_t *stop, struct buf *out,
	       struct err *e)
{
	struct runcmd cmd;
	char what[256];
	int ret = 0;

	runcmd_init(&cmd, argv, timeout);
	cmd.cwd = cwd;
	cmd.env = env;
	cmd.stdin_path = stdin_path;
	cmd.cancel = stop;
	buf_init(&cmd.out, MAX_MBOX);
	cmd.keep_tail = 0;
	if (runcmd_run(&cmd, e) < 0) {
		runcmd_release(&cmd);
		return -1;
	}
	if (!runcmd_ok(&cmd) || cmd.out_dropped) {
		const char *last = cmd.err.data;
		size_t l = cmd.err.len;

		while (l && cmd.err.data[l - 1] == '\n')
			l--;
		for (size_t i = l; i > 0; i--)
			if (cmd.err.data[i - 1] == '\n') {
				last = cmd.err.data + i;
				break;
			}
		ret = err_setc(e, ERR_GIT, argv[0], "%s: %.*s",
			       runcmd_describe(&cmd, what, sizeof(what)),
			       (int)(l - (size_t)(last - cmd.err.data)), last);
		if (cmd.timed_out || cmd.cancelled)
			ret = -2;
	} else if (out) {
		ret = buf_add(out, cmd.out.data, cmd.out.len) ?
			      err_setc(e, ERR_TOO_LARGE, argv[0], "'%s' wrote too much", argv[0]) :
			      0;
	}
	runcmd_release(&cmd);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* `git patch-id --stable` of each patch of the mbox file, sorted and joined by ',' */
static char *patch_ids(const char *dir, const char *mbox, int timeout, volatile sig_atomic_t *stop,
		       struct err *e)
{
	const char *argv[] = { "git", "patch-id", "--stable", NULL };
	struct buf out = BUF_INIT(MAX_MBOX), j = BUF_INIT(0);
	const char *ids[4096];
	size_t n = 0;
	char *s = NULL;
	int over = 0;

	if (run(argv, dir, NULL, mbox, timeout, stop, &out, e))
		goto out;
	for (char *save = NULL, *l = strtok_r(out.data, "\n", &save); l && n < 4096;
	     l = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(l, ' ');

		if (sp)
			*sp = '\0';
		if (names_full_sha(l))
			ids[n++] = l;
	}
	qsort(ids, n, sizeof(ids[0]), cmp_str);
	for (size_t i = 0; i < n; i++)
		over |= buf_addf(&j, "%s%s", i ? "," : "", ids[i]);
	if (over || !n) {
		err_setc(e, ERR_GIT, "patches", "no patch-id in the series");
		goto out;
	}
	s = xstrdup(j.data);
out:
	buf_release(&out);
	buf_release(&j);
	return s;
}

/* queues the A/B request of a checked series; its id, or -1 with e */
static long long queue(struct server *srv, struct db_conn *c, const struct db_inbox_filter *f,
		       const char *anchor, const char *base, const char *mbox, struct err *e)
{
	char label[1100];
	json_t *b;
	long long id;

	if (!srv->submit_request)
		return err_setc(e, ERR_INTERNAL, "request", "no request submission in this server");
	snprintf(label, sizeof(label), "<%s>", anchor);
	/* the request is stored in a transaction of its own: one a killed server queued
	 * before it recorded it is taken, not queued again */
	switch (db_inbox_request_adopt(c, label, mbox, &id, e)) {
	case -1:
		return -1;
	case 1:
		return id;
	}
	b = json_pack("{s:s,s:s,s:s,s:s}", "plan", f->plan, "base", base, "patches", mbox, "label",
		      label);
	/* jansson takes only UTF-8: a message in another charset, sent 8-bit */
	if (!b)
		return err_setc(e, ERR_INVALID_FIELD, "patches",
				"the series' patches are not UTF-8 text");
	id = srv->submit_request(srv, c, b, e);
	json_decref(b);
	return id;
}

/* the checks of a complete series in work dir tmp; its new state, reason and fields */
/*
 * the F:/X: patterns of the filter's MAINTAINERS entries in the plan's tree at its branch
 * head into *m: 1 read, 0 no entries asked for, -1 with e (the mirror, git: may pass)
 */
static int maintainers_of(struct server *srv, const struct db_inbox_filter *f, int timeout,
			  struct maintainers *m, char *why, size_t size, struct err *e)
{
	char *t = xstrdup(f->maintainers), mirror[4096], spec[400];
	const char *names[64];
	size_t n = split_lines(t, names, 64), missing;
	const char *argv[] = { "git", "-C", mirror, "show", spec, NULL };
	struct buf text = BUF_INIT(16 << 20);
	int ret = -1;

	memset(m, 0, sizeof(*m));
	if (!n || !f->tree) {
		free(t);
		return 0;
	}
	snprintf(spec, sizeof(spec), "refs/heads/%s:MAINTAINERS", f->branch ? f->branch : "master");
	if (gitmirror_path(srv->cfg->data_dir, f->tree, mirror, sizeof(mirror), e) ||
	    gitmirror_run(argv, NULL, timeout, 16 << 20, &text, e))
		goto out;
	missing = maintainers_read(text.data, text.len, names, n, m);
	if (missing)
		snprintf(why, size,
			 "%zu of the inbox's MAINTAINERS entries not in %s's MAINTAINERS", missing,
			 f->tree);
	ret = 1;
out:
	buf_release(&text);
	free(t);
	return ret;
}

/* whether a refused submission stays refused (the series as it is never becomes a request) */
static int for_good(enum err_code id)
{
	switch (id) {
	case ERR_APPLY_FAILED:
	case ERR_CONFLICT:
	case ERR_FORBIDDEN:
	case ERR_INVALID_FIELD:
	case ERR_INVALID_JOB:
	case ERR_INVALID_JSON:
	case ERR_MISSING_FIELD:
	case ERR_NOT_FOUND:
	case ERR_TOO_LARGE:
		return 1;
	default:
		return 0;
	}
}

/*
 * the checks of a complete series in work dir tmp: 0 its new state, reason and fields
 * recorded; -1 with e for a failure that may pass (the series stays waiting)
 */
static int check(struct server *srv, struct db_conn *c, const struct db_inbox_filter *f,
		 const struct db_inbox_waiting *w, const char *tmp, volatile sig_atomic_t *stop,
		 struct err *e)
{
	int timeout = (int)srv->cfg->git_timeout_s;
	struct buf thread = BUF_INIT(MAX_MBOX), lead = BUF_INIT(MAX_MBOX), am = BUF_INIT(MAX_MBOX);
	char thread_path[4300], am_path[4300], wt[4300], mirror[4096], home[4400], base[41] = "";
	char ver[24], first[300], why[1200], *ids = NULL;
	const char *state = NULL;
	long long dup, request = 0;
	int ret = -1, got;
	struct err ge = { 0 };
	struct maintainers maint = { 0 };

	snprintf(thread_path, sizeof(thread_path), "%s/thread.mbox", tmp);
	snprintf(am_path, sizeof(am_path), "%s/series.mbox", tmp);
	snprintf(wt, sizeof(wt), "%s/tree", tmp);
	snprintf(home, sizeof(home), "HOME=%s", tmp);
	snprintf(ver, sizeof(ver), "%d", w->version);
	why[0] = '\0';
	if (db_inbox_series_thread(c, w->id, &thread, &lead, e) ||
	    write_file(thread_path, thread.data, thread.len, e))
		goto out;
	{
		const char *argv[] = {
			"b4", "--offline-mode", "am", "-m", thread_path, "-o", "-", "-v", ver,
			"--", w->anchor,	NULL
		};
		const char *env[] = { home,
				      "XDG_CACHE_HOME",
				      "XDG_CONFIG_HOME",
				      "XDG_DATA_HOME",
				      "GIT_CONFIG_COUNT=2",
				      "GIT_CONFIG_KEY_0=user.name",
				      "GIT_CONFIG_VALUE_0=regtrack",
				      "GIT_CONFIG_KEY_1=user.email",
				      "GIT_CONFIG_VALUE_1=regtrack@localhost",
				      NULL };

		got = run(argv, tmp, env, NULL, timeout, stop, &am, &ge);
		if (got == -2) {
			*e = ge;
			goto out;
		}
		if (got || !strstr(am.data, "\ndiff --git ")) {
			state = "not-applying";
			snprintf(why, sizeof(why), "b4 am made no series: %s",
				 ge.message[0] ? ge.message : "no patch in its output");
			goto decided;
		}
	}
	got = maintainers_of(srv, f, timeout, &maint, why, sizeof(why), e);
	if (got < 0)
		goto out;
	if (!touches(am.data, f->paths, got ? &maint : NULL, first, sizeof(first))) {
		state = "filtered";
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "%stouches none of the inbox's paths or MAINTAINERS entries (%s, ...)",
			 why[0] ? "; " : "", first);
		goto decided;
	}
	why[0] = '\0';
	if (am.len > MBOX_MAX_BYTES) {
		state = "filtered";
		snprintf(why, sizeof(why), "its patches are %zu bytes, a request takes at most %d",
			 am.len, MBOX_MAX_BYTES);
		goto decided;
	}
	if (!f->plan || !f->tree) {
		state = "filtered";
		snprintf(why, sizeof(why), "the inbox names no plan (or its plan no tree)");
		goto decided;
	}
	if (gitmirror_path(srv->cfg->data_dir, f->tree, mirror, sizeof(mirror), e))
		goto out;
	/* the base-commit: trailer when the mirror has it, else the plan's branch head now */
	if (!(base_commit(lead.data, base) && gitmirror_has_commit(mirror, base, timeout))) {
		char ref[300];

		snprintf(ref, sizeof(ref), "refs/heads/%s", f->branch ? f->branch : "master");
		got = gitmirror_rev_parse(mirror, ref, "base", timeout, base, e);
		if (got <= 0) {
			if (!got)
				err_setc(e, ERR_NOT_FOUND, "base",
					 "no base-commit in the mirror and no '%s' in it", ref);
			goto out;
		}
	}
	if (write_file(am_path, am.data, am.len, e))
		goto out;
	{
		const char *clone[] = { "git", "clone", "--quiet", "--shared", "--no-checkout",
					"--",  mirror,	wt,	   NULL };
		const char *co[] = {
			"git", "-C", wt, "checkout", "--quiet", "--detach", base, NULL
		};
		const char *apply[] = { "git",
					"-C",
					wt,
					"-c",
					"user.name=regtrack",
					"-c",
					"user.email=regtrack@localhost",
					"am",
					"--quiet",
					am_path,
					NULL };

		if (gitmirror_run(clone, NULL, timeout, 1 << 20, NULL, e) ||
		    gitmirror_run(co, NULL, timeout, 1 << 20, NULL, e))
			goto out;
		got = run(apply, tmp, NULL, NULL, timeout, stop, NULL, &ge);
		if (got == -2) {
			*e = ge;
			goto out;
		}
		if (got) {
			state = "not-applying";
			snprintf(why, sizeof(why), "git am on %.12s: %s", base, ge.message);
			goto decided;
		}
	}
	ids = patch_ids(tmp, am_path, timeout, stop, e);
	if (!ids)
		goto out;
	switch (db_inbox_series_dup(c, w->id, ids, &dup, e)) {
	case -1:
		goto out;
	case 1:
		ret = db_inbox_series_dup_set(c, w->id, dup, ids, e);
		slog_info("inbox series %lld '%s': the same patches as series %lld", w->id,
			  w->title, dup);
		goto out;
	}
	request = queue(srv, c, f, w->anchor, base, am.data, &ge);
	if (request < 0) {
		if (!for_good(ge.id)) {
			*e = ge;
			request = 0;
			goto out;
		}
		state = ge.id == ERR_APPLY_FAILED ? "not-applying" : "failed";
		snprintf(why, sizeof(why), "not queued: %s (%s)", ge.message, ge.detail);
		request = 0;
		goto decided;
	}
	state = "queued";
decided:
	ret = db_inbox_series_set(c, w->id, state, why[0] ? why : NULL, base[0] ? base : NULL, ids,
				  request, e);
	slog_info("inbox series %lld '%s' v%d: %s%s%s", w->id, w->title, w->version, state,
		  why[0] ? ": " : "", why);
out:
	maintainers_release(&maint);
	free(ids);
	buf_release(&thread);
	buf_release(&lead);
	buf_release(&am);
	return ret;
}

/* a check that failed for now: backed off, or `failed` past the last try */
static void retry(struct db_conn *c, const struct db_inbox_waiting *w, const struct err *why)
{
	char reason[1200];
	struct err e;

	snprintf(reason, sizeof(reason), "%s%s%s%s", why->message, why->detail[0] ? " (" : "",
		 why->detail, why->detail[0] ? ")" : "");
	switch (db_inbox_series_retry(c, w->id, reason, INBOX_SERIES_TRIES, &e)) {
	case -1:
		slog_warn("inbox series %lld '%s': %s; recording it: %s", w->id, w->title, reason,
			  e.message);
		break;
	case 0:
		slog_warn("inbox series %lld '%s': %s; tried again later", w->id, w->title, reason);
		break;
	default:
		slog_warn("inbox series %lld '%s' v%d: failed: %s (%d tries)", w->id, w->title,
			  w->version, reason, INBOX_SERIES_TRIES);
	}
}

int inbox_series_step(struct server *srv, struct db_conn *c, long long inbox_id,
		      volatile sig_atomic_t *stop, struct err *e)
{
	struct db_inbox_filter f;
	struct db_inbox_waiting *w = NULL;
	size_t n = 0;
	int ret = -1;

	if (db_inbox_filter(c, inbox_id, &f, e) || assign(c, inbox_id, &f, e) ||
	    db_inbox_series_waiting(c, inbox_id, &w, &n, e))
		goto out;
	for (size_t i = 0; i < n && !*stop; i++) {
		char tmp[4200];
		struct err se;

		if (!w[i].complete) {
			if (w[i].expired && db_inbox_series_set(c, w[i].id, "incomplete",
								"parts missing at the deadline",
								NULL, NULL, 0, &se))
				slog_warn("inbox series %lld: %s", w[i].id, se.message);
			continue;
		}
		/* one server holds the inbox: a killed one's leftover is removed first */
		snprintf(tmp, sizeof(tmp), "%s/inboxes/.work-%lld", srv->cfg->data_dir, w[i].id);
		{
			const char *rm[] = { "rm", "-rf", "--", tmp, NULL };
			struct err re;

			if (gitmirror_run(rm, NULL, 600, 1 << 16, NULL, &se) ||
			    fs_mkdirs(tmp, 0700, &se) || check(srv, c, &f, &w[i], tmp, stop, &se)) {
				if (*stop)
					slog_info("inbox series %lld '%s': stopped: %s", w[i].id,
						  w[i].title, se.message);
				else
					retry(c, &w[i], &se);
			}
			if (gitmirror_run(rm, NULL, 600, 1 << 16, NULL, &re))
				slog_warn("inbox series %lld: %s", w[i].id, re.message);
		}
	}
	ret = 0;
out:
	db_inbox_waiting_free(w, n);
	db_inbox_filter_release(&f);
	return ret;
}
