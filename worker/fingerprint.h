#ifndef REGTRACK_WORKER_FINGERPRINT_H
#define REGTRACK_WORKER_FINGERPRINT_H

#include <jansson.h>

#include "err.h"

/*
 * What a test machine looks like, sent with `POST /api/v1/workers/register`
 * so that a changed host (new kernel, microcode, governor, SMT switched
 * off, mitigations changed) can explain a moved metric. Everything is read
 * from procfs and sysfs under `root` ("" or "/" for the running system; a
 * directory laid out like / in tests):
 *
 * field            source
 * hostname         proc/sys/kernel/hostname
 * kernel_release   proc/sys/kernel/osrelease        (uname -r)
 * kernel_version   proc/sys/kernel/version          (uname -v)
 * cmdline          proc/cmdline
 * cpu_model        proc/cpuinfo "model name"; on arm64 the MIDR fields
 *                  "CPU implementer"/"CPU part" named by a table of
 *                  known cores (util-linux lscpu-arm naming), else
 *                  "implementer 0x.. part 0x.."
 * microcode        proc/cpuinfo "microcode" (x86 only)
 * nr_cpus          sys/devices/system/cpu/online, a CPU list such as
 *                  "0-3,8"; else the "processor" lines of proc/cpuinfo
 * memory_mb        proc/meminfo MemTotal (kB) / 1024
 * cpufreq_governor sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
 * cpufreq_driver   sys/devices/system/cpu/cpu0/cpufreq/scaling_driver
 * smt_control      sys/devices/system/cpu/smt/control ("on", "off",
 *                  "notsupported", …)
 * smt_active       sys/devices/system/cpu/smt/active ("0"/"1")
 * vulnerabilities  sys/devices/system/cpu/vulnerabilities/NAME -> text
 * numa_nodes       sys/devices/system/node/nodeN/cpulist of every node with
 *                  CPUs, by node id: "0:0-3 1:4-7" (what a mirrored guest
 *                  topology copies; NULL without the node directory)
 *
 * `arch` is uname(2)'s machine (never read under root).
 * A string is NULL when its source is absent; nr_cpus and memory_mb are 0
 * then. All strings are new and owned by the struct; trailing newlines
 * are stripped.
 */
struct fingerprint {
	char *hostname;
	char *arch;
	char *kernel_release;
	char *kernel_version;
	char *cmdline;
	char *cpu_model;
	char *microcode;
	char *cpufreq_governor;
	char *cpufreq_driver;
	char *smt_control;
	char *smt_active;
	char *numa_nodes;
	long nr_cpus;
	long memory_mb;
	json_t *vulnerabilities; /* object NAME -> string, owned (one reference) */
};

/*
 * Reads the fingerprint of the system under `root` into fp. Fails only
 * when nothing identifies the kernel: error ERR_IO when proc/sys/kernel/
 * osrelease cannot be read (e->detail the path). Release fp with
 * fingerprint_release() in both cases.
 */
int fingerprint_collect(struct fingerprint *fp, const char *root, struct err *e)
	__attribute__((warn_unused_result));
void fingerprint_release(struct fingerprint *fp);

/*
 * The "fingerprint" object of the register request: every field above
 * under its name, absent sources as JSON null. New reference, caller
 * json_decref()s it.
 */
json_t *fingerprint_json(const struct fingerprint *fp);

/*
 * Sets every run's "host_fingerprint" (lib/resultdoc.h): what of the host
 * can move a metric, so that a comparison across a change of it is
 * flagged and a step at one is an environment change (lib/hostfp.h).
 * From fp: cpu_model, microcode, cpufreq_governor, kernel_release,
 * cmdline, numa_nodes (null when unknown); and "accel", the run's own
 * "accel" (kvm, tcg, host or kexec: what the run used, which a job that
 * names no accel leaves to the KVM probe of each job; null when the run
 * has none). A value that is not UTF-8 leaves its field out. runs is an
 * array of run objects (worker/execute.h), changed in place; each run gets
 * its own object. fp borrowed.
 */
void fingerprint_stamp_runs(const struct fingerprint *fp, json_t *runs);

/*
 * Number of CPUs in a kernel CPU list ("0-3,8,10-11" -> 7), -1 when the
 * text is not a CPU list.
 */
long fingerprint_count_cpulist(const char *list);

#endif
