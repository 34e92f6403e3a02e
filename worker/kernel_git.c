/* The kernel at a commit: its mirror, its source tree, the patches on it (see kernel.h). */
#include "kernel.h"
#include "kernel_int.h"
#include "fsutil.h"
#include "mbox.h"
#include "runcmd.h"
#include "xalloc.h"
#include "clock.h"
#include "names.h"
#include "arch.h"
#include "worker/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* git rev-parse --verify COMMIT^{commit} in the mirror; 0 and k->sha on success. */
static int resolve_commit(struct kernel *k, const char *mirror, struct err *e)
{
	char *spec = xstrfmt("%s^{commit}", k->commit);
	const char *argv[] = { "git",	   "--git-dir",	       mirror, "rev-parse", "-q",
			       "--verify", "--end-of-options", spec,   NULL };
	struct runcmd cmd;
	int rc = 1;

	runcmd_init(&cmd, argv, GIT_QUICK_S);
	cmd.cancel = k->cancel;
	if (runcmd_run(&cmd, e) < 0) {
		free(spec);
		runcmd_release(&cmd);
		return -1;
	}
	if (runcmd_ok(&cmd) && cmd.out.len >= 40) {
		memcpy(k->sha, cmd.out.data, 40);
		k->sha[40] = '\0';
		rc = names_full_sha(k->sha) ? 0 : 1;
	}
	free(spec);
	runcmd_release(&cmd);
	return rc;
}

/*
 * The tree URL comes from the server (admin input): no prompts, and only
 * the transports a tree needs; never git's "ext::" (runs a command).
 */
static const char *const git_net_env[] = { "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=true",
					   "GIT_ALLOW_PROTOCOL=file:git:http:https:ssh", NULL };

/*
 * `git am` of k->patches on the checked-out base, with the committer fixed
 * from the mbox (the first patch's From: and Date:) so that every worker
 * makes the same commits, hence the same sha, from one mbox on one base.
 * The author comes from each patch, as git am does. Config that would make
 * the result differ from machine to machine is overridden on the command
 * line (signing, three-way merges, keeping Message-Id or CRs). A series
 * that does not apply: -1 with code "apply_failed", git's last line in
 * the message, its whole output in k->log; the session is dropped (the
 * next checkout --force resets the tree).
 */
/*
 * The diff settings that vary from machine to machine, fixed on the
 * command line of every git command whose diff patch-id reads, so every
 * worker derives the same ids.
 */
static const char *const diff_pins[] = {
	"-c", "diff.noprefix=false",  "-c", "diff.mnemonicPrefix=false",
	"-c", "diff.algorithm=myers", "-c", "diff.relative=false",
};

/*
 * `git patch-id --stable` of what `git -C SRC_DIR <diff_pins> <producer>`
 * prints (producer: "diff …" of the series, or "log -p …" of it;
 * NULL-terminated, borrowed): one id per commit in it, in order, appended
 * to ids space-separated. The diff goes through a file since patch-id
 * reads only stdin (runcmd's stdin_path). 0, or 1 when a step failed
 * (logged: the ids are a record, not a condition of the run), -1 with e
 * (cannot start).
 */
#define PATCH_DIFF_CAP (64u << 20) /* a diff of an mbox of at most 4 MiB */

static int patch_ids_of(struct kernel *k, const char *const *producer, struct buf *ids,
			struct err *e)
{
	const char *pid[] = { "git", "patch-id", "--stable", NULL };
	char *path = xstrfmt("%s.diff", k->src_dir);
	size_t n = 0, len = 0;
	const char **argv;
	struct runcmd cmd;
	int rc = 1;
	FILE *f;

	while (producer[len])
		len++;
	argv = xmalloc((3 + ARRAY_SIZE(diff_pins) + len + 1) * sizeof(*argv));
	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = k->src_dir;
	for (size_t i = 0; i < ARRAY_SIZE(diff_pins); i++)
		argv[n++] = diff_pins[i];
	for (size_t i = 0; i <= len; i++)
		argv[n++] = producer[i];
	runcmd_init(&cmd, argv, GIT_QUICK_S);
	cmd.out.cap = PATCH_DIFF_CAP;
	cmd.keep_tail = 0;
	cmd.cancel = k->cancel;
	if (runcmd_run(&cmd, e) < 0) {
		runcmd_release(&cmd);
		free(argv);
		free(path);
		return -1;
	}
	if (!runcmd_ok(&cmd) || cmd.out_dropped) {
		kernel_log_addf(k,
				"regtrack: no patch-id: 'git %s' failed or printed over %u bytes\n",
				producer[0], PATCH_DIFF_CAP);
		goto out;
	}
	f = fopen(path, "w");
	if (!f || fwrite(cmd.out.data, 1, cmd.out.len, f) != cmd.out.len) {
		if (f)
			fclose(f);
		kernel_log_addf(k, "regtrack: no patch-id: cannot write '%s'\n", path);
		goto out;
	}
	if (fclose(f)) {
		kernel_log_addf(k, "regtrack: no patch-id: cannot write '%s'\n", path);
		goto out;
	}
	runcmd_release(&cmd);
	runcmd_init(&cmd, pid, GIT_QUICK_S);
	cmd.stdin_path = path;
	cmd.cancel = k->cancel;
	if (runcmd_run(&cmd, e) < 0) {
		rc = -1;
		goto out;
	}
	if (!runcmd_ok(&cmd)) {
		kernel_log_addf(k, "regtrack: git patch-id --stable failed: %s\n", cmd.err.data);
		goto out;
	}
	/* lines "PATCHID COMMIT" */
	for (const char *p = cmd.out.data, *nl; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (strspn(p, "0123456789abcdef") == 40 && p[40] == ' ' &&
		    buf_addf(ids, "%s%.40s", ids->len ? " " : "", p))
			break; /* over ids' cap: a series of thousands of patches */
	}
	rc = ids->len ? 0 : 1;
out:
	runcmd_release(&cmd);
	free(argv);
	unlink(path);
	free(path);
	return rc;
}

/*
 * k->patch_id (the series' combined diff base..HEAD) and k->patch_ids (one
 * per patch), both through patch_ids_of (its diff_pins). 0 (ids
 * left empty when a step failed), -1 with e.
 */
static int series_patch_ids(struct kernel *k, struct err *e)
{
	char *range = xstrfmt("%s..HEAD", k->base_sha);
	const char *diff[] = { "diff", "--no-color", "--no-ext-diff", "--no-textconv", k->base_sha,
			       "HEAD", NULL };
	const char *log[] = {
		"log",		 "-p",		 "--reverse", "--no-color", "--no-ext-diff",
		"--no-textconv", "--no-mailmap", range,	      NULL
	};
	struct buf whole = BUF_INIT(4096), each = BUF_INIT(1 << 16);
	int r = patch_ids_of(k, diff, &whole, e);

	if (r >= 0)
		r = patch_ids_of(k, log, &each, e);
	if (r >= 0 && whole.len == 40) {
		memcpy(k->patch_id, whole.data, 40);
		k->patch_id[40] = '\0';
	}
	if (r >= 0 && each.len) {
		free(k->patch_ids);
		k->patch_ids = xstrdup(each.data);
	}
	if (k->patch_id[0])
		kernel_log_addf(k, "regtrack: patch-id --stable %s (series), %s (each)\n",
				k->patch_id, k->patch_ids ? k->patch_ids : "-");
	buf_release(&whole);
	buf_release(&each);
	free(range);
	return r < 0 ? -1 : 0;
}

static int apply_patches(struct kernel *k, struct err *e)
{
	struct err qe;
	struct mbox_info m;
	char *path = xstrfmt("%s.mbox", k->src_dir), *name, *email, *date;
	const char *quit[] = { "git", "-C", k->src_dir, "am", "--quit", NULL };
	const char *am[] = { "git",
			     /* git am runs no tree code: no hooks, no fsmonitor command */
			     "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c",
			     "commit.gpgSign=false", "-c", "am.threeWay=false", "-c",
			     "am.keepcr=false", "-c", "am.messageid=false", "-C", k->src_dir, "am",
			     "--quiet", "--no-gpg-sign", "--", path, NULL };
	const char *head[] = {
		"git", "-C", k->src_dir, "rev-parse", "-q", "--verify", "HEAD", NULL
	};
	const char *env[4];
	struct runcmd cmd;
	size_t start;
	int r, rc = -1;

	if (!mbox_scan(k->patches, strlen(k->patches), &m) || !m.email[0]) {
		free(path);
		return err_setc(e, ERR_APPLY_FAILED, "patches",
				"the mbox holds no patch with a From: address");
	}
	name = xstrfmt("GIT_COMMITTER_NAME=%s", m.name[0] ? m.name : m.email);
	email = xstrfmt("GIT_COMMITTER_EMAIL=%s", m.email);
	date = xstrfmt("GIT_COMMITTER_DATE=%s", m.date[0] ? m.date : "1970-01-01T00:00:00Z");
	env[0] = name;
	env[1] = email;
	env[2] = date;
	env[3] = NULL;
	if (kernel_write_file(path, k->patches)) {
		err_setc(e, ERR_IO, path, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	/* a session left by a job killed mid-am would refuse the new one */
	if (kernel_run_logged(k, quit, NULL, NULL, GIT_QUICK_S, -1, e) < 0)
		goto out;
	kernel_log_addf(k, "regtrack: %zu patch(es), committer %s <%s>, date %s\n", m.nr_patches,
			m.name[0] ? m.name : m.email, m.email, m.date);
	start = k->log.len;
	r = kernel_run_logged(k, am, NULL, env, GIT_QUICK_S, -1, e);
	if (r < 0)
		goto out;
	if (r) {
		/* git's reason: what it printed, without its hints and our own lines */
		char why[512] = "";
		size_t n = 0;
		const char *p = start <= k->log.len ? k->log.data + start : k->log.data, *nl;

		for (; *p && (nl = strchr(p, '\n')); p = nl + 1) {
			size_t len = (size_t)(nl - p);

			if (*p == '$' || !strncmp(p, "hint:", 5) || !strncmp(p, "regtrack:", 9) ||
			    !len)
				continue;
			n += (size_t)snprintf(why + n, sizeof(why) - n, "%s%.*s", n ? "; " : "",
					      (int)len, p);
			if (n >= sizeof(why) - 1)
				break;
		}
		err_setc(e, ERR_APPLY_FAILED, "patches", "git am failed: %s",
			 why[0] ? why : "(no output)");
		(void)kernel_run_logged(k, quit, NULL, NULL, GIT_QUICK_S, -1, &qe);
		goto out;
	}
	runcmd_init(&cmd, head, GIT_QUICK_S);
	cmd.cancel = k->cancel;
	if (runcmd_run(&cmd, e) < 0) {
		runcmd_release(&cmd);
		goto out;
	}
	if (runcmd_ok(&cmd) && cmd.out.len >= 40) {
		memcpy(k->sha, cmd.out.data, 40);
		k->sha[40] = '\0';
		rc = names_full_sha(k->sha) ? 0 : -1;
	}
	runcmd_release(&cmd);
	if (rc)
		err_setc(e, ERR_IO, k->src_dir, "cannot read HEAD after git am");
	else if (series_patch_ids(k, e))
		rc = -1;
out:
	unlink(path);
	free(path);
	free(name);
	free(email);
	free(date);
	return rc;
}

int kernel_fetch(struct kernel *k, struct err *e)
{
	const struct kconfig_base *base;
	char *mirrors = NULL, *mirror = NULL, *srcs = NULL, *tmp = NULL, *cross = NULL;
	int lock = -1, rc = -1, r, tfetch = k->timeout_fetch_s > 0 ? k->timeout_fetch_s : 1800;
	double t0 = mono_s();

	if (!names_plain(k->tree, NAMES_PLAIN_MAX))
		return err_setc(e, ERR_INVALID_JOB, "tree", "bad tree name '%s'",
				k->tree ? k->tree : "");
	if (!k->url || !*k->url || k->url[0] == '-')
		return err_setc(e, ERR_INVALID_JOB, "url", "bad tree url");
	if (!names_ref(k->commit))
		return err_setc(e, ERR_INVALID_JOB, "commit", "bad commit");
	base = k->kconfig ? kernel_kconfig_find(k->kconfig, NULL) : NULL;
	if (!base)
		return err_setc(e, ERR_INVALID_JOB, "kconfig", "unknown kconfig '%s'",
				k->kconfig ? k->kconfig : "");
	if (!arch_normalize(k->arch) || strcmp(base->arch, arch_normalize(k->arch)))
		return err_setc(e, ERR_INVALID_JOB, "kconfig",
				"kconfig '%s' is for %s, this worker is %s", k->kconfig, base->arch,
				k->arch ? k->arch : "?");
	if (!k->compiler || (strcmp(k->compiler, "gcc") && strncmp(k->compiler, "gcc-", 4)) ||
	    !names_plain(k->compiler, NAMES_PLAIN_MAX))
		return err_setc(e, ERR_INVALID_JOB, "compiler", "unsupported compiler '%s'",
				k->compiler ? k->compiler : "");
	cross = xstrfmt("%s%s",
			strcmp(base->arch, kernel_host_arch()) ?
				(!strcmp(base->arch, "aarch64") ? "aarch64-linux-gnu-" :
								  "x86_64-linux-gnu-") :
				"",
			k->compiler);
	if (!kernel_in_path(cross)) {
		err_setc(e, ERR_INVALID_JOB, "compiler", "compiler '%s' is not installed", cross);
		free(cross);
		return -1;
	}
	free(cross);
	k->karch = base->karch;
	if (k->patches && k->sandbox && !k->sandbox->off && !k->sandbox->bwrap)
		return err_setc(e, ERR_INVALID_JOB, "sandbox",
				"patches are built only in a sandbox, and this worker has none: %s "
				"(the worker config's `sandbox = off` builds them anyway)",
				k->sandbox->why);

	mirrors = xstrfmt("%s/mirrors", k->work_dir);
	srcs = xstrfmt("%s/src", k->work_dir);
	if (fs_mkdirs(mirrors, 0755, e) || fs_mkdirs(srcs, 0755, e))
		goto out;
	mirror = xstrfmt("%s/%s.git", mirrors, k->tree);
	free(k->src_dir);
	k->src_dir = xstrfmt("%s/%s-%s", srcs, k->tree, base->karch);
	/* the source dir stays ours until kernel_release (build included);
	 * always taken before the mirror lock, so two workers cannot deadlock */
	if (k->src_lock < 0) {
		char *path = xstrfmt("%s.lock", k->src_dir);

		k->src_lock = kernel_lock_path(path, e);
		free(path);
		if (k->src_lock < 0)
			goto out;
	}
	{
		char *path = xstrfmt("%s/%s.lock", mirrors, k->tree);

		lock = kernel_lock_path(path, e);
		free(path);
		if (lock < 0)
			goto out;
	}

	if (!kernel_dir_exists(mirror)) {
		const char *rm[] = { "rm", "-rf", NULL, NULL };
		const char *clone[] = { "git", "clone", "--mirror", "--quiet",
					"--",  k->url,	NULL,	    NULL };

		tmp = xstrfmt("%s.tmp", mirror);
		rm[2] = tmp;
		clone[6] = tmp;
		if (kernel_run_logged(k, rm, NULL, NULL, GIT_QUICK_S, -1, e) < 0)
			goto out;
		r = kernel_run_logged(k, clone, NULL, git_net_env, tfetch, -1, e);
		if (r) {
			if (r > 0)
				err_setc(e, ERR_FETCH, k->url, "cannot clone '%s'", k->url);
			goto out;
		}
		if (rename(tmp, mirror) < 0) {
			err_setc(e, ERR_IO, mirror, "cannot rename '%s': %s", tmp, strerror(errno));
			goto out;
		}
	}
	/* a full sha we already have needs no network; anything else may have moved */
	r = names_full_sha(k->commit) ? resolve_commit(k, mirror, e) : 1;
	if (r < 0)
		goto out;
	if (r > 0) {
		const char *fetch[] = { "git",	   "--git-dir", mirror, "fetch",	  "--quiet",
					"--prune", "--",	k->url, "+refs/*:refs/*", NULL };

		r = kernel_run_logged(k, fetch, NULL, git_net_env, tfetch, -1, e);
		if (r) {
			if (r > 0)
				err_setc(e, ERR_FETCH, k->url, "cannot fetch '%s'", k->url);
			goto out;
		}
		r = resolve_commit(k, mirror, e);
		if (r < 0)
			goto out;
		if (r > 0) {
			err_setc(e, ERR_NOT_FOUND, "commit", "commit '%s' not found in '%s'",
				 k->commit, k->url);
			goto out;
		}
	}

	{
		char *dotgit = xstrfmt("%s/.git", k->src_dir);
		int have = kernel_file_exists(dotgit);

		free(dotgit);
		if (have) {
			const char *co[] = { "git",	 "-C",	    k->src_dir,
					     "checkout", "--quiet", "--force",
					     "--detach", k->sha,    NULL };
			const char *clean[] = { "git", "-C", k->src_dir, "clean", "-q",
						"-f",  "-d", "-x",	 NULL };

			r = kernel_run_logged(k, co, NULL, NULL, tfetch, -1, e);
			if (!r)
				r = kernel_run_logged(k, clean, NULL, NULL, tfetch, -1, e);
			if (r < 0)
				goto out;
			have = r == 0;
		}
		if (!have) {
			const char *rm[] = { "rm", "-rf", k->src_dir, NULL };
			const char *prune[] = { "git",	    "--git-dir", mirror,
						"worktree", "prune",	 NULL };
			const char *add[] = { "git",	  "--git-dir", mirror,	  "worktree",
					      "add",	  "--quiet",   "--force", "--detach",
					      k->src_dir, k->sha,      NULL };

			if (kernel_run_logged(k, rm, NULL, NULL, GIT_QUICK_S, -1, e) < 0 ||
			    kernel_run_logged(k, prune, NULL, NULL, GIT_QUICK_S, -1, e) < 0)
				goto out;
			r = kernel_run_logged(k, add, NULL, NULL, tfetch, -1, e);
			if (r) {
				if (r > 0)
					err_setc(e, ERR_IO, k->src_dir,
						 "cannot check out %s into '%s'", k->sha,
						 k->src_dir);
				goto out;
			}
		}
	}
	memcpy(k->base_sha, k->sha, sizeof(k->sha));
	rc = k->patches ? apply_patches(k, e) : 0;
out:
	if (lock >= 0)
		close(lock);
	k->fetch_s = mono_s() - t0;
	free(tmp);
	free(mirror);
	free(mirrors);
	free(srcs);
	return rc;
}
