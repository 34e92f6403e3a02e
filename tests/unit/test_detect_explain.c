#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "server/detect/detect_explain.h"

/*
 * detect_explain_pick(): which candidates of a detector's trace the server
 * keeps for "why (not) flagged" (server/detect/detect_explain.h). The traces are
 * made here, in the order the detector writes them.
 */

static struct detect_candidate cand(size_t start, size_t end, size_t index, int stage, double p,
				    double effect)
{
	struct detect_candidate d;

	memset(&d, 0, sizeof(d));
	d.start = start;
	d.end = end;
	d.index = index;
	d.id = index;
	d.stage = stage;
	d.p_value = p;
	d.effect = effect;
	d.reason = p <= 1e-3 ? DETECT_REPORTED : DETECT_WEAK;
	return d;
}

/* the trace of step-8pct.txt (tests/fixtures/detect): windows [0, 28), [0, 20), [20, 28) */
static struct detect_candidate trace[5];

static void fill(void)
{
	trace[0] = cand(0, 28, 20, 0, 1.48e-5, 21.9);
	trace[1] = cand(0, 20, 13, 0, 0.00735, 1.24);
	trace[2] = cand(0, 20, 3, 0, 0.554, 0.304);
	trace[2].excursion = 1;
	trace[3] = cand(20, 28, 24, 0, 1, 0.356);
	trace[4] = cand(0, 28, 20, 1, 1.48e-5, 21.9);
}

static void each_window_best_and_every_final_estimate(void **state)
{
	struct detect_series s;
	size_t idx[5], n;

	(void)state;
	fill();
	memset(&s, 0, sizeof(s));
	s.trace = trace;
	s.ntrace = 5;
	n = detect_explain_pick(&s, DETECT_EXPLAIN_MAX, idx);
	/* [0, 20)'s excursion (p 0.554) is not its window's best: left out; by split, then stage */
	assert_int_equal(n, 4);
	assert_int_equal(idx[0], 1); /* split 13, window [0, 20) */
	assert_int_equal(idx[1], 0); /* split 20, the window scan */
	assert_int_equal(idx[2], 4); /* split 20, the final estimate */
	assert_int_equal(idx[3], 3); /* split 24, window [20, 28) */
}

static void the_cap_keeps_final_estimates_then_the_least_p(void **state)
{
	struct detect_series s;
	size_t idx[5], n;

	(void)state;
	fill();
	memset(&s, 0, sizeof(s));
	s.trace = trace;
	s.ntrace = 5;
	n = detect_explain_pick(&s, 2, idx);
	assert_int_equal(n, 2);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 4);
	n = detect_explain_pick(&s, 1, idx);
	assert_int_equal(n, 1);
	assert_int_equal(idx[0], 4);
}

static void a_tie_on_p_goes_to_the_larger_move(void **state)
{
	struct detect_candidate t[3];
	struct detect_series s;
	size_t idx[3], n;

	(void)state;
	t[0] = cand(0, 30, 5, 0, 1, 0.4);
	t[1] = cand(0, 30, 12, 0, 1, 0.9);
	t[2] = cand(0, 30, 20, 0, 1, NAN); /* no noise model: never the stronger */
	memset(&s, 0, sizeof(s));
	s.trace = t;
	s.ntrace = 3;
	n = detect_explain_pick(&s, DETECT_EXPLAIN_MAX, idx);
	assert_int_equal(n, 1);
	assert_int_equal(idx[0], 1);
	s.ntrace = 0;
	assert_int_equal(detect_explain_pick(&s, DETECT_EXPLAIN_MAX, idx), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_window_best_and_every_final_estimate),
		cmocka_unit_test(the_cap_keeps_final_estimates_then_the_least_p),
		cmocka_unit_test(a_tie_on_p_goes_to_the_larger_move),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
