/*
 * Unit tests of lib/clock.c: the three units read one clock (they agree
 * with each other and with clock_gettime(CLOCK_MONOTONIC) itself), it never
 * goes back, and a 20 ms sleep measures as at least 20 ms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <time.h>

#include "clock.h"
#include "attr.h"

static int64_t raw_ns(void)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void test_units_agree(void **state UNUSED)
{
	int64_t r0 = raw_ns(), ns = mono_ns(), ms = mono_ms();
	double s = mono_s();
	int64_t r1 = raw_ns();

	/* each reading lies between the two raw ones */
	assert_true(ns >= r0 && ns <= r1);
	assert_true(ms >= r0 / 1000000 && ms <= r1 / 1000000);
	assert_true(s >= (double)r0 / 1e9 - 1e-6 && s <= (double)r1 / 1e9 + 1e-6);
	assert_true(ns > 0);
}

static void test_monotonic(void **state UNUSED)
{
	int64_t prev = mono_ns();

	for (int i = 0; i < 10000; i++) {
		int64_t now = mono_ns();

		assert_true(now >= prev);
		prev = now;
	}
}

static void test_elapsed(void **state UNUSED)
{
	struct timespec d = { 0, 20 * 1000 * 1000 };
	int64_t t0 = mono_ns();
	double s0 = mono_s(), ms;

	assert_int_equal(nanosleep(&d, NULL), 0);
	ms = mono_ms_since(t0);
	assert_true(ms >= 20.0);
	assert_true(ms < 20000.0);
	assert_true(mono_s() - s0 >= 0.020);
	/* no time passed: about zero, never negative */
	t0 = mono_ns();
	ms = mono_ms_since(t0);
	assert_true(ms >= 0 && ms < 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_agree),
		cmocka_unit_test(test_monotonic),
		cmocka_unit_test(test_elapsed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
