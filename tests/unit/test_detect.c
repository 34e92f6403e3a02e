/*
 * Change-point detector: exact positions on clean steps, robustness to an
 * outlier, incremental == full recompute on every prefix, the online
 * CUSUM check, and recall/precision on the labelled corpus of
 * test_detect_corpus.h (fixed seeds).
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

#include "stats/detect.h"
#include "test_detect_corpus.h"
#include "attr.h"

static void run_values(const double *v, const size_t *g, size_t n, struct detect_series *s)
{
	struct err e;

	assert_int_equal(detect_values(v, g, n, NULL, s, &e), 0);
}

static void test_clean_step(void **state UNUSED)
{
	struct corpus_rng r = { 7 };
	double v[200];
	struct detect_series s;

	for (int i = 0; i < 200; i++)
		v[i] = (i < 120 ? 100 : 110) * (1 + 0.01 * corpus_gauss(&r));
	run_values(v, NULL, 200, &s);
	assert_int_equal(s.ncp, 1);
	assert_true(s.cp[0].index >= 119 && s.cp[0].index <= 121);
	assert_true(s.cp[0].before > 99 && s.cp[0].before < 101);
	assert_true(s.cp[0].after > 109 && s.cp[0].after < 111);
	assert_true(s.cp[0].change_pct > 9 && s.cp[0].change_pct < 11);
	assert_true(s.cp[0].p_value < 1e-10);
	assert_true(s.cp[0].window_p <= 1e-3);
	assert_true(s.cp[0].mw_p < 1e-10);
	detect_series_release(&s);
}

static void test_no_change_and_outliers(void **state UNUSED)
{
	struct corpus_rng r = { 11 };
	double v[500];
	struct detect_series s;

	for (int i = 0; i < 500; i++)
		v[i] = 50 * (1 + 0.02 * corpus_gauss(&r));
	v[100] = 500; /* single wild runs */
	v[300] = 1;
	v[301] = 2;
	run_values(v, NULL, 500, &s);
	assert_int_equal(s.ncp, 0);
	detect_series_release(&s);
}

static void test_groups_and_ids(void **state UNUSED)
{
	/* commits 0..59 (ids 10, 12, ...): 3 runs each, one wild run per commit */
	double v[180];
	size_t g[180];
	struct detect_series s;

	for (int c = 0; c < 60; c++)
		for (int k = 0; k < 3; k++) {
			int i = (59 - c) * 3 + k; /* unsorted input */

			v[i] = (c < 30 ? 200 : 180) + (k == 2 ? 90 : k);
			g[i] = 10 + 2 * (size_t)c;
		}
	run_values(v, g, 180, &s);
	assert_int_equal(s.n, 60);
	assert_int_equal(s.ncp, 1);
	assert_int_equal(s.cp[0].index, 30);
	assert_int_equal(s.cp[0].id, 70);
	assert_float_equal(s.cp[0].before, 201, 0); /* median of {200, 201, 290} */
	assert_float_equal(s.cp[0].after, 181, 0);
	assert_float_equal(s.cp[0].change_pct, 100.0 * (181 - 201) / 201, 1e-12);
	detect_series_release(&s);
}

/*
 * The demo's arm64 small-allocs series (icount, 2 runs a commit, KB/s): a
 * step between commits 6 and 7 where commit 6 happens to be the lowest of
 * its level, so the splits before and after it separate the sides equally
 * well; the wider gap names the step (commit 7 is the first bad one).
 */
static void test_tie_between_perfect_splits(void **state UNUSED)
{
	static const double v[] = { 1019050.190, 1019014.510, 723494.495, 723418.682, 723779.887,
				    723670.428,	 723589.877,  723545.991, 723492.825, 723378.236,
				    723629.494,	 723864.217,  723401.913, 723408.213, 260147.979,
				    260325.232,	 260206.075,  260301.633, 260369.057, 260217.041,
				    260163.008,	 260157.952,  260231.399, 260354.680, 260186.721,
				    260122.851,	 260354.550,  260175.318, 402225.109, 402237.819,
				    402472.951,	 402032.942 };
	static const size_t g[] = { 0, 0, 1, 1, 2,  2,	3,  3,	4,  4,	5,  5,	6,  6,	7,  7,
				    8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15 };
	struct detect_opts o;
	struct detect_series s;
	struct err e;

	detect_opts_init(&o);
	o.p_max = 0.005; /* 16 commits: the rank test cannot go below 0.0019 */
	assert_int_equal(detect_values(v, g, sizeof(v) / sizeof(v[0]), &o, &s, &e), 0);
	assert_int_equal(s.ncp, 1);
	assert_int_equal(s.cp[0].index, 7);
	assert_true(s.cp[0].before > 723000 && s.cp[0].after < 261000);
	detect_series_release(&s);
}

static void test_nonpositive_values(void **state UNUSED)
{
	/* ranks need no logs: a series around zero still works */
	double v[100];
	struct detect_series s;

	for (int i = 0; i < 100; i++)
		v[i] = (i < 50 ? -1.0 : 3.0) + 0.1 * ((i * 7) % 5);
	run_values(v, NULL, 100, &s);
	assert_int_equal(s.ncp, 1);
	assert_int_equal(s.cp[0].index, 50);
	/* LKP's %change keeps the base's sign (compare_pct_change); the direction is up */
	assert_float_equal(s.cp[0].change_pct, 100 * (3.2 - (-0.8)) / -0.8, 1e-9);
#ifndef DETECT_OLD
	assert_int_equal(s.cp[0].direction, 1);
#endif
	detect_series_release(&s);
}

static void assert_same_cps(const struct detect_series *a, const struct detect_series *b)
{
	assert_int_equal(a->ncp, b->ncp);
	for (size_t j = 0; j < a->ncp; j++) {
		assert_int_equal(a->cp[j].index, b->cp[j].index);
		/* bit-identical: same data, same operations */
		assert_memory_equal(&a->cp[j].before, &b->cp[j].before, sizeof(double));
		assert_memory_equal(&a->cp[j].after, &b->cp[j].after, sizeof(double));
		assert_memory_equal(&a->cp[j].p_value, &b->cp[j].p_value, sizeof(double));
		assert_memory_equal(&a->cp[j].mw_p, &b->cp[j].mw_p, sizeof(double));
		assert_memory_equal(&a->cp[j].window_p, &b->cp[j].window_p, sizeof(double));
		assert_memory_equal(&a->cp[j].change_pct, &b->cp[j].change_pct, sizeof(double));
	}
}

/* Full recompute of the first n commits of cs. */
static void full_prefix(const struct corpus_series *cs, size_t ncommits, struct detect_series *f)
{
	size_t i = 0;

	detect_series_init(f, NULL);
	for (size_t c = 0; c < ncommits; c++) {
		size_t from = i;

		while (i < cs->nv && cs->group[i] == c)
			i++;
		assert_int_equal(detect_series_push(f, cs->v + from, i - from), 0);
	}
	detect_series_run(f);
}

static void test_incremental_equals_full(void **state UNUSED)
{
	static const enum corpus_kind kinds[] = { CK_GAUSS, CK_MIXED, CK_BIMODAL, CK_RUNS };
	size_t max_examined = 0, checked = 0;

	for (size_t t = 0; t < ARRAY_SIZE(kinds); t++) {
		struct corpus_series cs;
		struct detect_series inc;
		size_t i = 0;

		corpus_make(&cs, 900 + t, 1200, 2, kinds[t]);
		detect_series_init(&inc, NULL);
		for (size_t c = 0; c < cs.ncommits; c++) {
			size_t from = i;

			while (i < cs.nv && cs.group[i] == c)
				i++;
			if (i - from > 1) {
				/* the commit arrives run by run: push one, then set the rest */
				assert_int_equal(detect_series_push(&inc, cs.v + from, 1), 0);
				detect_series_run(&inc);
				assert_int_equal(detect_series_set(&inc, c, cs.v + from, i - from),
						 0);
			} else {
				assert_int_equal(detect_series_push(&inc, cs.v + from, i - from),
						 0);
			}
			detect_series_run(&inc);
			if (c > 200 && inc.examined > max_examined)
				max_examined = inc.examined;
			/* compare with a full recompute on a sample of prefixes */
			if (c % 37 == 0 || c + 1 == cs.ncommits) {
				struct detect_series full;

				full_prefix(&cs, c + 1, &full);
				assert_same_cps(&inc, &full);
				checked++;
				detect_series_release(&full);
			}
		}
		assert_true(inc.ncp >= cs.ncps / 2);
		detect_series_release(&inc);
		corpus_free(&cs);
	}
	assert_true(checked > 100);
	/* only the tail is re-examined: a few windows, not the 1,200 commits */
	assert_true(max_examined <= 6 * 64);
}

static void test_set_of_old_commit_resets(void **state UNUSED)
{
	struct corpus_series cs;
	struct detect_series inc, full;
	double wild[] = { 5000 };

	corpus_make(&cs, 4242, 600, 1, CK_GAUSS);
	full_prefix(&cs, 600, &inc);
	/* change an early commit: the state must fall back to a full pass */
	assert_int_equal(detect_series_set(&inc, 10, wild, 1), 0);
	assert_int_equal(inc.resume, 0);
	detect_series_run(&inc);
	cs.v[10] = 5000;
	full_prefix(&cs, 600, &full);
	assert_same_cps(&inc, &full);
	assert_int_equal(detect_series_set(&inc, 600, wild, 1), -1);
	detect_series_release(&inc);
	detect_series_release(&full);
	corpus_free(&cs);
}

static void test_online_check(void **state UNUSED)
{
	struct corpus_rng r = { 3 };
	double ref[40], tail[6];
	struct detect_online o;

	for (int i = 0; i < 40; i++)
		ref[i] = 100 * (1 + 0.01 * corpus_gauss(&r));
	/* a 3 sigma step alarms by its 3rd commit */
	for (int i = 0; i < 6; i++)
		tail[i] = 103 * (1 + 0.01 * corpus_gauss(&r));
	detect_online_check(ref, 40, tail, 6, NULL, &o);
	assert_int_equal(o.alarm, 1);
	assert_true(o.alarm_at <= 3);
	assert_true(o.change_pct > 1.5 && o.change_pct < 4.5);
	/* a single outlier, even a huge one, does not */
	tail[0] = 1e6;
	for (int i = 1; i < 6; i++)
		tail[i] = 100 * (1 + 0.01 * corpus_gauss(&r));
	detect_online_check(ref, 40, tail, 6, NULL, &o);
	assert_int_equal(o.alarm, 0);
	/* downward */
	for (int i = 0; i < 6; i++)
		tail[i] = 90;
	detect_online_check(ref, 40, tail, 6, NULL, &o);
	assert_int_equal(o.alarm, -1);
	assert_int_equal(o.alarm_at, 2); /* clipped z -3.5: S- = 2.5, 5, 7.5 > 6 */
	/* too little reference */
	detect_online_check(ref, 3, tail, 6, NULL, &o);
	assert_int_equal(o.alarm, 0);
}

static void test_check_tail_on_series(void **state UNUSED)
{
	struct detect_series s;
	struct detect_online o;
	struct corpus_rng r = { 5 };

	detect_series_init(&s, NULL);
	for (int i = 0; i < 100; i++) {
		double x = (i < 97 ? 100 : 106) * (1 + 0.01 * corpus_gauss(&r));

		assert_int_equal(detect_series_push(&s, &x, 1), 0);
	}
	detect_series_run(&s);
	assert_int_equal(s.ncp, 0); /* three points after the step: too early for the detector */
	detect_series_check_tail(&s, 3, &o);
	assert_int_equal(o.alarm, 1); /* ... but the online check flags it */
	detect_series_release(&s);
}

/*
 * A step the detector found at the tail's first commit: the tail is
 * compared with the segment before the step (it alarms), not with the
 * empty one after it; a tail inside the new segment gets its median.
 */
static void test_check_tail_after_a_found_step(void **state UNUSED)
{
	struct detect_series s;
	struct detect_online o;
	struct corpus_rng r = { 11 };

	detect_series_init(&s, NULL);
	for (int i = 0; i < 60; i++) {
		double x = (i < 52 ? 100 : 90) * (1 + 0.005 * corpus_gauss(&r));

		assert_int_equal(detect_series_push(&s, &x, 1), 0);
	}
	detect_series_run(&s);
	assert_int_equal(s.ncp, 1);
	assert_int_equal(s.cp[0].index, 52);
	/* the 8 commits since the step: against the 52 before it */
	detect_series_check_tail(&s, 8, &o);
	assert_int_equal(o.nref, 52);
	assert_true(fabs(o.center - 100) < 0.5);
	assert_int_equal(o.alarm, -1);
	assert_true(fabs(o.change_pct + 10) < 1);
	/* the last 6: two commits of the new level before them, their median, no alarm */
	detect_series_check_tail(&s, 6, &o);
	assert_int_equal(o.nref, 2);
	assert_true(fabs(o.center - 90) < 1);
	assert_true(isnan(o.scale));
	assert_int_equal(o.alarm, 0);
	assert_true(fabs(o.change_pct) < 1.5);
	/* the last 3: five commits of the new level, a noise model, no alarm */
	detect_series_check_tail(&s, 3, &o);
	assert_int_equal(o.nref, 5);
	assert_true(fabs(o.center - 90) < 1);
	assert_int_equal(o.alarm, 0);
	/* the step inside the tail: the reference is the level before it */
	detect_series_check_tail(&s, 10, &o);
	assert_int_equal(o.nref, 50);
	assert_true(fabs(o.center - 100) < 0.5);
	assert_int_equal(o.alarm, -1);
	detect_series_release(&s);
}

/* the tip check: one commit 5 % off a quiet window moves, one inside does not */
static void test_tip_moved(void **state UNUSED)
{
	struct detect_series s;
	struct detect_opts o;
	struct detect_tip t;
	struct corpus_rng r = { 9 };
	double x;

	detect_opts_init(&o);
	o.min_change_pct = 1;
	detect_series_init(&s, &o);
	for (int i = 0; i < 3; i++) {
		x = 100;
		assert_int_equal(detect_series_push(&s, &x, 1), 0);
	}
	x = 95;
	assert_int_equal(detect_series_push(&s, &x, 1), 0);
	detect_series_run(&s);
	detect_series_tip(&s, 3.0, &t);
	/* three commits before the tip: too few for a noise model */
	assert_int_equal(t.nref, 3);
	assert_true(isnan(t.z));
	assert_int_equal(t.moved, 0);
	detect_series_release(&s);

	detect_series_init(&s, &o);
	for (int i = 0; i < 30; i++) {
		x = 100 * (1 + 0.002 * corpus_gauss(&r));
		assert_int_equal(detect_series_push(&s, &x, 1), 0);
	}
	x = 95;
	assert_int_equal(detect_series_push(&s, &x, 1), 0);
	detect_series_run(&s);
	assert_int_equal(s.ncp, 0); /* one commit after a step: the detector cannot see it */
	detect_series_tip(&s, 3.0, &t);
	assert_int_equal(t.nref, 30);
	assert_int_equal(t.moved, -1);
	assert_true(t.z < -10);
	assert_true(fabs(t.change_pct + 5) < 0.5);
	assert_true(fabs(t.tip - 95) < 1e-9);
	detect_series_tip(&s, 0, &t); /* z_min 0: off */
	assert_int_equal(t.moved, 0);
	/* the same tip 0.5 % off: below min_change_pct, whatever its z */
	x = 99.5;
	assert_int_equal(detect_series_set(&s, 30, &x, 1), 0);
	detect_series_run(&s);
	detect_series_tip(&s, 3.0, &t);
	assert_int_equal(t.moved, 0);
	detect_series_release(&s);
}

/*
 * The labelled corpus: every kind, series of 20 to 10,000 commits, every
 * noise level. Asserts recall and precision for steps >= 3 sigma and the
 * false alarm rate.
 */
static void test_corpus_recall_precision(void **state UNUSED)
{
	static const size_t lens[] = { 20, 50, 100, 300, 1000, 3000, 10000 };
	struct corpus_score all = { 0 };

	for (int k = 0; k < CK_NKINDS; k++) {
		struct corpus_score sc = { 0 };

		for (size_t li = 0; li < ARRAY_SIZE(lens); li++)
			for (size_t ci = 0; ci < ARRAY_SIZE(corpus_cvs); ci++)
				for (uint64_t seed = 1; seed <= (lens[li] < 1000 ? 8 : 1); seed++) {
					struct corpus_series cs;
					struct detect_series s;
					size_t idx[4096];

					corpus_make(&cs,
						    seed * 7919 + li * 31 + ci +
							    (uint64_t)k * 100003,
						    lens[li], corpus_cvs[ci], k);
					run_values(cs.v, cs.group, cs.nv, &s);
					assert_true(s.ncp < ARRAY_SIZE(idx));
					for (size_t j = 0; j < s.ncp; j++)
						idx[j] = s.cp[j].id;
					corpus_tally(&cs, idx, s.ncp, &sc);
					corpus_tally(&cs, idx, s.ncp, &all);
					detect_series_release(&s);
					corpus_free(&cs);
				}
		print_message("corpus %-8s steps>=3sigma %zu/%zu  false alarms %zu  recall %.3f "
			      "precision %.3f F1 %.3f  FA/2000 %.2f\n",
			      corpus_kind_names[k], sc.found_big, sc.true_big, sc.false_alarms,
			      corpus_recall(&sc), corpus_precision(&sc), corpus_f1(&sc),
			      corpus_fa_per_2000(&sc));
		assert_true(sc.true_big >= 100);
		/* bimodal noise (30 % of runs 4 sigma off) is the hardest kind */
		assert_true(corpus_recall(&sc) >= (k == CK_BIMODAL ? 0.93 : 0.97));
		assert_true(corpus_precision(&sc) >= 0.95);
		assert_true(corpus_fa_per_2000(&sc) <= 1.0);
	}
	assert_true(corpus_f1(&all) >= 0.95);
	assert_true(corpus_fa_per_2000(&all) <= 0.5);
	/* small steps are found less often, but some are */
	assert_true(all.found_small > 0 && all.found_small < all.true_small);
}

/* ---- verdicts and noise ------------------------------------------------------ */

static uint64_t t_rng;
static double t_unit(void)
{
	uint64_t z = (t_rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return (((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
}
static double t_gauss(void)
{
	return sqrt(-2 * log(t_unit())) * cos(2 * M_PI * t_unit());
}

static int near(size_t a, size_t b)
{
	return (a > b ? a - b : b - a) <= 2;
}

/* a +5 % step reverted 12 commits later, CV 1 %, 300 points: both edges, 20 seeds */
static void test_short_excursion(void **state)
{
	int both = 0, any = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		double y[300];
		struct detect_series s;
		size_t at;
		int a = 0, b = 0;

		t_rng = 777 + seed;
		at = 100 + (size_t)(t_unit() * 100);
		for (size_t t = 0; t < 300; t++)
			y[t] = 100 * (1 + 0.01 * t_gauss()) * (t >= at && t < at + 12 ? 1.05 : 1);
		run_values(y, NULL, 300, &s);
		for (size_t j = 0; j < s.ncp; j++) {
			a |= near(s.cp[j].index, at);
			b |= near(s.cp[j].index, at + 12);
			/* nothing but the two edges */
			assert_true(near(s.cp[j].index, at) || near(s.cp[j].index, at + 12));
		}
		both += a && b;
		any += a || b;
		detect_series_release(&s);
	}
	print_message("excursion +5 %% x 12 commits: %d/20 found, %d/20 both edges\n", any, both);
	assert_true(any >= 19);
	assert_true(both >= 18);
}

/*
 * Integer-valued series (counters around 10 that move by 1 now and then):
 * no change point whose final re-estimate says p 1.0 or "10 -> 10"
 */
static void test_no_phantom_on_integer_series(void **state)
{
	int phantoms = 0;

	(void)state;
	for (int seed = 1; seed <= 20; seed++) {
		double y[600];
		struct detect_series s;
		int lvl = 10;

		t_rng = (uint64_t)seed * 31;
		for (int t = 0; t < 600; t++) {
			if (t_unit() < 0.01)
				lvl += t_unit() < 0.5 ? -1 : 1;
			y[t] = lvl + floor(t_gauss() * 0.5 + 0.5) * (t_unit() < 0.3);
		}
		run_values(y, NULL, 600, &s);
		for (size_t j = 0; j < s.ncp; j++)
			phantoms += s.cp[j].p_value > s.opts.p_max ||
				    s.cp[j].before == s.cp[j].after;
		detect_series_release(&s);
	}
	assert_int_equal(phantoms, 0);
}

/* --min-change applies to the reported (final) %change */
static void test_min_change_after_final_estimate(void **state)
{
	struct detect_opts o;
	size_t below = 0, total = 0;

	(void)state;
	detect_opts_init(&o);
	o.min_change_pct = 4;
	for (int k = 0; k < CK_NKINDS; k++)
		for (uint64_t seed = 1; seed <= 30; seed++) {
			struct corpus_series cs;
			struct detect_series s;
			struct err e;

			corpus_make(&cs, seed * 104729 + (uint64_t)k, 1000, corpus_cvs[seed % 5],
				    k);
			assert_int_equal(detect_values(cs.v, cs.group, cs.nv, &o, &s, &e), 0);
			for (size_t j = 0; j < s.ncp; j++)
				below += !(fabs(s.cp[j].change_pct) >= 4);
			total += s.ncp;
			detect_series_release(&s);
			corpus_free(&cs);
		}
	assert_true(total > 100);
	assert_int_equal(below, 0);
}

/* a counter that starts at 0: 0 -> x is a change, also with a 1 % floor */
static void test_zero_base_passes_floor(void **state)
{
	double y[120];
	struct detect_opts o;
	struct detect_series s;
	struct err e;

	(void)state;
	t_rng = 5;
	for (int t = 0; t < 120; t++)
		y[t] = t < 60 ? 0 : 40 + floor(4 * t_unit());
	detect_opts_init(&o);
	o.min_change_pct = 1;
	assert_int_equal(detect_values(y, NULL, 120, &o, &s, &e), 0);
	assert_int_equal(s.ncp, 1);
	assert_int_equal(s.cp[0].index, 60);
	assert_float_equal(s.cp[0].before, 0, 0);
	assert_true(isfinite(s.cp[0].change_pct) && s.cp[0].change_pct > 1e100);
#ifndef DETECT_OLD
	assert_int_equal(s.cp[0].direction, 1);
#endif
	detect_series_release(&s);
}

/*
 * False alarms per 1000 points on noise without a step (CV 1 %, one run a
 * commit, 20 series of 1000): gaussian, AR(1) with phi = 0.8 (the rank test
 * alone: 14.45 per 1000), and a slow drift (+10 % over 500 points: a level
 * that moves, not a step).
 */
static void test_false_alarms_ar1(void **state)
{
	size_t fa_iid = 0, fa_ar = 0, fa_drift = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		double x[1000], y[1000], dr[1000], e = 0;
		struct detect_series s;

		t_rng = 4000 + seed;
		for (int t = 0; t < 1000; t++) {
			double z = t_gauss();

			e = t ? 0.8 * e + 0.6 * z : z; /* stationary sd 1 */
			x[t] = 100 * (1 + 0.01 * t_gauss());
			y[t] = 100 * (1 + 0.01 * e);
			/* a slow drift: +10 % over 500 points */
			dr[t] = 100 * (1 + 0.01 * t_gauss()) + 10.0 * t / 500;
		}
		run_values(dr, NULL, 1000, &s);
		fa_drift += s.ncp;
		detect_series_release(&s);
		run_values(x, NULL, 1000, &s);
		fa_iid += s.ncp;
		detect_series_release(&s);
		run_values(y, NULL, 1000, &s);
		fa_ar += s.ncp;
		detect_series_release(&s);
	}
	print_message("false alarms per 1000 points: gaussian %.2f, AR(1) 0.8 %.2f, "
		      "drift +10 %%/500 %.2f\n",
		      (double)fa_iid / 20, (double)fa_ar / 20, (double)fa_drift / 20);
	assert_true(fa_drift <= 20);
	assert_int_equal(fa_iid, 0);
	assert_true(fa_ar <= 20); /* <= 1 per 1000 points */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_step),
		cmocka_unit_test(test_no_change_and_outliers),
		cmocka_unit_test(test_groups_and_ids),
		cmocka_unit_test(test_tie_between_perfect_splits),
		cmocka_unit_test(test_nonpositive_values),
		cmocka_unit_test(test_incremental_equals_full),
		cmocka_unit_test(test_set_of_old_commit_resets),
		cmocka_unit_test(test_online_check),
		cmocka_unit_test(test_check_tail_on_series),
		cmocka_unit_test(test_check_tail_after_a_found_step),
		cmocka_unit_test(test_tip_moved),
		cmocka_unit_test(test_corpus_recall_precision),
		cmocka_unit_test(test_short_excursion),
		cmocka_unit_test(test_no_phantom_on_integer_series),
		cmocka_unit_test(test_min_change_after_final_estimate),
		cmocka_unit_test(test_zero_base_passes_floor),
		cmocka_unit_test(test_false_alarms_ar1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
