#ifndef REGTRACK_QEMU_H
#define REGTRACK_QEMU_H

#include <signal.h>

#include "buf.h"
#include "err.h"

/*
 * Booting a kernel + initramfs in qemu and reading the serial log.
 *
 * x86_64: qemu-system-x86_64 -M pc -smp N,sockets=N,cores=1 (a kernel
 *         without ACPI finds the extra CPUs through the MP table only as
 *         sockets), console=ttyS0.
 * aarch64: qemu-system-aarch64 -M virt -cpu max (-cpu host under KVM),
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
struct qemu {
	/* --- inputs (borrowed) --- */
	const char *arch;   /* guest = worker arch: "x86_64" | "aarch64" */
	const char *kernel; /* bzImage / Image */
	const char *initrd; /* cpio archive */
	const char *append; /* extra kernel command-line words, or NULL */
	const char *accel;  /* "kvm" | "tcg" */
	int icount;	    /* 1: -icount shift=0,sleep=off (requires tcg) */
	int mem_mb, cpus;   /* <= 0: 512 MiB, 2 CPUs; icount forces 1 CPU */
	int timeout_s;	    /* whole boot-to-exit limit; <= 0: 600 */
	int log_fd;	    /* >= 0: the full serial log is also written here */
	volatile sig_atomic_t *cancel;

	/* --- outputs --- */
	struct buf log; /* last 16 MiB of the serial log (stdout+stderr) */
	int exited, exit_code, timed_out, cancelled;
	double elapsed_s;
	char cmdline[1024]; /* the kernel command line used */
};

void qemu_init(struct qemu *q);
void qemu_release(struct qemu *q);

/*
 * Boots and waits for qemu to exit or the time limit. Returns 0 when qemu
 * ran (whatever the guest did: read q->log, q->timed_out), -1 with e
 * filled when it could not start (ERR_SPAWN: qemu-system-ARCH missing)
 * or the inputs are wrong (ERR_INVALID_JOB: unknown arch, icount with kvm).
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
