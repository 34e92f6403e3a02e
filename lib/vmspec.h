#ifndef REGTRACK_VMSPEC_H
#define REGTRACK_VMSPEC_H

#include <jansson.h>

#include "err.h"

/*
 * The params of a job that the worker reads itself, for every case, to
 * shape the machine the case runs in. None is passed to the
 * case; all are part of params, so a setup that names one is another
 * series than one that does not (two topologies are two series).
 *
 * param      values                       meaning
 * measure    "wallclock" | "icount"       icount: TCG, -icount, one vCPU
 * accel      "kvm" | "tcg" | "kexec"      the host mode; absent: KVM where a probe
 *                                          boot works, else TCG; "kvm" on a host
 *                                          without a usable KVM fails the job;
 *                                          "kexec": no guest, the job's kernel
 *                                          booted on a bare-metal host with kexec
 *                                          (worker/kexec.h; capability kexec-ARCH,
 *                                          vmspec_capability)
 * vcpus      1..1024 (or its text)        absent: the host's CPUs under KVM, the
 *                                          worker's qemu_cpus (2) under TCG; at
 *                                          most vmspec_max_vcpus() of the arch
 * pin        true | false (or "true", 0, 1) each vCPU thread on its own host CPU
 * hugepages  "2M" | "1G" | "none"         guest RAM on hugetlb pages of that size
 * numa       "host" | 1..64               the host's nodes mirrored, or N nodes
 *
 * icount excludes accel "kvm" and vcpus above 1 (icount runs one vCPU);
 * numa N needs N <= vcpus when vcpus is given (N <= 1 under icount). accel "kexec" takes none of
 * measure, vcpus, pin, hugepages, numa (a machine is what it is).
 */
struct vmspec {
	int icount;
	const char *accel; /* "kvm", "tcg", "kexec", or NULL (the worker decides); static */
	int vcpus;	   /* 0: the default */
	int pin;
	int hugepages_kb; /* 0, 2048, 1048576 */
	int numa;	  /* 0: none; -1: the host's; N > 0 */
};

/*
 * Reads the vmspec params of params (an object, borrowed; NULL: all
 * defaults) into v; other keys are ignored. Returns 0, or -1 with e:
 * ERR_INVALID_FIELD, detail "params.KEY" prefixed with prefix ("" for a
 * job, "testcases[2]." in a plan or request), message naming the values
 * accepted ("'vcpus' is a whole number 1..1024").
 */
int vmspec_parse(const json_t *params, const char *prefix, struct vmspec *v, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Rewrites the vmspec params of params (an object, modified in place;
 * NULL or not an object: nothing to do, 0) into their one spelling, so
 * that one shape is one setup wherever it was written: a command line's
 * k=v gives "pin": "true" and "vcpus": "4", the API "pin": true, a plan
 * "pin": 1, and a setup's identity is its params as text (params_key).
 * The form: pin true; vcpus and a numa node count JSON integers; numa
 * "host", measure "icount", accel and hugepages "2M" | "1G" the strings
 * vmspec_parse() accepts (already in their one form). A value that means
 * what the key's absence means wherever params are read (pin false in any
 * spelling, hugepages "none", measure "wallclock") is removed, so
 * {"vcpus": 4, "pin": false} and {"vcpus": 4} are one setup. accel, vcpus
 * and numa are kept whatever their value: an absent accel or vcpus is the
 * worker's choice (the KVM probe; its CPUs or qemu_cpus), which any value
 * written fixes; accel "tcg" and vcpus 1 equal absence only under icount,
 * which a plan adds to its testcases' params after they are written in
 * this form; numa 1 declares one node where absence declares none.
 * Checks exactly as vmspec_parse() (same prefix, same errors: -1 with e, ERR_INVALID_FIELD,
 * detail "PREFIXparams.KEY") and then rewrites nothing: params is changed
 * only when the whole shape is valid. Returns 0 or -1.
 *
 * Only the params in the table above: every other param is the case's
 * own (its worker's table says what "4" and 4 mean to it), kept as given.
 * Applied where params enter: results (before their params_key and their
 * idempotency hash), jobs, plans, A/B requests, bisects and the read
 * endpoints' params= filter. Setups stored before this kept the spelling
 * they were stored with (an explicit default included); the filter
 * matches them by the params as given (server/api/args.h).
 */
int vmspec_canonical(json_t *params, const char *prefix, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Host mode (kconfig "host": the case on the running kernel, no guest)
 * takes none of accel, vcpus, pin, hugepages, numa, except pin false and
 * hugepages "none" in any spelling vmspec_parse() takes (they ask for what
 * their absence asks for, and vmspec_canonical() drops them). params: an
 * object, borrowed (NULL or not an object: 0). Returns 0 when it names none, else
 * -1 with e: ERR_INVALID_FIELD, detail "PREFIXparams.KEY" of the first in
 * the table's order, "'pin' shapes a qemu guest; kconfig \"host\" runs on
 * the host". measure is not checked here (wallclock is a host run's own;
 * a caller refuses icount where it can tell).
 */
int vmspec_host_check(const json_t *params, const char *prefix, struct err *e)
	__attribute__((warn_unused_result));

/*
 * A host job's params (POST /jobs, POST /bisects with kconfig "host"):
 * vmspec_host_check(), and measure "icount" (it counts a qemu guest's
 * instructions: every worker would fail the job) is -1 with e,
 * ERR_INVALID_FIELD, detail "PREFIXparams.measure". params borrowed;
 * returns 0 or -1.
 */
int vmspec_host_job_check(const json_t *params, const char *prefix, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The capability a worker needs for a kernel job of arch ("x86_64",
 * "aarch64") in the shape v: "kexec-ARCH" for accel "kexec", else
 * "qemu-ARCH". Written into buf (n bytes); returns buf.
 */
const char *vmspec_capability(const struct vmspec *v, const char *arch, char *buf, size_t n);

/*
 * The capability a worker needs for a job of kconfig on arch with params
 * (JSON object text; NULL or "": none), the one mapping every path that
 * queues a job uses (POST /jobs, A/B requests, plans, bisect probes), so
 * that a shape names the same machine wherever its job comes from:
 * "host" for kconfig "host"; else vmspec_capability() of the params'
 * shape, arch NULL taken as "x86_64". Params that do not parse, or whose
 * shape vmspec_parse() refuses, give "qemu-ARCH": the caller's own check
 * of them answers the 400. Written into buf (n bytes); returns buf.
 */
const char *vmspec_job_capability(const char *kconfig, const char *arch, const char *params,
				  char *buf, size_t n);

/*
 * The most vCPUs qemu's machine for arch takes (qemu 7.2): "x86_64" 255
 * (machine "pc": APIC ids stay below the broadcast one, 255), "aarch64" 512
 * ("virt" with GICv3, which the worker picks past 8 vCPUs). Any other arch,
 * or NULL: 1024, the most vmspec_parse() accepts. *machine (when machine is
 * not NULL) gets the machine's name, "pc" or "virt" (NULL for another arch),
 * a static string. The one table the worker's argv (worker/qemu.c) and the
 * server's checks at submit (vmspec_arch_check()) read.
 */
int vmspec_max_vcpus(const char *arch, const char **machine);

/*
 * The shape of params (an object, borrowed; NULL: none) on arch ("x86_64",
 * "aarch64"; NULL or another: only vmspec_parse()'s checks) checked as
 * vmspec_parse() does, then its vcpus against vmspec_max_vcpus(arch), so
 * that a job no machine of its arch can boot is a 400 where it is submitted
 * rather than a run-failed. Returns 0, or -1 with e: vmspec_parse()'s
 * errors, or ERR_INVALID_FIELD, detail "PREFIXparams.vcpus", message "'vcpus'
 * is at most 255 on x86_64 (qemu's pc machine takes no more), not 256".
 */
int vmspec_arch_check(const json_t *params, const char *arch, const char *prefix, struct err *e)
	__attribute__((warn_unused_result));

/* 1 when key is one of the params above */
int vmspec_is_param(const char *key);

/* The params above, NULL-terminated, in the table's order. */
extern const char *const vmspec_params[];

#endif
