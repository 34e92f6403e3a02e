/*
 * page-fault — write faults on a private mapping of a tmpfs file.
 *
 * After will-it-scale's page_fault2 ("separate file private mapping page
 * faults"): each of nr_task tasks (processes or threads, param mode) creates
 * its own file of size_mb MiB in dir (tmpfs: /tmp when it is tmpfs, else
 * /dev/shm), unlinks it, and then loops: mmap it MAP_PRIVATE read-write,
 * write one byte to every page (one copy-on-write fault each), munmap.  One
 * op is one page written.  Each task first makes `warmup` untimed passes (the
 * first fills tmpfs' page cache); then the parent measures `iterations`
 * consecutive windows of `runtime` seconds while all tasks run.
 *
 * Memory: each task holds up to 2 * size_mb MiB (page cache + private
 * copies); the case refuses to start when that exceeds 90% of free RAM.
 *
 * Output (stdout), per window:
 *   ops_per_sec:       page faults per second per task (mean over the tasks;
 *                      will-it-scale's per_process_ops / per_thread_ops)
 *   total_ops_per_sec: the same summed over the tasks
 * Both higher is better.  Diagnostics go to stderr.
 *
 * Example: page-fault nr_task=2 mode=thread runtime=2
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "casecommon.h"

#define TMPFS_MAGIC_NR 0x01021994

enum { P_NR_TASK, P_MODE, P_SIZE_MB, P_DIR, P_RUNTIME, P_ITERATIONS, P_WARMUP };

static struct case_param params[] = {
	[P_NR_TASK] = { "nr_task", CASE_PARAM_TASKS, "1", 1, 4096, NULL, "number of tasks" },
	[P_MODE] = { "mode", CASE_PARAM_CHOICE, "process", 0, 0, "process|thread",
		     "tasks are processes or threads" },
	[P_SIZE_MB] = { "size_mb", CASE_PARAM_INT, "128", 1, 1048576, NULL, "MiB mapped per task" },
	[P_DIR] = { "dir", CASE_PARAM_STRING, "auto", 0, 1024, NULL,
		    "directory of the files; auto: /tmp if tmpfs, else /dev/shm" },
	[P_RUNTIME] = { "runtime", CASE_PARAM_DOUBLE, "1", 0.01, 86400, NULL,
			"seconds per measured window" },
	[P_ITERATIONS] = { "iterations", CASE_PARAM_INT, "1", 1, 100000, NULL, "measured windows" },
	[P_WARMUP] = { "warmup", CASE_PARAM_INT, "1", 0, 1000, NULL,
		       "untimed passes per task before measuring" },
};

/* one per task, in shared memory; padded against false sharing */
struct counter {
	volatile uint64_t ops;
	char pad[128 - sizeof(uint64_t)];
};

struct job {
	const char *dir;
	size_t size, page;
	long warmup;
	struct counter *cnt;
	volatile int *stop;
};

static int is_tmpfs(const char *dir)
{
	struct statfs sf;

	return !statfs(dir, &sf) && (unsigned long)sf.f_type == TMPFS_MAGIC_NR;
}

static int task(int idx, void *arg)
{
	struct job *j = arg;
	volatile uint64_t *ops = &j->cnt[idx].ops;
	char path[PATH_MAX];
	long w;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/page-fault.XXXXXX", j->dir) >= sizeof(path)) {
		case_note("dir '%s' is too long", j->dir);
		return 1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		case_note("creating a file in '%s' failed: %s", j->dir, strerror(errno));
		return 1;
	}
	unlink(path);
	if (ftruncate(fd, (off_t)j->size)) {
		case_note("ftruncate of '%s' failed: %s", path, strerror(errno));
		close(fd);
		return 1;
	}
	for (w = 0; w <= j->warmup; w++) {
		int measuring = w == j->warmup;

		if (measuring && case_task_ready()) {
			close(fd);
			return 1;
		}
		while (!(measuring && *j->stop)) {
			char *c = mmap(NULL, j->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
			size_t off;

			if (c == MAP_FAILED) {
				case_note("mmap of %zu bytes failed: %s", j->size, strerror(errno));
				close(fd);
				return 1;
			}
			for (off = 0; off < j->size; off += j->page) {
				if (measuring && *j->stop)
					break;
				c[off] = 0;
				(*ops)++;
			}
			munmap(c, j->size);
			if (!measuring)
				break;
		}
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct job j;
	uint64_t *prev, now, tprev, need, freeram;
	double *per_task, *totals;
	long it, iterations;
	int nr, i, start;
	double runtime;

	case_params_parse("page-fault",
			  "write faults on a private mapping of a tmpfs file (will-it-scale "
			  "page_fault2); ops per second",
			  params, sizeof(params) / sizeof(params[0]), argc, argv);
	memset(&j, 0, sizeof(j));
	nr = (int)params[P_NR_TASK].ival;
	j.page = case_page_size();
	j.size = (size_t)params[P_SIZE_MB].ival << 20;
	j.warmup = params[P_WARMUP].ival;
	runtime = params[P_RUNTIME].dval;
	iterations = params[P_ITERATIONS].ival;
	j.dir = params[P_DIR].sval;
	if (!strcmp(j.dir, "auto"))
		j.dir = is_tmpfs("/tmp") || !is_tmpfs("/dev/shm") ? "/tmp" : "/dev/shm";
	if (access(j.dir, W_OK | X_OK))
		case_fatal("cannot create files in dir '%s': %s", j.dir, strerror(errno));
	if (!is_tmpfs(j.dir))
		case_note("'%s' is not tmpfs; page_fault2 maps a tmpfs file", j.dir);
	need = (uint64_t)nr * 2 * j.size;
	freeram = case_free_ram();
	if (freeram && need > freeram / 10 * 9)
		case_fatal("%d task(s) of size_mb=%ld need %llu MiB, free RAM is %llu MiB", nr,
			   params[P_SIZE_MB].ival, (unsigned long long)(need >> 20),
			   (unsigned long long)(freeram >> 20));
	j.cnt = case_shared_alloc(sizeof(*j.cnt) * (size_t)nr);
	j.stop = case_shared_alloc(sizeof(*j.stop));
	prev = calloc((size_t)nr, sizeof(*prev));
	per_task = calloc((size_t)iterations, sizeof(*per_task));
	totals = calloc((size_t)iterations, sizeof(*totals));
	if (!prev || !per_task || !totals)
		case_fatal("out of memory");

	start = case_tasks_start(nr, !strcmp(params[P_MODE].sval, "thread"), task, &j);
	if (start) {
		*j.stop = 1;
		case_tasks_join();
		case_fatal("%d task(s) requested, not all started", nr);
	}
	case_tasks_go();
	tprev = case_now_ns();
	for (i = 0; i < nr; i++)
		prev[i] = j.cnt[i].ops;
	for (it = 0; it < iterations; it++) {
		double total = 0, sec;

		case_sleep(runtime);
		now = case_now_ns();
		sec = (double)(now - tprev) / 1e9;
		for (i = 0; i < nr; i++) {
			uint64_t c = j.cnt[i].ops;

			total += (double)(c - prev[i]) / sec;
			prev[i] = c;
		}
		tprev = now;
		if (!(total > 0)) {
			*j.stop = 1;
			case_tasks_join();
			case_fatal("no page fault completed in window %ld", it + 1);
		}
		per_task[it] = total / nr;
		totals[it] = total;
	}
	*j.stop = 1;
	if (case_tasks_join())
		case_fatal("a task failed");
	for (it = 0; it < iterations; it++) {
		case_emit("ops_per_sec", per_task[it]);
		case_emit("total_ops_per_sec", totals[it]);
	}
	free(prev);
	free(per_task);
	free(totals);
	return 0;
}
