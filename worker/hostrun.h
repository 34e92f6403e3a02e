#ifndef REGTRACK_HOSTRUN_H
#define REGTRACK_HOSTRUN_H

#include <signal.h>

#include "err.h"
#include "runcmd.h"

/*
 * Host mode: run a case binary on the running kernel, no build, no boot
 * (capability `host`: tracking the host kernel, fast tests).
 *
 * The case is CASES_DIR/ARCH/TESTCASE, run with `args` (its key=value
 * words) in `cwd`, under a timeout, in its own process group (runcmd).
 */
struct hostrun {
	/* --- inputs (borrowed) --- */
	const char *cases_dir;	   /* holds ARCH/NAME static binaries */
	const char *arch;	   /* "x86_64" | "aarch64" */
	const char *testcase;	   /* [A-Za-z0-9._-]+ */
	const char *const *args;   /* NULL-terminated key=value words, or NULL */
	const char *cwd;	   /* NULL: inherit */
	const char *const *prefix; /* NULL, or NULL-terminated words run before the case
				    * path (perf's layers: worker/profile.h) */
	const char *const *env;	   /* NULL, or "NAME=value" entries added (runcmd.h) */
	int timeout_s;		   /* <= 0: 600 */
	volatile sig_atomic_t *cancel;

	/* --- outputs --- */
	struct runcmd cmd; /* exit status, stdout (1 MiB, head kept), stderr
			    * (64 KiB tail), elapsed_s */
	char release[128]; /* uname -r of the host */
};

void hostrun_init(struct hostrun *h);
void hostrun_release(struct hostrun *h);

/*
 * Runs the case once. Returns 0 when it ran (look at h->cmd for how it
 * ended), -1 with e filled: ERR_INVALID_JOB (bad case name, no such case
 * binary for this arch: the path in detail), or runcmd's errors.
 */
int hostrun_run(struct hostrun *h, struct err *e) __attribute__((warn_unused_result));

#endif
