#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/numlist.h"
#include "attr.h"

/*
 * numlist_parse() on sample files as `regtrack compare-samples` and
 * `regtrack detect` read them: numbers within +-2^63 (the API's bound) are
 * values, those beyond are refused naming the line or element (1e155 and
 * up made the statistics square past a double and GSL abort the program).
 */

static void parse_fails(const char *text, const char *message)
{
	double *v = (double *)1;
	size_t n = 7;
	struct err e;

	assert_int_equal(numlist_parse(text, strlen(text), &v, &n, &e), -1);
	assert_null(v);
	assert_string_equal(e.code, "invalid_field");
	assert_string_equal(e.message, message);
}

static void test_values_and_bounds(void **state UNUSED)
{
	const char *text = "# base\n1.5\n\n-9223372036854775808 # -2^63\n9.2e18\n";
	double *v;
	size_t n;
	struct err e;

	assert_int_equal(numlist_parse(text, strlen(text), &v, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_true(v[0] == 1.5 && v[1] == -9223372036854775808.0 && v[2] == 9.2e18);
	free(v);
	assert_int_equal(numlist_parse("[1, 2e18]", 9, &v, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_true(v[1] == 2e18);
	free(v);

	parse_fails("1\n# c\n1e155\n",
		    "line 3: '1e155' is out of range (numbers must lie within +-2^63)");
	parse_fails("1\n-1e19\n",
		    "line 2: '-1e19' is out of range (numbers must lie within +-2^63)");
	parse_fails("[1, 2, 1e308]", "element 2 is out of range (numbers must lie within +-2^63)");
	parse_fails("1\nabc\n", "line 2: 'abc' is not a number");
}

/* numlist_load() of a file holding text: the values it reads (caller frees), *n their count */
static double *load_text(const char *text, size_t *n)
{
	char path[] = "/tmp/test_numlist_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	double *v;
	struct err e;

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(numlist_load(path, 1 << 20, &v, n, &e), 0);
	unlink(path);
	return v;
}

/* A file saved with a UTF-8 byte order mark reads as the numbers it holds. */
static void test_read_file_drops_a_byte_order_mark(void **state UNUSED)
{
	size_t n;
	double *v = load_text("\xef\xbb\xbf"
			      "1.5\n2\n",
			      &n);

	assert_int_equal(n, 2);
	assert_true(v[0] == 1.5 && v[1] == 2);
	free(v);
}

/* An old Mac file (lone CRs) reads line by line, not as one long line; CRLF as LF. */
static void test_read_file_lone_cr_ends_a_line(void **state UNUSED)
{
	size_t n;
	double *v = load_text("# runs\r1.5\r2\r\n3\r", &n);

	assert_int_equal(n, 3);
	assert_true(v[0] == 1.5 && v[1] == 2 && v[2] == 3);
	free(v);
}

/*
 * Every byte of a line is its number: a long spelling (a printf("%.150g")
 * of a tool) is read whole, never cut at 127 bytes where its exponent was
 * lost (1.000...0001e5 read as 1); a NUL inside a line (a binary file) is
 * refused, not the end of the number; an underflow is the nearest double
 * (0, or a subnormal), as the API's JSON parser takes it.
 */
static void test_whole_token(void **state UNUSED)
{
	char text[512], want[256];
	double *v;
	size_t n;
	struct err e;
	int len;

	len = snprintf(text, sizeof(text), "1.%0150de5\n0.%0140d5\n", 1, 0);
	assert_int_equal(numlist_parse(text, (size_t)len, &v, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_true(v[0] == 1e5);
	assert_true(v[1] == 5e-141);
	free(v);

	assert_int_equal(numlist_parse("1e-400\n1.5e-323\n2\n", 18, &v, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_true(v[0] == 0 && v[1] == 1.5e-323 && v[2] == 2);
	free(v);

	v = (double *)1;
	assert_int_equal(numlist_parse("1000\n1000\0garbage\n", sizeof("1000\n1000\0garbage\n") - 1,
				       &v, &n, &e),
			 -1);
	assert_null(v);
	assert_string_equal(e.message, "line 2: a NUL byte after '1000': not a text file");

	len = snprintf(text, sizeof(text), "1\n%0100d x\n", 7);
	snprintf(want, sizeof(want), "line 2: '%064d...' is not a number", 0);
	parse_fails(text, want);
	parse_fails("1e400\n", "line 1: '1e400' is not a number");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_and_bounds),
		cmocka_unit_test(test_read_file_drops_a_byte_order_mark),
		cmocka_unit_test(test_read_file_lone_cr_ends_a_line),
		cmocka_unit_test(test_whole_token),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
