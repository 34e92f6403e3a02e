/*
 * bench/bisect_sim: the bisect planner against the noise model of the
 * issue (N commits, commits at and after a hidden index slower by d
 * standard deviations, k parallel probes), many seeded trials. Prints per
 * configuration: accuracy, rounds (max and mean, and the share of trials
 * within ceil(log_{k+1} N) + 1 rounds) beside ceil(log_{k+1} N), mean runs
 * used beside the information bound log2(N) / C(d), and where the runs go:
 * the two references, first probes of commits, and commits probed again
 * (re-probes of undecided commits and the verification round).
 *
 * The rows marked "5/probe" run the same configuration with new probes of
 * runs_per_step (5) runs whatever the separation (probe_z = 0) instead of
 * runs sized to be decisive alone (probe_z = 3: 9 runs at d = 2): fewer
 * runs, more rounds, since an undecided probe costs a round to re-probe.
 *
 * Then the robustness table: right / wrong / no answer (ambiguous
 * or failed) at d = 2 and d = 1, k = 4, N = 1000, with 0 %, 2 % and 5 % of
 * runs outliers (value x 0.7 or x 1.3), ROBUST_TRIALS seeded trials each.
 * Targets: right >= 99 % at d = 2 and >= 97 % with 5 % outliers, wrong
 * <= 0.5 % everywhere.
 *
 *   bisect_sim [TRIALS [ROBUST_TRIALS]]   (default 200 and 1000)
 */
#include "bisect/sim.h"

#include <stdio.h>
#include <stdlib.h>

static void robust_table(int trials)
{
	static const double ds[] = { 2, 1 }, rates[] = { 0, 0.02, 0.05 };

	if (trials < 1)
		trials = 1;
	printf("\n== bisect with outlier runs (x0.7 / x1.3), N 1000, k 4, %d trials each\n",
	       trials);
	printf("%5s %8s %8s %8s %8s %8s %8s\n", "d", "outliers", "right", "wrong", "no-answer",
	       "runs", "rounds");
	for (size_t di = 0; di < sizeof(ds) / sizeof(ds[0]); di++)
		for (size_t ri = 0; ri < sizeof(rates) / sizeof(rates[0]); ri++) {
			struct bisect_opts o;
			long right = 0, wrong = 0, none = 0, runs = 0, rounds = 0;

			bisect_opts_init(&o);
			o.k = 4;
			for (int t = 0; t < trials; t++) {
				struct bisect_sim s = { 1000,	0,    100.0,	       2.0,
							ds[di], NULL, (uint64_t)t + 1, rates[ri],
							0.7,	1.3 };
				struct bisect_sim_result r;

				s.culprit = (long)((s.seed * 2654435761u) % 1000u);
				bisect_sim_run(&s, &o, &r);
				if (r.action == BISECT_DONE && r.first_bad == s.culprit)
					right++;
				else if (r.action == BISECT_DONE)
					wrong++;
				else
					none++;
				runs += r.runs;
				rounds += r.rounds;
			}
			printf("%5.1f %7.0f%% %7.1f%% %7.1f%% %8.1f%% %8.1f %8.2f\n", ds[di],
			       100 * rates[ri], 100.0 * right / trials, 100.0 * wrong / trials,
			       100.0 * none / trials, (double)runs / trials,
			       (double)rounds / trials);
		}
	printf("targets: right >= 99 %% at d = 2, >= 97 %% with 5 %% outliers; wrong <= 0.5 %%\n");
}

/*
 * icount-like bisects (sd 0.05 %, a 5 % step) before
 * (10 + 10 verification runs whatever the spread) and after (3 + 3 with the
 * A/A spread of the references: plan.h, Deterministic measurement).
 */
static void det_table(int trials)
{
	static const struct {
		long n;
		int k;
	} cfg[] = { { 30, 1 }, { 1000, 4 } };

	printf("\n== icount-like bisects (sd 0.05 %%, d 100), %d trials: runs per bisect\n",
	       trials);
	printf("%6s %2s %8s %8s %8s %8s\n", "N", "k", "before", "after", "right-b", "right-a");
	for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		long runs[2] = { 0, 0 }, right[2] = { 0, 0 };

		for (int v = 0; v < 2; v++) {
			struct bisect_opts o;

			bisect_opts_init(&o);
			o.k = cfg[c].k;
			o.expect_deterministic = 1;
			if (!v)
				o.verify_runs_deterministic = o.verify_runs;
			for (int t = 0; t < trials; t++) {
				struct bisect_sim s = { (size_t)cfg[c].n, 0, 100.0, 0.05, 100, NULL,
							(uint64_t)t + 1,  0, 0,	    0 };
				struct bisect_sim_result r;

				s.culprit = (long)((s.seed * 2654435761u) % (uint64_t)cfg[c].n);
				bisect_sim_run(&s, &o, &r);
				right[v] += r.action == BISECT_DONE && r.first_bad == s.culprit;
				runs[v] += r.runs;
			}
		}
		printf("%6ld %2d %8.1f %8.1f %7.1f%% %7.1f%%\n", cfg[c].n, cfg[c].k,
		       (double)runs[0] / trials, (double)runs[1] / trials,
		       100.0 * right[0] / trials, 100.0 * right[1] / trials);
	}
}

int main(int argc, char **argv)
{
	/* sd is % of the mean: d = 2 at sd 2 % is a 4 % change; sd 0.05 % is icount-like */
	static const struct {
		long n;
		double d, sd;
		int k, det;
		double probe_z;
	} cfg[] = {
		{ 1000, 2, 2, 4, 0, -1 }, { 1000, 2, 2, 4, 0, 0 },
		{ 1000, 2, 2, 1, 0, -1 }, { 1000, 2, 2, 1, 0, 0 },
		{ 1000, 2, 2, 8, 0, -1 }, { 1000, 1, 2, 4, 0, -1 },
		{ 1000, 4, 2, 4, 0, -1 }, { 1000, 100, 0.05, 4, 1, -1 },
		{ 30, 2, 2, 2, 0, -1 },	  { 30, 100, 0.05, 1, 1, -1 },
	};
	int trials = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 200;
	int rtrials = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 1000;

	if (trials < 1)
		trials = 1;
	printf("%6s %5s %2s %-7s %7s %5s %5s %5s %6s %6s %5s %7s %6s | %6s %6s %6s\n", "N", "d",
	       "k", "probes", "right", "bound", "max-r", "mean-r", "within", "search", "jobs",
	       "runs", "info", "refs", "first", "again");
	for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		struct bisect_opts o;
		long right = 0, runs = 0, jobs = 0, rounds = 0, within = 0, rref = 0, rprobe = 0,
		     rver = 0;
		int maxr = 0, maxs = 0, bound = bisect_rounds_bound(cfg[c].n, cfg[c].k);

		bisect_opts_init(&o);
		o.k = cfg[c].k;
		o.expect_deterministic = cfg[c].det;
		if (cfg[c].probe_z >= 0)
			o.probe_z = cfg[c].probe_z;
		for (int t = 0; t < trials; t++) {
			struct bisect_sim s = {
				(size_t)cfg[c].n, 0, 100.0, cfg[c].sd, cfg[c].d, NULL,
				(uint64_t)t + 1,  0, 0,	    0
			};
			struct bisect_sim_result r;
			s.culprit = (long)((s.seed * 2654435761u) % (uint64_t)cfg[c].n);
			bisect_sim_run(&s, &o, &r);
			right += r.action == BISECT_DONE && r.first_bad == s.culprit;
			runs += r.runs;
			rref += r.runs_ref;
			rprobe += r.runs_probe;
			rver += r.runs_verify;
			jobs += r.jobs;
			rounds += r.rounds;
			within += r.rounds <= bound + 1;
			if (r.rounds > maxr)
				maxr = r.rounds;
			if (r.search_rounds > maxs)
				maxs = r.search_rounds;
		}
		printf("%6ld %5.1f %2d %-7s %6.1f%% %5d %5d %6.2f %5.1f%% %6d %5.1f %7.1f %6.1f | "
		       "%6.1f %6.1f %6.1f\n",
		       cfg[c].n, cfg[c].d, cfg[c].k,
		       cfg[c].det	   ? "det" :
		       cfg[c].probe_z >= 0 ? "5/probe" :
					     "decisive",
		       100.0 * right / trials, bound, maxr, (double)rounds / trials,
		       100.0 * within / trials, maxs, (double)jobs / trials, (double)runs / trials,
		       bisect_info_bound((double)cfg[c].n, cfg[c].d), (double)rref / trials,
		       (double)rprobe / trials, (double)rver / trials);
	}
	printf("runs = refs (good and bad endpoints, >= 10 each) + first probes of commits + "
	       "commits probed again (undecided, and the verification of >= 10 runs each);\n"
	       "info = log2(N) / C(d), the runs of an ideal sequential bisect without references.\n");
	robust_table(rtrials);
	det_table(trials);
	return 0;
}
