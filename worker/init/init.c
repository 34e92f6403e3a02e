/*
 * /init of the worker's initramfs: a static program that runs as PID 1 in
 * the freshly booted kernel, runs one benchmark case and reboots (qemu runs
 * with -no-reboot, so the reboot ends qemu).
 *
 * What to run comes from /regtrack/job (written by the worker into the
 * initramfs), one directive per line:
 *	case NAME          run /cases/NAME ("none": run nothing, just report)
 *	timeout SECONDS    kill the case after this long (default 600)
 *	arg KEY=VALUE      one argument, in order (repeatable)
 * and the kernel command line may override it: rt.case=NAME,
 * rt.timeout=SECONDS, rt.params=K=V,K=V (replaces every `arg`).
 *
 * Output on the console (the serial log), each on its own line:
 *	==== regtrack-init release=RELEASE ====
 *	==== regtrack-result-begin ====
 *	rt| <each line of the case's stdout>
 *	==== regtrack-result-end exit=N signal=N timeout=0|1 elapsed_ns=N ====
 * The case's stdout is collected in memory and printed after it exits, each
 * line prefixed with "rt| " so a kernel message landing on the console in
 * between cannot be taken for a result. Its stderr goes to the console as
 * it happens. elapsed_ns is guest CLOCK_MONOTONIC time of the case.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#define MAX_ARGS 64
#define MAX_OUT (1 << 20)

struct job {
	char name[128];
	long timeout_s;
	char *args[MAX_ARGS];
	int nargs;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void finish(void)
{
	fflush(stdout);
	fflush(stderr);
	sync();
	reboot(RB_AUTOBOOT);
	/* reboot failed: PID 1 must not exit (that panics); wait for qemu's time limit */
	for (;;)
		pause();
}

static void mount_one(const char *src, const char *dir, const char *type, const char *opts)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, opts) < 0 && errno != EBUSY)
		fprintf(stderr, "regtrack-init: mount %s on %s: %s\n", type, dir, strerror(errno));
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

static void add_arg(struct job *job, const char *s, size_t n)
{
	if (job->nargs >= MAX_ARGS || !n)
		return;
	job->args[job->nargs++] = strndup(s, n);
}

static void clear_args(struct job *job)
{
	while (job->nargs)
		free(job->args[--job->nargs]);
}

static void parse_job_file(struct job *job, char *text)
{
	char *line = text, *next;

	for (; line && *line; line = next) {
		size_t n;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n = strlen(line);
		if (!strncmp(line, "case ", 5))
			snprintf(job->name, sizeof(job->name), "%s", line + 5);
		else if (!strncmp(line, "timeout ", 8))
			job->timeout_s = strtol(line + 8, NULL, 10);
		else if (!strncmp(line, "arg ", 4))
			add_arg(job, line + 4, n - 4);
	}
}

/* rt.case=, rt.timeout=, rt.params= words of /proc/cmdline override the file. */
static void parse_cmdline(struct job *job, const char *cmdline)
{
	const char *p = cmdline;

	while (p && *p) {
		size_t n = strcspn(p, " \n");

		if (n > 8 && !strncmp(p, "rt.case=", 8))
			snprintf(job->name, sizeof(job->name), "%.*s", (int)(n - 8), p + 8);
		else if (n > 11 && !strncmp(p, "rt.timeout=", 11))
			job->timeout_s = strtol(p + 11, NULL, 10);
		else if (n > 10 && !strncmp(p, "rt.params=", 10)) {
			const char *q = p + 10, *end = p + n;

			clear_args(job);
			while (q < end) {
				const char *comma = memchr(q, ',', (size_t)(end - q));
				size_t len = comma ? (size_t)(comma - q) : (size_t)(end - q);

				add_arg(job, q, len);
				q += len + 1;
			}
		}
		p += n;
		p += strspn(p, " \n");
	}
}

static void print_prefixed(const char *out, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(out + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (out + i)) : len - i;

		say("rt| %.*s\n", (int)n, out + i);
		i += n + 1;
	}
}

static void run_case(const struct job *job)
{
	char path[256], *argv[MAX_ARGS + 2];
	char *out = malloc(MAX_OUT);
	size_t len = 0;
	int pfd[2], status = 0, timed_out = 0, i;
	long long start, deadline;
	pid_t pid;

	snprintf(path, sizeof(path), "/cases/%s", job->name);
	argv[0] = path;
	for (i = 0; i < job->nargs; i++)
		argv[i + 1] = job->args[i];
	argv[job->nargs + 1] = NULL;

	if (!out || pipe(pfd) < 0) {
		say("==== regtrack-result-begin ====\n");
		say("==== regtrack-result-end exit=-1 signal=0 timeout=0 elapsed_ns=0 ====\n");
		return;
	}
	start = mono_ns();
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execv(path, argv);
		fprintf(stderr, "regtrack-init: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	deadline = start + job->timeout_s * 1000000000LL;
	if (pid > 0) {
		for (;;) {
			struct pollfd p = { .fd = pfd[0], .events = POLLIN };
			long long left = deadline - mono_ns();
			char chunk[4096];
			ssize_t r;

			if (left <= 0) {
				timed_out = 1;
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				break;
			}
			if (poll(&p, 1, (int)(left / 1000000 + 1)) <= 0)
				continue;
			r = read(pfd[0], chunk, sizeof(chunk));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			if (len + (size_t)r <= MAX_OUT) {
				memcpy(out + len, chunk, (size_t)r);
				len += (size_t)r;
			}
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(pfd[0]);
	say("==== regtrack-result-begin ====\n");
	print_prefixed(out, len);
	say("==== regtrack-result-end exit=%d signal=%d timeout=%d elapsed_ns=%lld ====\n",
	    pid < 0	      ? -1 :
	    WIFEXITED(status) ? WEXITSTATUS(status) :
				-1,
	    pid > 0 && WIFSIGNALED(status) ? WTERMSIG(status) : 0, timed_out, mono_ns() - start);
	free(out);
}

int main(void)
{
	struct job job = { .name = "", .timeout_s = 600 };
	struct utsname u;
	char *text;

	/* run by mistake on a host (as root) this would mount over /dev and
	 * reboot the machine: only ever act as PID 1 */
	if (getpid() != 1) {
		fputs("regtrack-init: not PID 1; this is the /init of the worker's initramfs\n",
		      stderr);
		return 2;
	}
	mount_one("proc", "/proc", "proc", NULL);
	mount_one("sysfs", "/sys", "sysfs", NULL);
	mount_one("devtmpfs", "/dev", "devtmpfs", NULL);
	mount_one("tmpfs", "/tmp", "tmpfs", "mode=1777");
	setenv("PATH", "/cases:/bin:/sbin", 1);
	setenv("HOME", "/tmp", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);

	uname(&u);
	say("==== regtrack-init release=%s ====\n", u.release);

	text = read_file("/regtrack/job");
	if (text)
		parse_job_file(&job, text);
	free(text);
	text = read_file("/proc/cmdline");
	if (text)
		parse_cmdline(&job, text);
	free(text);
	if (job.timeout_s <= 0)
		job.timeout_s = 600;

	if (!job.name[0]) {
		say("regtrack-init: no case given (/regtrack/job or rt.case=)\n");
	} else if (strcmp(job.name, "none") != 0) {
		run_case(&job);
	} else {
		say("==== regtrack-result-begin ====\n");
		say("==== regtrack-result-end exit=0 signal=0 timeout=0 elapsed_ns=0 ====\n");
	}
	clear_args(&job);
	finish();
	return 0;
}
