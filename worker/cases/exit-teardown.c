/*
 * exit-teardown — time to tear down a killed process's memory.
 *
 * After the exit_mmap / OOM-reaper measurement behind the seed report
 * "exit_mmap + OOM reaper time 167 ms -> 133 ms": a child maps `size` MiB of
 * private anonymous memory, writes every page, tells the parent it is ready
 * and waits.  The parent sends SIGKILL and waits for it (waitpid); the child
 * becomes reapable only after its address space was torn down (exit_mmap),
 * so kill-to-reap time is teardown time.  The same is then measured with
 * process_mrelease(2): right after the kill the parent calls it on the
 * child's pidfd, reaping the memory in the parent's context while the child
 * exits (as the OOM reaper and Android's lmkd do).  One untimed iteration of
 * each kind per `warmup` comes first.  With two or more CPUs the parent runs
 * on the first and the child on the last, so that both can work at once.
 *
 * Output (stdout), per iteration:
 *   teardown_ms: ms from kill(SIGKILL) to waitpid() returning
 *   mrelease_ms: ms from the kill to waitpid() returning, with
 *                process_mrelease() called in between; left out (with a
 *                note on stderr) when the kernel lacks pidfd_open or
 *                process_mrelease (ENOSYS)
 * Lower is better.  Diagnostics go to stderr.
 *
 * Example: exit-teardown size=64 iterations=5
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "casecommon.h"

/* the same numbers on x86_64 and arm64 (asm-generic) */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif

enum { P_SIZE, P_ITERATIONS, P_WARMUP, P_MRELEASE };

static struct case_param params[] = {
	[P_SIZE] = { "size", CASE_PARAM_INT, "64", 1, 1048576, NULL,
		     "MiB the child maps and touches" },
	[P_ITERATIONS] = { "iterations", CASE_PARAM_INT, "3", 1, 100000, NULL,
			   "measured iterations" },
	[P_WARMUP] = { "warmup", CASE_PARAM_INT, "1", 0, 1000, NULL, "untimed iterations first" },
	[P_MRELEASE] = { "mrelease", CASE_PARAM_CHOICE, "auto", 0, 0, "auto|off",
			 "also measure with process_mrelease (auto: where the kernel has it)" },
};

/* Child body: map and touch, report ready on fd, wait to be killed. */
static void child(size_t size, int ready_wr, int cpu)
{
	size_t page = case_page_size(), off;
	char *p;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	case_pin(cpu);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		case_note("mmap of %zu bytes failed: %s", size, strerror(errno));
		_exit(1);
	}
	for (off = 0; off < size; off += page)
		p[off] = 1;
	if (write(ready_wr, "R", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/*
 * One iteration: ms from the kill to the reap, with process_mrelease when
 * use_mrelease.  Returns the time, or -1 (ENOSYS: *nosys set) / fatal.
 */
static double one(size_t size, int use_mrelease, int *nosys, int child_cpu)
{
	int fds[2], pidfd = -1, st;
	uint64_t t0, t1;
	pid_t pid, r;
	char c;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC))
		case_fatal("pipe failed: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		case_fatal("fork failed: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		child(size, fds[1], child_cpu);
	}
	close(fds[1]);
	do
		n = read(fds[0], &c, 1);
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n != 1) {
		waitpid(pid, &st, 0);
		case_fatal("the child died before it had touched %zu MiB", size >> 20);
	}
	if (use_mrelease) {
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pidfd < 0) {
			if (errno != ENOSYS)
				case_fatal("pidfd_open failed: %s", strerror(errno));
			*nosys = 1;
			case_note("pidfd_open: ENOSYS, no process_mrelease measurement");
		}
	}
	/* the teardown is the measured phase: a profile of it alone */
	case_measure_begin();
	t0 = case_now_ns();
	if (kill(pid, SIGKILL))
		case_fatal("kill failed: %s", strerror(errno));
	if (pidfd >= 0 && syscall(SYS_process_mrelease, pidfd, 0)) {
		if (errno == ENOSYS) {
			*nosys = 1;
			case_note("process_mrelease: ENOSYS, no process_mrelease measurement");
		} else if (errno == ESRCH) {
			/* the child was gone before the call: a plain teardown */
			case_note("process_mrelease: the child had already exited");
		} else {
			case_fatal("process_mrelease failed: %s", strerror(errno));
		}
	}
	do
		r = waitpid(pid, &st, 0);
	while (r < 0 && errno == EINTR);
	t1 = case_now_ns();
	case_measure_end();
	if (r != pid)
		case_fatal("waitpid failed: %s", strerror(errno));
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
		case_fatal("the child ended otherwise than by SIGKILL (status %#x)", st);
	if (pidfd >= 0)
		close(pidfd);
	return (double)(t1 - t0) / 1e6;
}

int main(int argc, char **argv)
{
	size_t size;
	long it, iterations, warmup;
	int want_mrelease, nosys = 0, parent_cpu, child_cpu;
	uint64_t freeram;
	double *plain, *mrel;

	case_params_parse("exit-teardown",
			  "time from SIGKILL to reap of a process that touched size MiB, "
			  "plain and with process_mrelease; ms",
			  params, sizeof(params) / sizeof(params[0]), argc, argv);
	size = (size_t)params[P_SIZE].ival << 20;
	iterations = params[P_ITERATIONS].ival;
	warmup = params[P_WARMUP].ival;
	want_mrelease = !strcmp(params[P_MRELEASE].sval, "auto");
	freeram = case_free_ram();
	if (freeram && size > freeram / 10 * 9)
		case_fatal("size=%ld MiB does not fit in free RAM (%llu MiB)", params[P_SIZE].ival,
			   (unsigned long long)(freeram >> 20));
	plain = calloc((size_t)iterations, sizeof(*plain));
	mrel = calloc((size_t)iterations, sizeof(*mrel));
	if (!plain || !mrel)
		case_fatal("out of memory");

	/* child and parent on different CPUs: the kill must not let the dying
	 * child preempt the parent before it calls process_mrelease */
	case_cpu_first_last(&parent_cpu, &child_cpu);
	case_pin(parent_cpu);
	for (it = 0; it < warmup; it++) {
		one(size, 0, &nosys, child_cpu);
		if (want_mrelease && !nosys)
			one(size, 1, &nosys, child_cpu);
	}
	for (it = 0; it < iterations; it++) {
		plain[it] = one(size, 0, &nosys, child_cpu);
		if (want_mrelease && !nosys)
			mrel[it] = one(size, 1, &nosys, child_cpu);
	}
	for (it = 0; it < iterations; it++) {
		case_emit("teardown_ms", plain[it]);
		if (want_mrelease && !nosys)
			case_emit("mrelease_ms", mrel[it]);
	}
	free(plain);
	free(mrel);
	return 0;
}
