/*
 * The db layer's value readers (server/db/pgval.c) on the forms libpq
 * hands back: text floats and float8[] literals as PostgreSQL prints them,
 * and binary int8 / int4 / one-dimensional arrays built here byte by byte
 * as array_send() writes them (ndim, has-NULLs flag, element OID, length
 * and lower bound, then per element its length and bytes, big-endian).
 * The malformed cases are the ones a changed statement or a wrong column
 * would produce: a NULL element, another element type, two dimensions, a
 * value cut short.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <string.h>

#include "server/db/pgval.h"

#define INT4_OID 23
#define FLOAT8_OID 701

/* a binary value under construction */
struct bin {
	char b[512];
	size_t n;
};

static void put32(struct bin *x, uint32_t v)
{
	for (int i = 3; i >= 0; i--)
		x->b[x->n++] = (char)(v >> (8 * i));
}

static void put64(struct bin *x, uint64_t v)
{
	put32(x, (uint32_t)(v >> 32));
	put32(x, (uint32_t)v);
}

/* array_send()'s header of a 1-D array of n elements (ndim 0 when n is 0) */
static void array_head(struct bin *x, uint32_t nulls, uint32_t oid, uint32_t n)
{
	x->n = 0;
	put32(x, n ? 1 : 0);
	put32(x, nulls);
	put32(x, oid);
	if (n) {
		put32(x, n);
		put32(x, 1); /* lower bound */
	}
}

static struct bin int4_array(const int *v, uint32_t n)
{
	struct bin x;

	array_head(&x, 0, INT4_OID, n);
	for (uint32_t i = 0; i < n; i++) {
		put32(&x, 4);
		put32(&x, (uint32_t)v[i]);
	}
	return x;
}

static struct bin float8_array(const double *v, uint32_t n)
{
	struct bin x;

	array_head(&x, 0, FLOAT8_OID, n);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t u;

		memcpy(&u, &v[i], sizeof(u));
		put32(&x, 8);
		put64(&x, u);
	}
	return x;
}

static void test_pg_double(void **state)
{
	(void)state;
	assert_true(isnan(pg_double(""))); /* SQL NULL */
	assert_true(pg_double("1.5") == 1.5);
	assert_true(pg_double("-3e-05") == -3e-05);
	assert_true(pg_double("9.999999999999999e+22") == 9.999999999999999e+22);
	assert_true(pg_double("12345678901234") == 12345678901234.0); /* a bigint */
	assert_true(isnan(pg_double("NaN")));
	assert_true(isinf(pg_double("Infinity")) && pg_double("Infinity") > 0);
	assert_true(isinf(pg_double("-Infinity")) && pg_double("-Infinity") < 0);
}

static void test_pg_float8_array_len(void **state)
{
	(void)state;
	assert_int_equal(pg_float8_array_len(""), 0); /* SQL NULL */
	assert_int_equal(pg_float8_array_len("{}"), 0);
	assert_int_equal(pg_float8_array_len("{7}"), 1);
	assert_int_equal(pg_float8_array_len("{1.5,2,3e-05}"), 3);
	assert_int_equal(pg_float8_array_len("{NaN,Infinity,-1}"), 3);
}

static void test_pg_float8_array_sorted(void **state)
{
	double out[8];

	(void)state;
	assert_int_equal(pg_float8_array_sorted("", out), 0);
	assert_int_equal(pg_float8_array_sorted("{}", out), 0);

	assert_int_equal(pg_float8_array_sorted("{3,NaN,1.5,-2e-05,2}", out), 5);
	assert_true(out[0] == -2e-05);
	assert_true(out[1] == 1.5);
	assert_true(out[2] == 2.0);
	assert_true(out[3] == 3.0);
	assert_true(isnan(out[4])); /* NaN last */

	/* two NaNs first in the text, both last after */
	assert_int_equal(pg_float8_array_sorted("{NaN,NaN,-Infinity,0}", out), 4);
	assert_true(isinf(out[0]) && out[0] < 0);
	assert_true(out[1] == 0.0);
	assert_true(isnan(out[2]) && isnan(out[3]));

	/* stops at the first element that is not a number */
	assert_int_equal(pg_float8_array_sorted("{4,x,1}", out), 1);
	assert_true(out[0] == 4.0);
}

static void test_pg_sort_doubles_long(void **state)
{
	double v[40];

	(void)state;
	/* past the insertion-sort cut-off: qsort with the same order */
	for (int i = 0; i < 40; i++)
		v[i] = i % 7 == 0 ? NAN : (double)(40 - i);
	pg_sort_doubles(v, 40);
	for (int i = 1; i < 34; i++)
		assert_true(v[i - 1] < v[i]);
	for (int i = 34; i < 40; i++)
		assert_true(isnan(v[i]));
}

static void test_pg_bin_int8_int4(void **state)
{
	struct bin x = { .n = 0 };

	(void)state;
	put64(&x, 1);
	put64(&x, UINT64_MAX);
	put64(&x, UINT64_C(0x0102030405060708));
	put64(&x, (uint64_t)INT64_MIN);
	assert_true(pg_bin_int8(x.b) == 1);
	assert_true(pg_bin_int8(x.b + 8) == -1);
	assert_true(pg_bin_int8(x.b + 16) == 0x0102030405060708LL);
	assert_true(pg_bin_int8(x.b + 24) == LLONG_MIN);

	x.n = 0;
	put32(&x, 42);
	put32(&x, 0xfffffffeu);
	put32(&x, 0x7fffffffu);
	put32(&x, 0x80000000u);
	assert_int_equal(pg_bin_int4(x.b), 42);
	assert_int_equal(pg_bin_int4(x.b + 4), -2);
	assert_int_equal(pg_bin_int4(x.b + 8), INT_MAX);
	assert_int_equal(pg_bin_int4(x.b + 12), INT_MIN);
}

static void test_pg_bin_array_int4(void **state)
{
	static const int v[] = { 3, -1, 7, INT_MAX };
	struct bin x = int4_array(v, 4);
	int out[8] = { 0 };

	(void)state;
	assert_int_equal(x.n, 20 + 4 * 8);
	assert_int_equal(pg_bin_array_len(x.b, x.n, INT4_OID), 4);
	assert_int_equal(pg_bin_array_int4(x.b, x.n, out), 0);
	assert_memory_equal(out, v, sizeof(v));

	/* another element type: -1 from both */
	assert_int_equal(pg_bin_array_len(x.b, x.n, FLOAT8_OID), -1);
	assert_int_equal(pg_bin_array_float8(x.b, x.n, (double *)out), -1);

	/* truncated: inside the last element, and inside the header */
	assert_int_equal(pg_bin_array_int4(x.b, x.n - 1, out), -1);
	assert_int_equal(pg_bin_array_len(x.b, 19, INT4_OID), -1);
	assert_int_equal(pg_bin_array_len(x.b, 11, INT4_OID), -1);
	assert_int_equal(pg_bin_array_len(x.b, 0, INT4_OID), -1);

	/* more elements announced than the bytes can hold even as length words */
	x = int4_array(v, 1);
	x.b[15] = 100; /* the dimension's length: 100 */
	assert_int_equal(pg_bin_array_len(x.b, x.n, INT4_OID), -1);

	/* an element whose length is not 4 */
	x = int4_array(v, 2);
	x.b[20 + 3] = 8;
	assert_int_equal(pg_bin_array_len(x.b, x.n, INT4_OID), 2);
	assert_int_equal(pg_bin_array_int4(x.b, x.n, out), -1);
}

static void test_pg_bin_array_empty_null_2d(void **state)
{
	struct bin x;
	int iout[1] = { 99 };
	double dout[1] = { 99 };

	(void)state;
	/* '{}': ndim 0, no dimensions */
	array_head(&x, 0, INT4_OID, 0);
	assert_int_equal(x.n, 12);
	assert_int_equal(pg_bin_array_len(x.b, x.n, INT4_OID), 0);
	assert_int_equal(pg_bin_array_int4(x.b, x.n, iout), 0);
	assert_int_equal(iout[0], 99); /* nothing written */
	array_head(&x, 0, FLOAT8_OID, 0);
	assert_int_equal(pg_bin_array_len(x.b, x.n, FLOAT8_OID), 0);
	assert_int_equal(pg_bin_array_float8(x.b, x.n, dout), 0);
	assert_true(dout[0] == 99);

	/* the has-NULLs flag: an element is NULL */
	array_head(&x, 1, FLOAT8_OID, 1);
	put32(&x, 0xffffffffu);
	assert_int_equal(pg_bin_array_len(x.b, x.n, FLOAT8_OID), -1);
	assert_int_equal(pg_bin_array_float8(x.b, x.n, dout), -1);

	/* two dimensions */
	x.n = 0;
	put32(&x, 2);
	put32(&x, 0);
	put32(&x, INT4_OID);
	put32(&x, 1);
	put32(&x, 1);
	put32(&x, 1);
	put32(&x, 1);
	put32(&x, 4);
	put32(&x, 5);
	assert_int_equal(pg_bin_array_len(x.b, x.n, INT4_OID), -1);
	assert_int_equal(pg_bin_array_int4(x.b, x.n, iout), -1);
}

static void test_pg_bin_array_float8(void **state)
{
	const double v[] = { 1.5, -0.0, 1e300, 5e-324, -2.25 };
	struct bin x = float8_array(v, 5);
	double out[8];

	(void)state;
	assert_int_equal(x.n, 20 + 5 * 12);
	assert_int_equal(pg_bin_array_len(x.b, x.n, FLOAT8_OID), 5);
	assert_int_equal(pg_bin_array_float8(x.b, x.n, out), 0);
	assert_memory_equal(out, v, sizeof(v)); /* the bits, -0.0 included */

	/* NaN and infinities pass through as their bits */
	{
		const double w[] = { NAN, INFINITY, -INFINITY };

		x = float8_array(w, 3);
		assert_int_equal(pg_bin_array_float8(x.b, x.n, out), 0);
		assert_true(isnan(out[0]));
		assert_true(isinf(out[1]) && out[1] > 0);
		assert_true(isinf(out[2]) && out[2] < 0);
	}

	x = float8_array(v, 5);
	assert_int_equal(pg_bin_array_len(x.b, x.n, INT4_OID), -1);
	assert_int_equal(pg_bin_array_int4(x.b, x.n, (int *)out), -1);
	assert_int_equal(pg_bin_array_float8(x.b, x.n - 4, out), -1);  /* truncated */
	assert_int_equal(pg_bin_array_float8(x.b, x.n - 12, out), -1); /* one element short */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pg_double),
		cmocka_unit_test(test_pg_float8_array_len),
		cmocka_unit_test(test_pg_float8_array_sorted),
		cmocka_unit_test(test_pg_sort_doubles_long),
		cmocka_unit_test(test_pg_bin_int8_int4),
		cmocka_unit_test(test_pg_bin_array_int4),
		cmocka_unit_test(test_pg_bin_array_empty_null_2d),
		cmocka_unit_test(test_pg_bin_array_float8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
