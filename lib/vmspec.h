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
 * accel      "kvm" | "tcg"                the host mode; absent: KVM where a probe
 *                                          boot works, else TCG; "kvm" on a host
 *                                          without a usable KVM fails the job
 * vcpus      1..1024 (or its text)        absent: the host's CPUs under KVM, the
 *                                          worker's qemu_cpus (2) under TCG
 * pin        true | false (or "true", 0, 1) each vCPU thread on its own host CPU
 * hugepages  "2M" | "1G" | "none"         guest RAM on hugetlb pages of that size
 * numa       "host" | 1..64               the host's nodes mirrored, or N nodes
 *
 * icount excludes accel "kvm" and vcpus above 1 (icount runs one vCPU);
 * numa N needs N <= vcpus when vcpus is given.
 */
struct vmspec {
	int icount;
	const char *accel; /* "kvm", "tcg", or NULL (the worker decides); static */
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

/* 1 when key is one of the params above */
int vmspec_is_param(const char *key);

/* The params above, NULL-terminated, in the table's order. */
extern const char *const vmspec_params[];

#endif
