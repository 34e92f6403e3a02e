#ifndef REGTRACK_SANDBOX_H
#define REGTRACK_SANDBOX_H

#include "err.h"

/*
 * The sandbox that tree code runs in (make, Kconfig's merge_config.sh, the
 * perf build): a submitted patch can change any of it, so it is the
 * submitter's code. Made with bubblewrap (Debian's bwrap, the tool Flatpak
 * uses; no home-made jail): the child gets
 *   - its own mount, pid, ipc, uts and network namespaces: no network at
 *     all (only a loopback of its own), no view of the worker's processes;
 *   - a file system of /usr read-only, a few /etc files the toolchain reads,
 *     /proc, /dev, an empty /tmp, and only the paths the caller names
 *     (read-only or read-write); the spool, the config, the token file and
 *     the other trees are not there;
 *   - an environment of only PATH, HOME, TMPDIR and what the caller passes;
 *   - when the worker runs as root: the build user's uid and gid (setpriv,
 *     no capabilities, no_new_privs); otherwise the worker's own uid;
 *   - resource limits per process (prlimit): CPU time, address space, file
 *     size, processes of the user.
 * Out of scope: a kernel exploit from inside the sandbox.
 */
struct sandbox {
	int off;       /* 1: config `sandbox = off`: nothing is wrapped, untrusted builds allowed */
	char *bwrap;   /* absolute path of a bwrap that ran the probe; NULL: unusable */
	char why[256]; /* with bwrap NULL and off 0: why it is unusable */
	long uid, gid; /* >= 0: the build user the child runs as (worker is root); -1: own */
};

/* The limits each sandboxed process gets (prlimit), besides the caller's timeout. */
#define SANDBOX_AS_BYTES (16ULL << 30)	  /* address space of one process */
#define SANDBOX_FSIZE_BYTES (16ULL << 30) /* largest file it may write */
#define SANDBOX_NPROC 16384		  /* processes of the build user */

/*
 * Sets sb up from the worker config: mode "on" (the default, NULL too) or
 * "off"; build_user a user name or a numeric uid (its primary group taken),
 * used only when the worker runs as root (NULL or "": "nobody"). With "on"
 * it looks for bwrap in PATH and runs `true` in the sandbox once; when that
 * fails, sb->bwrap stays NULL and sb->why says why (not an error: the
 * caller decides; see sandbox_usable). Returns 0, or -1 (ERR_CONFIG, the
 * key in the detail) for an unknown mode or build user. Release with
 * sandbox_release.
 */
int sandbox_init(struct sandbox *sb, const char *mode, const char *build_user, struct err *e)
	__attribute__((warn_unused_result));

void sandbox_release(struct sandbox *sb);

/* 1 when commands are wrapped (on, and the probe worked). */
int sandbox_usable(const struct sandbox *sb);

/* What a wrapped command may see and gets; every array NULL-terminated, or NULL for none. */
struct sandbox_spec {
	const char *const *rw;	/* absolute paths bound read-write at the same place */
	const char *const *ro;	/* absolute paths bound read-only (missing ones skipped) */
	const char *const *env; /* "NAME=value": the child's environment besides PATH,
				 * HOME=/tmp and TMPDIR=/tmp */
	const char *cwd;	/* absolute; NULL: / */
	int cpu_s;		/* > 0: RLIMIT_CPU of each process, s */
};

/*
 * The argv that runs argv (argv[0] looked up in the sandbox's PATH, or
 * absolute) in the sandbox described by spec: new NULL-terminated array of
 * new strings, caller frees with sandbox_argv_free. sb must be usable.
 */
char **sandbox_argv(const struct sandbox *sb, const struct sandbox_spec *spec,
		    const char *const *argv);

void sandbox_argv_free(char **argv);

/*
 * Makes dir (which must exist) writable for the build user: when sb has
 * one and dir is owned by someone else, dir and everything below it is
 * given to the build user (lchown, no symlink followed). Nothing to do
 * otherwise. Returns 0, or -1 with ERR_IO naming the path.
 */
int sandbox_own_dir(const struct sandbox *sb, const char *dir, struct err *e)
	__attribute__((warn_unused_result));

#endif
