#ifndef REGTRACK_KERNEL_H
#define REGTRACK_KERNEL_H

#include <signal.h>

#include "buf.h"
#include "err.h"

struct sandbox;

/*
 * Getting a bootable kernel image for (tree, commit, kconfig, compiler):
 * source, configuration, build. Every git and make call goes through
 * runcmd (argv, timeout, own process group).
 *
 * Layout under work_dir (every part reused by later jobs):
 *	mirrors/TREE.git          bare mirror (`git clone --mirror`, then `fetch`)
 *	mirrors/TREE.lock         flock()ed around every mirror/worktree operation
 *	src/TREE-KARCH/           a `git worktree` of the mirror, checked out at
 *	                          the commit (only changed files get new mtimes,
 *	                          so a rebuild after a small change is incremental)
 *	src/TREE-KARCH.lock       flock()ed from kernel_fetch to kernel_release:
 *	                          one job at a time per source dir
 *	build/TREE-KCONFIG-COMPILER/  `make O=` output dir; .config is kept there;
 *	                          regtrack-build.log is the last full make log
 *
 * kconfig names are a table in kernel.c: "x86_64-tiny-mm", "arm64-tiny-mm"
 * (tinyconfig + worker/kconfig/tiny-mm.config + ARCH-tiny-mm.config),
 * "x86_64-defconfig", "arm64-defconfig" (defconfig + ARCH-defconfig.config).
 * Fragments are merged with scripts/kconfig/merge_config.sh -m, then
 * `make olddefconfig`. compiler is "gcc" or "gcc-N"; the cross prefix
 * (aarch64-linux-gnu-, x86_64-linux-gnu-) is added when the kernel's arch
 * is not the host's; ccache wraps it (CCACHE_DIR = ccache_dir).
 */
struct kernel {
	/* --- inputs: borrowed, set by the caller before kernel_fetch --- */
	const char *work_dir;
	const char *tree;	 /* [A-Za-z0-9._-]+ */
	const char *url;	 /* git URL or local path */
	const char *commit;	 /* sha (full or abbreviated), branch or tag */
	const char *patches;	 /* NULL, or an mbox applied on commit with `git am`; sha is then
				  * the commit it made */
	const char *kconfig;	 /* a name from the table above */
	const char *compiler;	 /* "gcc" | "gcc-N" */
	const char *arch;	 /* the worker's arch: "x86_64" | "aarch64" */
	const char *ccache_dir;	 /* NULL: WORK_DIR/ccache */
	const char *kconfig_dir; /* NULL: search (see kernel_find_kconfig_dir) */
	int make_jobs;		 /* <= 0: 1 */
	int timeout_fetch_s, timeout_build_s; /* <= 0: 1800 / 7200 */
	volatile sig_atomic_t *cancel;	      /* passed to every child (see runcmd.h) */
	const struct sandbox *sandbox;	      /* tree code (make, merge_config.sh, the perf
					       * build) runs in it (sandbox.h); NULL or off:
					       * run directly. On but unusable: builds of
					       * patches are refused (kernel_fetch fails,
					       * ERR_INVALID_JOB, detail "sandbox"), others
					       * run directly with a line in the log */

	/* --- outputs: owned by the struct, freed by kernel_release --- */
	char sha[41];	   /* the commit resolved in the mirror (with patches: what git am made) */
	char base_sha[41]; /* the commit resolved in the mirror, before patches */
	char patch_id[41]; /* with patches: `git patch-id --stable` of the series as one diff
			    * (base..sha); "" otherwise or when it could not be computed */
	char *patch_ids;   /* with patches: the patch-id of each patch, in order, space-separated;
			    * NULL otherwise */
	char *src_dir, *build_dir;
	char *image;			      /* bootable image: build/arch/x86/boot/bzImage or
					       * build/arch/arm64/boot/Image */
	char image_sha256[65];		      /* SHA-256 of the image file, 64 lowercase hex
					       * digits ("" until kernel_build succeeded): the
					       * builds are reproducible (KBUILD_BUILD_TIMESTAMP,
					       * _USER, _HOST, _VERSION fixed), so two commits
					       * with one hash built the same kernel in this
					       * work dir (paths under it are not mapped away:
					       * compare hashes of one worker layout) */
	char *release;			      /* `make kernelrelease`, e.g. "6.1.158" */
	char *config_text;		      /* the final .config */
	const char *karch;		      /* "x86_64" | "arm64" (static storage) */
	struct buf log;			      /* last 64 KiB of the output of every command
					       * run, each preceded by a "$ argv" line */
	double fetch_s, configure_s, build_s; /* wall time of each phase */
	char *perf;			      /* kernel_build_perf: the static perf binary */
	double perf_s;			      /* its wall time (0.0x s when cached) */
	int perf_cached;		      /* 1: kernel_build_perf found it built */
	int src_lock;			      /* flock on src/TREE-KARCH.lock, held from
					       * kernel_fetch to kernel_release */
};

/* Zeroes k and sets up the log buffer. Set the inputs afterwards. */
void kernel_init(struct kernel *k);
void kernel_release(struct kernel *k);

/*
 * 1 when `kconfig` names a base config in the table for the worker arch
 * `arch` ("x86_64"/"aarch64"); 0 otherwise.
 */
int kernel_kconfig_known(const char *kconfig, const char *arch);

/*
 * Brings the mirror up to date when needed (a full sha already in the
 * mirror needs no fetch), resolves k->commit to k->sha and checks it out
 * into k->src_dir. Returns 0; -1 with e filled: ERR_INVALID_JOB (bad tree
 * name, kconfig unknown or not for this arch, unknown compiler), ERR_FETCH
 * (clone/fetch failed or timed out; the git output is in k->log),
 * ERR_NOT_FOUND (the commit is not in the mirror after a fetch; detail
 * "commit"), ERR_IO (work dir unusable).
 */
int kernel_fetch(struct kernel *k, struct err *e) __attribute__((warn_unused_result));

/*
 * Configures k->build_dir: base config, fragments, olddefconfig. Skipped
 * (the .config kept) when its inputs are those of the last configure in
 * this dir: base target, fragment texts, compiler version, and the blob ids
 * of the commit's Kconfig files, config fragments, scripts/kconfig and top
 * Makefile (stored in build/…/regtrack-config.key). When the resulting
 * .config equals the previous one, its old mtime is restored so make sees
 * nothing to redo. Returns 0 on success, 1 when a configure
 * step failed (a build failure of the job: the reason is in k->log),
 * -1 with e filled on an internal error (ERR_IO, ERR_INTERNAL: called
 * before kernel_fetch()).
 */
int kernel_configure(struct kernel *k, struct err *e) __attribute__((warn_unused_result));

/*
 * Builds the image with make -jN under ccache; fills image, image_sha256,
 * release and config_text. Returns 0, 1 when the build failed or timed out (reason
 * and make's output tail in k->log), -1 with e filled on an internal error.
 */
int kernel_build(struct kernel *k, struct err *e) __attribute__((warn_unused_result));

/*
 * A static `perf` for the kernel's arch, built from the checked-out tree's
 * own tools/perf (so its version is the kernel's) for the guest's
 * initramfs. Cached by the git tree id of the commit's tools/
 * (`git rev-parse HEAD:tools`) and the arch, so the commits of a bisect or
 * a series that do not touch tools/ share one build:
 *	perf/TOOLS_TREE-KARCH/perf   the stripped binary
 *	perf/obj-KARCH/              make's O= dir, kept (a new tools/ tree
 *	                             rebuilds incrementally)
 *	perf/KARCH.lock              flock()ed around a build
 * under work_dir. The build is
 *	make -C SRC/tools/perf -f Makefile.perf O=OBJ -jN LDFLAGS=-static
 *	     NO_LIBELF=1 ... (every optional library off) NO_JEVENTS=1
 *	     EXTRA_CFLAGS=-g0 WERROR=0 OBJ/perf
 * with ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- for arm64 on x86_64;
 * without libelf perf names kernel frames from /proc/kallsyms (the booted
 * kernel's own) and user frames only as [unknown] where it has no ELF
 * reader. Measured on 2 cores: ~1.5 min cold per arch (x86_64 1 min 24 s,
 * arm64 1 min 38 s), stripped binary ~8 MB. Call after kernel_fetch.
 * Fills k->perf, perf_s and perf_cached; returns 0, 1 when the build failed
 * (make's tail in k->log), -1 with e filled (ERR_IO, ERR_INTERNAL).
 */
int kernel_build_perf(struct kernel *k, struct err *e) __attribute__((warn_unused_result));

/*
 * SHA-256 of the file at path as 64 lowercase hex digits and a NUL in out.
 * Returns 0, or -1 with errno set (out "") when it cannot be read.
 */
int kernel_file_sha256(const char *path, char out[65]);

/*
 * The directory holding the kconfig fragments: `explicit` when not NULL,
 * else $REGTRACK_KCONFIG_DIR, else CASES_DIR/../../worker/kconfig (the
 * source checkout next to bin/cases), else /usr/local/share/regtrack/kconfig,
 * else /usr/share/regtrack/kconfig; the first that exists, as an absolute
 * path. Returns a new string (caller frees with free()), or NULL when none
 * exists.
 */
char *kernel_find_kconfig_dir(const char *explicit, const char *cases_dir);

#endif
