#include "hostrun.h"
#include "xalloc.h"
#include "names.h"

#include <ctype.h>
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

/* the major version of the first "N.M" at or after p into major; 0 when none */
static int major_after(const char *from, const char *end, long *major)
{
	for (const char *p = from; p < end; p++) {
		if (isdigit((unsigned char)*p) && (p == from || !isalnum((unsigned char)p[-1]))) {
			char *q;
			long v = strtol(p, &q, 10);

			if (q < end && *q == '.') {
				*major = v;
				return 1;
			}
			p = q - 1;
		}
	}
	return 0;
}

void hostrun_kernel_compiler(const char *proc_version, char *out, size_t n)
{
	const char *p, *start, *end, *c;
	int depth = 0;
	long major;

	if (n)
		*out = '\0';
	if (!proc_version || strncmp(proc_version, "Linux version ", 14))
		return;
	/* the second parenthesized group: (USER@HOST) (COMPILER, LINKER) */
	p = strchr(proc_version, '(');
	p = p ? strchr(p, ')') : NULL;
	p = p ? strchr(p, '(') : NULL;
	if (!p)
		return;
	start = ++p;
	for (end = start; *end && !(depth == 0 && (*end == ',' || *end == ')')); end++)
		depth += *end == '(' ? 1 : *end == ')' ? -1 : 0;
	c = memmem(start, (size_t)(end - start), "clang", 5);
	if (c) {
		const char *v = memmem(c, (size_t)(end - c), "version ", 8);

		if (v && major_after(v + 8, end, &major))
			snprintf(out, n, "clang-%ld", major);
		return;
	}
	if (strncmp(start, "gcc", 3))
		return;
	/* "gcc-12 (Debian 12.2.0-14) 12.2.0" names its major; "gcc (GCC) 15.3.0" and
	 * "gcc version 8.3.0 (Debian 8.3.0-6)": the first version */
	if (start[3] == '-' && isdigit((unsigned char)start[4])) {
		snprintf(out, n, "gcc-%ld", strtol(start + 4, NULL, 10));
		return;
	}
	if (major_after(start + 3, end, &major))
		snprintf(out, n, "gcc-%ld", major);
}

int hostrun_kernel_check(const char *release, const char *proc_version, const char *commit,
			 const char *compiler, struct buf *warn)
{
	char cc[64];
	const char *g;
	int n = 0;

	for (g = release ? strstr(release, "-g") : NULL; g; g = strstr(g + 2, "-g")) {
		size_t len = strspn(g + 2, "0123456789abcdef");

		if (len < 7 || len > 40 || isalnum((unsigned char)g[2 + len]))
			continue;
		if (!commit || strncmp(commit, g + 2, len)) {
			if (buf_addf(warn,
				     "regtrack-worker: warning: the running kernel (%s) is commit %.*s, "
				     "not the job's %.12s: host mode runs on the running kernel\n",
				     release, (int)len, g + 2, commit ? commit : "?"))
				return n;
			n++;
		}
		break;
	}
	hostrun_kernel_compiler(proc_version, cc, sizeof(cc));
	if (*cc && compiler && *compiler && strcmp(cc, compiler)) {
		if (buf_addf(warn,
			     "regtrack-worker: warning: the running kernel was built with %s, not the "
			     "job's %s: host mode runs on the running kernel\n",
			     cc, compiler))
			return n;
		n++;
	}
	return n;
}
