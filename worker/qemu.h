#ifndef REGTRACK_QEMU_H
#define REGTRACK_QEMU_H

#include <jansson.h>
#include <signal.h>
#include <stdatomic.h>

#include "buf.h"
#include "err.h"

/*
 * Booting a kernel + initramfs in qemu and reading the serial log.
 *
 * x86_64: qemu-system-x86_64 -M pc -smp N,sockets=N,cores=1 (a kernel
 *         without ACPI finds the extra CPUs through the MP table only as
 *         sockets), console=ttyS0; -cpu host under KVM.
 * aarch64: qemu-system-aarch64 -M virt -cpu max (-cpu host under KVM;
 *         gic-version=max under KVM or past 8 vCPUs, GICv2's limit),
 *         console=ttyAMA0.
 * Both: -nographic -no-reboot (the guest's /init reboots, which ends qemu),
 * -m MEM, the serial console on qemu's stdout = the run log.
 *
 * Measurement modes:
 *   wallclock  guest time is host time; KVM when usable, else TCG
 *   icount     TCG with -icount shift=0,sleep=off: the guest clock advances
 *              1 ns per instruction executed (and jumps over idle time), so
 *              what a case measures is code-path length and is repeatable
 *              (<= 0.2 % spread measured here, against 7-33 % wall clock
 *              under TCG). It does not measure contention: vCPUs run one
 *              at a time; icount runs get one vCPU (-smp 1).
 * x86 kernels under icount spent ~12 s calibrating the LAPIC timer before
 * /init; the command line then gets QEMU_X86_ICOUNT_APPEND (see qemu.c for
 * what each option skips), and /init is reached in ~1 s.
 */
#define QEMU_MAX_CPUS 1024 /* host CPUs read, and vCPUs of one guest */
#define QEMU_MAX_NODES 64
#define QEMU_NUMA_HOST (-1) /* struct qemu.numa: mirror the host's nodes */

/* The host's online CPUs and NUMA nodes, as qemu_host_read() finds them. */
struct qemu_host {
	int nr_cpus;
	int cpu[QEMU_MAX_CPUS];	 /* CPU ids, by node, then by id */
	int node[QEMU_MAX_CPUS]; /* host node id of cpu[i] */
	int nr_nodes;		 /* nodes that have CPUs */
};

/*
 * Reads ROOT/sys/devices/system/node/nodeN/cpulist for every N (root "" or
 * "/" for the running system, a directory laid out like / in tests); a
 * host without that directory (no NUMA in its kernel) is one node 0 of
 * the CPUs in ROOT/sys/devices/system/cpu/online. Returns 0, or -1 with e
 * ERR_IO (nothing readable, detail the path) or ERR_INVALID_FIELD (a
 * cpulist that is not one, or more than QEMU_MAX_CPUS CPUs).
 */
int qemu_host_read(const char *root, struct qemu_host *h, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The guest's shape: its vCPUs, each vCPU's guest node and host CPU, and
 * each node's memory. Mirroring (numa QEMU_NUMA_HOST) and pinning both map
 * vCPU i to the host CPU host->cpu[i * host->nr_cpus / vcpus]: spread over
 * the host's nodes in proportion, distinct CPUs while vcpus <= host CPUs;
 * a mirrored vCPU is in the guest node of that CPU's host node (guest
 * nodes numbered 0.. in host node order, only nodes that got a vCPU).
 * With numa N > 0: vCPU i is in node i * N / vcpus. Each node gets memory
 * in proportion to its vCPUs, in whole hugepages, the rest to node 0.
 */
struct qemu_layout {
	int vcpus;
	int nr_nodes;		       /* 0: no NUMA topology */
	int node_of[QEMU_MAX_CPUS];    /* guest node of vCPU i */
	int host_node[QEMU_MAX_NODES]; /* mirrored: host node of guest node k; else -1 */
	long mem_mb[QEMU_MAX_NODES];   /* memory of guest node k */
	int host_cpu[QEMU_MAX_CPUS];   /* host CPU vCPU i is pinned to; -1: not pinned */
};

struct qemu {
	/* --- inputs (borrowed) --- */
	const char *arch;   /* guest = worker arch: "x86_64" | "aarch64" */
	const char *kernel; /* bzImage / Image */
	const char *initrd; /* cpio archive */
	const char *append; /* extra kernel command-line words, or NULL */
	const char *accel;  /* "kvm" | "tcg" */
	int icount;	    /* 1: -icount shift=0,sleep=off (requires tcg) */
	int mem_mb;	    /* <= 0: 512 MiB */
	int cpus;	    /* vCPUs; <= 0: the host's CPUs under kvm, 2 under tcg; icount
			       forces 1 */
	int pin;	    /* 1: each vCPU thread pinned to its host CPU (qemu_layout) */
	int hugepages_kb;   /* 0: ordinary memory; 2048 or 1048576: guest RAM on a hugetlb
			       memfd of that page size, preallocated */
	int numa;	    /* 0: no -numa; N > 0: N guest nodes; QEMU_NUMA_HOST: the host's */
	const struct qemu_host *host; /* NULL: read from the running system when pin, numa
					 or the kvm vCPU default need it (its CPUs that this
					 process may run on) */
	int timeout_s;		      /* whole boot-to-exit limit; <= 0: 600 */
	int pin_timeout_ms;	      /* with pin: the wait for qemu's QMP socket; <= 0: 30 s */
	int log_fd;		      /* >= 0: the full serial log is also written here */
	volatile sig_atomic_t *cancel;

	/* --- outputs --- */
	struct buf log; /* last 16 MiB of the serial log (stdout+stderr) */
	int exited, exit_code, timed_out, cancelled;
	double elapsed_s;
	char cmdline[1024];	   /* the kernel command line used */
	struct qemu_layout layout; /* the guest's shape (qemu_run, qemu_argv) */
	int pinned;		   /* vCPU threads pinned (and read back) before the guest ran */
};

/* An argv vector for qemu: argv[0..argc) then NULL; every string owned. */
struct qemu_argv {
	char **argv;
	int argc, alloc;
};

void qemu_argv_release(struct qemu_argv *a);

/*
 * The qemu command line of q (its cmdline and layout filled too), without
 * running it; qmp_path (NULL: none) is the socket pinning talks to, added
 * as `-S -qmp unix:PATH,server=on,wait=off` when q->pin. What each mode
 * gives:
 *   tcg        x86: qemu's default CPU model; arm64: -cpu max
 *   icount     as tcg, -icount shift=0,sleep=off, one vCPU
 *   kvm        -cpu host on both arches (the host's PMU: perf's cycles and
 *              instructions in the guest)
 *   hugepages  -object memory-backend-memfd,hugetlb=on,hugetlbsize=...,
 *              prealloc=on per node (one without numa: -M ...,memory-backend)
 *   numa       -object memory-backend-ram per node (or the hugetlb one) and
 *              -numa node,nodeid=K,cpus=A-B,memdev=memK; the guest kernel
 *              sees the nodes through ACPI (SRAT) on x86, the device tree on
 *              arm64
 * Returns 0 with a filled, or -1 with e (a released): ERR_INVALID_JOB for an
 * unknown arch or accel (detail "arch", "accel"), icount without tcg
 * ("measure"), more vCPUs than QEMU_MAX_CPUS or the machine takes (pc 255,
 * virt 512: "params.vcpus"; the kvm default of a bigger host is capped
 * there instead), more nodes
 * than vCPUs or QEMU_MAX_NODES ("params.numa"), a hugepage size other than
 * 2048/1048576 kB or a node left without a whole page ("params.hugepages");
 * qemu_host_read()'s errors when the host had to be read.
 */
int qemu_argv(struct qemu *q, const char *qmp_path, struct qemu_argv *a, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The "guest" object of a run's result document: the machine the case ran
 * on, from q after qemu_run() (or qemu_argv()): {"arch", "nr_cpus" (vCPUs),
 * "memory_mb", "accel", "icount", "cpu_model" ("host" under kvm, "max" on
 * arm64 and "qemu64" on x86 under tcg), "pinned" (the host CPU of each vCPU
 * when they were pinned, else null), "hugepages" ("2M", "1G" or null),
 * "numa" (null, or per guest node {"node", "cpus": "0-3", "memory_mb",
 * "host_node": the mirrored host node or null})}. New reference.
 */
json_t *qemu_guest_json(const struct qemu *q);

/*
 * Pins the vCPU threads of the paused qemu listening on qmp_path to
 * l->host_cpu (query-cpus-fast gives their thread ids; sched_setaffinity,
 * then read back), then resumes the guest (`cont`). *stop (may be NULL)
 * ends the wait for the socket early (qemu exited). Returns the number of
 * vCPUs pinned, or -1 with e: qmp.h's errors, ERR_SPAWN when qemu has
 * another number of vCPUs than l or a thread cannot be moved (the errno
 * text; detail "params.pin"). On failure qemu is asked to quit.
 */
int qemu_pin_vcpus(const char *qmp_path, const struct qemu_layout *l, int timeout_ms,
		   const atomic_int *stop, struct err *e) __attribute__((warn_unused_result));

void qemu_init(struct qemu *q);
void qemu_release(struct qemu *q);

/*
 * Boots and waits for qemu to exit or the time limit. Returns 0 when qemu
 * ran (whatever the guest did: read q->log, q->timed_out), -1 with e
 * filled when it could not start (ERR_SPAWN: qemu-system-ARCH missing),
 * the inputs are wrong (qemu_argv()'s errors), or pinning was asked for
 * and failed (qemu_pin_vcpus()'s errors: the guest did not run pinned,
 * so its numbers are not the setup's). With q->pin, qemu starts paused
 * and a thread pins the vCPUs through a QMP socket in a fresh directory
 * under $TMPDIR (else /tmp), removed afterwards, before the guest runs;
 * when pinning fails, qemu is ended at once (killed when no QMP connection
 * came within q->pin_timeout_ms), never left paused until q->timeout_s.
 */
int qemu_run(struct qemu *q, struct err *e) __attribute__((warn_unused_result));

/*
 * Whether KVM can run guests of `arch` on this host: the host arch must be
 * the guest arch and /dev/kvm must open read-write; then a short boot of
 * `kernel` + `initrd` with `append` on the command line (which must print
 * `marker` on the serial console within timeout_s) under -accel kvm
 * decides, since /dev/kvm can exist and still be unusable (nested
 * virtualization without the features a guest needs). The answer is
 * remembered for the life of the process, per arch.
 * Returns 1 usable, 0 not; `why` (may be NULL) gets a short reason.
 */
int qemu_kvm_usable(const char *arch, const char *kernel, const char *initrd, const char *append,
		    const char *marker, int timeout_s, char *why, size_t why_len);

/* The command-line words added for x86 under icount (see qemu.c). */
extern const char QEMU_X86_ICOUNT_APPEND[];

#endif
