#include "hostrun.h"
#include "xalloc.h"
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define HOSTRUN_MAX_ARGS 64
#define HOSTRUN_MAX_PREFIX 48

void hostrun_init(struct hostrun *h)
{
	memset(h, 0, sizeof(*h));
	runcmd_init(&h->cmd, NULL, 1);
}

void hostrun_release(struct hostrun *h)
{
	runcmd_release(&h->cmd);
}

int hostrun_run(struct hostrun *h, struct err *e)
{
	const char *argv[HOSTRUN_MAX_PREFIX + HOSTRUN_MAX_ARGS + 2];
	struct utsname u;
	struct stat st;
	char *path;
	size_t n = 0, np;
	int rc;

	if (!names_plain(h->testcase, NAMES_PLAIN_MAX))
		return err_setc(e, ERR_INVALID_JOB, "testcase", "bad case name '%s'",
				h->testcase ? h->testcase : "");
	path = xstrfmt("%s/%s/%s", h->cases_dir ? h->cases_dir : ".", h->arch ? h->arch : "?",
		       h->testcase);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, X_OK) < 0) {
		err_setc(e, ERR_INVALID_JOB, path, "no case binary '%s'", path);
		free(path);
		return -1;
	}
	while (h->prefix && h->prefix[n] && n < HOSTRUN_MAX_PREFIX)
		argv[n] = h->prefix[n], n++;
	np = n;
	argv[n++] = path;
	while (h->args && h->args[n - 1 - np] && n - np <= HOSTRUN_MAX_ARGS) {
		argv[n] = h->args[n - 1 - np];
		n++;
	}
	argv[n] = NULL;
	if (h->args && h->args[n - 1 - np]) {
		free(path);
		return err_setc(e, ERR_INVALID_JOB, "params", "more than %d params",
				HOSTRUN_MAX_ARGS);
	}
	uname(&u);
	snprintf(h->release, sizeof(h->release), "%s", u.release);

	runcmd_release(&h->cmd);
	runcmd_init(&h->cmd, argv, h->timeout_s > 0 ? h->timeout_s : 600);
	h->cmd.keep_tail = 0; /* results are at the start; a runaway case is cut */
	h->cmd.err.cap = 64u << 10;
	h->cmd.cwd = h->cwd;
	h->cmd.env = h->env;
	h->cmd.cancel = h->cancel;
	rc = runcmd_run(&h->cmd, e);
	h->cmd.argv = NULL; /* argv was on this stack frame */
	free(path);
	return rc;
}
