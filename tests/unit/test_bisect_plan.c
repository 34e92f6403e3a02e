/*
 * The bisect planner without kernels: the issue's simulation (N = 1000,
 * commits at and after a hidden index slower by d = 2 standard deviations,
 * k = 4, 200 seeded trials), skips stepped around, an all-skipped range
 * ending with the honest answer, icount-like deterministic values, split
 * points of the first round, failures, and the information bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/plan.h"
#include "attr.h"
#include "bisect/sim.h"

static long culprit_of(uint64_t seed, long n)
{
	return (long)((seed * 2654435761u) % (uint64_t)n);
}

/* N = 1000, d = 2, k = 4: right >= 99 %, search rounds <= ceil(log5 1000) + 1 */
static void test_sim_issue_target(void **state UNUSED)
{
	const int trials = 200;
	const int bound = bisect_rounds_bound(1000, 4) + 1;
	struct bisect_opts o;
	int right = 0, within = 0, max_search = 0;
	long runs = 0;

	assert_int_equal(bisect_rounds_bound(1000, 4), 5);
	bisect_opts_init(&o);
	o.k = 4;
	for (int t = 1; t <= trials; t++) {
		struct bisect_sim s = { 1000,	     culprit_of((uint64_t)t, 1000),
					100.0,	     2.0,
					2.0,	     NULL,
					(uint64_t)t, 0,
					0,	     0 };
		struct bisect_sim_result r;

		bisect_sim_run(&s, &o, &r);
		right += r.action == BISECT_DONE && r.first_bad == s.culprit;
		within += r.rounds <= bound;
		if (r.search_rounds > max_search)
			max_search = r.search_rounds;
		runs += r.runs;
		/* every run is counted once, by where it went; both references got >= 10 */
		assert_int_equal(r.runs, r.runs_ref + r.runs_probe + r.runs_verify);
		assert_true(r.runs_ref >= 20);
		if (r.action == BISECT_DONE)
			assert_true(r.confidence >= 0.995);
	}
	print_message("sim N=1000 d=2 k=4: %d/%d right, max search rounds %d (bound %d), "
		      "%d/%d within %d rounds in all, mean runs %.1f (information bound %.1f)\n",
		      right, trials, max_search, bound, within, trials, bound,
		      (double)runs / trials, bisect_info_bound(1000, 2));
	assert_true(right * 100 >= 99 * trials);
	assert_true(max_search <= bound);
	assert_true(within * 100 >= 99 * trials);
}

/*
 * The issue's other sizing, 5 runs a new probe whatever the separation
 * (probe_z = 0) and doubling when undecided: as right, with fewer runs than
 * probes sized to be decisive alone (probe_z = 3, 9 runs at d = 2), over the
 * same seeds. (It takes more rounds: bench/bisect_sim prints both.)
 */
static void test_sim_five_runs_per_probe(void **state UNUSED)
{
	struct bisect_opts o, o5;
	int right = 0;
	long runs = 0, runs5 = 0;

	bisect_opts_init(&o);
	o.k = 4;
	o5 = o;
	o5.probe_z = 0;
	for (int t = 1; t <= 100; t++) {
		struct bisect_sim s = { 1000,	     culprit_of((uint64_t)t, 1000),
					100.0,	     2.0,
					2.0,	     NULL,
					(uint64_t)t, 0,
					0,	     0 };
		struct bisect_sim_result r, r5;

		bisect_sim_run(&s, &o, &r);
		bisect_sim_run(&s, &o5, &r5);
		right += r5.action == BISECT_DONE && r5.first_bad == s.culprit;
		runs += r.runs;
		runs5 += r5.runs;
	}
	print_message("sim N=1000 d=2 k=4, 5 runs a probe: %d/100 right, mean runs %.1f "
		      "(decisive probes: %.1f)\n",
		      right, runs5 / 100.0, runs / 100.0);
	assert_true(right >= 99);
	assert_true(runs5 * 10 < runs * 9);
}

/* one commit in ten fails to build (never the culprit or its parent): stepped around */
static void test_sim_skips_stepped_around(void **state UNUSED)
{
	unsigned char skip[300];
	struct bisect_opts o;
	int right = 0, skipped = 0;

	bisect_opts_init(&o);
	o.k = 3;
	for (int t = 1; t <= 50; t++) {
		struct bisect_sim s = {
			300, culprit_of((uint64_t)t, 300), 100.0, 2.0, 3.0, skip, (uint64_t)t, 0, 0,
			0
		};
		struct bisect_sim_result r;

		for (int j = 0; j < 300; j++)
			skip[j] = (j * 7 + t) % 10 == 0 && j != s.culprit && j != s.culprit - 1 &&
				  j != 299;
		bisect_sim_run(&s, &o, &r);
		right += r.action == BISECT_DONE && r.first_bad == s.culprit;
		skipped += r.skips > 0;
	}
	assert_int_equal(right, 50);
	assert_true(skipped >= 25); /* the probes did land on failing commits and moved on */
}

/* the culprit and the commits around it fail: the honest answer is the range */
static void test_sim_only_skipped_candidates(void **state UNUSED)
{
	unsigned char skip[40] = { 0 };
	struct bisect_opts o;
	struct bisect_sim s = { 40, 20, 100.0, 1.0, 4.0, skip, 7, 0, 0, 0 };
	struct bisect_sim_result r;

	skip[18] = skip[19] = skip[20] = 1;
	bisect_opts_init(&o);
	o.k = 2;
	bisect_sim_run(&s, &o, &r);
	assert_int_equal(r.action, BISECT_AMBIGUOUS);
	/* 17 good, 18..20 fail to build, 21 bad: the first bad is one of 18..21 */
	assert_int_equal(r.lo, 18);
	assert_int_equal(r.hi, 21);
	assert_true(strstr(r.reason, "failed to build") != NULL);
	assert_int_equal(r.first_bad, -1);
}

/* icount-like values (0.05 % noise, a 5 % change): few references and runs */
static void test_sim_deterministic(void **state UNUSED)
{
	struct bisect_opts o;
	int right = 0, maxrounds = 0;
	long maxruns = 0;

	bisect_opts_init(&o);
	o.k = 1;
	o.expect_deterministic = 1;
	for (int t = 1; t <= 20; t++) {
		struct bisect_sim s = { 30,	     culprit_of((uint64_t)t, 30),
					1000.0,	     0.5,
					100.0,	     NULL,
					(uint64_t)t, 0,
					0,	     0 };
		struct bisect_sim_result r;

		bisect_sim_run(&s, &o, &r);
		right += r.action == BISECT_DONE && r.first_bad == s.culprit;
		/* 3 + 3 references, 2 runs a probe, then 10 + 10 to verify: well under noisy costs */
		if (r.runs > maxruns)
			maxruns = r.runs;
		if (r.rounds > maxrounds)
			maxrounds = r.rounds;
		assert_true(r.search_rounds <= bisect_rounds_bound(30, 1) + 1);
	}
	print_message("deterministic N=30 k=1: max runs %ld, max rounds %d\n", maxruns, maxrounds);
	assert_int_equal(right, 20);
	assert_true(maxruns <= 6 + 2 * 6 + 2 * 10); /* refs, probes, verification top-ups */
}

/*
 * Deterministic measurement (plan.h): with the references' A/A spread the
 * verification takes 3 + 3 runs, not 10 + 10; as right, fewer runs, over
 * 200 seeds (before: verify_runs_deterministic = verify_runs).
 */
static void test_sim_deterministic_fewer_runs(void **state UNUSED)
{
	long runs[2] = { 0, 0 };
	int right[2] = { 0, 0 };

	for (int c = 0; c < 2; c++) {
		struct bisect_opts o;

		bisect_opts_init(&o);
		o.k = 1;
		o.expect_deterministic = 1;
		if (!c)
			o.verify_runs_deterministic = o.verify_runs;
		for (int t = 1; t <= 200; t++) {
			struct bisect_sim s = { 30,	     culprit_of((uint64_t)t, 30),
						1000.0,	     0.5,
						100.0,	     NULL,
						(uint64_t)t, 0,
						0,	     0 };
			struct bisect_sim_result r;

			bisect_sim_run(&s, &o, &r);
			right[c] += r.action == BISECT_DONE && r.first_bad == s.culprit;
			runs[c] += r.runs;
		}
	}
	print_message("deterministic N=30 k=1, 200 trials: mean runs %.1f with 10 + 10 to verify, "
		      "%.1f with the A/A spread (3 + 3); right %d and %d\n",
		      runs[0] / 200.0, runs[1] / 200.0, right[0], right[1]);
	assert_int_equal(right[0], 200);
	assert_int_equal(right[1], 200);
	assert_true(runs[1] * 10 < runs[0] * 7);
}

/* no difference between good and bad: fails with why */
static void test_sim_no_change_fails(void **state UNUSED)
{
	struct bisect_opts o;
	struct bisect_sim s = { 100, 50, 100.0, 2.0, 0.0, NULL, 3, 0, 0, 0 };
	struct bisect_sim_result r;

	bisect_opts_init(&o);
	o.k = 2;
	bisect_sim_run(&s, &o, &r);
	assert_int_equal(r.action, BISECT_FAILED);
	assert_true(strstr(r.reason, "do not differ") != NULL);
}

/* the first round: references plus k probes dividing the range into k+1 parts */
static void test_first_round_split_points(void **state UNUSED)
{
	struct bisect_commit c[1000];
	struct bisect_input in = { 1000, c, NULL, 0, 0, 0, 0, 0 };
	struct bisect_opts o;
	struct bisect_plan p;
	struct bisect_decision d;

	memset(c, 0, sizeof(c));
	bisect_opts_init(&o);
	o.k = 4;
	bisect_plan_init(&p, &o);
	bisect_plan_compute(&p, &in);
	bisect_plan_next(&p, &d);
	assert_int_equal(d.action, BISECT_PROBE);
	assert_string_equal(d.phase, "refs");
	assert_int_equal(d.nr_probes, 6);
	assert_int_equal(d.probes[0].idx, BISECT_GOOD);
	assert_int_equal(d.probes[0].runs, 10);
	assert_int_equal(d.probes[1].idx, 999);
	assert_int_equal(d.probes[1].role, ROLE_REF);
	assert_int_equal(d.probes[2].idx, 199);
	assert_int_equal(d.probes[3].idx, 399);
	assert_int_equal(d.probes[4].idx, 599);
	assert_int_equal(d.probes[5].idx, 799);
	assert_int_equal(d.probes[5].role, ROLE_PROBE);
	assert_int_equal(d.probes[5].runs, 10); /* noise unknown: as many as a reference */
	bisect_decision_release(&d);

	/* a split point on a commit that fails to build moves to a neighbour */
	c[399].skipped = 1;
	c[199].skipped = 1;
	c[198].skipped = 1;
	bisect_plan_compute(&p, &in);
	bisect_plan_next(&p, &d);
	assert_int_equal(d.probes[2].idx, 200);
	assert_int_equal(d.probes[3].idx, 398);
	bisect_decision_release(&d);
	bisect_plan_release(&p);
}

/* verdicts and their evidence on hand-made samples */
static void test_verdicts(void **state UNUSED)
{
	static const double good[] = { 100, 101, 99, 100.5, 99.5, 100, 100.2, 99.8, 100.1, 99.9 };
	static const double bad[] = { 110, 111, 109, 110.5, 109.5, 110, 110.2, 109.8, 110.1, 109.9 };
	static const double lo[] = { 100.3, 99.7 };
	static const double hi[] = { 109.7, 110.4 };
	static const double mid[] = { 105.0 };
	struct bisect_commit c[5] = {
		{ lo, 2, 0, 0 }, { NULL, 0, 1, 0 }, { mid, 1, 0, 0 },
		{ hi, 2, 0, 0 }, { bad, 10, 0, 0 },
	};
	struct bisect_input in = { 5, c, good, 10, 0, 0, 1, 0 };
	struct bisect_opts o;
	struct bisect_plan p;
	struct bisect_evidence ev;

	bisect_opts_init(&o);
	bisect_plan_init(&p, &o);
	bisect_plan_compute(&p, &in);
	assert_true(p.model.ready);
	assert_false(p.model.deterministic);
	assert_true(fabs(p.model.change_pct - 10.0) < 0.1);
	bisect_plan_verdict(&p, 0, &ev);
	assert_int_equal(ev.verdict, STEP_GOOD);
	assert_int_equal(ev.n, 2);
	/* two runs near the good level (0.3 and 0.55 sigma off), each worth at most
	 * log(1 + phi(0) / c) = 5.99 */
	assert_true(ev.llr <= -2 * 5.5 && ev.llr >= -2 * 5.99);
	bisect_plan_verdict(&p, 1, &ev);
	assert_int_equal(ev.verdict, STEP_SKIP);
	bisect_plan_verdict(&p, 2, &ev);
	assert_int_equal(ev.verdict, STEP_UNKNOWN); /* at the midpoint (refitted: near it) */
	assert_true(fabs(ev.llr) < 1.0);
	bisect_plan_verdict(&p, 3, &ev);
	assert_int_equal(ev.verdict, STEP_BAD);
	assert_true(ev.p_bad > 0.99);
	assert_true(fabs(ev.vs_good.change_pct - 10.05) < 0.01);
	assert_string_equal(step_verdict_name(STEP_SKIP), "skip");
	bisect_plan_release(&p);
}

static void test_info_bound(void **state UNUSED)
{
	double b = bisect_info_bound(1000, 2);

	/* log2(1000) = 9.97 bits / C(2) = 0.486 bits a run (BPSK at 0 dB) */
	assert_true(b > 20.0 && b < 21.0);
	assert_true(bisect_info_bound(1000, 50) < 10.0);
	assert_true(bisect_info_bound(1000, 50) > 9.9);
	assert_true(bisect_info_bound(1000, 1) > 55);
	assert_true(bisect_info_bound(1, 2) == 0);
}

/*
 * Issue 23: outlier runs (5 % and 2 % of runs x0.7 or x1.3, d = 2, k = 4,
 * N = 1000). The mean + pooled-SD model was right 35.7 % and 88.8 % of the
 * time on these (bench/bisect_sim, 1000 trials); targets >= 97 % and
 * >= 99 %, wrong <= 0.5 %.
 */
static void test_sim_outlier_runs(void **state UNUSED)
{
	static const double rates[] = { 0.05, 0.02 };
	const int trials = 200;
	struct bisect_opts o;

	bisect_opts_init(&o);
	o.k = 4;
	for (size_t ri = 0; ri < 2; ri++) {
		int right = 0, wrong = 0;

		for (int t = 1; t <= trials; t++) {
			struct bisect_sim s = { 1000,	     culprit_of((uint64_t)t, 1000),
						100.0,	     2.0,
						2.0,	     NULL,
						(uint64_t)t, rates[ri],
						0.7,	     1.3 };
			struct bisect_sim_result r;

			bisect_sim_run(&s, &o, &r);
			right += r.action == BISECT_DONE && r.first_bad == s.culprit;
			wrong += r.action == BISECT_DONE && r.first_bad != s.culprit;
		}
		print_message("sim outliers %.0f %%: %d/%d right, %d wrong\n", 100 * rates[ri],
			      right, trials, wrong);
		assert_true(right * 100 >= (ri ? 99 : 97) * trials);
		assert_true(wrong * 1000 <= 5 * trials);
	}
}

/* one outlier run among the references leaves the levels and the noise where they were */
static void test_robust_levels(void **state UNUSED)
{
	double good[10], bad[10];
	struct bisect_commit c[2] = { { NULL, 0, 0, 0 }, { bad, 10, 0, 0 } };
	struct bisect_input in = { 2, c, good, 10, 0, 0, 0, 0 };
	struct bisect_opts o;
	struct bisect_plan p;

	for (int i = 0; i < 10; i++) {
		good[i] = 100 + (i - 4.5) * 0.4; /* 98.2 .. 101.8, sd 1.21 */
		bad[i] = 104 + (i - 4.5) * 0.4;
	}
	good[3] = 70; /* a failed run */
	bisect_opts_init(&o);
	bisect_plan_init(&p, &o);
	bisect_plan_compute(&p, &in);
	assert_true(p.model.ready);
	assert_float_equal(p.model.mu_good, (1000 - (100 - 1.5 * 0.4)) / 9, 1e-9);
	assert_float_equal(p.model.mu_bad, 104, 1e-9);
	assert_true(p.model.sigma > 1.0 && p.model.sigma < 1.4);
	/* an outlier run of a probe is (almost) no evidence, a run at the bad level is */
	{
		double v[1] = { 130 }, w[1] = { 104 };
		struct bisect_commit c2[3] = { { v, 1, 0, 0 }, { w, 1, 0, 0 }, { bad, 10, 0, 0 } };
		struct bisect_input in2 = { 3, c2, good, 10, 0, 0, 0, 0 };

		bisect_plan_compute(&p, &in2);
		assert_true(fabs(p.llr[0]) < 0.1);
		assert_true(p.llr[1] > 2);
	}
	bisect_plan_release(&p);
}

/*
 * The references differ by 5.4 % and compare `different`; probed commits
 * halfway (a change spread over commits) pull the refitted levels to 0.8 %
 * apart. The bisect goes on: refs_differ reads the references' comparison.
 */
static void test_refs_differ_reads_references(void **state UNUSED)
{
	double good[10], bad[10], lowmid[40], highmid[40];
	struct bisect_commit c[7];
	struct bisect_input in = { 7, c, good, 10, 0, 0, 3, 0 };
	struct bisect_opts o;
	struct bisect_plan p;
	struct bisect_decision d;

	for (int i = 0; i < 10; i++) {
		good[i] = 100 + (i - 4.5) * 0.1;
		bad[i] = 105.4 + (i - 4.5) * 0.1;
	}
	for (int i = 0; i < 40; i++) {
		lowmid[i] = 102.5 + (i % 5 - 2) * 0.05;
		highmid[i] = 102.9 + (i % 5 - 2) * 0.05;
	}
	for (int j = 0; j < 3; j++)
		c[j] = (struct bisect_commit){ lowmid, 40, 0, 0 };
	for (int j = 3; j < 6; j++)
		c[j] = (struct bisect_commit){ highmid, 40, 0, 0 };
	c[6] = (struct bisect_commit){ bad, 10, 0, 0 };
	bisect_opts_init(&o);
	o.outlier_density = 0; /* the Gaussian llr, which sorts the halfway commits */
	bisect_plan_init(&p, &o);
	bisect_plan_compute(&p, &in);
	assert_int_equal(p.model.refs.verdict, VERDICT_DIFFERENT);
	assert_float_equal(p.model.refs.hl_pct, 5.4, 0.01);
	/* the refit: a fraction of the references' change */
	assert_true(fabs(p.model.change_pct) < 1.0);
	bisect_plan_next(&p, &d);
	print_message("refs 5.4 %%, refit %.2f %%: %s %s\n", p.model.change_pct,
		      bisect_action_name(d.action), d.reason);
	assert_null(strstr(d.reason, "do not differ"));
	/* (it ends later, honestly: no single commit carries the change) */
	if (d.action == BISECT_FAILED)
		assert_non_null(strstr(d.reason, "the first bad commit vs its parent"));
	bisect_decision_release(&d);
	bisect_plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_outlier_runs),
		cmocka_unit_test(test_robust_levels),
		cmocka_unit_test(test_refs_differ_reads_references),
		cmocka_unit_test(test_sim_issue_target),
		cmocka_unit_test(test_sim_five_runs_per_probe),
		cmocka_unit_test(test_sim_skips_stepped_around),
		cmocka_unit_test(test_sim_only_skipped_candidates),
		cmocka_unit_test(test_sim_deterministic),
		cmocka_unit_test(test_sim_deterministic_fewer_runs),
		cmocka_unit_test(test_sim_no_change_fails),
		cmocka_unit_test(test_first_round_split_points),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_info_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
