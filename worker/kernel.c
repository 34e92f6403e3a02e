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

#define KERNEL_LOG_CAP (64u << 10)

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

const struct kconfig_base *kernel_kconfig_find(const char *name, const char *arch)
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
	return kconfig && arch && kernel_kconfig_find(kconfig, arch) != NULL;
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

void kernel_log_addf(struct kernel *k, const char *fmt, ...)
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

	kernel_log_addf(k, "%s$", how);
	for (i = 0; shown[i]; i++)
		kernel_log_addf(k, " %s", shown[i]);
	kernel_log_addf(k, "\n");
	runcmd_init(&cmd, argv, timeout_s);
	cmd.cwd = cwd;
	cmd.env = env;
	cmd.merge_stderr = 1;
	cmd.out.cap = KERNEL_LOG_CAP;
	cmd.log_fd = full_log_fd;
	cmd.cancel = k->cancel;
	if (runcmd_run(&cmd, e) < 0) {
		kernel_log_addf(k, "%s\n", e->message);
		runcmd_release(&cmd);
		return -1;
	}
	log_add(k, cmd.out.data, cmd.out.len);
	if (cmd.out.len && cmd.out.data[cmd.out.len - 1] != '\n')
		kernel_log_addf(k, "\n");
	rc = runcmd_ok(&cmd) ? 0 : 1;
	if (rc)
		kernel_log_addf(k, "regtrack: '%s' failed: %s\n", shown[0],
				runcmd_describe(&cmd, desc, sizeof(desc)));
	runcmd_release(&cmd);
	return rc;
}

/* run_shown of argv as it is (the trusted commands: git, rm, strip) */
int kernel_run_logged(struct kernel *k, const char *const *argv, const char *cwd,
		      const char *const *env, int timeout_s, int full_log_fd, struct err *e)
{
	return run_shown(k, argv, argv, "", cwd, env, timeout_s, full_log_fd, e);
}

/*
 * 1 when path, symlinks resolved, is dir or below it (the directories on
 * the way from dir to a file that sandboxed code could have replaced with
 * symlinks); 0 otherwise, also when either does not exist.
 */
int kernel_beneath(const char *dir, const char *path)
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
int kernel_run_tree(struct kernel *k, const char *const *argv, const char *cwd,
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
			kernel_log_addf(k,
					"regtrack: no sandbox (%s): a tree of the server's, built "
					"directly\n",
					k->sandbox->why);
		free(mirror);
		return kernel_run_logged(k, argv, cwd, env, timeout_s, full_log_fd, e);
	}
	spec.cpu_s = timeout_s;
	for (size_t i = 0; rw && rw[i]; i++)
		if (fs_mkdirs(rw[i], 0755, e) || sandbox_own_dir(k->sandbox, rw[i], e)) {
			kernel_log_addf(k, "regtrack: %s\n", e->message);
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

int kernel_dir_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int kernel_file_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* 1 when `prog` is an executable in PATH. */
int kernel_in_path(const char *prog)
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

const char *kernel_host_arch(void)
{
	static struct utsname u;

	if (!u.machine[0])
		uname(&u);
	return u.machine;
}

/* Flock()s `path` (created if missing); returns the fd (close to unlock) or -1. */
int kernel_lock_path(const char *path, struct err *e)
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
		char *real = kernel_dir_exists(cand) ? realpath(cand, NULL) : NULL;

		free(cand);
		if (real)
			return real;
	}
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		if (kernel_dir_exists(fixed[i]))
			return xstrdup(fixed[i]);
	return NULL;
}

int kernel_write_file(const char *path, const char *text)
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
