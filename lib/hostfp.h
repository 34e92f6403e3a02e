#ifndef REGTRACK_HOSTFP_H
#define REGTRACK_HOSTFP_H

#include <jansson.h>

/*
 * Host fingerprints of two sides of a comparison (issue 23): each side is
 * the array of distinct "host_fingerprint" objects of its runs (resultdoc.h:
 * cpu_model, microcode, cpufreq_governor, kernel_release, cmdline of the
 * host that ran it; values strings or null). A field differs when the set
 * of its values over one side's fingerprints is not the set over the
 * other's (a side that ran on two microcode levels differs from a side
 * that ran on one of them: its runs are a mixture).
 *
 * Returns a new JSON array of the names of the differing fields, sorted;
 * empty when they agree or when a side has no fingerprint (older runs:
 * nothing to say). base and head are borrowed; NULL or a non-array is
 * taken as "no fingerprint".
 */
json_t *hostfp_diff(const json_t *base, const json_t *head);

#endif
