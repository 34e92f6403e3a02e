/*
 * The default detector on stored real series:
 * each tests/fixtures/series file (.txt) is a series of repeated A/A runs of one kernel and one
 * binary (README there: how and where they were measured), so every change
 * point found is a false alarm. Target: at most 4 per 1000 points over
 * all of them, and none on each of the quiet ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "attr.h"
#include "stats/detect.h"
#include "stats/numlist.h"

static void test_false_alarms_on_real_series(void **state UNUSED)
{
	size_t points = 0, alarms = 0;
	glob_t g;

	assert_int_equal(glob("tests/fixtures/series/*.txt", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 3);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct detect_series s;
		struct err e;
		double *x;
		size_t n;

		assert_int_equal(numlist_load(g.gl_pathv[i], 1u << 20, &x, &n, &e), 0);
		assert_true(n >= 100);
		assert_int_equal(detect_values(x, NULL, n, NULL, &s, &e), 0);
		print_message("%s: %zu points, %zu change points\n", g.gl_pathv[i], n, s.ncp);
		points += n;
		alarms += s.ncp;
		detect_series_release(&s);
		free(x);
	}
	globfree(&g);
	print_message("all: %zu false alarms in %zu points (%.2f per 1000)\n", alarms, points,
		      1000.0 * (double)alarms / (double)points);
	assert_true(alarms * 1000 <= 4 * points);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_false_alarms_on_real_series),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
