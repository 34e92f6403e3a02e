/*
 * Unit tests of lib/names.c on real values: shas from the demo tree and
 * linux.git, ref names git check-ref-format accepts and refuses, and the
 * testcase / kconfig / compiler / tbox_group names the workers and LKP use.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "names.h"
#include "attr.h"

static void test_full_sha(void **state UNUSED)
{
	/* v6.1 of linux.git */
	assert_true(names_full_sha("830b3c68c1fb1e9176028d02ef86f3cf76aa2476"));
	assert_true(names_full_sha("0000000000000000000000000000000000000000"));
	/* uppercase, 39 and 41 digits, a non-hex letter, empty, NULL */
	assert_false(names_full_sha("830B3C68C1FB1E9176028D02EF86F3CF76AA2476"));
	assert_false(names_full_sha("830b3c68c1fb1e9176028d02ef86f3cf76aa247"));
	assert_false(names_full_sha("830b3c68c1fb1e9176028d02ef86f3cf76aa24760"));
	assert_false(names_full_sha("830b3c68c1fb1e9176028d02ef86f3cf76aa247g"));
	assert_false(names_full_sha(""));
	assert_false(names_full_sha(NULL));
	assert_false(names_full_sha("-830b3c68c1fb1e9176028d02ef86f3cf76aa247"));
}

static void test_abbrev_sha(void **state UNUSED)
{
	assert_true(names_abbrev_sha("830b3c6")); /* git's default abbreviation */
	assert_true(names_abbrev_sha("830b3c68c1fb"));
	assert_true(names_abbrev_sha("830B3C68C1FB")); /* typed in capitals */
	assert_true(names_abbrev_sha("830b3c68c1fb1e9176028d02ef86f3cf76aa2476"));
	assert_false(names_abbrev_sha("830b3c")); /* 6: too short to be unambiguous */
	assert_false(names_abbrev_sha("830b3c68c1fb1e9176028d02ef86f3cf76aa24760"));
	assert_false(names_abbrev_sha("v6.1"));
	assert_false(names_abbrev_sha("830b3c6 "));
	assert_false(names_abbrev_sha(""));
	assert_false(names_abbrev_sha(NULL));
}

static void test_ref(void **state UNUSED)
{
	static const char *const good[] = {
		"master",
		"v6.1",
		"v6.1-rc3",
		"refs/heads/master",
		"origin/for-next",
		"regtrack-test-broken",
		"mm-everything-2024-01-02-03-04",
		"users/a.b/x_y",
		"830b3c68c1fb1e9176028d02ef86f3cf76aa2476",
		"830b3c6",
		"a",
		"x.lock2",
		"HEAD",
		"feature+thing",
		"@x",
		"a@b",
	};
	static const char *const bad[] = {
		"",
		"-master",
		"--upload-pack=touch /tmp/x",
		"/master",
		"master/",
		"a//b",
		"a..b",
		"..",
		".",
		"a/.hidden",
		".hidden",
		"master.lock",
		"a/b.lock/c",
		"master.",
		"HEAD~1",
		"HEAD^",
		"a:b",
		"a?b",
		"a*b",
		"a[b",
		"a\\b",
		"a b",
		"a\tb",
		"a\nb",
		"a\x7f"
		"b",
		"@",
		"master@{1}",
		NULL,
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!names_ref(good[i]))
			fail_msg("'%s' refused as a ref name", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (names_ref(bad[i]))
			fail_msg("'%s' accepted as a ref name", bad[i] ? bad[i] : "(null)");
	/* length: 255 bytes is the limit */
	{
		char s[300];

		memset(s, 'a', sizeof(s));
		s[NAMES_REF_MAX] = '\0';
		assert_true(names_ref(s));
		s[NAMES_REF_MAX] = 'a';
		s[NAMES_REF_MAX + 1] = '\0';
		assert_false(names_ref(s));
	}
}

static void test_plain(void **state UNUSED)
{
	static const char *const good[] = {
		"small-allocs",
		"will-it-scale",
		"page-fault",
		"proc-vs-map",
		"hackbench",
		"x86_64-tiny-mm",
		"arm64-defconfig",
		"x86_64-rhel-8.3",
		"gcc",
		"gcc-12",
		"clang-15",
		"lkp-skl-d01",
		"vm-snb",
		"_private",
		"c++",
		"9p",
		"host",
	};
	static const char *const bad[] = {
		"",	  "-rf", "--help", ".",	  "..",	  ".hidden",	 "+x",	"a/b",
		"../etc", "a b", "a;b",	   "a$b", "a\nb", "caf\xc3\xa9", "a:b", NULL,
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!names_plain(good[i], NAMES_PLAIN_MAX))
			fail_msg("'%s' refused as a name", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (names_plain(bad[i], NAMES_PLAIN_MAX))
			fail_msg("'%s' accepted as a name", bad[i] ? bad[i] : "(null)");
	/* the maximum length is the caller's */
	assert_true(names_plain("gcc-12", 6));
	assert_false(names_plain("gcc-12", 5));
	{
		char s[NAMES_PLAIN_MAX + 2];

		memset(s, 'k', sizeof(s));
		s[NAMES_PLAIN_MAX] = '\0';
		assert_true(names_plain(s, NAMES_PLAIN_MAX));
		s[NAMES_PLAIN_MAX] = 'k';
		s[NAMES_PLAIN_MAX + 1] = '\0';
		assert_false(names_plain(s, NAMES_PLAIN_MAX));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_sha),
		cmocka_unit_test(test_abbrev_sha),
		cmocka_unit_test(test_ref),
		cmocka_unit_test(test_plain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
