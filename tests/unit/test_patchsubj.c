/*
 * Unit tests of lib/patchsubj.c: a list's subjects into version, part,
 * total, RESEND/RFC and prefix, which series assembly (server/inbox/inbox_series.c)
 * groups by.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "patchsubj.h"
#include "attr.h"

static void test_forms(void **state UNUSED)
{
	struct patchsubj p;

	assert_int_equal(patchsubj_parse("[PATCH v2 RESEND 1/3] mm: add a ", &p), 1);
	assert_int_equal(p.version, 2);
	assert_int_equal(p.part, 1);
	assert_int_equal(p.total, 3);
	assert_int_equal(p.resend, 1);
	assert_int_equal(p.rfc, 0);
	assert_string_equal(p.prefix, "PATCH");
	assert_string_equal(p.title, "mm: add a");

	assert_int_equal(patchsubj_parse("[RFC PATCH net-next 0/5] cover", &p), 1);
	assert_int_equal(p.part, 0);
	assert_int_equal(p.total, 5);
	assert_int_equal(p.version, 1);
	assert_int_equal(p.rfc, 1);
	assert_string_equal(p.prefix, "RFC PATCH net-next");

	assert_int_equal(patchsubj_parse("[PATCH] mm: tidy x", &p), 1);
	assert_int_equal(p.part * 10 + p.total, 11);

	assert_int_equal(patchsubj_parse("[PATCH RESEND] mm: tidy x", &p), 1);
	assert_int_equal(p.resend, 1);
}

static void test_not_patches(void **state UNUSED)
{
	struct patchsubj p;

	assert_int_equal(patchsubj_parse("Re: [PATCH 2/3] mm: add b", &p), 0);
	assert_int_equal(p.is_reply, 1);
	assert_int_equal(p.part, 2);
	assert_int_equal(patchsubj_parse("RE: Re: [PATCH] x", &p), 0);
	assert_int_equal(patchsubj_parse("mm: a question", &p), 0);
	assert_int_equal(patchsubj_parse("[GIT PULL] mm", &p), 0);
	assert_int_equal(patchsubj_parse("[PATCH 4/3] too many", &p), 0);
	assert_int_equal(patchsubj_parse("[PATCH unclosed", &p), 0);
}

static void test_prefix_match(void **state UNUSED)
{
	const char *const rfc[] = { "RFC PATCH" }, *const patch[] = { "PATCH" };

	assert_int_equal(patchsubj_prefix_match("RFC PATCH net-next", rfc, 1), 1);
	assert_int_equal(patchsubj_prefix_match("PATCH", rfc, 1), 0);
	assert_int_equal(patchsubj_prefix_match("PATCHES", patch, 1), 0);
	assert_int_equal(patchsubj_prefix_match("RFC PATCH", NULL, 0), 1);
	assert_int_equal(patchsubj_prefix_match("PATCHSET", NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_not_patches),
		cmocka_unit_test(test_prefix_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
