/*
 * Deterministic measurement (issue 23, item 7; stats/compare.h
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decides_with_three_runs),
		cmocka_unit_test(test_not_without_evidence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
