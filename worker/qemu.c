#include "qemu.h"
#include "qmp.h"
#include "runcmd.h"
#include "vmspec.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* the profile block (<= 4 MiB of folded stacks, plus "rt| " per line) and the boot fit */
#define QEMU_LOG_CAP (16u << 20)

/*
 * x86 under icount (measured here, tiny-mm kernel, TCG, -icount
 * shift=0,sleep=off): with no extra options the boot spent ~12 s of host
 * time in calibrate_APIC_clock() (the LAPIC timer is measured against the
 * PIT over many jiffies) and ~0.5 s in the timer IRQ check; with them it
 * reaches /init in ~1 s.
 *   nolapic_timer        no LAPIC timer, so no calibration: the PIT is the
 *                        tick (a single vCPU needs no per-CPU timer)
 *   no_timer_check       skips the check that the timer IRQ works
 *   lpj=4000000          skips calibrate_delay(); only sizes udelay() loops
 *   tsc_early_khz=1000000  takes the TSC frequency as given: shift=0 makes
 *                        the guest clock 1 GHz (one instruction per ns)
 * Secondary CPUs did not come up under icount (the boot hung in "Bringing
 * up secondary CPUs" for > 200 s), so icount runs use one vCPU on every
 * arch: icount serializes vCPUs anyway.
 */
const char QEMU_X86_ICOUNT_APPEND[] =
	"nolapic_timer no_timer_check lpj=4000000 tsc_early_khz=1000000";

void qemu_init(struct qemu *q)
{
	memset(q, 0, sizeof(*q));
	q->log_fd = -1;
	buf_init(&q->log, QEMU_LOG_CAP);
}

void qemu_release(struct qemu *q)
{
	buf_release(&q->log);
}

/* --- the host's CPUs and nodes ---------------------------------------------- */

/* Appends the CPUs of a kernel CPU list ("0-3,8") to h with node `node`. */
static int add_cpulist(struct qemu_host *h, const char *list, int node, const char *path,
		       struct err *e)
{
	const char *p = list;

	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < 0)
			goto bad;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				goto bad;
			p = end;
		}
		for (long c = lo; c <= hi; c++) {
			if (h->nr_cpus >= QEMU_MAX_CPUS)
				return err_setc(e, ERR_INVALID_FIELD, path,
						"more than %d host CPUs", QEMU_MAX_CPUS);
			h->node[h->nr_cpus] = node;
			h->cpu[h->nr_cpus++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	return 0;
bad:
	return err_setc(e, ERR_INVALID_FIELD, path, "'%s' is not a CPU list", path);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int qemu_host_read(const char *root, struct qemu_host *h, struct err *e)
{
	char *dir = xstrfmt("%s/sys/devices/system/node", root && *root ? root : "");
	int ids[QEMU_MAX_NODES], nids = 0, rc = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	memset(h, 0, sizeof(*h));
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "node", 4) && de->d_name[4] >= '0' &&
		    de->d_name[4] <= '9' && nids < QEMU_MAX_NODES)
			ids[nids++] = (int)strtol(de->d_name + 4, NULL, 10);
	if (d)
		closedir(d);
	qsort(ids, (size_t)nids, sizeof(ids[0]), cmp_int);
	for (int i = 0; i < nids && !rc; i++) {
		char *path = xstrfmt("%s/node%d/cpulist", dir, ids[i]);
		struct buf b = BUF_INIT(1 << 16);
		int before = h->nr_cpus;

		if (buf_read_file(&b, path) == 0) {
			rc = add_cpulist(h, b.data, ids[i], path, e);
			h->nr_nodes += h->nr_cpus > before;
		}
		buf_release(&b);
		free(path);
	}
	free(dir);
	if (!rc && !h->nr_cpus) {
		char *path = xstrfmt("%s/sys/devices/system/cpu/online", root && *root ? root : "");
		struct buf b = BUF_INIT(1 << 16);

		if (buf_read_file(&b, path) < 0)
			rc = err_setc(e, ERR_IO, path, "cannot read '%s'", path);
		else
			rc = add_cpulist(h, b.data, 0, path, e);
		h->nr_nodes = h->nr_cpus > 0;
		buf_release(&b);
		free(path);
	}
	if (!rc && !h->nr_cpus)
		rc = err_setc(e, ERR_IO, "sys/devices/system", "no host CPUs found");
	return rc;
}

/* --- the command line ----------------------------------------------------- */

void qemu_argv_release(struct qemu_argv *a)
{
	for (int i = 0; i < a->argc; i++)
		free(a->argv[i]);
	free(a->argv);
	memset(a, 0, sizeof(*a));
}

static void add(struct qemu_argv *a, const char *s)
{
	if (a->argc + 2 > a->alloc) {
		a->alloc = a->alloc ? 2 * a->alloc : 64;
		a->argv = xrealloc(a->argv, (size_t)a->alloc * sizeof(*a->argv));
	}
	a->argv[a->argc++] = xstrdup(s);
	a->argv[a->argc] = NULL;
}

static void addf(struct qemu_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct qemu_argv *a, const char *fmt, ...)
{
	struct buf b = BUF_INIT(0);
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (r)
		abort(); /* uncapped */
	add(a, b.data);
	buf_release(&b);
}

/* q's layout for vcpus vCPUs (see struct qemu_layout); h may be NULL without pin and mirror */
static int make_layout(const struct qemu *q, const struct qemu_host *h, int vcpus,
		       struct qemu_layout *l, struct err *e)
{
	long mem = q->mem_mb > 0 ? q->mem_mb : 512;
	long unit = q->hugepages_kb ? q->hugepages_kb / 1024 : 1;
	int count[QEMU_MAX_NODES] = { 0 };
	long given = 0;

	memset(l, 0, sizeof(*l));
	l->vcpus = vcpus;
	for (int i = 0; i < QEMU_MAX_NODES; i++)
		l->host_node[i] = -1;
	for (int i = 0; i < vcpus; i++)
		l->host_cpu[i] = q->pin ? h->cpu[(long)i * h->nr_cpus / vcpus] : -1;
	if (q->numa == QEMU_NUMA_HOST) {
		for (int i = 0; i < vcpus; i++) {
			int hn = h->node[(long)i * h->nr_cpus / vcpus];

			if (!l->nr_nodes || l->host_node[l->nr_nodes - 1] != hn)
				l->host_node[l->nr_nodes++] = hn;
			l->node_of[i] = l->nr_nodes - 1;
		}
	} else if (q->numa > 0) {
		if (q->numa > vcpus || q->numa > QEMU_MAX_NODES)
			return err_setc(e, ERR_INVALID_JOB, "params.numa",
					"%d NUMA nodes for %d vCPUs", q->numa, vcpus);
		l->nr_nodes = q->numa;
		for (int i = 0; i < vcpus; i++)
			l->node_of[i] = (int)((long)i * q->numa / vcpus);
	}
	if (!l->nr_nodes) {
		l->mem_mb[0] = mem;
		if (mem % unit)
			return err_setc(e, ERR_INVALID_JOB, "params.hugepages",
					"%ld MiB of memory is not whole %ld MiB hugepages", mem,
					unit);
		return 0;
	}
	for (int i = 0; i < vcpus; i++)
		count[l->node_of[i]]++;
	for (int k = 0; k < l->nr_nodes; k++) {
		l->mem_mb[k] = mem * count[k] / vcpus / unit * unit;
		given += l->mem_mb[k];
	}
	l->mem_mb[0] += mem - given;
	for (int k = 0; k < l->nr_nodes; k++)
		if (l->mem_mb[k] <= 0 || l->mem_mb[k] % unit)
			return err_setc(e, ERR_INVALID_JOB,
					q->hugepages_kb ? "params.hugepages" : "params.numa",
					"node %d cannot get whole %ld MiB pages of %ld MiB", k,
					unit, mem);
	return 0;
}

/* "-numa node,nodeid=K,cpus=A-B[,cpus=C-D],memdev=memK" for node k */
static void add_numa_node(struct qemu_argv *a, const struct qemu_layout *l, int k)
{
	struct buf b = BUF_INIT(0);

	if (buf_addf(&b, "node,nodeid=%d", k))
		abort();
	for (int i = 0; i < l->vcpus;) {
		int j = i;

		if (l->node_of[i] != k) {
			i++;
			continue;
		}
		while (j + 1 < l->vcpus && l->node_of[j + 1] == k)
			j++;
		if ((i == j ? buf_addf(&b, ",cpus=%d", i) : buf_addf(&b, ",cpus=%d-%d", i, j)))
			abort();
		i = j + 1;
	}
	if (buf_addf(&b, ",memdev=mem%d", k))
		abort();
	add(a, "-numa");
	add(a, b.data);
	buf_release(&b);
}

/* h without the CPUs this process may not run on (a cpuset): its vCPUs could not go there */
static void allowed_only(struct qemu_host *h)
{
	cpu_set_t set;
	int n = 0, nodes = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return;
	for (int i = 0; i < h->nr_cpus; i++)
		if (h->cpu[i] < CPU_SETSIZE && CPU_ISSET(h->cpu[i], &set)) {
			nodes += !n || h->node[n - 1] != h->node[i];
			h->cpu[n] = h->cpu[i];
			h->node[n++] = h->node[i];
		}
	if (n) {
		h->nr_cpus = n;
		h->nr_nodes = nodes;
	}
}

int qemu_argv(struct qemu *q, const char *qmp_path, struct qemu_argv *a, struct err *e)
{
	struct qemu_host own;
	const struct qemu_host *h = q->host;
	const char *machine;
	int is_x86, kvm, cpus, backends;

	memset(a, 0, sizeof(*a));
	if (!q->arch || (strcmp(q->arch, "x86_64") && strcmp(q->arch, "aarch64")))
		return err_setc(e, ERR_INVALID_JOB, "arch", "no qemu for arch '%s'",
				q->arch ? q->arch : "");
	if (!q->accel || (strcmp(q->accel, "kvm") && strcmp(q->accel, "tcg")))
		return err_setc(e, ERR_INVALID_JOB, "accel", "unknown accel");
	if (q->icount && strcmp(q->accel, "tcg"))
		return err_setc(e, ERR_INVALID_JOB, "measure", "icount needs tcg");
	if (q->hugepages_kb && q->hugepages_kb != 2048 && q->hugepages_kb != 1048576)
		return err_setc(e, ERR_INVALID_JOB, "params.hugepages",
				"hugepages are 2048 or 1048576 kB, not %d", q->hugepages_kb);
	is_x86 = !strcmp(q->arch, "x86_64");
	kvm = !strcmp(q->accel, "kvm");
	if (!h && (q->pin || q->numa == QEMU_NUMA_HOST || (kvm && q->cpus <= 0))) {
		if (qemu_host_read("", &own, e) < 0)
			return -1;
		allowed_only(&own);
		h = &own;
	}
	cpus = q->icount ? 1 : q->cpus > 0 ? q->cpus : kvm ? h->nr_cpus : 2;
	if (cpus > QEMU_MAX_CPUS)
		return err_setc(e, ERR_INVALID_JOB, "params.vcpus", "more than %d vCPUs",
				QEMU_MAX_CPUS);
	/*
	 * What the machine takes (vmspec_max_vcpus(), the table the server
	 * checks jobs against at submit). A count the job named past that is
	 * refused here, before qemu would print its error where the guest's
	 * console goes (read as a failed boot): a job queued before the server
	 * checked it; the kvm default of a bigger host is the machine's most.
	 */
	if (cpus > vmspec_max_vcpus(q->arch, &machine)) {
		if (q->icount || q->cpus > 0)
			return err_setc(e, ERR_INVALID_JOB, "params.vcpus",
					"%s's qemu machine (%s) takes at most %d vCPUs, not %d",
					q->arch, machine, vmspec_max_vcpus(q->arch, NULL), cpus);
		cpus = vmspec_max_vcpus(q->arch, NULL);
	}
	if (make_layout(q, h, cpus, &q->layout, e) < 0)
		return -1;

	snprintf(q->cmdline, sizeof(q->cmdline), "console=%s panic=-1 oops=panic%s%s%s%s",
		 is_x86 ? "ttyS0" : "ttyAMA0", is_x86 ? " reboot=t" : "",
		 is_x86 && q->icount ? " " : "", is_x86 && q->icount ? QEMU_X86_ICOUNT_APPEND : "",
		 q->append ? " " : "");
	if (q->append) {
		size_t len = strlen(q->cmdline);

		snprintf(q->cmdline + len, sizeof(q->cmdline) - len, "%s", q->append);
	}

	add(a, is_x86 ? "qemu-system-x86_64" : "qemu-system-aarch64");
	add(a, "-M");
	/* one memory backend without nodes: the machine's own RAM */
	backends = q->layout.nr_nodes ? q->layout.nr_nodes : q->hugepages_kb ? 1 : 0;
	/*
	 * virt's default GIC is v2: at most 8 vCPUs, and under KVM only on a
	 * host GIC that emulates v2 (most arm64 servers' GICv3 does not). "max"
	 * is the host's under KVM, v3 under TCG; TCG guests of up to 8 vCPUs
	 * keep v2, the machine their series were measured on.
	 */
	addf(a, "%s%s%s", is_x86 ? "pc" : "virt",
	     !is_x86 && (kvm || cpus > 8) ? ",gic-version=max" : "",
	     backends && !q->layout.nr_nodes ? ",memory-backend=mem0" : "");
	if (kvm || !is_x86) {
		add(a, "-cpu");
		add(a, kvm ? "host" : "max");
	}
	add(a, "-accel");
	add(a, q->accel);
	if (q->icount) {
		add(a, "-icount");
		add(a, "shift=0,sleep=off");
	}
	add(a, "-m");
	addf(a, "%d", q->mem_mb > 0 ? q->mem_mb : 512);
	add(a, "-smp");
	if (is_x86)
		addf(a, "%d,sockets=%d,cores=1", cpus, cpus);
	else
		addf(a, "%d", cpus);
	for (int k = 0; k < backends; k++) {
		add(a, "-object");
		if (q->hugepages_kb)
			addf(a,
			     "memory-backend-memfd,id=mem%d,size=%ldM,hugetlb=on,hugetlbsize=%dK,"
			     "prealloc=on",
			     k, q->layout.mem_mb[k], q->hugepages_kb);
		else
			addf(a, "memory-backend-ram,id=mem%d,size=%ldM", k, q->layout.mem_mb[k]);
	}
	for (int k = 0; k < q->layout.nr_nodes; k++)
		add_numa_node(a, &q->layout, k);
	if (q->pin && qmp_path) {
		add(a, "-S");
		add(a, "-qmp");
		addf(a, "unix:%s,server=on,wait=off", qmp_path);
	}
	add(a, "-nographic");
	add(a, "-no-reboot");
	add(a, "-kernel");
	add(a, q->kernel ? q->kernel : "");
	add(a, "-initrd");
	add(a, q->initrd ? q->initrd : "");
	add(a, "-append");
	add(a, q->cmdline);
	return 0;
}

/* --- what a run records -------------------------------------------------- */

/* "0-3,8": the vCPUs of guest node k of l */
static json_t *node_cpus(const struct qemu_layout *l, int k)
{
	struct buf b = BUF_INIT(0);
	json_t *s;

	for (int i = 0; i < l->vcpus;) {
		int j = i;

		if (l->node_of[i] != k) {
			i++;
			continue;
		}
		while (j + 1 < l->vcpus && l->node_of[j + 1] == k)
			j++;
		if (buf_addf(&b, "%s%d", b.len ? "," : "", i) || (j > i && buf_addf(&b, "-%d", j)))
			abort(); /* uncapped */
		i = j + 1;
	}
	s = json_string(b.data);
	buf_release(&b);
	return s;
}

json_t *qemu_guest_json(const struct qemu *q)
{
	const struct qemu_layout *l = &q->layout;
	const char *arch = q->arch, *accel = q->accel;
	int kvm = !strcmp(accel, "kvm"), icount = q->icount, pinned = q->pinned;
	int mem_mb = q->mem_mb > 0 ? q->mem_mb : 512, hugepages_kb = q->hugepages_kb;
	json_t *g = json_pack("{s:s, s:i, s:i, s:s, s:b, s:s}", "arch", arch, "nr_cpus", l->vcpus,
			      "memory_mb", mem_mb, "accel", accel, "icount", icount, "cpu_model",
			      kvm		     ? "host" :
			      strcmp(arch, "x86_64") ? "max" :
						       "qemu64");
	json_t *pin = json_null(), *numa = json_null();

	if (pinned) {
		pin = json_array();
		for (int i = 0; i < l->vcpus; i++)
			json_array_append_new(pin, json_integer(l->host_cpu[i]));
	}
	if (l->nr_nodes) {
		numa = json_array();
		for (int k = 0; k < l->nr_nodes; k++)
			json_array_append_new(numa,
					      json_pack("{s:i, s:o, s:I, s:o}", "node", k, "cpus",
							node_cpus(l, k), "memory_mb",
							(json_int_t)l->mem_mb[k], "host_node",
							l->host_node[k] >= 0 ?
								json_integer(l->host_node[k]) :
								json_null()));
	}
	json_object_set_new(g, "pinned", pin);
	json_object_set_new(g, "hugepages",
			    hugepages_kb == 2048    ? json_string("2M") :
			    hugepages_kb == 1048576 ? json_string("1G") :
						      json_null());
	json_object_set_new(g, "numa", numa);
	return g;
}

/* --- pinning -------------------------------------------------------------- */

int qemu_pin_vcpus(const char *qmp_path, const struct qemu_layout *l, int timeout_ms,
		   const atomic_int *stop, struct err *e)
{
	struct qmp_vcpu v[QEMU_MAX_CPUS];
	struct qmp m;
	json_t *ret = NULL;
	int n, i;

	if (qmp_connect(&m, qmp_path, timeout_ms, stop, e) < 0)
		return -1;
	if (qmp_vcpus(&m, v, QEMU_MAX_CPUS, &n, e) < 0)
		goto quit;
	if (n != l->vcpus) {
		err_setc(e, ERR_SPAWN, "params.pin", "qemu has %d vCPUs, the layout %d", n,
			 l->vcpus);
		goto quit;
	}
	for (i = 0; i < n; i++) {
		cpu_set_t set, back;

		CPU_ZERO(&set);
		CPU_SET(l->host_cpu[i], &set);
		errno = 0;
		if (sched_setaffinity(v[i].tid, sizeof(set), &set) < 0 ||
		    sched_getaffinity(v[i].tid, sizeof(back), &back) < 0 ||
		    !CPU_EQUAL(&set, &back)) {
			err_setc(e, ERR_SPAWN, "params.pin",
				 "cannot pin vCPU %d (thread %d) to host CPU %d: %s", i, v[i].tid,
				 l->host_cpu[i], errno ? strerror(errno) : "not applied");
			goto quit;
		}
	}
	if (qmp_execute(&m, "cont", NULL, &ret, e) < 0)
		goto quit;
	json_decref(ret);
	qmp_close(&m);
	return n;
quit:
	if (m.fd >= 0 && qmp_execute(&m, "quit", NULL, &ret, &(struct err){ 0 }) == 0)
		json_decref(ret);
	qmp_close(&m);
	return -1;
}

/* the pinning thread of one qemu_run */
struct pin_job {
	const char *path;
	const struct qemu_layout *layout;
	int timeout_ms;
	atomic_int stop;	      /* set by qemu_run's thread once qemu is gone */
	volatile sig_atomic_t failed; /* set here: runcmd ends qemu (paused, else until its limit) */
	int pinned;
	struct err e;
};

static void *pin_thread(void *arg)
{
	struct pin_job *p = arg;

	p->pinned = qemu_pin_vcpus(p->path, p->layout, p->timeout_ms, &p->stop, &p->e);
	if (p->pinned < 0)
		p->failed = 1;
	return NULL;
}

int qemu_run(struct qemu *q, struct err *e)
{
	struct qemu_argv a;
	struct runcmd cmd;
	struct pin_job pj;
	pthread_t tid;
	char *dir = NULL, *sock = NULL;
	int rc, ran, started = 0;

	q->pinned = 0;
	if (q->pin) {
		const char *tmp = getenv("TMPDIR");

		dir = xstrfmt("%s/regtrack-qmp.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			rc = err_setc(e, ERR_IO, dir, "cannot create '%s': %s", dir,
				      strerror(errno));
			free(dir);
			return rc;
		}
		sock = xstrfmt("%s/qmp.sock", dir);
	}
	if (qemu_argv(q, sock, &a, e) < 0) {
		rc = -1;
		goto out;
	}
	if (q->pin) {
		memset(&pj, 0, sizeof(pj));
		pj.path = sock;
		pj.layout = &q->layout;
		pj.timeout_ms = q->pin_timeout_ms > 0 ? q->pin_timeout_ms : 30000;
		atomic_init(&pj.stop, 0);
		started = !pthread_create(&tid, NULL, pin_thread, &pj);
		if (!started) {
			rc = err_setc(e, ERR_SPAWN, "params.pin",
				      "cannot start the pinning thread");
			qemu_argv_release(&a);
			goto out;
		}
	}
	runcmd_init(&cmd, (const char *const *)a.argv, q->timeout_s > 0 ? q->timeout_s : 600);
	cmd.merge_stderr = 1;
	cmd.out.cap = QEMU_LOG_CAP;
	cmd.log_fd = q->log_fd;
	cmd.cancel = q->cancel;
	if (started)
		cmd.abort = &pj.failed;
	rc = runcmd_run(&cmd, e);
	ran = !rc;
	if (started) {
		atomic_store(&pj.stop, 1); /* qemu is gone: no socket will come */
		pthread_join(tid, NULL);
		if (!rc && pj.pinned < 0)
			rc = err_setc(e, pj.e.id, pj.e.detail, "%s", pj.e.message);
		q->pinned = pj.pinned > 0 ? pj.pinned : 0;
	}
	if (ran) {
		buf_release(&q->log);
		q->log = cmd.out;
		buf_init(&cmd.out, 0);
		q->exited = cmd.exited;
		q->exit_code = cmd.exit_code;
		q->timed_out = cmd.timed_out;
		q->cancelled = cmd.cancelled;
		q->elapsed_s = cmd.elapsed_s;
	}
	runcmd_release(&cmd);
	qemu_argv_release(&a);
out:
	if (sock) {
		unlink(sock);
		rmdir(dir);
	}
	free(sock);
	free(dir);
	return rc;
}

struct kvm_verdict {
	const char *arch;
	int known, usable;
	char why[320];
};

static struct kvm_verdict kvm_verdicts[] = { { "x86_64", 0, 0, "" }, { "aarch64", 0, 0, "" } };

int qemu_kvm_usable(const char *arch, const char *kernel, const char *initrd, const char *append,
		    const char *marker, int timeout_s, char *why, size_t why_len)
{
	struct kvm_verdict *v = NULL;
	struct utsname u;
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(kvm_verdicts); i++)
		if (arch && !strcmp(kvm_verdicts[i].arch, arch))
			v = &kvm_verdicts[i];
	if (!v) {
		if (why)
			snprintf(why, why_len, "no qemu for arch '%s'", arch ? arch : "");
		return 0;
	}
	if (v->known)
		goto out;
	v->known = 1;
	uname(&u);
	if (strcmp(u.machine, arch)) {
		snprintf(v->why, sizeof(v->why), "host is %s", u.machine);
		goto out;
	}
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(v->why, sizeof(v->why), "/dev/kvm cannot be opened");
		goto out;
	}
	close(fd);
	{
		struct qemu q;
		struct err e;

		qemu_init(&q);
		q.arch = arch;
		q.kernel = kernel;
		q.initrd = initrd;
		q.append = append;
		q.accel = "kvm";
		q.mem_mb = 256;
		q.cpus = 1;
		q.timeout_s = timeout_s;
		if (qemu_run(&q, &e) < 0)
			snprintf(v->why, sizeof(v->why), "%s", e.message);
		else if (!strstr(q.log.data, marker))
			snprintf(v->why, sizeof(v->why), "a kvm test boot did not reach /init (%s)",
				 q.timed_out ? "timed out" : "qemu exited");
		else {
			v->usable = 1;
			snprintf(v->why, sizeof(v->why), "a kvm test boot reached /init in %.1f s",
				 q.elapsed_s);
		}
		qemu_release(&q);
	}
out:
	if (why)
		snprintf(why, why_len, "%s", v->why);
	return v->usable;
}
