#ifndef REGTRACK_HOSTFP_H
#define REGTRACK_HOSTFP_H

#include <jansson.h>

/*
 * Host fingerprints of two sides of a comparison: each side is
 * the array of distinct "host_fingerprint" objects of its runs (resultdoc.h:
 * cpu_model, microcode, cpufreq_governor, kernel_release, cmdline,
 * numa_nodes of the host that ran it, and accel, the accelerator the run
 * used: kvm, tcg, host or kexec; values strings or null). A field differs
 * when the set of its values over one side's fingerprints is not the set
 * over the other's (a side that ran on two microcode levels differs from
 * a side that ran on one of them: its runs are a mixture; a box whose KVM
 * stopped working runs under TCG from then on: accel differs). A field is
 * compared only when every fingerprint of both sides has it (null
 * included): one that a newer worker added (numa_nodes, accel) says
 * nothing of the runs before it, so a worker's upgrade is no change of
 * host.
 *
 * Returns a new JSON array of the names of the differing fields, sorted;
 * empty when they agree or when a side has no fingerprint (older runs:
 * nothing to say). base and head are borrowed; NULL or a non-array is
 * taken as "no fingerprint".
 */
json_t *hostfp_diff(const json_t *base, const json_t *head);

/*
 * The mails' note for two sides whose fingerprints differ (hostfp_diff()
 * not empty): "base and head ran on hosts that differ in microcode (0xf0
 * vs 0xf4), host kernel (6.1.0 vs 6.5.0)", the fields in hostfp_diff()'s
 * order under the names people read (cpu_model "CPU model",
 * cpufreq_governor "governor", kernel_release "host kernel", cmdline "host
 * cmdline", numa_nodes "host NUMA nodes", accel "accelerator", as in
 * "accelerator (kvm vs tcg)"; others as they are), each side's distinct
 * values sorted and joined by "/" (null: "unknown"),
 * control characters as spaces, a value cut at HOSTFP_NOTE_VALUE_MAX bytes
 * with "...". Returns a new string (one line, caller frees), or NULL when
 * nothing differs. base, head borrowed.
 */
char *hostfp_note(const json_t *base, const json_t *head);

#define HOSTFP_NOTE_VALUE_MAX 120

#endif
