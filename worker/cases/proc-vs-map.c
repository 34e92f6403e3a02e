/*
 * proc-vs-map — mmap/munmap latency while /proc/PID/smaps_rollup is read.
 *
 * After Paul McKenney's proc-mmap_sem-test (run-proc-vs-map.sh --rawdata --
 * --busyduration 2 --procfile smaps_rollup), the test behind the seed report
 * "median 0.132 -> 0.006 ms, worst case 3.9 -> 2.0 ms".  One sample is:
 *   - a mapper process (pinned to the first allowed CPU) maps a populated
 *     anonymous region of region_mb MiB, then for `duration` seconds
 *     repeatedly picks a random page of it and either maps a fresh page there
 *     (MAP_FIXED | MAP_POPULATE) or unmaps it, timing each call and sleeping
 *     10 us between calls;
 *   - nreaders reader processes (nice 15, pinned to the last allowed CPU when
 *     there are two or more) read /proc/MAPPER/procfile whole, again and
 *     again (open, read to EOF, close), timing each read;
 *   - when busyduration > 0, nbusy busy-waiters on the readers' CPU spin for
 *     busyduration ms then sleep 1 ms, again and again, so that readers get
 *     preempted while they hold the mm's lock.
 * The latency that the kernel change moved is the mapper's: a reader holding
 * mmap_lock for a whole walk of the address space delays every mmap/munmap.
 *
 * Output (stdout), per sample, in this order (all in ms, lower is better):
 *   median_ms:      median latency of the mapper's mmap/munmap calls
 *   min_ms:         fastest call
 *   max_ms:         slowest call (the report's "Maximum" column, opmax)
 *   avg_ms:         mean latency (the report's per-run "opavg"; the report's
 *                   "Median" column is the median over samples of this)
 *   read_median_ms: median latency of one whole read of the /proc file
 *   read_max_ms:    slowest such read
 * Needs /proc mounted.  Diagnostics go to stderr.
 *
 * Example: proc-vs-map nsamples=20 busyduration=2 procfile=smaps_rollup
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "casecommon.h"

enum { P_NSAMPLES, P_DURATION, P_BUSYDURATION, P_PROCFILE, P_NREADERS, P_NBUSY, P_REGION_MB };

static struct case_param params[] = {
	[P_NSAMPLES] = { "nsamples", CASE_PARAM_INT, "3", 1, 10000, NULL,
			 "samples (one mapper run each)" },
	[P_DURATION] = { "duration", CASE_PARAM_DOUBLE, "0.5", 0.01, 3600, NULL,
			 "seconds the mapper runs per sample" },
	[P_BUSYDURATION] = { "busyduration", CASE_PARAM_DOUBLE, "2", 0, 1000, NULL,
			     "ms each busy-waiter spins between 1 ms sleeps; 0: no busy-waiters" },
	[P_PROCFILE] = { "procfile", CASE_PARAM_CHOICE, "smaps_rollup", 0, 0,
			 "smaps_rollup|maps|smaps", "the /proc/PID file read" },
	[P_NREADERS] = { "nreaders", CASE_PARAM_INT, "1", 1, 256, NULL, "reader processes" },
	[P_NBUSY] = { "nbusy", CASE_PARAM_INT, "1", 0, 256, NULL,
		      "busy-waiter processes (when busyduration > 0)" },
	[P_REGION_MB] = { "region_mb", CASE_PARAM_INT, "32", 1, 65536, NULL,
			  "MiB of the mapper's populated region" },
};

/* Shared between the parent and the tasks of one sample. */
struct shared {
	volatile int stop; /* set by the mapper when its run is over */
	volatile pid_t mapper_pid;
	/* mapper results, ms */
	double median, min, max, avg;
	long nops;
	/* per reader: median and max of its reads, ms; count */
	struct {
		double median, max;
		long n;
	} rd[256];
};

struct job {
	struct shared *sh;
	double duration; /* s */
	double busy_ms;
	const char *procfile;
	int nreaders, nbusy;
	size_t region;		 /* bytes */
	int cpu_first, cpu_last; /* -1: do not pin */
};

/* Growable array of latencies in ns. */
struct lat {
	uint64_t *v;
	size_t n, alloc;
};

static int lat_add(struct lat *l, uint64_t ns)
{
	if (l->n == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 4096;
		uint64_t *nv = realloc(l->v, na * sizeof(*nv));

		if (!nv)
			return -1;
		l->v = nv;
		l->alloc = na;
	}
	l->v[l->n++] = ns;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sort l; median/min/max/mean in ms.  l->n >= 1. */
static void lat_stats(struct lat *l, double *median, double *min, double *max, double *avg)
{
	double sum = 0;
	size_t i;

	qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
	for (i = 0; i < l->n; i++)
		sum += (double)l->v[i];
	if (l->n % 2)
		*median = (double)l->v[l->n / 2] / 1e6;
	else
		*median = ((double)l->v[l->n / 2 - 1] + (double)l->v[l->n / 2]) / 2e6;
	*min = (double)l->v[0] / 1e6;
	*max = (double)l->v[l->n - 1] / 1e6;
	*avg = sum / (double)l->n / 1e6;
}

/* xorshift64: deterministic page choice, so that runs are comparable */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int mapper(struct job *j)
{
	struct shared *sh = j->sh;
	size_t page = case_page_size(), npages = j->region / page;
	struct timespec gap = { 0, 10000 };
	struct lat l = { 0 };
	uint64_t seed = 0x9e3779b97f4a7c15ull, t, deadline, now;
	char *region;

	case_pin(j->cpu_first);
	region = mmap(NULL, j->region, PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, -1,
		      0);
	if (region == MAP_FAILED) {
		case_note("mmap of the %zu-byte region failed: %s", j->region, strerror(errno));
		sh->stop = 1;
		return 1;
	}
	sh->mapper_pid = getpid();
	if (case_task_ready())
		return 1;
	deadline = case_now_ns() + (uint64_t)(j->duration * 1e9);
	do {
		char *addr = region + (rnd(&seed) % npages) * page;
		int map = (int)(rnd(&seed) & 0x8);

		t = case_now_ns();
		if (map) {
			void *r = mmap(addr, page, PROT_WRITE,
				       MAP_FIXED | MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, -1,
				       0);

			if (r != addr) {
				case_note("mmap fixed failed: %s", strerror(errno));
				sh->stop = 1;
				return 1;
			}
		} else if (munmap(addr, page)) {
			case_note("munmap failed: %s", strerror(errno));
			sh->stop = 1;
			return 1;
		}
		now = case_now_ns();
		if (lat_add(&l, now - t)) {
			case_note("out of memory");
			sh->stop = 1;
			return 1;
		}
		nanosleep(&gap, NULL);
	} while (case_now_ns() < deadline);
	lat_stats(&l, &sh->median, &sh->min, &sh->max, &sh->avg);
	sh->nops = (long)l.n;
	free(l.v);
	sh->stop = 1;
	return 0;
}

/* Read the whole file; 0, or -1 when it cannot be opened or read. */
static int read_all(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	do
		r = read(fd, buf, len);
	while (r > 0 || (r < 0 && errno == EINTR));
	close(fd);
	return r < 0 ? -1 : 0;
}

static int reader(struct job *j, int ridx)
{
	struct shared *sh = j->sh;
	static char buf[65536];
	struct lat l = { 0 };
	char path[64];
	double med, min, max, avg;
	uint64_t t;

	case_pin(j->cpu_last);
	if (setpriority(PRIO_PROCESS, 0, 15))
		case_note("setpriority failed: %s", strerror(errno));
	if (case_task_ready())
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)sh->mapper_pid, j->procfile);
	while (!sh->stop) {
		t = case_now_ns();
		if (read_all(path, buf, sizeof(buf))) {
			if (sh->stop)
				break;
			case_note("reading '%s' failed: %s", path, strerror(errno));
			return 1;
		}
		if (lat_add(&l, case_now_ns() - t)) {
			case_note("out of memory");
			return 1;
		}
	}
	if (!l.n) {
		case_note("reader %d completed no read of '%s'", ridx, path);
		return 1;
	}
	lat_stats(&l, &med, &min, &max, &avg);
	sh->rd[ridx].median = med;
	sh->rd[ridx].max = max;
	sh->rd[ridx].n = (long)l.n;
	free(l.v);
	return 0;
}

static int busy(struct job *j)
{
	uint64_t spin = (uint64_t)(j->busy_ms * 1e6), end;
	struct timespec ms = { 0, 1000000 };

	case_pin(j->cpu_last);
	if (case_task_ready())
		return 1;
	while (!j->sh->stop) {
		end = case_now_ns() + spin;
		while (case_now_ns() < end && !j->sh->stop)
			;
		nanosleep(&ms, NULL);
	}
	return 0;
}

/* task 0: mapper; 1..nreaders: readers; the rest: busy-waiters */
static int task(int idx, void *arg)
{
	struct job *j = arg;

	if (idx == 0)
		return mapper(j);
	if (idx <= j->nreaders)
		return reader(j, idx - 1);
	return busy(j);
}

int main(int argc, char **argv)
{
	struct job j;
	char probe[64];
	long s, nsamples;
	int i, nr, start;

	case_params_parse(
		"proc-vs-map",
		"mmap/munmap latency while /proc/PID/smaps_rollup (or maps, smaps) is read; ms",
		params, sizeof(params) / sizeof(params[0]), argc, argv);
	memset(&j, 0, sizeof(j));
	nsamples = params[P_NSAMPLES].ival;
	j.duration = params[P_DURATION].dval;
	j.busy_ms = params[P_BUSYDURATION].dval;
	j.procfile = params[P_PROCFILE].sval;
	j.nreaders = (int)params[P_NREADERS].ival;
	j.nbusy = j.busy_ms > 0 ? (int)params[P_NBUSY].ival : 0;
	j.region = (size_t)params[P_REGION_MB].ival << 20;
	if (j.region / case_page_size() < 2)
		case_fatal("region_mb=%ld holds fewer than two pages", params[P_REGION_MB].ival);
	case_cpu_first_last(&j.cpu_first, &j.cpu_last);
	snprintf(probe, sizeof(probe), "/proc/self/%s", j.procfile);
	if (access(probe, R_OK))
		case_fatal("cannot read '%s' (is /proc mounted?): %s", probe, strerror(errno));
	j.sh = case_shared_alloc(sizeof(*j.sh));
	nr = 1 + j.nreaders + j.nbusy;

	for (s = 0; s < nsamples; s++) {
		double med[256], rmax = 0;

		memset(j.sh, 0, sizeof(*j.sh));
		start = case_tasks_start(nr, 0, task, &j);
		if (!start)
			case_tasks_go();
		if (case_tasks_join() || start)
			case_fatal("sample %ld failed", s + 1);
		if (j.sh->nops < 1)
			case_fatal("sample %ld: the mapper made no call", s + 1);
		for (i = 0; i < j.nreaders; i++) {
			med[i] = j.sh->rd[i].median;
			if (j.sh->rd[i].max > rmax)
				rmax = j.sh->rd[i].max;
		}
		case_note("sample %ld: %ld mmap/munmap calls, %ld reads by reader 0", s + 1,
			  j.sh->nops, j.sh->rd[0].n);
		case_emit("median_ms", j.sh->median);
		case_emit("min_ms", j.sh->min);
		case_emit("max_ms", j.sh->max);
		case_emit("avg_ms", j.sh->avg);
		case_emit("read_median_ms", case_median(med, (size_t)j.nreaders));
		case_emit("read_max_ms", rmax);
	}
	return 0;
}
