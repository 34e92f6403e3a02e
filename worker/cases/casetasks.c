/*
 * casetasks: the tasks of a case started, held at a gate until all are ready,
 * released together and joined (processes or threads).  See casecommon.h.
 */
#include "casecommon.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- tasks --------------------------------------------------------------- */

/*
 * ready pipe: each task writes 'R' (ready) or 'F' (failed before ready).  A
 * process-mode task then closes its write end, so the parent sees EOF early
 * when a task dies without writing.  gate pipe: the tasks block reading it;
 * the parent closes its write end to release them all at once (EOF).
 */
static struct {
	int nr, threads;
	int (*fn)(int, void *);
	void *arg;
	int ready_rd, ready_wr, gate_rd, gate_wr;
	volatile int *abort; /* shared: 1 when the tasks must stop */
	pid_t *pids;
	pthread_t *tids;
	int *rets;	 /* thread mode: each thread's return value */
	int *idx;	 /* thread mode: argument cells */
	int *said_ready; /* thread mode: did task i call case_task_ready */
} g = { .ready_rd = -1, .ready_wr = -1, .gate_rd = -1, .gate_wr = -1 };

static __thread int task_idx = -1;

static void write_byte(int fd, char c)
{
	ssize_t r;

	do
		r = write(fd, &c, 1);
	while (r < 0 && errno == EINTR);
}

int case_task_ready(void)
{
	char c;
	ssize_t r;

	if (g.threads && task_idx >= 0)
		g.said_ready[task_idx] = 1;
	write_byte(g.ready_wr, 'R');
	if (!g.threads) {
		close(g.ready_wr);
		g.ready_wr = -1;
	}
	do
		r = read(g.gate_rd, &c, 1);
	while (r < 0 && errno == EINTR);
	return *g.abort ? -1 : 0;
}

static void *thread_main(void *p)
{
	int idx = *(int *)p;

	task_idx = idx;
	g.rets[idx] = g.fn(idx, g.arg);
	if (!g.said_ready[idx])
		write_byte(g.ready_wr, 'F');
	return NULL;
}

static void make_pipe(int *rd, int *wr)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC))
		case_fatal("pipe failed: %s", strerror(errno));
	*rd = fds[0];
	*wr = fds[1];
}

int case_tasks_start(int nr, int threads, int (*fn)(int, void *), void *arg)
{
	int i, got = 0, failed = 0;
	char c;

	g.nr = nr;
	g.threads = threads;
	g.fn = fn;
	g.arg = arg;
	if (!g.abort)
		g.abort = case_shared_alloc(sizeof(*g.abort));
	*g.abort = 0;
	make_pipe(&g.ready_rd, &g.ready_wr);
	make_pipe(&g.gate_rd, &g.gate_wr);
	fflush(stdout);
	fflush(stderr);
	if (threads) {
		g.tids = calloc((size_t)nr, sizeof(*g.tids));
		g.rets = calloc((size_t)nr, sizeof(*g.rets));
		g.idx = calloc((size_t)nr, sizeof(*g.idx));
		g.said_ready = calloc((size_t)nr, sizeof(*g.said_ready));
		if (!g.tids || !g.rets || !g.idx || !g.said_ready)
			case_fatal("out of memory");
		for (i = 0; i < nr; i++) {
			int e;

			g.idx[i] = i;
			e = pthread_create(&g.tids[i], NULL, thread_main, &g.idx[i]);
			if (e)
				case_fatal("pthread_create of task %d failed: %s", i, strerror(e));
		}
	} else {
		pid_t parent = getpid();

		g.pids = calloc((size_t)nr, sizeof(*g.pids));
		if (!g.pids)
			case_fatal("out of memory");
		for (i = 0; i < nr; i++) {
			pid_t pid = fork();

			if (pid < 0) {
				/* let the ones already forked go and fail */
				case_note("fork of task %d failed: %s", i, strerror(errno));
				g.nr = i;
				*g.abort = 1;
				close(g.ready_wr);
				g.ready_wr = -1;
				case_tasks_go();
				return -1;
			}
			if (pid == 0) {
				int rc;

				prctl(PR_SET_PDEATHSIG, SIGKILL);
				if (getppid() != parent) /* the parent died before prctl */
					_exit(1);
				close(g.gate_wr);
				close(g.ready_rd);
				task_idx = i;
				rc = fn(i, arg);
				if (g.ready_wr >= 0)
					write_byte(g.ready_wr, 'F');
				fflush(stderr);
				_exit(rc ? 1 : 0);
			}
			g.pids[i] = pid;
		}
		/* only the tasks hold write ends now */
		close(g.ready_wr);
		g.ready_wr = -1;
	}
	while (got < nr) {
		ssize_t r = read(g.ready_rd, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got++;
		if (c != 'R')
			failed = 1;
	}
	if (got < nr || failed) {
		if (got < nr)
			case_note("%d of %d tasks died before they were ready", nr - got, nr);
		*g.abort = 1;
		case_tasks_go();
		return -1;
	}
	return 0;
}

void case_tasks_go(void)
{
	if (g.gate_wr >= 0) {
		if (!*g.abort)
			case_measure_begin();
		close(g.gate_wr);
		g.gate_wr = -1;
	}
}

int case_tasks_join(void)
{
	int i, bad = 0;

	case_tasks_go();
	if (g.threads) {
		for (i = 0; i < g.nr; i++) {
			pthread_join(g.tids[i], NULL);
			if (g.rets[i]) {
				case_note("task %d failed", i);
				bad = 1;
			}
		}
		free(g.tids);
		free(g.rets);
		free(g.idx);
		free(g.said_ready);
		g.tids = NULL;
		g.rets = g.idx = g.said_ready = NULL;
		if (g.ready_wr >= 0)
			close(g.ready_wr);
		g.ready_wr = -1;
	} else {
		for (i = 0; i < g.nr; i++) {
			int st;
			pid_t r;

			do
				r = waitpid(g.pids[i], &st, 0);
			while (r < 0 && errno == EINTR);
			if (r < 0) {
				case_note("waitpid of task %d failed: %s", i, strerror(errno));
				bad = 1;
			} else if (WIFSIGNALED(st)) {
				case_note("task %d killed by signal %d", i, WTERMSIG(st));
				bad = 1;
			} else if (WEXITSTATUS(st)) {
				case_note("task %d failed (exit status %d)", i, WEXITSTATUS(st));
				bad = 1;
			}
		}
		free(g.pids);
		g.pids = NULL;
	}
	close(g.ready_rd);
	close(g.gate_rd);
	g.ready_rd = g.gate_rd = -1;
	case_measure_end();
	return bad ? -1 : 0;
}
