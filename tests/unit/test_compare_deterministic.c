/*
 * Deterministic measurement (stats/compare.h
 * compare_deterministic): 3 vs 3 icount-like runs decide with a measured
 * A/A spread, where the rank test cannot (its smallest p is 0.1); without
 * a measured spread, or with a side noisier than it, nothing changes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "attr.h"
#include "stats/compare.h"

static const double base[] = { 1000.0, 1000.4, 999.8 };
static const double slower[] = { 950.1, 950.3, 949.9 };
static const double nearly[] = { 1000.2, 1000.5, 999.9 };

static void test_decides_with_three_runs(void **state UNUSED)
{
	struct compare_result r;
	double aa = sample_range_pct(base, 3);

	assert_true(fabs(aa - 0.06) < 0.001);
	compare_samples(base, 3, slower, 3, NULL, &r);
	assert_int_equal(r.verdict, VERDICT_NEED_MORE_RUNS); /* the rank test: p >= 0.1 */
	compare_deterministic(base, 3, slower, 3, NULL, aa, &r);
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_true(r.by_spread);
	assert_int_equal(r.direction, -1);
	assert_true(r.hl_pct < -4.9 && r.hl_pct > -5.1);
	compare_deterministic(base, 3, nearly, 3, NULL, aa, &r);
	assert_int_equal(r.verdict, VERDICT_SAME);
	assert_true(r.by_spread);
}

static void test_not_without_evidence(void **state UNUSED)
{
	static const double noisy[] = { 950.0, 990.0, 920.0 };
	struct compare_result r;

	/* wall-clock: no measured spread, the rank test alone */
	compare_deterministic(base, 3, slower, 3, NULL, NAN, &r);
	assert_int_equal(r.verdict, VERDICT_NEED_MORE_RUNS);
	assert_false(r.by_spread);
	/* a side far noisier than the A/A runs: the model does not hold */
	compare_deterministic(base, 3, noisy, 3, NULL, 0.06, &r);
	assert_int_equal(r.verdict, VERDICT_NEED_MORE_RUNS);
	assert_false(r.by_spread);
	/* one run a side is never enough */
	compare_deterministic(base, 1, slower, 1, NULL, 0.06, &r);
	assert_false(r.by_spread);
	/* a shift below 4 A/A spreads is not called different */
	compare_deterministic(base, 3, slower, 3, NULL, 2.0, &r);
	assert_int_not_equal(r.verdict, VERDICT_SAME);
	assert_true(r.by_spread || r.verdict == VERDICT_NEED_MORE_RUNS);
}

/* the A/A spread from groups of runs of one kernel (the planner's and the server's) */
static void test_aa_spread_groups(void **state UNUSED)
{
	static const double k1[] = { 999.85, 1000.15 }, k2[] = { 1999.5, 2000.0, 2000.5 };
	static const double one[] = { 5.0 }, zero[] = { 0.0, 0.0 }, k3[] = { 999.9, 1000.1 };
	struct aa_spread s;

	aa_spread_init(&s);
	assert_true(isnan(s.pct));
	assert_true(isnan(aa_spread_usable(&s)));
	aa_spread_add(&s, one, 1);  /* one run: nothing */
	aa_spread_add(&s, zero, 2); /* median 0: nothing */
	assert_int_equal(s.groups, 0);
	aa_spread_add(&s, k1, 2);
	assert_true(fabs(s.pct - 0.03) < 1e-9); /* 0.3 / 1000 */
	assert_int_equal(s.runs, 2);
	assert_true(isnan(aa_spread_usable(&s))); /* 2 runs < AA_SPREAD_MIN_RUNS */
	aa_spread_add(&s, k2, 3);
	assert_true(fabs(s.pct - 0.05) < 1e-9); /* 1.0 / 2000: the largest */
	aa_spread_add(&s, k3, 2);
	assert_int_equal(s.runs, 7);
	assert_int_equal(s.groups, 3);
	assert_true(fabs(aa_spread_usable(&s) - 0.05) < 1e-9);
	/* floored at the resolution */
	aa_spread_init(&s);
	for (int i = 0; i < 3; i++)
		aa_spread_add(&s, (const double[]){ 1000.0, 1000.0 }, 2);
	assert_true(s.pct == 0);
	assert_true(aa_spread_usable(&s) == AA_SPREAD_FLOOR_PCT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decides_with_three_runs),
		cmocka_unit_test(test_not_without_evidence),
		cmocka_unit_test(test_aa_spread_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
