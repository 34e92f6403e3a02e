/*
 * execl — a process that execs itself in a loop.
 *
 * After UnixBench's Execl Throughput: each of nr_task copies (processes)
 * replaces itself with a new image of this same binary again and again until
 * `runtime` seconds have passed; every image only checks the clock, counts
 * one and execs the next.  The exec target is /proc/self/exe (the binary
 * wherever it lies), or the real path of argv[0] when /proc is not mounted.
 * Each copy first runs an untimed chain for `warmup` seconds; the measured
 * chains of all copies start together.
 *
 * Output (stdout):
 *   lps: execs per second, summed over the copies (each copy's count divided
 *        by its own measured time); higher is better.
 * Diagnostics go to stderr.
 *
 * Example: execl nr_task=4 runtime=2
 *
 * Internal: an image started as `execl --execl-child PATH DEADLINE_NS COUNT
 * FD IDX T0_NS` is a link of the chain; the last link writes one record to
 * the inherited pipe FD.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "casecommon.h"

#define CHILD_FLAG "--execl-child"

enum { P_NR_TASK, P_RUNTIME, P_WARMUP };

static struct case_param params[] = {
	[P_NR_TASK] = { "nr_task", CASE_PARAM_TASKS, "1", 1, 4096, NULL,
			"copies running in parallel" },
	[P_RUNTIME] = { "runtime", CASE_PARAM_DOUBLE, "1", 0.01, 86400, NULL, "measured seconds" },
	[P_WARMUP] = { "warmup", CASE_PARAM_DOUBLE, "0.2", 0, 3600, NULL,
		       "untimed seconds of execs before measuring" },
};

/* What the last link of a measured chain reports. */
struct record {
	int64_t idx;
	uint64_t count;		/* execs done in the measured window */
	uint64_t t0_ns, end_ns; /* CLOCK_MONOTONIC, valid across exec */
};

struct job {
	char path[PATH_MAX]; /* exec target */
	int result_wr;	     /* inherited by the chains (not close-on-exec) */
	double runtime, warmup;
};

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *end || errno)
		return -1;
	*out = v;
	return 0;
}

/* exec the next link; returns only on failure */
static void exec_link(const char *path, uint64_t deadline, uint64_t count, uint64_t fd,
		      uint64_t idx, uint64_t t0)
{
	char a[5][24];
	char *av[9];

	snprintf(a[0], sizeof(a[0]), "%llu", (unsigned long long)deadline);
	snprintf(a[1], sizeof(a[1]), "%llu", (unsigned long long)count);
	snprintf(a[2], sizeof(a[2]), "%llu", (unsigned long long)fd);
	snprintf(a[3], sizeof(a[3]), "%llu", (unsigned long long)idx);
	snprintf(a[4], sizeof(a[4]), "%llu", (unsigned long long)t0);
	av[0] = (char *)"execl";
	av[1] = (char *)CHILD_FLAG;
	av[2] = (char *)path;
	av[3] = a[0];
	av[4] = a[1];
	av[5] = a[2];
	av[6] = a[3];
	av[7] = a[4];
	av[8] = NULL;
	execv(path, av);
	case_note("exec of '%s' failed: %s", path, strerror(errno));
}

/* One link of a chain: argv as in the header comment. */
static int child_link(int argc, char **argv)
{
	uint64_t deadline, count, fd, idx, t0, now;
	struct record rec;

	if (argc != 8 || parse_u64(argv[3], &deadline) || parse_u64(argv[4], &count) ||
	    parse_u64(argv[5], &fd) || parse_u64(argv[6], &idx) || parse_u64(argv[7], &t0) ||
	    fd > INT_MAX)
		case_fatal("bad internal arguments for a chain link");
	now = case_now_ns();
	if (now < deadline) {
		exec_link(argv[2], deadline, count + 1, fd, idx, t0);
		return 1;
	}
	if (fd == 0) /* warm-up chain: nothing to report */
		return 0;
	rec.idx = (int64_t)idx;
	rec.count = count;
	rec.t0_ns = t0;
	rec.end_ns = now;
	if (write((int)fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec))
		case_fatal("writing the result failed: %s", strerror(errno));
	return 0;
}

/* Run an untimed chain for sec seconds in a child and wait for it. */
static int warmup_chain(const struct job *j, int idx)
{
	pid_t pid;
	int st;

	if (!(j->warmup > 0))
		return 0;
	pid = fork();
	if (pid < 0) {
		case_note("fork failed: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		exec_link(j->path, case_now_ns() + (uint64_t)(j->warmup * 1e9), 0, 0, (uint64_t)idx,
			  0);
		_exit(1);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			case_note("waitpid failed: %s", strerror(errno));
			return -1;
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		case_note("warm-up chain of copy %d failed", idx);
		return -1;
	}
	return 0;
}

static int task(int idx, void *arg)
{
	struct job *j = arg;
	uint64_t t0;

	if (warmup_chain(j, idx))
		return 1;
	if (case_task_ready())
		return 1;
	t0 = case_now_ns();
	exec_link(j->path, t0 + (uint64_t)(j->runtime * 1e9), 0, (uint64_t)j->result_wr,
		  (uint64_t)idx, t0);
	return 1;
}

/* The binary to exec: /proc/self/exe, else the real path of argv[0]. */
static void find_self(char *out, size_t len, const char *argv0)
{
	char buf[PATH_MAX];

	if (!access("/proc/self/exe", X_OK)) {
		snprintf(out, len, "%s", "/proc/self/exe");
		return;
	}
	if (strchr(argv0, '/') && realpath(argv0, buf) && !access(buf, X_OK)) {
		snprintf(out, len, "%s", buf);
		return;
	}
	case_fatal("cannot find this binary: /proc is not mounted and argv[0] '%s' is not a path",
		   argv0);
}

int main(int argc, char **argv)
{
	static struct job j;
	struct record rec;
	int nr, fds[2], start, got = 0;
	double lps = 0;
	char *seen;

	if (argc >= 2 && !strcmp(argv[1], CHILD_FLAG)) {
		case_params_parse("execl", "", params, 0, 1, argv);
		return child_link(argc, argv);
	}
	case_params_parse("execl",
			  "a process that execs itself in a loop (UnixBench Execl); execs per second",
			  params, sizeof(params) / sizeof(params[0]), argc, argv);
	nr = (int)params[P_NR_TASK].ival;
	j.runtime = params[P_RUNTIME].dval;
	j.warmup = params[P_WARMUP].dval;
	find_self(j.path, sizeof(j.path), argv[0]);
	if (pipe(fds))
		case_fatal("pipe failed: %s", strerror(errno));
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC))
		case_fatal("fcntl failed: %s", strerror(errno));
	j.result_wr = fds[1];

	start = case_tasks_start(nr, 0, task, &j);
	close(fds[1]);
	if (!start)
		case_tasks_go();
	seen = calloc((size_t)nr, 1);
	if (!seen)
		case_fatal("out of memory");
	for (;;) {
		ssize_t r = read(fds[0], &rec, sizeof(rec));

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			break;
		if (r != (ssize_t)sizeof(rec))
			case_fatal("short result record (%zd bytes)", r);
		if (rec.idx < 0 || rec.idx >= nr || seen[rec.idx] || rec.end_ns <= rec.t0_ns)
			case_fatal("bad result record");
		seen[rec.idx] = 1;
		got++;
		lps += (double)rec.count / ((double)(rec.end_ns - rec.t0_ns) / 1e9);
	}
	close(fds[0]);
	if (case_tasks_join() || start || got != nr)
		case_fatal("%d copies requested, %d reported", nr, got);
	free(seen);
	if (!(lps > 0))
		case_fatal("no exec completed in the measured time");
	case_emit("lps", lps);
	return 0;
}
