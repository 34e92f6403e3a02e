/*
 * bench/bisect_sim: the bisect planner against the noise model of the
 * issue (N commits, commits at and after a hidden index slower by d
 * standard deviations, k parallel probes), many seeded trials. Prints per
 * configuration: accuracy, rounds (max and mean) beside ceil(log_{k+1} N),
 * mean runs used beside the information bound log2(N) / C(d).
 *
 *   bisect_sim [TRIALS]   (default 200)
 */
#include "bisect/sim.h"

#include <stdio.h>
#include <stdlib.h>

#include "banned.h"

int main(int argc, char **argv)
{
	/* sd is % of the mean: d = 2 at sd 2 % is a 4 % change; sd 0.05 % is icount-like */
	static const struct { long n; double d, sd; int k, det; } cfg[] = {
		{ 1000, 2, 2, 4, 0 }, { 1000, 2, 2, 1, 0 }, { 1000, 2, 2, 8, 0 }, { 1000, 1, 2, 4, 0 },
		{ 1000, 4, 2, 4, 0 }, { 1000, 100, 0.05, 4, 1 }, { 30, 2, 2, 2, 0 },
		{ 30, 100, 0.05, 1, 1 },
	};
	int trials = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 200;

	if (trials < 1)
		trials = 1;
	printf("%6s %5s %2s %7s %8s %10s %9s %9s %8s %10s %8s\n", "N", "d", "k", "right", "bound",
	       "max-rounds", "mean-rnds", "search", "jobs", "mean-runs", "info");
	for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		struct bisect_opts o;
		long right = 0, runs = 0, jobs = 0, rounds = 0;
		int maxr = 0, maxs = 0;

		bisect_opts_init(&o);
		o.k = cfg[c].k;
		o.expect_deterministic = cfg[c].det;
		for (int t = 0; t < trials; t++) {
			struct bisect_sim s = { (size_t)cfg[c].n, 0, 100.0, cfg[c].sd, cfg[c].d, NULL,
						(uint64_t)t + 1 };
			struct bisect_sim_result r;
			s.culprit = (long)((s.seed * 2654435761u) % (uint64_t)cfg[c].n);
			bisect_sim_run(&s, &o, &r);
			right += r.action == BISECT_DONE && r.first_bad == s.culprit;
			runs += r.runs;
			jobs += r.jobs;
			rounds += r.rounds;
			if (r.rounds > maxr)
				maxr = r.rounds;
			if (r.search_rounds > maxs)
				maxs = r.search_rounds;
		}
		printf("%6ld %5.1f %2d %6.1f%% %8d %10d %9.2f %9d %8.1f %10.1f %8.1f\n", cfg[c].n,
		       cfg[c].d, cfg[c].k, 100.0 * right / trials, bisect_rounds_bound(cfg[c].n, cfg[c].k),
		       maxr, (double)rounds / trials, maxs, (double)jobs / trials, (double)runs / trials,
		       bisect_info_bound((double)cfg[c].n, cfg[c].d));
	}
	return 0;
}
