/*
 * Numbers in the API's JSON: lib/dtoa's shortest round-trip text and the
 * server's JSON writer (server/jsonout.c) that every reply goes through.
 *
 * dtoa_shortest(): known texts, then a sweep of 200,000 doubles (random
 * bit patterns over the whole range, and values like measured means: a
 * random integer of up to 9 digits scaled by a power of ten) asserting for
 * each one that strtod() reads the text back to the same bits and that no
 * shorter %.Ng reads back to them (so the digits are the fewest possible).
 * jsonout_json(): byte for byte what json_dumps(JSON_COMPACT) writes for
 * trees without reals (escapes, UTF-8, NUL in a string, nesting, order).
 * jsonout_put_real/int/uint(): byte for byte what jsonout_real() appends
 * and printf's %lld / %llu write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtoa.h"
#include "server/jsonout.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *shortest(double v)
{
	static char t[DTOA_BUFSZ];

	dtoa_shortest(v, t);
	return t;
}

static void test_dtoa_known(void **state)
{
	char t[DTOA_BUFSZ];

	(void)state;
	assert_string_equal(shortest(0.1), "0.1");
	assert_string_equal(shortest(9.93843), "9.93843");
	assert_string_equal(shortest(-2.5), "-2.5");
	assert_string_equal(shortest(100), "100.0");
	assert_string_equal(shortest(0), "0.0");
	assert_string_equal(shortest(-0.0), "-0.0");
	assert_string_equal(shortest(1.0 / 3), "0.3333333333333333");
	assert_string_equal(shortest(0.1 + 0.2), "0.30000000000000004");
	/* %g's switch points: decimal for 1e-4 <= |v| < 1e17 */
	assert_string_equal(shortest(0.0001), "0.0001");
	assert_string_equal(shortest(0.00001), "1e-5");
	assert_string_equal(shortest(1.5e-7), "1.5e-7");
	assert_string_equal(shortest(1e16), "10000000000000000.0");
	assert_string_equal(shortest(1e17), "1e17");
	assert_string_equal(shortest(1.5e20), "1.5e20");
	assert_string_equal(shortest(DBL_MAX), "1.7976931348623157e308");
	assert_string_equal(shortest(-DBL_MAX), "-1.7976931348623157e308");
	assert_string_equal(shortest(5e-324), "5e-324");
	assert_string_equal(shortest(DBL_MIN), "2.2250738585072014e-308");
	assert_int_equal(dtoa_shortest(-1.2345678901234567e-300, t), 24);
	assert_int_equal(dtoa_shortest(NAN, t), 0);
	assert_string_equal(t, "");
	assert_int_equal(dtoa_shortest(INFINITY, t), 0);
	assert_int_equal(dtoa_shortest(-INFINITY, t), 0);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* the digits of t: significant ones, without sign, point and exponent */
static int digits(const char *t)
{
	int n = 0, lead = 1, trail = 0;

	for (; *t && *t != 'e'; t++) {
		if (*t < '0' || *t > '9')
			continue;
		if (lead && *t == '0')
			continue;
		lead = 0;
		n++;
		trail = *t == '0' ? trail + 1 : 0;
	}
	return n - trail;
}

static void check_one(double v)
{
	char t[DTOA_BUFSZ], g[400];
	size_t n = dtoa_shortest(v, t);
	double back;
	int d;

	if (!isfinite(v)) {
		assert_int_equal(n, 0);
		return;
	}
	assert_int_equal(n, strlen(t));
	back = strtod(t, NULL);
	if (memcmp(&back, &v, sizeof(v)))
		fail_msg("%s does not read back as %.17g", t, v);
	/* a JSON real: a point or an exponent */
	assert_true(strchr(t, '.') || strchr(t, 'e'));
	d = digits(t);
	if (d > 1) {
		snprintf(g, sizeof(g), "%.*g", d - 1, v);
		back = strtod(g, NULL);
		if (!memcmp(&back, &v, sizeof(v)))
			fail_msg("%s: %s is shorter and reads back too", t, g);
	}
}

static void test_dtoa_round_trip_sweep(void **state)
{
	uint64_t s = 0x9e3779b97f4a7c15u;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		uint64_t bits = xorshift(&s);
		double v;

		memcpy(&v, &bits, sizeof(v));
		check_one(v);
	}
	for (int i = 0; i < 100000; i++) {
		double m = (double)(xorshift(&s) % 1000000000u);
		int e = (int)(xorshift(&s) % 16) - 10;

		check_one(m * pow(10, e));
		check_one(-m / 7 * pow(10, e));
	}
}

static char *dump_both(json_t *j, char **ours)
{
	struct buf b = BUF_INIT(0);
	size_t len;

	assert_int_equal(jsonout_json(&b, j), 0);
	*ours = buf_detach(&b, &len);
	return json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
}

static void test_jsonout_json_as_jansson(void **state)
{
	json_t *j = json_pack("{s:s, s:i, s:I, s:b, s:n, s:[s, {}, [], i], s:{s:s}}", "sha",
			      "ab\"c\\d\n\t\x01/", "n", -3, "big", (json_int_t)1 << 60, "ok", 1,
			      "none", "list", "héllo — ✓", 0, "obj", "zeta", "\x7f");
	char *ours, *theirs;

	(void)state;
	json_object_set_new(j, "nul", json_stringn("a\0b", 3));
	json_object_set_new(j, "empty", json_string(""));
	theirs = dump_both(j, &ours);
	assert_string_equal(ours, theirs);
	free(ours);
	free(theirs);
	assert_int_equal(jsonout_json(NULL, NULL), -1);
	json_decref(j);

	/* reals: the shortest text, where jansson writes %.17g */
	j = json_pack("[f, f, f]", 9.93843, 100.0, 0.00001);
	{
		struct buf b = BUF_INIT(0);

		assert_int_equal(jsonout_json(&b, j), 0);
		assert_int_equal(b.len, strlen("[9.93843,100.0,1e-5]"));
		assert_memory_equal(b.data, "[9.93843,100.0,1e-5]", b.len);
		buf_release(&b);
	}
	json_decref(j);
}

/* the writers into a char array: the bytes jsonout_real() and printf write */
static void test_jsonout_put(void **state)
{
	static const double reals[] = { 0.1,	   -0.0, 100.0,	   1e-5,      1.5e20,  9.93843,
					-2.5e-300, NAN,	 INFINITY, -INFINITY, DBL_MAX, 5e-324 };
	static const long long ints[] = { 0, 7, -1, 10, 4294967296LL, LLONG_MAX, LLONG_MIN };
	uint64_t s = 0x243f6a8885a308d3u;
	char t[64], want[64], *end;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(reals) + 20000; i++) {
		double v;
		struct buf b = BUF_INIT(0);

		if (i < ARRAY_LEN(reals)) {
			v = reals[i];
		} else {
			uint64_t bits = xorshift(&s);

			memcpy(&v, &bits, sizeof(v));
		}
		assert_int_equal(jsonout_real(&b, v), 0);
		memset(t, 'x', sizeof(t));
		end = jsonout_put_real(t, v);
		assert_int_equal((size_t)(end - t), b.len);
		assert_memory_equal(t, b.data, b.len);
		buf_release(&b);
	}
	end = jsonout_put_real(t, NAN);
	assert_int_equal(end - t, 4);
	assert_memory_equal(t, "null", 4);
	for (size_t i = 0; i < ARRAY_LEN(ints); i++) {
		snprintf(want, sizeof(want), "%lld", ints[i]);
		end = jsonout_put_int(t, ints[i]);
		assert_int_equal((size_t)(end - t), strlen(want));
		assert_memory_equal(t, want, strlen(want));
	}
	snprintf(want, sizeof(want), "%llu", ULLONG_MAX);
	end = jsonout_put_uint(t, ULLONG_MAX);
	assert_int_equal((size_t)(end - t), strlen(want));
	assert_memory_equal(t, want, strlen(want));
	end = jsonout_put_uint(t, 0);
	assert_int_equal(end - t, 1);
	assert_int_equal(t[0], '0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dtoa_known),
		cmocka_unit_test(test_dtoa_round_trip_sweep),
		cmocka_unit_test(test_jsonout_json_as_jansson),
		cmocka_unit_test(test_jsonout_put),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
