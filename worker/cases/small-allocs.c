/*
 * small-allocs — many small private mappings, touched and unmapped.
 *
 * After vm-scalability's case-small-allocs: each of nr_task tasks (processes
 * or threads, param mode) repeats rounds of
 *   - mmap nr_maps private mappings of map_kb KiB (40 KiB, as the original)
 *     each, of /dev/zero (source=devzero) or anonymous memory (source=anon),
 *   - write one byte to every page of every mapping (a page fault each),
 *   - munmap them all,
 * for `runtime` seconds or, when iterations > 0, for that many rounds.  Each
 * task first does `warmup` untimed rounds; the measured rounds of all tasks
 * start together.
 *
 * Output (stdout):
 *   throughput: sum over tasks of the bytes each task touched per second of
 *               its measured time, in KB/s (KB = 1024 bytes, as usemem)
 *   median:     the median task's figure, KB/s; only with two tasks or more
 *               (with one it is throughput again: twice the metrics for the
 *               comparisons to correct for, nothing learned)
 * Both higher is better.  Diagnostics go to stderr.
 *
 * Example: small-allocs nr_task=2 runtime=5 source=devzero
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "casecommon.h"

enum { P_NR_TASK, P_RUNTIME, P_ITERATIONS, P_SOURCE, P_MODE, P_NR_MAPS, P_MAP_KB, P_WARMUP };

static struct case_param params[] = {
	[P_NR_TASK] = { "nr_task", CASE_PARAM_TASKS, "100%", 1, 4096, NULL, "number of tasks" },
	[P_RUNTIME] = { "runtime", CASE_PARAM_DOUBLE, "1", 0.01, 86400, NULL,
			"measured seconds per task (unless iterations > 0)" },
	[P_ITERATIONS] = { "iterations", CASE_PARAM_INT, "0", 0, 1e9, NULL,
			   "measured rounds per task; 0: run for runtime" },
	[P_SOURCE] = { "source", CASE_PARAM_CHOICE, "devzero", 0, 0, "devzero|anon",
		       "what is mapped" },
	[P_MODE] = { "mode", CASE_PARAM_CHOICE, "process", 0, 0, "process|thread",
		     "tasks are processes or threads" },
	[P_NR_MAPS] = { "nr_maps", CASE_PARAM_INT, "256", 1, 60000, NULL,
			"mappings per round and task" },
	[P_MAP_KB] = { "map_kb", CASE_PARAM_INT, "40", 1, 1048576, NULL,
		       "KiB per mapping (rounded up to pages)" },
	[P_WARMUP] = { "warmup", CASE_PARAM_INT, "1", 0, 1000000, NULL,
		       "untimed rounds per task before measuring" },
};

struct job {
	int devzero;
	size_t map_len; /* bytes per mapping, page multiple */
	size_t page;
	long nr_maps;
	double runtime;	 /* seconds */
	long iterations; /* 0: runtime */
	long warmup;
	double *kbps; /* shared, one per task */
};

/* One round: map, touch, unmap.  0 or -1 (with a note). */
static int do_round(const struct job *j, int fd, char **maps)
{
	int prot = PROT_READ | PROT_WRITE;
	int flags = MAP_PRIVATE | (fd < 0 ? MAP_ANONYMOUS : 0);
	long i, k;
	size_t off;
	int rc = 0;

	for (i = 0; i < j->nr_maps; i++) {
		maps[i] = mmap(NULL, j->map_len, prot, flags, fd, 0);
		if (maps[i] == MAP_FAILED) {
			case_note("mmap of mapping %ld failed: %s", i, strerror(errno));
			rc = -1;
			break;
		}
	}
	for (k = 0; k < i; k++)
		for (off = 0; off < j->map_len; off += j->page)
			((volatile char *)maps[k])[off] = 1;
	for (k = 0; k < i; k++)
		if (munmap(maps[k], j->map_len)) {
			case_note("munmap failed: %s", strerror(errno));
			rc = -1;
		}
	return rc;
}

static int task(int idx, void *arg)
{
	struct job *j = arg;
	char **maps = calloc((size_t)j->nr_maps, sizeof(*maps));
	uint64_t t0, t1, deadline;
	long rounds = 0, w;
	int fd = -1, rc = 1;

	if (!maps) {
		case_note("task %d: out of memory", idx);
		return 1;
	}
	if (j->devzero) {
		fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			case_note("open '/dev/zero' failed: %s", strerror(errno));
			free(maps);
			return 1;
		}
	}
	for (w = 0; w < j->warmup; w++)
		if (do_round(j, fd, maps))
			goto out;
	if (case_task_ready())
		goto out;
	t0 = case_now_ns();
	deadline = t0 + (uint64_t)(j->runtime * 1e9);
	do {
		if (do_round(j, fd, maps))
			goto out;
		rounds++;
		t1 = case_now_ns();
	} while (j->iterations ? rounds < j->iterations : t1 < deadline);
	j->kbps[idx] = (double)rounds * (double)j->nr_maps * (double)j->map_len / 1024.0 /
		       ((double)(t1 - t0) / 1e9);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(maps);
	return rc;
}

int main(int argc, char **argv)
{
	struct job j;
	int nr, i, start;
	double sum = 0, *v;

	case_params_parse("small-allocs",
			  "many small private mappings of /dev/zero or anonymous memory: "
			  "map, touch every page, unmap; KB/s",
			  params, sizeof(params) / sizeof(params[0]), argc, argv);
	nr = (int)params[P_NR_TASK].ival;
	memset(&j, 0, sizeof(j));
	j.devzero = !strcmp(params[P_SOURCE].sval, "devzero");
	j.page = case_page_size();
	j.map_len = ((size_t)params[P_MAP_KB].ival * 1024 + j.page - 1) / j.page * j.page;
	j.nr_maps = params[P_NR_MAPS].ival;
	j.runtime = params[P_RUNTIME].dval;
	j.iterations = params[P_ITERATIONS].ival;
	j.warmup = params[P_WARMUP].ival;
	j.kbps = case_shared_alloc(sizeof(double) * (size_t)nr);

	start = case_tasks_start(nr, !strcmp(params[P_MODE].sval, "thread"), task, &j);
	if (!start)
		case_tasks_go();
	if (case_tasks_join() || start)
		case_fatal("%d task(s) requested, not all completed", nr);

	v = calloc((size_t)nr, sizeof(*v));
	if (!v)
		case_fatal("out of memory");
	for (i = 0; i < nr; i++) {
		if (!(j.kbps[i] > 0))
			case_fatal("task %d measured no throughput", i);
		sum += j.kbps[i];
		v[i] = j.kbps[i];
	}
	case_emit("throughput", sum);
	if (nr >= 2)
		case_emit("median", case_median(v, (size_t)nr));
	free(v);
	return 0;
}
