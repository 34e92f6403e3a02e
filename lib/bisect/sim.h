#ifndef REGTRACK_BISECT_SIM_H
#define REGTRACK_BISECT_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "bisect/plan.h"

/*
 * A simulated bisect for tests and `make bench`: the planner of plan.h
 * driven against a noise model instead of kernels. Candidates 0..n-1
 * (n-1 the bad endpoint); every run of a commit before `culprit` draws
 * N(mean, sd), at or after it N(mean + d * sd, sd) ("slower by d
 * standard deviations"); commits with skip[j] = 1 fail to build when
 * probed. With outlier_rate > 0 each run is, with that probability, an
 * outlier: its value multiplied by outlier_lo or outlier_hi (one or the
 * other with probability 1/2; for example 0.7 and 1.3), as a run
 * disturbed by a failed or noisy machine. Runs are drawn from a seeded
 * splitmix64 generator with Box-Muller normals, so a seed gives the same
 * trial everywhere. Pure: no I/O, no clock.
 */
struct bisect_sim {
	size_t n;
	long culprit; /* hidden first bad index */
	double mean, sd, d;
	const unsigned char *skip; /* n flags or NULL; borrowed */
	uint64_t seed;
	double outlier_rate;	       /* share of runs that are outliers, 0..1 (0: none) */
	double outlier_lo, outlier_hi; /* their factors, e.g. 0.7 and 1.3 */
};

struct bisect_sim_result {
	enum bisect_action action;
	long first_bad; /* DONE: the answer, else -1 */
	long lo, hi;	/* AMBIGUOUS: the candidates left */
	double confidence;
	int rounds;	   /* rounds run (each a batch of jobs) */
	int search_rounds; /* rounds that probed at least one new split point */
	long runs;	   /* runs used, references included */
	long runs_ref;	   /* ... of them on the good and bad endpoints */
	long runs_probe;   /* ... on commits probed for the first time */
	long runs_verify;  /* ... on commits probed again: re-probes and verification */
	long jobs;	   /* probes issued (one job each) */
	long skips;	   /* probes that hit a commit failing to build */
	char reason[256];
};

/* Runs one trial to its end. opts is copied. */
void bisect_sim_run(const struct bisect_sim *s, const struct bisect_opts *opts,
		    struct bisect_sim_result *r);

/* ceil(log_{k+1} n) computed exactly on integers (0 for n <= 1). */
int bisect_rounds_bound(long n, int k);

#endif
