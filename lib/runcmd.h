#ifndef REGTRACK_RUNCMD_H
#define REGTRACK_RUNCMD_H

#include <signal.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"

/*
 * The one way regtrack starts a child process (after git's run-command.h):
 * an argv vector (no shell ever sees it), a timeout, its own process group
 * (the whole group is killed on timeout or cancel, and any process left in
 * the group when the child exits is killed too), stdin from /dev/null (or
 * stdin_path), and
 * stdout/stderr captured into size-capped buffers. The child gets SIGKILL
 * when the calling thread dies (PR_SET_PDEATHSIG), so a killed worker does
 * not leave make or qemu running on alone; call runcmd_run from a thread
 * that outlives the child.
 *
 * Usage:
 *	const char *argv[] = { "git", "-C", dir, "fetch", NULL };
 *	struct runcmd cmd;
 *	runcmd_init(&cmd, argv, 600);
 *	if (runcmd_run(&cmd, &e) < 0) ... could not start ...
 *	if (!runcmd_ok(&cmd)) ... cmd.err.data, runcmd_describe() ...
 *	runcmd_release(&cmd);
 */
struct runcmd {
	/* --- inputs (set after runcmd_init, all borrowed until runcmd_run returns) --- */
	const char *const *argv;       /* NULL-terminated; argv[0] is looked up in PATH */
	const char *cwd;	       /* directory to run in; NULL = inherit */
	const char *const *env;	       /* NULL-terminated "NAME=value" entries added to
					* (or replacing in) the inherited environment;
					* "NAME" alone removes NAME; NULL = none */
	int timeout_s;		       /* > 0: wall-clock limit in seconds */
	int merge_stderr;	       /* 1: stderr goes into `out` too, interleaved */
	int keep_tail;		       /* 1 (default): when a capture buffer is full, drop
					* its oldest bytes (keep the last `cap` bytes);
					* 0: keep the first bytes, drop the rest */
	const char *stdin_path;	       /* a file read as the child's stdin (git patch-id
					* reads only stdin); NULL = /dev/null */
	int log_fd;		       /* >= 0: every byte of stdout/stderr is also written
					* here, uncapped (e.g. a full build log); -1 = none */
	volatile sig_atomic_t *cancel; /* if not NULL and it becomes non-zero, the
					* group is killed as on a timeout (`cancelled` set) */
	volatile sig_atomic_t *abort;  /* the same for the caller's own reason (a helper
					* thread that failed: `aborted` set, not
					* `cancelled`, which means the job's cancel) */

	/* --- outputs --- */
	struct buf out;			 /* captured stdout; cap set by runcmd_init (1 MiB),
					  * may be changed before runcmd_run */
	struct buf err;			 /* captured stderr (empty with merge_stderr) */
	size_t out_dropped, err_dropped; /* bytes not kept because of the caps */
	int exited;			 /* 1: exited normally with exit_code */
	int exit_code;
	int signaled; /* 1: killed by term_signal */
	int term_signal;
	int timed_out;	  /* 1: killed because timeout_s passed */
	int cancelled;	  /* 1: killed because *cancel became non-zero */
	int aborted;	  /* 1: killed because *abort became non-zero */
	double elapsed_s; /* wall-clock seconds from start to reap */
};

/*
 * Sets defaults: no cwd, no env changes, capture caps of 1 MiB each,
 * keep_tail = 1, log_fd = -1. argv is borrowed; timeout_s must be > 0.
 */
void runcmd_init(struct runcmd *cmd, const char *const *argv, int timeout_s);

/*
 * Runs the command to completion (or until the timeout/cancel kills it).
 * Returns 0 when the child was started and reaped, whatever its exit;
 * -1 when it could not be started: argv[0] not found or not executable,
 * cwd missing, stdin_path cannot be opened, fork/pipe failure: ERR_SPAWN, the errno text in the
 * message, argv[0] in the detail. May be called
 * once per runcmd_init.
 */
int runcmd_run(struct runcmd *cmd, struct err *e) __attribute__((warn_unused_result));

/* 1 when the child exited with status 0 and was not killed. */
int runcmd_ok(const struct runcmd *cmd);

/*
 * Writes a short human description of how the child ended into dst (at
 * most n bytes, NUL-terminated): "exit status 2", "killed by signal 9",
 * "timed out after 600 s", "cancelled". Returns dst.
 */
const char *runcmd_describe(const struct runcmd *cmd, char *dst, size_t n);

/* Frees the capture buffers. */
void runcmd_release(struct runcmd *cmd);

#endif
