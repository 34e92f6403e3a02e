#ifndef REGTRACK_HOSTRUN_H
#define REGTRACK_HOSTRUN_H

#include <signal.h>

#include "buf.h"
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
				    * path (perf's layers: worker/monitors.h) */
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

/*
 * The compiler a /proc/version line names, spelt as a job's `compiler`
 * ("gcc-12", "clang-15": the name and the major version), into out (n
 * bytes); "" when the line names none it can read. The line is Linux's
 * linux_banner: "Linux version RELEASE (USER@HOST) (COMPILER, LINKER) #..."
 * where COMPILER is e.g. "gcc-12 (Debian 12.2.0-14) 12.2.0", "gcc (GCC)
 * 15.3.0", "gcc version 10.2.1 20210110 (Debian 10.2.1-6)" or "Debian clang
 * version 15.0.6".
 */
void hostrun_kernel_compiler(const char *proc_version, char *out, size_t n);

/*
 * Host mode runs the case on the running kernel, so a job's `commit` and
 * `compiler` are labels unless the kernel says otherwise: appends one line
 * "regtrack-worker: warning: ...\n" to warn per mismatch and returns how
 * many. A mismatch: release (uname -r) names a commit (CONFIG_LOCALVERSION_AUTO's
 * "-gSHA", 7 to 40 hex digits) that commit does not start with, or the
 * kernel's compiler (hostrun_kernel_compiler) is not compiler (a job's
 * "gcc-12"). A release that names no commit, or a line that names no
 * compiler, cannot be checked: no warning. Inputs borrowed, each may be NULL.
 */
int hostrun_kernel_check(const char *release, const char *proc_version, const char *commit,
			 const char *compiler, struct buf *warn);

#endif
