/* The kernel configured and built, its image hashed, its perf built (see kernel.h). */
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

/* CROSS_COMPILE for building `base` on this host: "" when native. */
static const char *cross_prefix(const struct kconfig_base *base)
{
	if (!strcmp(base->arch, kernel_host_arch()))
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
 * kernel_beneath() for the directories on the way).
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
				kernel_log_addf(
					k,
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

int kernel_configure(struct kernel *k, struct err *e)
{
	const struct kconfig_base *base = kernel_kconfig_find(k->kconfig, k->arch);
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
		if (!kernel_file_exists(frag[nfrag])) {
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

		if (kernel_run_logged(k, rm, NULL, NULL, GIT_QUICK_S, -1, e) < 0)
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
				kernel_log_addf(k,
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
	r = kernel_run_tree(k, m.argv, k->src_dir, m.rw, m.ro[0], m.env, tbuild, -1, e);
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
		r = kernel_run_tree(k, margv, k->build_dir, m.rw, m.ro[0], m.env, tbuild, -1, e);
	}
	if (!r) {
		m.argv[m.n] = "olddefconfig";
		r = kernel_run_tree(k, m.argv, k->src_dir, m.rw, m.ro[0], m.env, tbuild, -1, e);
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
		kernel_log_addf(k, "regtrack: .config unchanged\n");
	}
	if (key && kernel_write_file(keypath, key) < 0)
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
	const struct kconfig_base *base = kernel_kconfig_find(k->kconfig, k->arch);
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
	r = kernel_run_tree(k, m.argv, k->src_dir, m.rw, m.ro[0], m.env, tbuild, fd, e);
	make_args_release(&m);
	close(fd);
	if (r) {
		rc = r < 0 ? -1 : 1;
		goto out;
	}
	free(k->image);
	k->image = xstrfmt("%s/%s", k->build_dir, base->image);
	if (!kernel_beneath(k->build_dir, k->image)) {
		kernel_log_addf(k, "regtrack: '%s' is missing or not a file of the build dir\n",
				k->image);
		rc = 1;
		goto out;
	}
	if (!kernel_file_exists(k->image)) {
		kernel_log_addf(k, "regtrack: make succeeded but '%s' is missing\n", k->image);
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
	k->release = kernel_beneath(k->build_dir, path) ? slurp(path) : NULL;
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
	const struct kconfig_base *base = k->kconfig ? kernel_kconfig_find(k->kconfig, k->arch) :
						       NULL;
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
	if (kernel_file_exists(bin)) {
		kernel_log_addf(k, "regtrack: perf for tools tree %.12s (%s) cached: %s\n", id,
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
	lock = kernel_lock_path(lockp, e);
	if (lock < 0)
		goto out;
	if (k->patches) {
		const char *rm[] = { "rm", "-rf", odir, NULL };

		if (kernel_run_logged(k, rm, NULL, NULL, GIT_QUICK_S, -1, e) < 0)
			goto out;
	}
	if (fs_mkdirs(odir, 0755, e))
		goto out;
	if (kernel_file_exists(bin)) {
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
		r = kernel_run_tree(k, argv, NULL, rw, NULL, env, tbuild, fd, e);
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
		if (!kernel_beneath(odir, target)) {
			kernel_log_addf(k, "regtrack: '%s' is not a file of the perf build dir\n",
					target);
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

		r = kernel_run_logged(k, argv, NULL, NULL, GIT_QUICK_S, -1, e);
		if (r) {
			rc = r < 0 ? -1 : 1;
			goto out;
		}
	}
	if (rename(tmp, bin) < 0) {
		err_setc(e, ERR_IO, bin, "cannot rename '%s': %s", tmp, strerror(errno));
		goto out;
	}
	kernel_log_addf(k, "regtrack: perf for tools tree %.12s (%s) built in %.0f s: %s\n", id,
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
