#include "kernel.h"
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

#define KERNEL_LOG_CAP (64u << 10)
#define GIT_QUICK_S 120 /* rev-parse, worktree prune: local and fast */

/* One row per kconfig name the worker knows how to build. */
struct kconfig_base {
	const char *name;
	const char *arch;   /* worker arch that can run it */
	const char *karch;  /* ARCH= for make */
	const char *target; /* base config make target */
	const char *image_target;
	const char *image; /* relative to the build dir */
	const char *fragments[3];
};

static const struct kconfig_base kconfig_bases[] = {
	{ "x86_64-tiny-mm",
	  "x86_64",
	  "x86_64",
	  "tinyconfig",
	  "bzImage",
	  "arch/x86/boot/bzImage",
	  { "tiny-mm.config", "x86_64-tiny-mm.config", NULL } },
	{ "arm64-tiny-mm",
	  "aarch64",
	  "arm64",
	  "tinyconfig",
	  "Image",
	  "arch/arm64/boot/Image",
	  { "tiny-mm.config", "arm64-tiny-mm.config", NULL } },
	{ "x86_64-defconfig",
	  "x86_64",
	  "x86_64",
	  "defconfig",
	  "bzImage",
	  "arch/x86/boot/bzImage",
	  { "x86_64-defconfig.config", NULL } },
	{ "arm64-defconfig",
	  "aarch64",
	  "arm64",
	  "defconfig",
	  "Image",
	  "arch/arm64/boot/Image",
	  { "arm64-defconfig.config", NULL } },
};

static const struct kconfig_base *kconfig_find(const char *name, const char *arch)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kconfig_bases); i++)
		if (!strcmp(kconfig_bases[i].name, name) &&
		    (!arch || !strcmp(kconfig_bases[i].arch, arch)))
			return &kconfig_bases[i];
	return NULL;
}

int kernel_kconfig_known(const char *kconfig, const char *arch)
{
	return kconfig && arch && kconfig_find(kconfig, arch) != NULL;
}

void kernel_init(struct kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->src_lock = -1;
	buf_init(&k->log, 0);
}

void kernel_release(struct kernel *k)
{
	free(k->src_dir);
	free(k->build_dir);
	free(k->image);
	free(k->release);
	free(k->config_text);
	free(k->perf);
	k->perf = NULL;
	free(k->patch_ids);
	k->patch_ids = NULL;
	buf_release(&k->log);
	if (k->src_lock >= 0)
		close(k->src_lock);
	k->src_lock = -1;
	k->src_dir = k->build_dir = k->image = k->release = k->config_text = NULL;
}

/* Appends to the log, keeping only its last KERNEL_LOG_CAP bytes. */
static void log_add(struct kernel *k, const char *p, size_t n)
{
	struct buf *b = &k->log;

	if (n >= KERNEL_LOG_CAP) {
		p += n - KERNEL_LOG_CAP;
		n = KERNEL_LOG_CAP;
	}
	if (b->len + n > KERNEL_LOG_CAP) {
		size_t drop = b->len + n - KERNEL_LOG_CAP;

		memmove(b->data, b->data + drop, b->len - drop);
		b->len -= drop;
		b->data[b->len] = '\0';
	}
	if (buf_add(b, p, n))
		abort(); /* uncapped buffer: cannot fail */
}

static void log_addf(struct kernel *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_addf(struct kernel *k, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		log_add(k, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/*
 * Runs argv (in cwd, with env), logging "$ argv" and its output.
 * Returns 0 when it exited 0, 1 when it ran and failed (the reason logged),
 * -1 when it could not start (e filled). full_log_fd >= 0 also gets the output.
 */
static int run_shown(struct kernel *k, const char *const *shown, const char *const *argv,
		     const char *how, const char *cwd, const char *const *env, int timeout_s,
		     int full_log_fd, struct err *e)
{
	struct runcmd cmd;
	char desc[64];
	size_t i;
	int rc;

	log_addf(k, "%s$", how);
	for (i = 0; shown[i]; i++)
		log_addf(k, " %s", shown[i]);
	log_addf(k, "\n");
	runcmd_init(&cmd, argv, timeout_s);
	cmd.cwd = cwd;
	cmd.env = env;
	cmd.merge_stderr = 1;
	cmd.out.cap = KERNEL_LOG_CAP;
	cmd.log_fd = full_log_fd;
	cmd.cancel = k->cancel;
	if (runcmd_run(&cmd, e) < 0) {
		log_addf(k, "%s\n", e->message);
		runcmd_release(&cmd);
		return -1;
	}
	log_add(k, cmd.out.data, cmd.out.len);
	if (cmd.out.len && cmd.out.data[cmd.out.len - 1] != '\n')
		log_addf(k, "\n");
	rc = runcmd_ok(&cmd) ? 0 : 1;
	if (rc)
		log_addf(k, "regtrack: '%s' failed: %s\n", shown[0],
			 runcmd_describe(&cmd, desc, sizeof(desc)));
	runcmd_release(&cmd);
	return rc;
}

/* run_shown of argv as it is (the trusted commands: git, rm, strip) */
static int run_logged(struct kernel *k, const char *const *argv, const char *cwd,
		      const char *const *env, int timeout_s, int full_log_fd, struct err *e)
{
	return run_shown(k, argv, argv, "", cwd, env, timeout_s, full_log_fd, e);
}

/*
 * 1 when path, symlinks resolved, is dir or below it (the directories on
 * the way from dir to a file that sandboxed code could have replaced with
 * symlinks); 0 otherwise, also when either does not exist.
 */
static int beneath(const char *dir, const char *path)
{
	char *rd = realpath(dir, NULL), *rp = realpath(path, NULL);
	size_t n = rd ? strlen(rd) : 0;
	int ok = rd && rp && !strncmp(rd, rp, n) && (rp[n] == '/' || rp[n] == '\0');

	free(rd);
	free(rp);
	return ok;
}

/*
 * Runs tree code (make, scripts from the tree) like run_logged, in k's
 * sandbox when it is usable: it sees the source dir, its mirror, the
 * kconfig fragments and ro_extra (may be NULL) read-only, `rw`
 * (NULL-terminated) read-write, and only env as its environment; each rw
 * dir is given to the build user first (they must exist). Without a usable sandbox the command runs directly.
 */
static int run_tree(struct kernel *k, const char *const *argv, const char *cwd,
		    const char *const *rw, const char *ro_extra, const char *const *env,
		    int timeout_s, int full_log_fd, struct err *e)
{
	char *mirror = xstrfmt("%s/mirrors/%s.git", k->work_dir, k->tree);
	const char *ro[] = { k->src_dir, mirror, k->kconfig_dir, ro_extra, NULL };
	struct sandbox_spec spec = { .rw = rw, .ro = ro, .env = env, .cwd = cwd };
	char **wrapped;
	int r;

	if (!sandbox_usable(k->sandbox)) {
		if (k->sandbox && !k->sandbox->off)
			log_addf(k,
				 "regtrack: no sandbox (%s): a tree of the server's, built "
				 "directly\n",
				 k->sandbox->why);
		free(mirror);
		return run_logged(k, argv, cwd, env, timeout_s, full_log_fd, e);
	}
	spec.cpu_s = timeout_s;
	for (size_t i = 0; rw && rw[i]; i++)
		if (fs_mkdirs(rw[i], 0755, e) || sandbox_own_dir(k->sandbox, rw[i], e)) {
			log_addf(k, "regtrack: %s\n", e->message);
			free(mirror);
			return -1;
		}
	wrapped = sandbox_argv(k->sandbox, &spec, argv);
	r = run_shown(k, argv, (const char *const *)wrapped, "(sandboxed) ", cwd, NULL, timeout_s,
		      full_log_fd, e);
	sandbox_argv_free(wrapped);
	free(mirror);
	return r;
}

static int dir_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int file_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* 1 when `prog` is an executable in PATH. */
static int in_path(const char *prog)
{
	const char *path = getenv("PATH"), *p;

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; p;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *cand = xstrfmt("%.*s/%s", (int)len, p, prog);
		int ok = !access(cand, X_OK);

		free(cand);
		if (ok)
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static const char *host_arch(void)
{
	static struct utsname u;

	if (!u.machine[0])
		uname(&u);
	return u.machine;
}

/* Flock()s `path` (created if missing); returns the fd (close to unlock) or -1. */
static int lock_path(const char *path, struct err *e)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		err_setc(e, ERR_IO, path, "cannot lock '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	return fd;
}

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
static int write_file(const char *path, const char *text);

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
	runcmd_init(&cmd, argv, mbox_am_timeout_s(k->patches ? strlen(k->patches) : 0));
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
		log_addf(k, "regtrack: no patch-id: 'git %s' failed or printed over %u bytes\n",
			 producer[0], PATCH_DIFF_CAP);
		goto out;
	}
	f = fopen(path, "w");
	if (!f || fwrite(cmd.out.data, 1, cmd.out.len, f) != cmd.out.len) {
		if (f)
			fclose(f);
		log_addf(k, "regtrack: no patch-id: cannot write '%s'\n", path);
		goto out;
	}
	if (fclose(f)) {
		log_addf(k, "regtrack: no patch-id: cannot write '%s'\n", path);
		goto out;
	}
	runcmd_release(&cmd);
	runcmd_init(&cmd, pid, mbox_am_timeout_s(k->patches ? strlen(k->patches) : 0));
	cmd.stdin_path = path;
	cmd.cancel = k->cancel;
	if (runcmd_run(&cmd, e) < 0) {
		rc = -1;
		goto out;
	}
	if (!runcmd_ok(&cmd)) {
		log_addf(k, "regtrack: git patch-id --stable failed: %s\n", cmd.err.data);
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
		log_addf(k, "regtrack: patch-id --stable %s (series), %s (each)\n", k->patch_id,
			 k->patch_ids ? k->patch_ids : "-");
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
	if (write_file(path, k->patches)) {
		err_setc(e, ERR_IO, path, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	/* a session left by a job killed mid-am would refuse the new one */
	if (run_logged(k, quit, NULL, NULL, GIT_QUICK_S, -1, e) < 0)
		goto out;
	log_addf(k, "regtrack: %zu patch(es), committer %s <%s>, date %s\n", m.nr_patches,
		 m.name[0] ? m.name : m.email, m.email, m.date);
	start = k->log.len;
	/* git am forks per patch: its time grows with the series (mbox.h sizes it with the server's limit) */
	r = run_logged(k, am, NULL, env, mbox_am_timeout_s(strlen(k->patches)), -1, e);
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
		(void)run_logged(k, quit, NULL, NULL, GIT_QUICK_S, -1, &qe);
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
	base = k->kconfig ? kconfig_find(k->kconfig, NULL) : NULL;
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
			strcmp(base->arch, host_arch()) ?
				(!strcmp(base->arch, "aarch64") ? "aarch64-linux-gnu-" :
								  "x86_64-linux-gnu-") :
				"",
			k->compiler);
	if (!in_path(cross)) {
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

		k->src_lock = lock_path(path, e);
		free(path);
		if (k->src_lock < 0)
			goto out;
	}
	{
		char *path = xstrfmt("%s/%s.lock", mirrors, k->tree);

		lock = lock_path(path, e);
		free(path);
		if (lock < 0)
			goto out;
	}

	if (!dir_exists(mirror)) {
		const char *rm[] = { "rm", "-rf", NULL, NULL };
		const char *clone[] = { "git", "clone", "--mirror", "--quiet",
					"--",  k->url,	NULL,	    NULL };

		tmp = xstrfmt("%s.tmp", mirror);
		rm[2] = tmp;
		clone[6] = tmp;
		if (run_logged(k, rm, NULL, NULL, GIT_QUICK_S, -1, e) < 0)
			goto out;
		r = run_logged(k, clone, NULL, git_net_env, tfetch, -1, e);
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

		r = run_logged(k, fetch, NULL, git_net_env, tfetch, -1, e);
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
		int have = file_exists(dotgit);

		free(dotgit);
		if (have) {
			const char *co[] = { "git",	 "-C",	    k->src_dir,
					     "checkout", "--quiet", "--force",
					     "--detach", k->sha,    NULL };
			const char *clean[] = { "git", "-C", k->src_dir, "clean", "-q",
						"-f",  "-d", "-x",	 NULL };

			r = run_logged(k, co, NULL, NULL, tfetch, -1, e);
			if (!r)
				r = run_logged(k, clean, NULL, NULL, tfetch, -1, e);
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

			if (run_logged(k, rm, NULL, NULL, GIT_QUICK_S, -1, e) < 0 ||
			    run_logged(k, prune, NULL, NULL, GIT_QUICK_S, -1, e) < 0)
				goto out;
			r = run_logged(k, add, NULL, NULL, tfetch, -1, e);
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

char *kernel_find_kconfig_dir(const char *explicit, const char *cases_dir)
{
	const char *fixed[] = { "/usr/local/share/regtrack/kconfig",
				"/usr/share/regtrack/kconfig" };
	const char *envdir = getenv("REGTRACK_KCONFIG_DIR");
	size_t i;

	if (explicit)
		return realpath(explicit, NULL);
	if (envdir && *envdir)
		return realpath(envdir, NULL);
	if (cases_dir) {
		char *cand = xstrfmt("%s/../../worker/kconfig", cases_dir);
		char *real = dir_exists(cand) ? realpath(cand, NULL) : NULL;

		free(cand);
		if (real)
			return real;
	}
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		if (dir_exists(fixed[i]))
			return xstrdup(fixed[i]);
	return NULL;
}

/* CROSS_COMPILE for building `base` on this host: "" when native. */
static const char *cross_prefix(const struct kconfig_base *base)
{
	if (!strcmp(base->arch, host_arch()))
		return "";
	return !strcmp(base->arch, "aarch64") ? "aarch64-linux-gnu-" : "x86_64-linux-gnu-";
}

/* The make command line common to every make call; strings in `hold` freed by the caller. */
struct make_args {
	const char *argv[16];
	char *hold[7];
	int n, nhold;
	const char *env[10];
	const char *rw[3]; /* what make may write in the sandbox: build dir, ccache */
	const char *ro[2]; /* a patched build reads ccache only (no poisoned entries) */
};

static const char *hold(struct make_args *m, char *s)
{
	m->hold[m->nhold++] = s;
	return s;
}

static void make_args_init(struct make_args *m, struct kernel *k, const struct kconfig_base *base)
{
	const char *prefix = cross_prefix(base);
	int cross = *prefix != '\0';

	const char *ccache;

	memset(m, 0, sizeof(*m));
	ccache = hold(m,
		      k->ccache_dir ? xstrdup(k->ccache_dir) : xstrfmt("%s/ccache", k->work_dir));
	m->argv[m->n++] = "make";
	m->argv[m->n++] = hold(m, xstrfmt("O=%s", k->build_dir));
	m->argv[m->n++] = hold(m, xstrfmt("ARCH=%s", base->karch));
	if (cross)
		m->argv[m->n++] = hold(m, xstrfmt("CROSS_COMPILE=%s", prefix));
	m->argv[m->n++] = hold(m, xstrfmt("CC=ccache %s%s", prefix, k->compiler));
	m->env[0] = hold(m, xstrfmt("CCACHE_DIR=%s", ccache));
	m->env[1] = hold(m, xstrfmt("CCACHE_BASEDIR=%s", k->work_dir));
	/* fixed build identity: reproducible images, ccache hits on init/version.c */
	m->env[2] = "KBUILD_BUILD_TIMESTAMP=Sun Jan 1 00:00:00 UTC 2023";
	m->env[3] = "KBUILD_BUILD_USER=regtrack";
	m->env[4] = "KBUILD_BUILD_HOST=regtrack";
	/* the "#N" of the banner is .version, bumped at every relink: fixed, so two builds
	 * of one source give one image (the image hash names the kernel, kernel.h) */
	m->env[5] = "KBUILD_BUILD_VERSION=1";
	m->env[6] = "LC_ALL=C";
	/* ccache's temporary files: the sandbox's own /tmp */
	m->env[7] = "CCACHE_TEMPDIR=/tmp";
	m->env[8] = k->patches ? "CCACHE_READONLY=1" : NULL;
	m->env[9] = NULL;
	m->rw[0] = k->build_dir;
	m->rw[1] = k->patches ? NULL : ccache;
	m->ro[0] = k->patches ? ccache : NULL;
}

static void make_args_release(struct make_args *m)
{
	while (m->nhold)
		free(m->hold[--m->nhold]);
}

int kernel_file_sha256(const char *path, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE], chunk[65536];
	unsigned int n = 0;
	EVP_MD_CTX *ctx;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	out[0] = '\0';
	if (fd < 0)
		return -1;
	ctx = EVP_MD_CTX_new();
	ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while (ok && (got = read(fd, chunk, sizeof(chunk))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		ok = got > 0 && EVP_DigestUpdate(ctx, chunk, (size_t)got);
	}
	ok = ok && EVP_DigestFinal_ex(ctx, md, &n) && n == 32;
	EVP_MD_CTX_free(ctx);
	close(fd);
	if (!ok)
		return -1;
	for (unsigned i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
	return 0;
}

/*
 * Files in the build dir were written by sandboxed tree code: the worker
 * (maybe root) never follows a symlink it left there (O_NOFOLLOW here, and
 * beneath() for the directories on the way).
 */
static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	char *text = NULL;
	size_t len = 0;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = xstrdup("");
	}
	fclose(f);
	return text;
}

/* Logs each "CONFIG_X=y" of the fragment that the final .config lacks. */
static void check_fragment(struct kernel *k, const char *frag_path, const char *config)
{
	char *frag = slurp(frag_path), *line, *next;

	for (line = frag; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "CONFIG_", 7))
			continue;
		{
			char *want = xstrfmt("\n%s\n", line);
			char *cfg = xstrfmt("\n%s", config);

			if (!strstr(cfg, want))
				log_addf(k,
					 "regtrack: warning: %s from %s is not in the final .config\n",
					 line, frag_path);
			free(want);
			free(cfg);
		}
	}
	free(frag);
}

/*
 * Everything the configure step's result depends on, as text: the base
 * target, the fragments' contents, the compiler's version, and the blob ids
 * of every Kconfig file, config fragment, kconfig tool source and the top
 * Makefile at the checked-out commit. Returns a new string, or NULL when
 * it cannot be computed (then configure always runs).
 */
static char *config_key(struct kernel *k, const struct kconfig_base *base, char *const *frag,
			int nfrag, const char *compiler_path)
{
	const char *ls[] = { "git",
			     "-C",
			     k->src_dir,
			     "ls-files",
			     "-s",
			     "--",
			     ":(glob)**/Kconfig*",
			     ":(glob)scripts/kconfig/**",
			     ":(glob)arch/*/configs/**",
			     ":(glob)kernel/configs/**",
			     "Makefile",
			     NULL };
	const char *ver[] = { compiler_path, "-dumpfullversion", "-dumpversion", NULL };
	struct buf key = BUF_INIT(0);
	struct runcmd cmd;
	struct err e;
	int i, good;

	if (buf_addf(&key, "target %s\narch %s\ncompiler %s\n", base->target, base->karch,
		     compiler_path))
		abort();
	runcmd_init(&cmd, ver, GIT_QUICK_S);
	good = !runcmd_run(&cmd, &e) && runcmd_ok(&cmd);
	if (good && (buf_addstr(&key, "version ") || buf_add(&key, cmd.out.data, cmd.out.len)))
		abort();
	runcmd_release(&cmd);
	for (i = 0; good && i < nfrag; i++) {
		char *text = slurp(frag[i]);

		good = text != NULL;
		if (good && buf_addf(&key, "fragment %s\n%s\n", frag[i], text))
			abort();
		free(text);
	}
	if (good) {
		runcmd_init(&cmd, ls, GIT_QUICK_S);
		cmd.out.cap = 16u << 20;
		good = !runcmd_run(&cmd, &e) && runcmd_ok(&cmd) && cmd.out.len > 0 &&
		       !cmd.out_dropped;
		if (good && buf_add(&key, cmd.out.data, cmd.out.len))
			abort();
		runcmd_release(&cmd);
	}
	if (!good) {
		buf_release(&key);
		return NULL;
	}
	return buf_detach(&key, NULL);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int ok;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

int kernel_configure(struct kernel *k, struct err *e)
{
	const struct kconfig_base *base = kconfig_find(k->kconfig, k->arch);
	char *builds = NULL, *config = NULL, *old = NULL, *merge = NULL, *key = NULL,
	     *keypath = NULL;
	char *frag[ARRAY_SIZE(base->fragments)] = { NULL };
	struct make_args m;
	struct stat old_st;
	int rc = -1, r, nfrag = 0, had_old,
	    tbuild = k->timeout_build_s > 0 ? k->timeout_build_s : 7200;
	double t0 = mono_s();
	size_t i;

	if (!base || !k->src_dir || !k->kconfig_dir)
		return err_setc(e, ERR_INTERNAL, "kconfig",
				"configure before fetch, or no kconfig dir");
	for (i = 0; i < ARRAY_SIZE(base->fragments) && base->fragments[i]; i++) {
		frag[nfrag] = xstrfmt("%s/%s", k->kconfig_dir, base->fragments[i]);
		if (!file_exists(frag[nfrag])) {
			err_setc(e, ERR_IO, frag[nfrag], "kconfig fragment '%s' missing",
				 frag[nfrag]);
			nfrag++;
			goto out;
		}
		nfrag++;
	}
	builds = xstrfmt("%s/build", k->work_dir);
	free(k->build_dir);
	/* a patched build's objects are the submitter's: never reused by another job */
	k->build_dir = xstrfmt("%s/%s-%s-%s%s", builds, k->tree, k->kconfig, k->compiler,
			       k->patches ? "-patched" : "");
	if (k->patches) {
		const char *rm[] = { "rm", "-rf", k->build_dir, NULL };

		if (run_logged(k, rm, NULL, NULL, GIT_QUICK_S, -1, e) < 0)
			goto out;
	}
	if (fs_mkdirs(k->build_dir, 0755, e))
		goto out;
	config = xstrfmt("%s/.config", k->build_dir);
	keypath = xstrfmt("%s/regtrack-config.key", k->build_dir);
	had_old = !stat(config, &old_st);
	{
		const char *prefix = cross_prefix(base);
		char *cc = xstrfmt("%s%s", prefix, k->compiler);

		key = config_key(k, base, frag, nfrag, cc);
		free(cc);
	}
	if (had_old && key) {
		char *prev = slurp(keypath);

		if (prev && !strcmp(prev, key)) {
			/* same commit's Kconfig files, fragments and compiler: same .config */
			free(prev);
			free(k->config_text);
			k->config_text = slurp(config);
			if (k->config_text) {
				log_addf(k,
					 "regtrack: configuration inputs unchanged, keeping %s\n",
					 config);
				rc = 0;
				goto out;
			}
		}
		free(prev);
	}
	unlink(keypath);
	old = had_old ? slurp(config) : NULL;

	make_args_init(&m, k, base);
	m.argv[m.n] = base->target;
	m.argv[m.n + 1] = NULL;
	r = run_tree(k, m.argv, k->src_dir, m.rw, m.ro[0], m.env, tbuild, -1, e);
	if (!r) {
		const char *margv[8 + ARRAY_SIZE(base->fragments)];
		int n = 0;

		merge = xstrfmt("%s/scripts/kconfig/merge_config.sh", k->src_dir);
		margv[n++] = merge;
		margv[n++] = "-m";
		margv[n++] = "-O";
		margv[n++] = k->build_dir;
		margv[n++] = config;
		for (i = 0; i < (size_t)nfrag; i++)
			margv[n++] = frag[i];
		margv[n] = NULL;
		/* in the build dir: it makes its temporary files in the current dir, and
		 * the source tree is read-only in the sandbox */
		r = run_tree(k, margv, k->build_dir, m.rw, m.ro[0], m.env, tbuild, -1, e);
	}
	if (!r) {
		m.argv[m.n] = "olddefconfig";
		r = run_tree(k, m.argv, k->src_dir, m.rw, m.ro[0], m.env, tbuild, -1, e);
	}
	make_args_release(&m);
	if (r) {
		rc = r < 0 ? -1 : 1;
		goto out;
	}
	free(k->config_text);
	k->config_text = slurp(config);
	if (!k->config_text) {
		err_setc(e, ERR_IO, config, "no .config after configure");
		goto out;
	}
	for (i = 0; i < (size_t)nfrag; i++)
		check_fragment(k, frag[i], k->config_text);
	if (old && !strcmp(old, k->config_text)) {
		/* unchanged: give .config back its old mtime, nothing to reconfigure */
		struct timespec ts[2] = { old_st.st_atim, old_st.st_mtim };

		utimensat(AT_FDCWD, config, ts, AT_SYMLINK_NOFOLLOW);
		log_addf(k, "regtrack: .config unchanged\n");
	}
	if (key && write_file(keypath, key) < 0)
		unlink(keypath);
	rc = 0;
out:
	k->configure_s = mono_s() - t0;
	free(key);
	free(keypath);
	for (i = 0; i < (size_t)nfrag; i++)
		free(frag[i]);
	free(merge);
	free(old);
	free(config);
	free(builds);
	return rc;
}

int kernel_build(struct kernel *k, struct err *e)
{
	const struct kconfig_base *base = kconfig_find(k->kconfig, k->arch);
	char *jobs = NULL, *logpath = NULL, *path = NULL;
	struct make_args m;
	int rc = -1, r, fd, tbuild = k->timeout_build_s > 0 ? k->timeout_build_s : 7200;
	double t0 = mono_s();

	if (!base || !k->build_dir)
		return err_setc(e, ERR_INTERNAL, "kconfig", "build before configure");
	logpath = xstrfmt("%s/regtrack-build.log", k->build_dir);
	fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		err_setc(e, ERR_IO, logpath, "cannot create '%s': %s", logpath, strerror(errno));
		free(logpath);
		return -1;
	}
	make_args_init(&m, k, base);
	jobs = xstrfmt("-j%d", k->make_jobs > 0 ? k->make_jobs : 1);
	m.argv[m.n] = jobs;
	m.argv[m.n + 1] = base->image_target;
	m.argv[m.n + 2] = NULL;
	r = run_tree(k, m.argv, k->src_dir, m.rw, m.ro[0], m.env, tbuild, fd, e);
	make_args_release(&m);
	close(fd);
	if (r) {
		rc = r < 0 ? -1 : 1;
		goto out;
	}
	free(k->image);
	k->image = xstrfmt("%s/%s", k->build_dir, base->image);
	if (!beneath(k->build_dir, k->image)) {
		log_addf(k, "regtrack: '%s' is missing or not a file of the build dir\n", k->image);
		rc = 1;
		goto out;
	}
	if (!file_exists(k->image)) {
		log_addf(k, "regtrack: make succeeded but '%s' is missing\n", k->image);
		rc = 1;
		goto out;
	}
	if (kernel_file_sha256(k->image, k->image_sha256) < 0) {
		rc = err_setc(e, ERR_IO, k->image, "cannot read '%s' to hash it: %s", k->image,
			      strerror(errno));
		goto out;
	}
	path = xstrfmt("%s/include/config/kernel.release", k->build_dir);
	free(k->release);
	k->release = beneath(k->build_dir, path) ? slurp(path) : NULL;
	if (k->release)
		k->release[strcspn(k->release, "\n")] = '\0';
	else
		k->release = xstrdup("");
	free(path);
	path = xstrfmt("%s/.config", k->build_dir);
	free(k->config_text);
	k->config_text = slurp(path);
	rc = 0;
out:
	k->build_s = mono_s() - t0;
	free(path);
	free(jobs);
	free(logpath);
	return rc;
}

/* `git rev-parse HEAD:tools` of the checkout into id (41 bytes); 0 on success. */
static int tools_tree_id(struct kernel *k, char id[41], struct err *e)
{
	const char *argv[] = { "git", "-C",	  k->src_dir,	"rev-parse",
			       "-q",  "--verify", "HEAD:tools", NULL };
	struct runcmd cmd;
	int rc = -1;

	runcmd_init(&cmd, argv, GIT_QUICK_S);
	cmd.cancel = k->cancel;
	if (runcmd_run(&cmd, e) < 0) {
		runcmd_release(&cmd);
		return -1;
	}
	if (runcmd_ok(&cmd) && cmd.out.len >= 40) {
		memcpy(id, cmd.out.data, 40);
		id[40] = '\0';
		rc = names_full_sha(id) ? 0 : -1;
	}
	runcmd_release(&cmd);
	if (rc)
		err_setc(e, ERR_IO, k->src_dir, "no tools/ tree at HEAD of '%s'", k->src_dir);
	return rc;
}

int kernel_build_perf(struct kernel *k, struct err *e)
{
	const struct kconfig_base *base = k->kconfig ? kconfig_find(k->kconfig, k->arch) : NULL;
	char id[41], *dir = NULL, *bin = NULL, *obj = NULL, *lockp = NULL, *tmp = NULL;
	char *perfdir = NULL, *odir = NULL, *target = NULL, *jobs = NULL, *logpath = NULL;
	char *cross = NULL;
	int rc = -1, lock = -1, r, fd = -1,
	    tbuild = k->timeout_build_s > 0 ? k->timeout_build_s : 7200;
	double t0 = mono_s();

	if (!base || !k->src_dir)
		return err_setc(e, ERR_INTERNAL, "kconfig", "perf build before fetch");
	if (tools_tree_id(k, id, e))
		return -1;
	dir = xstrfmt("%s/perf/%s-%s", k->work_dir, id, base->karch);
	bin = xstrfmt("%s/perf", dir);
	free(k->perf);
	k->perf = NULL;
	k->perf_cached = 0;
	if (file_exists(bin)) {
		log_addf(k, "regtrack: perf for tools tree %.12s (%s) cached: %s\n", id,
			 base->karch, bin);
		k->perf = bin;
		bin = NULL;
		k->perf_cached = 1;
		rc = 0;
		goto out;
	}
	perfdir = xstrfmt("%s/perf", k->work_dir);
	/* a patched tools/ tree builds in a dir of its own, emptied first (as the kernel) */
	odir = xstrfmt("%s/obj-%s%s", perfdir, base->karch, k->patches ? "-patched" : "");
	if (fs_mkdirs(perfdir, 0755, e))
		goto out;
	lockp = xstrfmt("%s/%s.lock", perfdir, base->karch);
	lock = lock_path(lockp, e);
	if (lock < 0)
		goto out;
	if (k->patches) {
		const char *rm[] = { "rm", "-rf", odir, NULL };

		if (run_logged(k, rm, NULL, NULL, GIT_QUICK_S, -1, e) < 0)
			goto out;
	}
	if (fs_mkdirs(odir, 0755, e))
		goto out;
	if (file_exists(bin)) {
		/* built by another job while this one waited for the lock */
		k->perf = bin;
		bin = NULL;
		k->perf_cached = 1;
		rc = 0;
		goto out;
	}
	{
		const char *prefix = cross_prefix(base);
		char *odir_arg = xstrfmt("O=%s", odir), *carg = NULL, *aarg = NULL;
		const char *argv[48];
		int n = 0;
		static const char *const no[] = {
			/* every optional library off: a static binary of libc alone */
			"NO_LIBELF=1",
			"NO_LIBUNWIND=1",
			"NO_LIBDW_DWARF_UNWIND=1",
			"NO_SLANG=1",
			"NO_GTK2=1",
			"NO_LIBPERL=1",
			"NO_LIBPYTHON=1",
			"NO_LIBBPF=1",
			"NO_JVMTI=1",
			"NO_LIBCRYPTO=1",
			"NO_LIBNUMA=1",
			"NO_LIBZSTD=1",
			"NO_LIBCAP=1",
			"NO_LIBBABELTRACE=1",
			"NO_LZMA=1",
			"NO_ZLIB=1",
			"NO_AUXTRACE=1",
			"NO_LIBAUDIT=1",
			"NO_DEMANGLE=1",
			"NO_BPF_SKEL=1",
			"NO_LIBDEBUGINFOD=1",
			/* no vendor event tables (a 16 MB generated pmu-events.c): the
			 * generic events (cpu-clock, cycles, instructions) are built in */
			"NO_JEVENTS=1",
			/* no debug info: the binary is stripped anyway */
			"EXTRA_CFLAGS=-g0",
			"WERROR=0",
		};
		const char *env[] = { "LC_ALL=C", NULL };
		const char *rw[] = { odir, NULL };
		size_t i;

		obj = xstrfmt("%s/tools/perf", k->src_dir);
		jobs = xstrfmt("-j%d", k->make_jobs > 0 ? k->make_jobs : 1);
		/* the `all` target links dlfilters .so files, which -static cannot: perf alone */
		target = xstrfmt("%s/perf", odir);
		argv[n++] = "make";
		argv[n++] = "-C";
		argv[n++] = obj;
		argv[n++] = "-f";
		argv[n++] = "Makefile.perf";
		argv[n++] = odir_arg;
		argv[n++] = jobs;
		argv[n++] = "LDFLAGS=-static";
		for (i = 0; i < ARRAY_SIZE(no); i++)
			argv[n++] = no[i];
		if (*prefix) {
			aarg = xstrfmt("ARCH=%s", base->karch);
			carg = xstrfmt("CROSS_COMPILE=%s", prefix);
			argv[n++] = aarg;
			argv[n++] = carg;
		}
		argv[n++] = target;
		argv[n] = NULL;
		logpath = xstrfmt("%s/regtrack-perf-build.log", odir);
		fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
		r = run_tree(k, argv, NULL, rw, NULL, env, tbuild, fd, e);
		if (fd >= 0)
			close(fd);
		free(odir_arg);
		free(aarg);
		free(carg);
		if (r) {
			rc = r < 0 ? -1 : 1;
			goto out;
		}
		cross = xstrfmt("%sstrip", prefix);
		if (!beneath(odir, target)) {
			log_addf(k, "regtrack: '%s' is not a file of the perf build dir\n", target);
			rc = 1;
			goto out;
		}
	}
	if (fs_mkdirs(dir, 0755, e))
		goto out;
	tmp = xstrfmt("%s.tmp", bin);
	{
		/* stripped: 8 MB instead of 19 (no debug info: the initramfs stays small) */
		const char *argv[] = { cross, "-o", tmp, target, NULL };

		r = run_logged(k, argv, NULL, NULL, GIT_QUICK_S, -1, e);
		if (r) {
			rc = r < 0 ? -1 : 1;
			goto out;
		}
	}
	if (rename(tmp, bin) < 0) {
		err_setc(e, ERR_IO, bin, "cannot rename '%s': %s", tmp, strerror(errno));
		goto out;
	}
	log_addf(k, "regtrack: perf for tools tree %.12s (%s) built in %.0f s: %s\n", id,
		 base->karch, mono_s() - t0, bin);
	k->perf = bin;
	bin = NULL;
	rc = 0;
out:
	if (tmp && rc)
		unlink(tmp);
	if (lock >= 0)
		close(lock);
	k->perf_s = mono_s() - t0;
	free(dir);
	free(bin);
	free(obj);
	free(lockp);
	free(tmp);
	free(perfdir);
	free(odir);
	free(target);
	free(jobs);
	free(logpath);
	free(cross);
	return rc;
}
