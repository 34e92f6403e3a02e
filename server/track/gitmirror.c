/* Bare mirrors of tracked trees and commit metadata (see gitmirror.h). */
#include "server/track/gitmirror.h"
#include "names.h"
#include "server/track/gitmirror_git.h"
#include "fsutil.h"
#include "server/db/db.h"
#include "server/db/trees.h"
#include "buf.h"
#include "runcmd.h"
#include "utf8.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#define IMPORT_BATCH 2000
#define OUT_CAP (512u << 20)

/*
 * No prompts, and only the transports a tracked tree needs: a tree URL is
 * admin input, and git's "ext::" (run a command) or "fd::" must never be
 * reachable through it. No program named by a repository's own files runs
 * either: hooks (a fetch runs reference-transaction) and fsmonitor are off
 * whatever the mirror's config says (GIT_CONFIG_* beats the repo config),
 * and no system config is read. An HTTP(S) transfer slower than 1 KiB/s
 * for 60 s is given up (http.lowSpeedLimit/Time, set there too, so that
 * what ran still reads "git clone"): a stalled upstream fails its poll in
 * a minute, not at poll_timeout_s or git_timeout_s.
 */
static const char *const git_env[] = { "GIT_TERMINAL_PROMPT=0",
				       "GIT_ASKPASS=true",
				       "LC_ALL=C",
				       "GIT_ALLOW_PROTOCOL=file:git:http:https:ssh",
				       "GIT_PROTOCOL_FROM_USER=0",
				       "GIT_CONFIG_NOSYSTEM=1",
				       "GIT_CONFIG_COUNT=4",
				       "GIT_CONFIG_KEY_0=core.hooksPath",
				       "GIT_CONFIG_VALUE_0=/dev/null",
				       "GIT_CONFIG_KEY_1=core.fsmonitor",
				       "GIT_CONFIG_VALUE_1=false",
				       "GIT_CONFIG_KEY_2=http.lowSpeedLimit",
				       "GIT_CONFIG_VALUE_2=1024",
				       "GIT_CONFIG_KEY_3=http.lowSpeedTime",
				       "GIT_CONFIG_VALUE_3=60",
				       NULL };

/* runs git; on failure fills e with what ran and git's last stderr line (gitmirror_git.h) */
int gitmirror_run(const char *const *argv, const char *cwd, int timeout_s, size_t out_cap,
		  struct buf *out, struct err *e)
{
	struct runcmd cmd;
	char how[96];
	int ret = 0;

	runcmd_init(&cmd, argv, timeout_s > 0 ? timeout_s : 600);
	cmd.cwd = cwd;
	cmd.env = git_env;
	cmd.out.cap = out_cap;
	cmd.keep_tail = 0;
	if (runcmd_run(&cmd, e)) {
		/* git did not start: runcmd's message and detail, the code saying so */
		char msg[sizeof(e->message)], detail[sizeof(e->detail)];

		snprintf(msg, sizeof(msg), "%s", e->message);
		snprintf(detail, sizeof(detail), "%s", e->detail);
		err_setc(e, ERR_SPAWN, detail, "%s", msg);
		runcmd_release(&cmd);
		return -1;
	}
	if (!runcmd_ok(&cmd) || cmd.out_dropped) {
		char *last = cmd.err.data, *nl;
		/* the last non-empty line of stderr */
		while (cmd.err.len && cmd.err.data[cmd.err.len - 1] == '\n')
			cmd.err.data[--cmd.err.len] = '\0';
		nl = strrchr(cmd.err.data, '\n');
		if (nl)
			last = nl + 1;
		/*
		 * unless git said what failed before that: a clone of a wrong
		 * URL ends in advice ("and the repository exists."), the
		 * first "fatal:" or "error:" line names the repository
		 */
		for (char *l = cmd.err.data; l && *l; l = (nl = strchr(l, '\n')) ? nl + 1 : NULL)
			if (!strncmp(l, "fatal: ", 7) || !strncmp(l, "error: ", 7)) {
				last = l;
				if ((nl = strchr(l, '\n')))
					*nl = '\0';
				break;
			}
		err_setc(e, ERR_GIT, last, "git %s: %s",
			 argv[1] && !strcmp(argv[1], "-C") ? (argv[3] ? argv[3] : "") :
							     (argv[1] ? argv[1] : ""),
			 cmd.out_dropped ? "output too large" :
					   runcmd_describe(&cmd, how, sizeof(how)));
		ret = -1;
	} else if (out) {
		buf_reset(out);
		if (buf_add(out, cmd.out.data, cmd.out.len))
			ret = err_setc(e, ERR_GIT, "", "git output too large");
	}
	runcmd_release(&cmd);
	return ret;
}

int gitmirror_path(const char *data_dir, const char *tree, char *dst, size_t n, struct err *e)
{
	if (!names_plain(tree, NAMES_PLAIN_MAX))
		return err_setc(e, ERR_INVALID_FIELD, "tree", "'%s' is not a tree name", tree);
	if ((size_t)snprintf(dst, n, "%s/mirrors/%s.git", data_dir, tree) >= n)
		return err_setc(e, ERR_INTERNAL, "data_dir", "data_dir is too long");
	return 0;
}

/*
 * Points the mirror's origin at url when it was cloned from another (a
 * changed url, or a mirror left by an earlier database under the same
 * tree name): it would otherwise go on fetching the old one.
 */
static int follow_url(const char *dir, const char *url, int timeout_s, struct err *e)
{
	const char *get[] = { "git", "-C", dir, "config", "--get", "remote.origin.url", NULL };
	const char *set[] = { "git", "-C", dir, "remote", "set-url", "origin", "--", url, NULL };
	struct buf out = BUF_INIT(1 << 16);
	struct err ge;
	int same;

	if (url[0] == '-')
		return err_setc(e, ERR_INVALID_FIELD, "url", "'url' may not start with '-'");
	/* no origin url at all (exit 1) is a url that differs */
	same = !gitmirror_run(get, NULL, timeout_s, 1 << 16, &out, &ge) && out.len &&
	       !strncmp(out.data, url, out.len - 1) && strlen(url) == out.len - 1;
	buf_release(&out);
	if (same)
		return 0;
	return gitmirror_run(set, NULL, timeout_s, 1 << 16, NULL, e);
}

/*
 * The bisect coordinator, the poller and A/B requests all sync mirrors: one
 * clone or fetch of a tree at a time in this process, so two threads never
 * clone into the same temporary directory (named by the pid) or race for a
 * ref lock. A lock per tree, not one for all: an upstream that stalls holds
 * up its own tree only (one lock for all once held a healthy tree's poll
 * for minutes). The locks live as long as the process; there are as many
 * as trees were synced.
 */
struct tree_lock {
	struct tree_lock *next;
	pthread_mutex_t lock;
	char name[];
};

static pthread_mutex_t locks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tree_lock *locks;

static pthread_mutex_t *tree_lock_of(const char *tree)
{
	struct tree_lock *l;

	pthread_mutex_lock(&locks_lock);
	for (l = locks; l && strcmp(l->name, tree); l = l->next)
		;
	if (!l) {
		size_t n = strlen(tree) + 1;

		l = xmalloc(sizeof(*l) + n);
		memcpy(l->name, tree, n);
		pthread_mutex_init(&l->lock, NULL);
		l->next = locks;
		locks = l;
	}
	pthread_mutex_unlock(&locks_lock);
	return &l->lock;
}

static int sync_locked(const char *data_dir, const char *tree, const char *url, int timeout_s,
		       struct err *e);

int gitmirror_sync(const char *data_dir, const char *tree, const char *url, int timeout_s,
		   struct err *e)
{
	pthread_mutex_t *lock = tree_lock_of(tree);
	struct timespec until;
	int ret;

	/* another thread's fetch of the tree counts against this one's timeout too: a
	 * request's short one is not spent waiting behind a poll's long one */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_s > 0 ? timeout_s : 600;
	if (pthread_mutex_timedlock(lock, &until))
		return err_setc(e, ERR_BUSY, "tree",
				"another fetch of tree '%s' held its mirror for %d s", tree,
				timeout_s > 0 ? timeout_s : 600);
	ret = sync_locked(data_dir, tree, url, timeout_s, e);
	pthread_mutex_unlock(lock);
	return ret;
}

static int sync_locked(const char *data_dir, const char *tree, const char *url, int timeout_s,
		       struct err *e)
{
	char dir[4096], tmp[4200], parent[4096];
	struct stat st;

	if (gitmirror_path(data_dir, tree, dir, sizeof(dir), e))
		return -1;
	if (!stat(dir, &st)) {
		const char *argv[] = { "git", "-C", dir, "fetch", "--prune", "--quiet", NULL };
		if (url && *url && follow_url(dir, url, timeout_s, e))
			return -1;
		return gitmirror_run(argv, NULL, timeout_s, 1 << 20, NULL, e);
	}
	if (!url || !*url || url[0] == '-')
		return err_setc(e, ERR_INVALID_FIELD, "url", "tree '%s' has no usable url", tree);
	snprintf(parent, sizeof(parent), "%s/mirrors", data_dir);
	if (fs_mkdirs(parent, 0755, e))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", dir, (long)getpid());
	{
		const char *rm[] = { "rm", "-rf", "--", tmp, NULL };
		const char *argv[] = { "git", "clone", "--mirror", "--quiet", "--", url, tmp, NULL };
		if (gitmirror_run(rm, NULL, 600, 1 << 16, NULL, e) ||
		    gitmirror_run(argv, NULL, timeout_s, 1 << 20, NULL, e))
			return -1;
	}
	if (rename(tmp, dir) && errno != ENOTEMPTY && errno != EEXIST)
		return err_setc(e, ERR_IO, dir, "cannot rename the new mirror: %s",
				strerror(errno));
	return 0;
}

static int split_lines(struct buf *out, char ***list, size_t *n)
{
	size_t alloc = 0;
	char *save = NULL, *line;

	*list = NULL;
	*n = 0;
	for (line = strtok_r(out->data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!names_full_sha(line))
			continue;
		ALLOC_GROW(*list, *n + 1, alloc);
		(*list)[(*n)++] = xstrdup(line);
	}
	return 0;
}

void gitmirror_free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static int range_arg(const char *good, const char *bad, char *dst, size_t n, struct err *e)
{
	if (!names_full_sha(good) || !names_full_sha(bad))
		return err_setc(e, ERR_INVALID_FIELD, names_full_sha(good) ? "bad" : "good",
				"good and bad must be 40-hex commit shas");
	snprintf(dst, n, "%s..%s", good, bad);
	return 0;
}

int gitmirror_first_parent(const char *dir, const char *good, const char *bad, int timeout_s,
			   char ***shas, size_t *n, struct err *e)
{
	char range[96];
	struct buf out = BUF_INIT(OUT_CAP);
	const char *argv[] = { "git",	    "-C",  dir,	 "rev-list", "--first-parent",
			       "--reverse", range, "--", NULL };

	*shas = NULL;
	*n = 0;
	if (range_arg(good, bad, range, sizeof(range), e) ||
	    gitmirror_run(argv, NULL, timeout_s, OUT_CAP, &out, e)) {
		buf_release(&out);
		return -1;
	}
	split_lines(&out, shas, n);
	buf_release(&out);
	if (!*n || strcmp((*shas)[*n - 1], bad)) {
		gitmirror_free_list(*shas, *n);
		*shas = NULL;
		*n = 0;
		return err_setc(e, ERR_INVALID_FIELD, "bad",
				"no commits in %.12s..%.12s: bad must be a descendant of good",
				good, bad);
	}
	return 0;
}

int gitmirror_bisect_all(const char *dir, const char *good, const char *bad, int timeout_s,
			 size_t *n, struct err *e)
{
	char range[96];
	struct buf out = BUF_INIT(OUT_CAP);
	const char *argv[] = { "git", "-C", dir, "rev-list", "--bisect-all", range, "--", NULL };

	*n = 0;
	if (range_arg(good, bad, range, sizeof(range), e) ||
	    gitmirror_run(argv, NULL, timeout_s, OUT_CAP, &out, e)) {
		buf_release(&out);
		return -1;
	}
	for (size_t i = 0; i < out.len; i++)
		if (out.data[i] == '\n')
			(*n)++;
	buf_release(&out);
	return 0;
}

int gitmirror_merge_side(const char *dir, const char *merge, const char *good, int timeout_s,
			 char p1[41], char ***shas, size_t *n, struct err *e)
{
	struct buf out = BUF_INIT(OUT_CAP);
	char **par = NULL, pos[48], neg[48], neg_good[48];
	size_t np = 0;
	const char *argv[] = { "git", "-C", dir,   "rev-list", "--parents",
			       "-n",  "1",  merge, "--",       NULL };
	const char *side[] = { "git",
			       "-C",
			       dir,
			       "rev-list",
			       "--first-parent",
			       "--reverse",
			       pos,
			       neg,
			       good ? neg_good : "--",
			       good ? "--" : NULL,
			       NULL };
	int ret = -1;

	*shas = NULL;
	*n = 0;
	p1[0] = '\0';
	if (!names_full_sha(merge) || (good && !names_full_sha(good)))
		return err_setc(e, ERR_INVALID_FIELD, names_full_sha(merge) ? "good" : "merge",
				"'%s' is not a 40-hex sha", names_full_sha(merge) ? good : merge);
	if (good)
		snprintf(neg_good, sizeof(neg_good), "^%s", good);
	if (gitmirror_run(argv, NULL, timeout_s, 1 << 16, &out, e))
		goto out;
	/* "MERGE P1 P2 ...": one line, spaces between */
	for (size_t i = 0; i < out.len; i++)
		if (out.data[i] == ' ')
			out.data[i] = '\n';
	split_lines(&out, &par, &np);
	if (np != 3 || strcmp(par[0], merge)) {
		ret = 0;
		goto out;
	}
	snprintf(p1, 41, "%s", par[1]);
	snprintf(pos, sizeof(pos), "%s", par[2]);
	snprintf(neg, sizeof(neg), "^%s", par[1]);
	if (gitmirror_run(side, NULL, timeout_s, OUT_CAP, &out, e))
		goto out;
	split_lines(&out, shas, n);
	ret = 0;
out:
	gitmirror_free_list(par, np);
	buf_release(&out);
	return ret;
}

int gitmirror_has_commit(const char *dir, const char *sha, int timeout_s)
{
	char obj[64];
	struct err e;
	const char *argv[] = { "git", "-C", dir, "cat-file", "-e", obj, NULL };

	if (!names_full_sha(sha))
		return 0;
	snprintf(obj, sizeof(obj), "%s^{commit}", sha);
	return gitmirror_run(argv, NULL, timeout_s, 1 << 16, NULL, &e) == 0;
}

/*
 * appends one quoted element of a PostgreSQL array literal; a byte that is
 * no UTF-8 (an author or subject in Latin-1) goes in as '?', since the
 * database refuses the whole batch, and so every later poll, otherwise
 */
static int add_elem(struct buf *b, const char *s, size_t len)
{
	int over = 0;

	over |= buf_addstr(b, b->len > 1 ? ",\"" : "\"");
	for (size_t i = 0; i < len;) {
		size_t l = utf8_seq_len((const unsigned char *)s + i, len - i);

		if (!l) {
			over |= buf_addch(b, '?');
			i++;
			continue;
		}
		if (s[i] == '"' || s[i] == '\\')
			over |= buf_addch(b, '\\');
		over |= buf_add(b, s + i, l);
		i += l;
	}
	over |= buf_addch(b, '"');
	return over;
}

struct batch {
	struct buf col[5]; /* sha, parents, author, commit time, subject: the log's fields */
	size_t n;
};

static void batch_reset(struct batch *bt)
{
	for (int i = 0; i < 5; i++) {
		buf_reset(&bt->col[i]);
		if (buf_addch(&bt->col[i], '{'))
			abort();
	}
	bt->n = 0;
}

static int batch_flush(struct db_conn *c, struct batch *bt, long long tree_id, long long base,
		       struct err *e)
{
	const char *cols[5];

	if (!bt->n)
		return 0;
	for (int i = 0; i < 5; i++) {
		if (buf_addch(&bt->col[i], '}'))
			return err_setc(e, ERR_INTERNAL, "commits", "commit batch too large");
		cols[i] = bt->col[i].data;
	}
	if (db_commits_import(c, cols, tree_id, base, e))
		return -1;
	batch_reset(bt);
	return 0;
}

int gitmirror_import(struct db_conn *c, const char *dir, long long tree_id, const char *const *revs,
		     size_t nr_revs, int timeout_s, size_t *imported, struct err *e)
{
	return gitmirror_import_from(c, dir, tree_id, revs, nr_revs, 0, timeout_s, imported, e);
}

int gitmirror_import_from(struct db_conn *c, const char *dir, long long tree_id,
			  const char *const *revs, size_t nr_revs, long long base, int timeout_s,
			  size_t *imported, struct err *e)
{
	struct buf out = BUF_INIT(OUT_CAP);
	const char **argv = xcalloc(nr_revs + 10, sizeof(*argv));
	struct batch bt;
	size_t na = 0, total = 0;
	char *rec, *save = NULL;
	int ret = -1;

	if (imported)
		*imported = 0;
	argv[na++] = "git";
	argv[na++] = "-C";
	argv[na++] = dir;
	argv[na++] = "log";
	argv[na++] = "--topo-order";
	argv[na++] = "--reverse";
	argv[na++] = "--format=%H%x1f%P%x1f%an <%ae>%x1f%cI%x1f%s%x1e";
	if (!nr_revs)
		argv[na++] = "--all";
	for (size_t i = 0; i < nr_revs; i++) {
		if (!revs[i][0] || revs[i][0] == '-' || (revs[i][0] == '^' && revs[i][1] == '-')) {
			err_setc(e, ERR_INVALID_FIELD, "branches", "'%s' is not a revision",
				 revs[i]);
			free(argv);
			return -1;
		}
		argv[na++] = revs[i];
	}
	argv[na++] = "--";
	argv[na] = NULL;
	memset(&bt, 0, sizeof(bt));
	for (int i = 0; i < 5; i++)
		buf_init(&bt.col[i], 0);
	batch_reset(&bt);
	if (gitmirror_run(argv, NULL, timeout_s, OUT_CAP, &out, e))
		goto out;
	if (db_begin(c, e))
		goto out;
	for (rec = strtok_r(out.data, "\x1e", &save); rec; rec = strtok_r(NULL, "\x1e", &save)) {
		char *f[5];
		int nf = 0, over = 0;
		while (*rec == '\n')
			rec++;
		if (!*rec)
			continue;
		f[nf++] = rec;
		for (char *q = rec; *q && nf < 5; q++)
			if (*q == '\x1f') {
				*q = '\0';
				f[nf++] = q + 1;
			}
		if (nf < 5 || !names_full_sha(f[0]))
			continue;
		for (int i = 0; i < 5; i++)
			over |= add_elem(&bt.col[i], f[i], strlen(f[i]));
		if (over) {
			err_setc(e, ERR_INTERNAL, "commits", "commit metadata too large");
			goto rollback;
		}
		bt.n++;
		total++;
		if (bt.n == IMPORT_BATCH &&
		    batch_flush(c, &bt, tree_id, base + (long long)(total - IMPORT_BATCH), e))
			goto rollback;
	}
	if (batch_flush(c, &bt, tree_id, base + (long long)(total - bt.n), e) || db_commit(c, e))
		goto rollback;
	if (imported)
		*imported = total;
	ret = 0;
	goto out;
rollback:
	db_rollback(c);
out:
	for (int i = 0; i < 5; i++)
		buf_release(&bt.col[i]);
	buf_release(&out);
	free(argv);
	return ret;
}

/* ---- what a commit touched (sql/0007) --------------------------------- */

/* a decimal count from numstat, or -1 for git's "-" (binary) */
static long numstat_count(const char *s, size_t n, int *ok)
{
	long v = 0;

	if (n == 1 && s[0] == '-')
		return -1;
	if (!n || n > 9) {
		*ok = 0;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i])) {
			*ok = 0;
			return 0;
		}
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

int gitmirror_diffstat(const char *dir, const char *sha, int timeout_s,
		       struct gitmirror_diffstat *d, struct err *e)
{
	const char *argv[] = { "git",
			       "-C",
			       dir,
			       "log",
			       "-1",
			       "--no-renames",
			       "--diff-merges=first-parent",
			       "--numstat",
			       "-z",
			       "--format=",
			       sha,
			       "--",
			       NULL };
	struct buf out = BUF_INIT(0);
	size_t cap = 16, pos = 0;

	memset(d, 0, sizeof(*d));
	if (!names_full_sha(sha))
		return err_setc(e, ERR_INVALID_FIELD, "sha", "'%s' is not a full sha", sha);
	if (gitmirror_run(argv, NULL, timeout_s, 64u << 20, &out, e)) {
		buf_release(&out);
		return -1;
	}
	d->files = xcalloc(cap, sizeof(*d->files));
	/* records "INS\tDEL\tPATH\0" (with --format= git may put '\n' before the first) */
	while (pos < out.len) {
		const char *rec = out.data + pos, *t1, *t2;
		size_t len = strnlen(rec, out.len - pos);
		int ok = 1;
		long ins, del;

		pos += len + 1;
		while (len && *rec == '\n') {
			rec++;
			len--;
		}
		if (!len)
			continue;
		t1 = memchr(rec, '\t', len);
		t2 = t1 ? memchr(t1 + 1, '\t', len - (size_t)(t1 + 1 - rec)) : NULL;
		if (!t2 || t2 + 1 == rec + len) {
			buf_release(&out);
			return err_setc(e, ERR_GIT, "numstat",
					"git log --numstat: unexpected output");
		}
		ins = numstat_count(rec, (size_t)(t1 - rec), &ok);
		del = numstat_count(t1 + 1, (size_t)(t2 - t1 - 1), &ok);
		if (!ok) {
			buf_release(&out);
			return err_setc(e, ERR_GIT, "numstat",
					"git log --numstat: unexpected counts");
		}
		if (d->nr_files == cap) {
			cap *= 2;
			d->files = xrealloc(d->files, cap * sizeof(*d->files));
		}
		d->files[d->nr_files].path = xstrndup(t2 + 1, (size_t)(rec + len - t2 - 1));
		d->files[d->nr_files].insertions = ins;
		d->files[d->nr_files].deletions = del;
		d->nr_files++;
		if (ins > 0)
			d->insertions += ins;
		if (del > 0)
			d->deletions += del;
	}
	buf_release(&out);
	return 0;
}

void gitmirror_diffstat_release(struct gitmirror_diffstat *d)
{
	for (size_t i = 0; i < d->nr_files; i++)
		free(d->files[i].path);
	free(d->files);
	memset(d, 0, sizeof(*d));
}

int gitmirror_store_diffstat(struct db_conn *c, const char *data_dir, const char *tree,
			     long long commit_id, int timeout_s, struct err *e)
{
	char dir[4096], sha[41];
	struct gitmirror_diffstat d;
	json_t *files;
	char *text;
	int stored, ret;

	switch (db_commit_diffstat_state(c, commit_id, sha, &stored, e)) {
	case -1:
		return -1;
	case 0:
		return err_setc(e, ERR_NOT_FOUND, "commit", "commit %lld not found", commit_id);
	}
	if (stored)
		return 0;
	if (gitmirror_path(data_dir, tree, dir, sizeof(dir), e))
		return -1;
	if (gitmirror_diffstat(dir, sha, timeout_s, &d, e)) {
		gitmirror_diffstat_release(&d);
		return -1;
	}
	files = json_array();
	for (size_t i = 0; i < d.nr_files; i++) {
		/* a path that is not UTF-8 cannot be a text value: counted, not listed */
		json_t *path = json_string(d.files[i].path);

		if (!path)
			continue;
		json_array_append_new(files, json_pack("{s:o, s:o, s:o}", "path", path, "ins",
						       d.files[i].insertions < 0 ?
							       json_null() :
							       json_integer(d.files[i].insertions),
						       "del",
						       d.files[i].deletions < 0 ?
							       json_null() :
							       json_integer(d.files[i].deletions)));
	}
	text = json_dumps(files, JSON_COMPACT);
	json_decref(files);
	ret = db_commit_diffstat_store(c, commit_id, text ? text : "[]", d.nr_files, d.insertions,
				       d.deletions, e);
	gitmirror_diffstat_release(&d);
	free(text);
	return ret ? -1 : 1;
}
