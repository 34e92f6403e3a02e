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
 *	monitor NAME       perf-profile or perf-stat (repeatable):
 *	                   run the case under /bin/perf, which the worker puts
 *	                   in the initramfs only then
 * and the kernel command line may override it: rt.case=NAME,
 * rt.timeout=SECONDS, rt.params=K=V,K=V (replaces every `arg`).
 * Bare metal (a kernel kexec'd by the worker, worker/kexec.h): rt.result=DEV
 * rt.nonce=HEX16 rt.job=J make /init write what it printed on the console
 * to DEV as a result record (lib/kexecrec.h) before it reboots.
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
 *
 * Monitors: the case runs as the workload of
 *	perf record -a -g -e cpu-clock -D -1 --control fd:C,A ... --
 *	perf stat -a -D -1 --control fd:C,A ... -- /cases/NAME ARGS
 * (either layer only when its monitor is asked), both system-wide and with
 * their events off until the case's measured phase turns them on through
 * the control pipes (REGTRACK_PERF_CTL, worker/cases/casecommon.h): the
 * profile and the counts are of the measured phase alone. cpu-clock is a
 * software event (an hrtimer), so it samples under TCG and icount, where
 * there is no PMU; perf stat's default events include the hardware ones,
 * which perf reports `<not supported>` there. perf passes the case's exit
 * status on. After the result block come, in this order:
 *	==== regtrack-perf-stat-begin ====
 *	rt| <each line of perf stat's output>
 *	==== regtrack-perf-stat-end ====
 *	==== regtrack-profile-begin event=cpu-clock samples=N stacks=N dropped=N ====
 *	rt| <each line of the folded stacks (lib/parse/perf_fold.h)>
 *	==== regtrack-profile-end ====
 * the stacks folded here from `perf script` (kernel symbols from this
 * kernel's /proc/kallsyms; user frames, which this perf cannot name, from
 * /regtrack/usersyms, the worker's table of the case binaries' ELF symbols:
 * lib/parse/perf_fold.h), bounded to PERF_FOLD_MAX_BYTES (the heaviest
 * stacks kept, the rest counted in "COMM;[other] N" lines; dropped is the
 * number of stacks so folded away). A monitor that produced nothing prints
 * its begin and end lines with nothing between them (a note on stderr).
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

#include "buf.h"
#include "clock.h"
#include "kexecrec.h"
#include "parse/perf_fold.h"

#define MAX_ARGS 64
#define MAX_OUT (1 << 20)
#define PERF "/bin/perf"
#define PERF_DATA "/tmp/perf.data"
#define PERF_STAT_OUT "/tmp/perf-stat.txt"
#define PERF_SCRIPT_OUT "/tmp/perf.script"
#define USER_SYMS "/regtrack/usersyms"
#define PERF_ARGV_MAX 40

struct job {
	char name[128];
	long timeout_s;
	char *args[MAX_ARGS];
	int nargs;
	int perf_profile, perf_stat; /* monitors asked for */
};

/*
 * Bare-metal mode (worker/kexec.h): with rt.result=DEV rt.nonce=N rt.job=J
 * on the command line, everything say() prints is also kept here and
 * written to DEV as a result record (lib/kexecrec.h) before the reboot.
 */
static struct {
	char dev[128], nonce[KEXECREC_NONCE_LEN + 1];
	long long job;
	struct buf text;
	int on;
} kx;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fflush(stdout);
	if (kx.on && kx.text.len < KEXECREC_MAX_PAYLOAD) {
		va_start(ap, fmt);
		if (buf_vaddf(&kx.text, fmt, ap))
			kx.on = 0; /* the record says nothing rather than half */
		va_end(ap);
	}
}

/* The result record to kx.dev; the device may still be probing when /init starts. */
static void write_record(void)
{
	int fd = -1;

	for (int i = 0; i < 100 && fd < 0; i++) {
		fd = open(kx.dev, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			struct timespec ts = { 0, 100 * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
	if (fd < 0 || kexecrec_write_fd(fd, kx.job, kx.nonce, kx.text.data, kx.text.len) < 0)
		fprintf(stderr, "regtrack-init: cannot write the result record to %s: %s\n", kx.dev,
			strerror(errno));
	else
		fprintf(stderr, "regtrack-init: result record (%zu bytes) written to %s\n",
			kx.text.len, kx.dev);
	if (fd >= 0)
		close(fd);
}

static void finish(void)
{
	fflush(stdout);
	fflush(stderr);
	if (kx.on)
		write_record(); /* before anything else: the reboot may not come back */
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
		else if (!strcmp(line, "monitor perf-profile"))
			job->perf_profile = 1;
		else if (!strcmp(line, "monitor perf-stat"))
			job->perf_stat = 1;
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
		else if (n > 10 && !strncmp(p, "rt.result=", 10))
			snprintf(kx.dev, sizeof(kx.dev), "%.*s", (int)(n - 10), p + 10);
		else if (n > 9 && !strncmp(p, "rt.nonce=", 9))
			snprintf(kx.nonce, sizeof(kx.nonce), "%.*s", (int)(n - 9), p + 9);
		else if (n > 7 && !strncmp(p, "rt.job=", 7))
			kx.job = strtoll(p + 7, NULL, 10);
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

/*
 * The perf layers in front of the case's argv: argv[0..n) gets perf record's
 * and perf stat's words (as the header says), ctl the control pipes' fds
 * (each perf's read end of its command pipe and write end of its ack pipe
 * are in its --control; the other ends go to the case in
 * REGTRACK_PERF_CTL). Returns n, or -1 when a pipe cannot be made.
 */
struct perf_ctl {
	int cmd[2], ack[2];
};

static char ctlword[2][32], envword[64];

static int perf_layers(const struct job *job, char **argv, struct perf_ctl *ctl)
{
	int n = 0, k = 0, i;
	size_t envlen = 0;

	envword[0] = '\0';
	for (i = 0; i < 2; i++) {
		int want = i == 0 ? job->perf_profile : job->perf_stat;

		if (!want)
			continue;
		if (pipe(ctl[k].cmd) < 0 || pipe(ctl[k].ack) < 0)
			return -1;
		snprintf(ctlword[k], sizeof(ctlword[k]), "fd:%d,%d", ctl[k].cmd[0], ctl[k].ack[1]);
		envlen += (size_t)snprintf(envword + envlen, sizeof(envword) - envlen, "%s%d,%d",
					   k ? ";" : "", ctl[k].cmd[1], ctl[k].ack[0]);
		argv[n++] = PERF;
		if (i == 0) {
			/* -B: no build-id pass over the data at the end (no ELF reader here) */
			static char *rec[] = { "record",   "-a", "-g",	    "-e", PERF_FOLD_EVENT,
					       "-B",	   "-o", PERF_DATA, "-D", "-1",
					       "--control" };

			memcpy(argv + n, rec, sizeof(rec));
			n += (int)(sizeof(rec) / sizeof(rec[0]));
		} else {
			static char *st[] = { "stat", "-a", "-o",	PERF_STAT_OUT,
					      "-D",   "-1", "--control" };

			memcpy(argv + n, st, sizeof(st));
			n += (int)(sizeof(st) / sizeof(st[0]));
		}
		argv[n++] = ctlword[k];
		argv[n++] = "--";
		k++;
	}
	return n;
}

static void close_ctl(struct perf_ctl *ctl, int nctl)
{
	for (int k = 0; k < nctl; k++) {
		close(ctl[k].cmd[0]);
		close(ctl[k].cmd[1]);
		close(ctl[k].ack[0]);
		close(ctl[k].ack[1]);
	}
}

static void run_case(const struct job *job)
{
	char path[256], *argv[PERF_ARGV_MAX + MAX_ARGS + 2];
	char *out = malloc(MAX_OUT);
	size_t len = 0;
	int pfd[2], status = 0, timed_out = 0, i, np;
	int nctl = job->perf_profile + job->perf_stat;
	struct perf_ctl ctl[2];
	long long start, deadline;
	pid_t pid;

	snprintf(path, sizeof(path), "/cases/%s", job->name);
	np = perf_layers(job, argv, ctl);
	if (np < 0) {
		fprintf(stderr, "regtrack-init: cannot make perf's control pipes: %s\n",
			strerror(errno));
		np = 0;
	}
	if (envword[0])
		setenv("REGTRACK_PERF_CTL", envword, 1);
	argv[np] = path;
	for (i = 0; i < job->nargs; i++)
		argv[np + i + 1] = job->args[i];
	argv[np + job->nargs + 1] = NULL;

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
		execv(argv[0], argv);
		fprintf(stderr, "regtrack-init: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	if (np > 0)
		close_ctl(ctl, nctl);
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

/* Runs argv with stdout to out_path, killed after timeout_s; 0 when it exited 0. */
static int run_to_file(char *const *argv, const char *out_path, long timeout_s)
{
	long long deadline = mono_ns() + timeout_s * 1000000000LL;
	int status = 0;
	pid_t pid = fork(), r;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setpgid(0, 0);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, "regtrack-init: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
		struct timespec ts = { 0, 20 * 1000000L };

		if (mono_ns() > deadline) {
			fprintf(stderr, "regtrack-init: %s %s timed out\n", argv[0], argv[1]);
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	return r == pid && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/* perf stat's output, then the folded profile (see the header for the blocks). */
static void report_monitors(const struct job *job)
{
	if (job->perf_stat) {
		char *text = read_file(PERF_STAT_OUT);

		if (!text)
			fprintf(stderr, "regtrack-init: perf stat left no %s\n", PERF_STAT_OUT);
		say("==== regtrack-perf-stat-begin ====\n");
		if (text)
			print_prefixed(text, strlen(text));
		say("==== regtrack-perf-stat-end ====\n");
		free(text);
	}
	if (job->perf_profile) {
		/* dso: user frames are named from USER_SYMS by their offset in it */
		char *argv[] = {
			PERF, "script", "-i", PERF_DATA, "-F", "comm,tid,ip,sym,dso", NULL
		};
		struct perf_fold_result r = { 0 };
		struct perf_fold_syms syms;
		struct buf script = BUF_INIT(0), symtext = BUF_INIT(0);
		long long t0 = mono_ns();

		if (buf_read_file(&symtext, USER_SYMS))
			fprintf(stderr, "regtrack-init: no %s: user frames stay [unknown]\n",
				USER_SYMS);
		perf_fold_syms_parse(&syms, symtext.data, symtext.len);
		buf_release(&symtext);
		if (run_to_file(argv, PERF_SCRIPT_OUT, job->timeout_s) < 0 ||
		    buf_read_file(&script, PERF_SCRIPT_OUT))
			fprintf(stderr, "regtrack-init: perf script failed\n");
		else
			perf_fold_script(script.data, script.len, PERF_FOLD_MAX_BYTES, &syms, &r);
		fprintf(stderr,
			"regtrack-init: perf script: %zu bytes, folded %lld samples in %lld ms; "
			"%lld frames named from %zu user symbols, %lld [unknown]\n",
			script.len, r.samples, (mono_ns() - t0) / 1000000, r.frames_named, syms.n,
			r.frames_unknown);
		perf_fold_syms_release(&syms);
		buf_release(&script);
		unlink(PERF_SCRIPT_OUT);
		say("==== regtrack-profile-begin event=%s samples=%lld stacks=%lld dropped=%lld ====\n",
		    PERF_FOLD_EVENT, r.samples, r.stacks, r.dropped);
		if (r.len)
			print_prefixed(r.folded, r.len);
		say("==== regtrack-profile-end ====\n");
		perf_fold_result_release(&r);
	}
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
	setenv("PATH", "/cases:/bin:/sbin:/usr/bin", 1); /* a tool case's tool: /usr/bin */
	setenv("HOME", "/tmp", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* the command line first: in bare-metal mode every line below goes to the record */
	text = read_file("/regtrack/job");
	if (text)
		parse_job_file(&job, text);
	free(text);
	text = read_file("/proc/cmdline");
	if (text)
		parse_cmdline(&job, text);
	free(text);
	buf_init(&kx.text, 0);
	kx.on = kx.dev[0] == '/' && kexecrec_nonce_ok(kx.nonce);
	uname(&u);
	say("==== regtrack-init release=%s ====\n", u.release);
	if (job.timeout_s <= 0)
		job.timeout_s = 600;

	if (!job.name[0]) {
		say("regtrack-init: no case given (/regtrack/job or rt.case=)\n");
	} else if (strcmp(job.name, "none") != 0) {
		run_case(&job);
		report_monitors(&job);
	} else {
		say("==== regtrack-result-begin ====\n");
		say("==== regtrack-result-end exit=0 signal=0 timeout=0 elapsed_ns=0 ====\n");
	}
	clear_args(&job);
	finish();
	return 0;
}
