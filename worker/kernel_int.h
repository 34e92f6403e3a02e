#ifndef REGTRACK_WORKER_KERNEL_INT_H
#define REGTRACK_WORKER_KERNEL_INT_H

/*
 * Shared by the kernel's files only (not an API; kernel.h is): kernel.c (the
 * kconfig table, the log, running commands), kernel_git.c (the commit and
 * its patches), kernel_build.c (configure, build, the image, perf).
 */

#include "kernel.h"

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

/* The row of kconfig `name` for `arch` (NULL: any arch); NULL when unknown. */
const struct kconfig_base *kernel_kconfig_find(const char *name, const char *arch);

/* printf to k's log, which keeps only its last 64 KiB. */
void kernel_log_addf(struct kernel *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Runs argv (NULL-terminated; in cwd, with env; both may be NULL), logging
 * "$ argv" and its output; full_log_fd >= 0 also gets the output. The trusted
 * commands (git, rm, strip): no sandbox. 0 when it exited 0, 1 when it ran
 * and failed (the reason logged), -1 when it could not start (e filled).
 */
int kernel_run_logged(struct kernel *k, const char *const *argv, const char *cwd,
		      const char *const *env, int timeout_s, int full_log_fd, struct err *e);

/*
 * Runs tree code (make, scripts from the tree) like kernel_run_logged, in k's
 * sandbox when it is usable: the source dir, its mirror, the kconfig
 * fragments and ro_extra (may be NULL) read-only, rw (NULL-terminated)
 * read-write and given to the build user first (they must exist), env its
 * whole environment. Without a usable sandbox the command runs directly (a
 * line in the log says so). Returns as kernel_run_logged.
 */
int kernel_run_tree(struct kernel *k, const char *const *argv, const char *cwd,
		    const char *const *rw, const char *ro_extra, const char *const *env,
		    int timeout_s, int full_log_fd, struct err *e);

/*
 * 1 when path, symlinks resolved, is dir or below it (sandboxed code could
 * have replaced a directory on the way with a symlink); 0 otherwise, also
 * when either does not exist.
 */
int kernel_beneath(const char *dir, const char *path);

/* 1 when path is a directory (a regular file), following symlinks. */
int kernel_dir_exists(const char *path);
int kernel_file_exists(const char *path);

/* 1 when prog is an executable in PATH. */
int kernel_in_path(const char *prog);

/* The worker's arch as regtrack names it ("x86_64", "aarch64"); static. */
const char *kernel_host_arch(void);

/* flock()s path (created if missing); the fd (close it to unlock), or -1 with e. */
int kernel_lock_path(const char *path, struct err *e);

/* Writes text to path (created 0644 or truncated, never through a symlink); 0 or -1. */
int kernel_write_file(const char *path, const char *text);

#endif
