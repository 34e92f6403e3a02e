/*
 * worker/qemu.c: the qemu command line of each mode (tcg, icount, kvm, kvm
 * with pinning, hugepages and a NUMA topology), the host's topology from
 * a sysfs laid out in a temporary directory, and the QMP pinning against a
 * real qemu under TCG (query-cpus-fast gives vCPU thread ids there too).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "xalloc.h"
#include "worker/qemu.h"
#include "worker/qmp.h"

#define UNUSED __attribute__((unused))

/* argv joined by spaces, argv[0] included; new, caller frees */
static char *joined(const struct qemu_argv *a)
{
	struct buf b = BUF_INIT(0);
	char *s;

	for (int i = 0; i < a->argc; i++)
		assert_int_equal(buf_addf(&b, "%s%s", i ? " " : "", a->argv[i]), 0);
	s = xstrdup(b.data);
	buf_release(&b);
	return s;
}

static char *argv_of(struct qemu *q, const char *qmp)
{
	struct qemu_argv a;
	struct err e;
	char *s;

	assert_int_equal(qemu_argv(q, qmp, &a, &e), 0);
	assert_null(a.argv[a.argc]);
	s = joined(&a);
	qemu_argv_release(&a);
	return s;
}

static void base(struct qemu *q, const char *arch, const char *accel)
{
	qemu_init(q);
	q->arch = arch;
	q->accel = accel;
	q->kernel = "/k/bzImage";
	q->initrd = "/k/initrd";
}

/* a host of 8 CPUs in two nodes */
static void two_nodes(struct qemu_host *h)
{
	memset(h, 0, sizeof(*h));
	for (int i = 0; i < 8; i++) {
		h->cpu[i] = i;
		h->node[i] = i < 4 ? 0 : 1;
	}
	h->nr_cpus = 8;
	h->nr_nodes = 2;
}

static void test_argv_tcg(void **state UNUSED)
{
	struct qemu q;
	char *s;

	base(&q, "x86_64", "tcg");
	s = argv_of(&q, NULL);
	assert_string_equal(s,
			    "qemu-system-x86_64 -M pc -accel tcg -m 512 -smp 2,sockets=2,cores=1 "
			    "-nographic -no-reboot -kernel /k/bzImage -initrd /k/initrd -append "
			    "console=ttyS0 panic=-1 oops=panic reboot=t");
	assert_int_equal(q.layout.vcpus, 2);
	assert_int_equal(q.layout.nr_nodes, 0);
	assert_int_equal(q.layout.host_cpu[0], -1);
	free(s);
	qemu_release(&q);

	base(&q, "aarch64", "tcg");
	q.cpus = 4;
	q.mem_mb = 2048;
	q.append = "rt.case=none";
	s = argv_of(&q, NULL);
	assert_string_equal(s, "qemu-system-aarch64 -M virt -cpu max -accel tcg -m 2048 -smp 4 "
			       "-nographic -no-reboot -kernel /k/bzImage -initrd /k/initrd -append "
			       "console=ttyAMA0 panic=-1 oops=panic rt.case=none");
	free(s);
	qemu_release(&q);
}

static void test_argv_icount(void **state UNUSED)
{
	struct qemu q;
	char *s;

	base(&q, "x86_64", "tcg");
	q.icount = 1;
	q.cpus = 8; /* icount runs one vCPU whatever is asked */
	s = argv_of(&q, NULL);
	assert_string_equal(s, "qemu-system-x86_64 -M pc -accel tcg -icount shift=0,sleep=off "
			       "-m 512 -smp 1,sockets=1,cores=1 -nographic -no-reboot -kernel "
			       "/k/bzImage -initrd /k/initrd -append console=ttyS0 panic=-1 "
			       "oops=panic reboot=t nolapic_timer no_timer_check lpj=4000000 "
			       "tsc_early_khz=1000000");
	assert_int_equal(q.layout.vcpus, 1);
	free(s);
	qemu_release(&q);
}

static void test_argv_kvm(void **state UNUSED)
{
	struct qemu_host h;
	struct qemu q;
	char *s;

	two_nodes(&h);
	/* no vCPU count: the host's CPUs; the host's CPU model (its PMU) */
	base(&q, "x86_64", "kvm");
	q.host = &h;
	s = argv_of(&q, NULL);
	assert_string_equal(s,
			    "qemu-system-x86_64 -M pc -cpu host -accel kvm -m 512 "
			    "-smp 8,sockets=8,cores=1 -nographic -no-reboot -kernel /k/bzImage "
			    "-initrd /k/initrd -append console=ttyS0 panic=-1 oops=panic reboot=t");
	free(s);
	qemu_release(&q);

	base(&q, "aarch64", "kvm");
	q.host = &h;
	q.cpus = 3;
	s = argv_of(&q, NULL);
	assert_non_null(strstr(
		s,
		"qemu-system-aarch64 -M virt,gic-version=max -cpu host -accel kvm -m 512 -smp 3 "));
	free(s);
	qemu_release(&q);
}

/*
 * What qemu's machines take: pc at most 255 vCPUs, virt 8 with its default
 * GICv2 and 512 with GICv3 (qemu 7.2 refuses more, before the guest runs).
 */
static void test_argv_vcpu_limits(void **state UNUSED)
{
	struct qemu_host h;
	struct qemu_argv a;
	struct qemu q;
	struct err e;
	char *s;

	/* arm64 under tcg past 8 vCPUs: GICv3; 8 and fewer keep the machine they had */
	base(&q, "aarch64", "tcg");
	q.cpus = 16;
	s = argv_of(&q, NULL);
	assert_non_null(strstr(s, "qemu-system-aarch64 -M virt,gic-version=max -cpu max "
				  "-accel tcg -m 512 -smp 16 "));
	free(s);
	qemu_release(&q);
	base(&q, "aarch64", "tcg");
	q.cpus = 8;
	s = argv_of(&q, NULL);
	assert_non_null(strstr(s, "qemu-system-aarch64 -M virt -cpu max -accel tcg "));
	free(s);
	qemu_release(&q);
	base(&q, "aarch64", "tcg");
	q.cpus = 513;
	assert_int_equal(qemu_argv(&q, NULL, &a, &e), -1);
	assert_string_equal(e.detail, "params.vcpus");
	assert_string_equal(e.message, "aarch64's qemu machine (virt) takes at most 512 vCPUs, "
				       "not 513");
	/* x86: pc's 255 */
	base(&q, "x86_64", "kvm");
	q.cpus = 256;
	assert_int_equal(qemu_argv(&q, NULL, &a, &e), -1);
	assert_string_equal(e.detail, "params.vcpus");
	assert_string_equal(e.message,
			    "x86_64's qemu machine (pc) takes at most 255 vCPUs, not 256");
	/* the kvm default of a host with more CPUs than that: the machine's most */
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 384; i++)
		h.cpu[i] = i;
	h.nr_cpus = 384;
	h.nr_nodes = 1;
	base(&q, "x86_64", "kvm");
	q.host = &h;
	s = argv_of(&q, NULL);
	assert_non_null(strstr(s, " -smp 255,sockets=255,cores=1 "));
	assert_int_equal(q.layout.vcpus, 255);
	free(s);
	qemu_release(&q);
}

static void test_argv_kvm_pin_hugepages_numa(void **state UNUSED)
{
	struct qemu_host h;
	struct qemu q;
	char *s;

	two_nodes(&h);
	base(&q, "x86_64", "kvm");
	q.host = &h;
	q.cpus = 4;
	q.mem_mb = 4096;
	q.pin = 1;
	q.hugepages_kb = 2048;
	q.numa = QEMU_NUMA_HOST;
	s = argv_of(&q, "/run/q/qmp.sock");
	assert_string_equal(
		s,
		"qemu-system-x86_64 -M pc -cpu host -accel kvm -m 4096 -smp 4,sockets=4,cores=1 "
		"-object memory-backend-memfd,id=mem0,size=2048M,hugetlb=on,hugetlbsize=2048K,"
		"prealloc=on "
		"-object memory-backend-memfd,id=mem1,size=2048M,hugetlb=on,hugetlbsize=2048K,"
		"prealloc=on "
		"-numa node,nodeid=0,cpus=0-1,memdev=mem0 -numa node,nodeid=1,cpus=2-3,memdev=mem1 "
		"-S -qmp unix:/run/q/qmp.sock,server=on,wait=off -nographic -no-reboot -kernel "
		"/k/bzImage -initrd /k/initrd -append console=ttyS0 panic=-1 oops=panic reboot=t");
	/* 4 vCPUs over 8 host CPUs: every other one, two in each node */
	assert_int_equal(q.layout.host_cpu[0], 0);
	assert_int_equal(q.layout.host_cpu[1], 2);
	assert_int_equal(q.layout.host_cpu[2], 4);
	assert_int_equal(q.layout.host_cpu[3], 6);
	assert_int_equal(q.layout.host_node[1], 1);
	free(s);
	qemu_release(&q);

	/* hugepages without nodes: the machine's RAM is the one backend */
	base(&q, "aarch64", "kvm");
	q.host = &h;
	q.cpus = 2;
	q.mem_mb = 2048;
	q.hugepages_kb = 1048576;
	s = argv_of(&q, NULL);
	assert_non_null(
		strstr(s,
		       "-M virt,gic-version=max,memory-backend=mem0 -cpu host -accel kvm -m 2048 -smp 2 "
		       "-object memory-backend-memfd,id=mem0,size=2048M,hugetlb=on,"
		       "hugetlbsize=1048576K,prealloc=on -nographic"));
	assert_null(strstr(s, "-qmp"));
	free(s);
	qemu_release(&q);

	/* N nodes of its own, uneven: 5 vCPUs in 2 nodes, memory by vCPUs, rest to node 0 */
	base(&q, "x86_64", "kvm");
	q.host = &h;
	q.cpus = 5;
	q.mem_mb = 1001;
	q.numa = 2;
	s = argv_of(&q, NULL);
	assert_non_null(strstr(s, "-object memory-backend-ram,id=mem0,size=601M -object "
				  "memory-backend-ram,id=mem1,size=400M -numa "
				  "node,nodeid=0,cpus=0-2,memdev=mem0 -numa "
				  "node,nodeid=1,cpus=3-4,memdev=mem1 -nographic"));
	free(s);
	qemu_release(&q);
}

/* what a run records of its guest: the shape qemu was given, and what pinning did */
static void test_guest_json(void **state UNUSED)
{
	struct qemu_host h;
	struct qemu q;
	json_t *g, *want;
	char *s;

	two_nodes(&h);
	base(&q, "x86_64", "kvm");
	q.host = &h;
	q.cpus = 4;
	q.mem_mb = 4096;
	q.pin = 1;
	q.hugepages_kb = 2048;
	q.numa = QEMU_NUMA_HOST;
	free(argv_of(&q, "/s"));
	q.pinned = 4; /* as qemu_run() sets it once the threads moved */
	g = qemu_guest_json(&q);
	want = json_loads("{\"arch\": \"x86_64\", \"nr_cpus\": 4, \"memory_mb\": 4096, "
			  "\"accel\": \"kvm\", \"icount\": false, \"cpu_model\": \"host\", "
			  "\"pinned\": [0, 2, 4, 6], \"hugepages\": \"2M\", \"numa\": ["
			  "{\"node\": 0, \"cpus\": \"0-1\", \"memory_mb\": 2048, \"host_node\": 0}, "
			  "{\"node\": 1, \"cpus\": \"2-3\", \"memory_mb\": 2048, \"host_node\": 1}]}",
			  0, NULL);
	s = json_dumps(g, JSON_SORT_KEYS);
	assert_true(json_equal(g, want) || (print_error("got %s\n", s), 0));
	free(s);
	json_decref(g);
	json_decref(want);
	qemu_release(&q);

	/* icount on x86: qemu's own CPU model, nothing pinned, no nodes */
	base(&q, "x86_64", "tcg");
	q.icount = 1;
	free(argv_of(&q, NULL));
	g = qemu_guest_json(&q);
	want = json_loads("{\"arch\": \"x86_64\", \"nr_cpus\": 1, \"memory_mb\": 512, "
			  "\"accel\": \"tcg\", \"icount\": true, \"cpu_model\": \"qemu64\", "
			  "\"pinned\": null, \"hugepages\": null, \"numa\": null}",
			  0, NULL);
	assert_true(json_equal(g, want));
	json_decref(g);
	json_decref(want);
	qemu_release(&q);

	/* numa N of its own: no host node, 512 MiB by vCPUs (341 + 170, the rest to node 0);
	 * asked to pin but not pinned (qemu_run failed) */
	base(&q, "aarch64", "tcg");
	q.host = &h;
	q.cpus = 3;
	q.numa = 2;
	q.pin = 1;
	free(argv_of(&q, NULL));
	g = qemu_guest_json(&q);
	assert_string_equal(json_string_value(json_object_get(g, "cpu_model")), "max");
	assert_true(json_is_null(json_object_get(g, "pinned")));
	s = json_dumps(json_object_get(g, "numa"), JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(s,
			    "[{\"cpus\":\"0-1\",\"host_node\":null,\"memory_mb\":342,\"node\":0},"
			    "{\"cpus\":\"2\",\"host_node\":null,\"memory_mb\":170,\"node\":1}]");
	free(s);
	json_decref(g);
	qemu_release(&q);
}

static void test_argv_errors(void **state UNUSED)
{
	struct qemu_host h;
	struct qemu_argv a;
	struct qemu q;
	struct err e;

	two_nodes(&h);
	base(&q, "x86_64", "kvm");
	q.icount = 1;
	assert_int_equal(qemu_argv(&q, NULL, &a, &e), -1);
	assert_string_equal(e.detail, "measure");
	base(&q, "x86_64", "kvm");
	q.host = &h;
	q.hugepages_kb = 4;
	assert_int_equal(qemu_argv(&q, NULL, &a, &e), -1);
	assert_string_equal(e.detail, "params.hugepages");
	q.hugepages_kb = 2048;
	q.mem_mb = 513; /* not whole 2 MiB pages */
	assert_int_equal(qemu_argv(&q, NULL, &a, &e), -1);
	assert_string_equal(e.detail, "params.hugepages");
	q.hugepages_kb = 0;
	q.cpus = 2;
	q.numa = 3;
	assert_int_equal(qemu_argv(&q, NULL, &a, &e), -1);
	assert_string_equal(e.detail, "params.numa");
	assert_string_equal(e.message, "3 NUMA nodes for 2 vCPUs");
	q.numa = 0;
	q.cpus = QEMU_MAX_CPUS + 1;
	assert_int_equal(qemu_argv(&q, NULL, &a, &e), -1);
	assert_string_equal(e.detail, "params.vcpus");
	q.cpus = 1;
	q.accel = "hvf";
	assert_int_equal(qemu_argv(&q, NULL, &a, &e), -1);
	assert_string_equal(e.detail, "accel");
}

static void put(const char *root, const char *rel, const char *text)
{
	char *p = xstrfmt("%s/%s", root, rel), *cmd;
	FILE *f;

	cmd = xstrfmt("%s", p);
	*strrchr(cmd, '/') = '\0';
	for (char *s = cmd + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(cmd, 0755);
		*s = '/';
	}
	mkdir(cmd, 0755);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(cmd);
	free(p);
}

static void test_host_read(void **state UNUSED)
{
	char tmpl[] = "/tmp/test_qemu.XXXXXX";
	struct qemu_host h;
	struct qemu q;
	struct err e;
	char *cmd;
	char *s;

	assert_non_null(mkdtemp(tmpl));
	/* nodes 0 and 2 (ids need not be dense), a memory-only node 1 */
	put(tmpl, "sys/devices/system/node/node0/cpulist", "0-1,4\n");
	put(tmpl, "sys/devices/system/node/node1/cpulist", "\n");
	put(tmpl, "sys/devices/system/node/node2/cpulist", "2-3,5\n");
	assert_int_equal(qemu_host_read(tmpl, &h, &e), 0);
	assert_int_equal(h.nr_cpus, 6);
	assert_int_equal(h.nr_nodes, 2);
	assert_int_equal(h.cpu[2], 4);
	assert_int_equal(h.node[2], 0);
	assert_int_equal(h.cpu[3], 2);
	assert_int_equal(h.node[3], 2);

	/* mirrored: guest node 1 is host node 2; vCPU i pinned to h.cpu[i] */
	base(&q, "x86_64", "kvm");
	q.host = &h;
	q.numa = QEMU_NUMA_HOST;
	q.pin = 1;
	q.mem_mb = 600;
	s = argv_of(&q, "/s");
	assert_non_null(strstr(s, "-smp 6,sockets=6,cores=1 -object memory-backend-ram,id=mem0,"
				  "size=300M -object memory-backend-ram,id=mem1,size=300M -numa "
				  "node,nodeid=0,cpus=0-2,memdev=mem0 -numa "
				  "node,nodeid=1,cpus=3-5,memdev=mem1 -S"));
	assert_int_equal(q.layout.host_node[1], 2);
	assert_int_equal(q.layout.host_cpu[2], 4);
	assert_int_equal(q.layout.host_cpu[3], 2);
	free(s);

	/* one vCPU mirrored: one node, the one its CPU is in */
	q.cpus = 1;
	s = argv_of(&q, NULL);
	assert_non_null(strstr(s, "-numa node,nodeid=0,cpus=0,memdev=mem0 -nographic"));
	assert_int_equal(q.layout.nr_nodes, 1);
	free(s);
	qemu_release(&q);

	cmd = xstrfmt("rm -rf %s/sys/devices/system/node", tmpl);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* no NUMA in the host kernel: the online CPUs as node 0 */
	put(tmpl, "sys/devices/system/cpu/online", "0-2\n");
	assert_int_equal(qemu_host_read(tmpl, &h, &e), 0);
	assert_int_equal(h.nr_cpus, 3);
	assert_int_equal(h.nr_nodes, 1);
	put(tmpl, "sys/devices/system/cpu/online", "0-x\n");
	assert_int_equal(qemu_host_read(tmpl, &h, &e), -1);
	assert_int_equal(e.id, ERR_INVALID_FIELD);
	cmd = xstrfmt("rm -rf %s", tmpl);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* the first two CPUs this process may run on (the same one twice on a one-CPU box) */
static void two_cpus(int cpu[2])
{
	cpu_set_t set;
	int n = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	assert_true(n >= 1);
	if (n == 1)
		cpu[1] = cpu[0];
}

/* a file qemu loads as a raw arm64 image (it runs zeros: an exception loop) */
static char *dummy_file(const char *dir, const char *name)
{
	char *p = xstrfmt("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	char zero[4096] = { 0 };

	assert_non_null(f);
	fwrite(zero, 1, sizeof(zero), f);
	fclose(f);
	return p;
}

/*
 * A real qemu (aarch64 guest, TCG, 2 vCPUs in 2 mirrored nodes, started
 * paused by the pin argv): qemu_pin_vcpus() moves each vCPU thread to its
 * CPU and resumes the guest; a second QMP client then reads the threads'
 * affinity, the nodes qemu gave the vCPUs and the run state.
 */
static void test_pin_real_qemu(void **state UNUSED)
{
	char tmpl[] = "/tmp/test_qemu.XXXXXX";
	struct qemu_host h;
	struct qemu_argv a;
	struct qmp_vcpu v[4];
	struct qemu q;
	struct qmp m;
	struct err e;
	json_t *ret;
	char *sock, *kernel, *cmd;
	int cpu[2], n, status;
	pid_t pid;

	assert_non_null(mkdtemp(tmpl));
	sock = xstrfmt("%s/qmp.sock", tmpl);
	kernel = dummy_file(tmpl, "Image");
	two_cpus(cpu);
	memset(&h, 0, sizeof(h));
	/* reversed, so that the test tells the layout from qemu's own placement */
	h.cpu[0] = cpu[1];
	h.cpu[1] = cpu[0];
	h.node[0] = 0;
	h.node[1] = 1;
	h.nr_cpus = 2;
	h.nr_nodes = 2;
	base(&q, "aarch64", "tcg");
	q.kernel = kernel;
	q.initrd = kernel;
	q.host = &h;
	q.cpus = 2;
	q.pin = 1;
	q.numa = QEMU_NUMA_HOST;
	assert_int_equal(qemu_argv(&q, sock, &a, &e), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		execvp(a.argv[0], a.argv);
		_exit(127);
	}
	n = qemu_pin_vcpus(sock, &q.layout, 20000, NULL, &e);
	if (n < 0)
		print_error("qemu_pin_vcpus: %s (%s)\n", e.message, e.detail);
	assert_int_equal(n, 2);

	assert_int_equal(qmp_connect(&m, sock, 5000, NULL, &e), 0);
	assert_int_equal(qmp_vcpus(&m, v, 4, &n, &e), 0);
	assert_int_equal(n, 2);
	for (int i = 0; i < 2; i++) {
		cpu_set_t set;

		assert_int_equal(v[i].index, i);
		assert_int_equal(v[i].node, i); /* -numa node took */
		assert_int_equal(sched_getaffinity(v[i].tid, sizeof(set), &set), 0);
		assert_int_equal(CPU_COUNT(&set), 1);
		assert_true(CPU_ISSET(h.cpu[i], &set));
	}
	assert_true(v[0].tid != v[1].tid);
	assert_int_equal(qmp_execute(&m, "query-status", NULL, &ret, &e), 0);
	assert_string_equal(json_string_value(json_object_get(ret, "status")), "running");
	json_decref(ret);
	/* an unknown command is qemu's error, named */
	assert_int_equal(qmp_execute(&m, "no-such-command", NULL, &ret, &e), -1);
	assert_null(ret);
	assert_int_equal(e.id, ERR_SPAWN);
	assert_int_equal(qmp_execute(&m, "quit", NULL, &ret, &e), 0);
	json_decref(ret);
	qmp_close(&m);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	qemu_argv_release(&a);
	qemu_release(&q);

	/* the whole qemu_run: pinned before the guest ran, then its time limit */
	base(&q, "aarch64", "tcg");
	q.kernel = kernel;
	q.initrd = kernel;
	q.host = &h;
	q.cpus = 2;
	q.pin = 1;
	q.timeout_s = 3;
	assert_int_equal(qemu_run(&q, &e), 0);
	assert_int_equal(q.pinned, 2);
	assert_true(q.timed_out);
	qemu_release(&q);

	/* a CPU the host does not have: no run, the error names the param, qemu quits at once */
	h.cpu[0] = CPU_SETSIZE - 1;
	base(&q, "aarch64", "tcg");
	q.kernel = kernel;
	q.initrd = kernel;
	q.host = &h;
	q.cpus = 2;
	q.pin = 1;
	q.timeout_s = 60;
	assert_int_equal(qemu_run(&q, &e), -1);
	assert_string_equal(e.detail, "params.pin");
	assert_non_null(strstr(e.message, "cannot pin vCPU 0"));
	assert_int_equal(q.pinned, 0);
	assert_true(q.elapsed_s < 30);
	qemu_release(&q);

	free(sock);
	free(kernel);
	cmd = xstrfmt("rm -rf %s", tmpl);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/*
 * Pinning that fails before QMP connects (here a "qemu" that never opens
 * its socket, as one stuck before it listens): qemu_run ends qemu then,
 * not at its time limit with the guest paused all along.
 */
static void test_pin_fails_before_qmp(void **state UNUSED)
{
	char tmpl[] = "/tmp/test_qemu_fake.XXXXXX";
	const char *old = getenv("PATH");
	char *fake, *path, *saved = xstrdup(old ? old : "/usr/bin:/bin"), *cmd;
	struct qemu_host h;
	struct qemu q;
	struct err e;
	FILE *f;

	assert_non_null(mkdtemp(tmpl));
	fake = xstrfmt("%s/qemu-system-aarch64", tmpl);
	f = fopen(fake, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexec sleep 60\n", f);
	fclose(f);
	assert_int_equal(chmod(fake, 0755), 0);
	path = xstrfmt("%s:%s", tmpl, saved);
	setenv("PATH", path, 1);
	two_nodes(&h);
	base(&q, "aarch64", "tcg");
	q.host = &h;
	q.cpus = 2;
	q.pin = 1;
	q.pin_timeout_ms = 300;
	q.timeout_s = 60;
	assert_int_equal(qemu_run(&q, &e), -1);
	setenv("PATH", saved, 1);
	assert_int_equal(e.id, ERR_TRANSPORT);
	assert_non_null(strstr(e.message, "cannot connect to qemu's socket"));
	assert_int_equal(q.pinned, 0);
	assert_false(q.cancelled);
	assert_false(q.timed_out);
	assert_true(q.elapsed_s < 20);
	qemu_release(&q);
	cmd = xstrfmt("rm -rf %s", tmpl);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(path);
	free(fake);
	free(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_tcg),
		cmocka_unit_test(test_argv_icount),
		cmocka_unit_test(test_argv_kvm),
		cmocka_unit_test(test_argv_vcpu_limits),
		cmocka_unit_test(test_argv_kvm_pin_hugepages_numa),
		cmocka_unit_test(test_guest_json),
		cmocka_unit_test(test_argv_errors),
		cmocka_unit_test(test_host_read),
		cmocka_unit_test(test_pin_real_qemu),
		cmocka_unit_test(test_pin_fails_before_qmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
