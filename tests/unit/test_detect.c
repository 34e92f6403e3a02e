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
	assert_float_equal(s.cp[0].change_pct, 100 * (3.2 - (-0.8)) / 0.8, 1e-9);
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
		cmocka_unit_test(test_corpus_recall_precision),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
