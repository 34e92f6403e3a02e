/* lib/utf8: RFC 3629's table of well-formed sequences, and the scrub */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "attr.h"
#include "utf8.h"

static void test_valid_and_not(void **state UNUSED)
{
	static const struct {
		const char *s;
		int ok;
	} cases[] = {
		{ "plain ascii", 1 },
		{ "J\xc3\xb6rg", 1 },	   /* U+00F6 */
		{ "\xe2\x82\xac", 1 },	   /* U+20AC */
		{ "\xf0\x9f\x98\x80", 1 }, /* U+1F600 */
		{ "\xf4\x8f\xbf\xbf", 1 }, /* U+10FFFF, the last */
		{ "J\xf6rg", 0 },	   /* Latin-1 */
		{ "\xc0\xaf", 0 },	   /* overlong '/' */
		{ "\xe0\x80\xaf", 0 },	   /* overlong, 3 bytes */
		{ "\xed\xa0\x80", 0 },	   /* a surrogate, U+D800 */
		{ "\xf4\x90\x80\x80", 0 }, /* past U+10FFFF */
		{ "\xe2\x82", 0 },	   /* cut short */
		{ "\x80", 0 },		   /* a lone continuation byte */
		{ "\xff", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (utf8_valid(cases[i].s, strlen(cases[i].s)) != cases[i].ok)
			fail_msg("case %zu: want %d", i, cases[i].ok);
	assert_false(utf8_valid("a\0b", 3));
	assert_true(utf8_valid("", 0));
}

static void test_scrub_keeps_length_and_valid_text(void **state UNUSED)
{
	char a[] = "J\xf6rg M\xc3\xbcller \xe2\x82 \xed\xa0\x80.";
	char b[] = "J\xc3\xb6rg";

	utf8_scrub(a, strlen(a));
	assert_string_equal(a, "J?rg M\xc3\xbcller ?? ???.");
	assert_true(utf8_valid(a, strlen(a)));
	utf8_scrub(b, strlen(b));
	assert_string_equal(b, "J\xc3\xb6rg");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_and_not),
		cmocka_unit_test(test_scrub_keeps_length_and_valid_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
