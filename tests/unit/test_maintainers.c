/*
 * Unit tests of lib/maintainers.c on an excerpt of a real MAINTAINERS (Debian's
 * linux-source-6.1, the demo tree's: tests/fixtures/maintainers/): the F:/N:/X:
 * patterns of named entries, as an inbox's filter matches a series' paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maintainers.h"
#include "attr.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(s);
	*len = fread(s, 1, 1 << 20, f);
	fclose(f);
	return s;
}

static void test_memory_management(void **state UNUSED)
{
	size_t len;
	char *text = slurp("tests/fixtures/maintainers/MAINTAINERS", &len);
	const char *names[] = { "memory management", "SLAB ALLOCATOR", "NO SUCH ENTRY" };
	struct maintainers m;

	assert_int_equal(maintainers_read(text, len, names, 3, &m), 1);
	assert_int_equal(m.found, 2);
	assert_int_equal(m.nf, 9 + 2);
	assert_int_equal(m.nx, 0);
	assert_string_equal(m.f[0], "include/linux/gfp.h");
	assert_string_equal(m.f[7], "mm/");
	assert_string_equal(m.f[10], "mm/sl?b*");
	/* F: mm/ is everything below mm/ */
	assert_true(maintainers_match(&m, "mm/page_alloc.c"));
	assert_true(maintainers_match(&m, "mm/damon/core.c"));
	assert_true(maintainers_match(&m, "include/linux/mm.h"));
	assert_true(maintainers_match(&m, "tools/testing/selftests/vm/gup_test.c"));
	/* SLAB's wildcards: one component */
	assert_true(maintainers_match(&m, "include/linux/slab.h"));
	assert_true(maintainers_match(&m, "include/linux/slub_def.h"));
	assert_false(maintainers_match(&m, "include/linux/mman.h"));
	assert_false(maintainers_match(&m, "mmx/a.c"));
	assert_false(maintainers_match(&m, "Documentation/mm/index.rst"));
	assert_false(maintainers_match(&m, "drivers/base/memory.c"));
	maintainers_release(&m);
	free(text);
}

static void test_exclusions_and_globs(void **state UNUSED)
{
	size_t len;
	char *text = slurp("tests/fixtures/maintainers/MAINTAINERS", &len);
	const char *abi[] = { "ABI/API" }, *ab[] = { "AB8500 BATTERY AND CHARGER DRIVERS" };
	struct maintainers m;

	assert_int_equal(maintainers_read(text, len, abi, 1, &m), 0);
	assert_int_equal(m.nf, 2);
	assert_int_equal(m.nx, 2);
	assert_string_equal(m.x[1], "arch/*/include/uapi/");
	assert_true(maintainers_match(&m, "include/linux/syscalls.h"));
	assert_false(maintainers_match(&m, "include/linux/syscalls.c"));
	maintainers_release(&m);

	assert_int_equal(maintainers_read(text, len, ab, 1, &m), 0);
	assert_true(maintainers_match(&m, "drivers/power/supply/ab8500_fg.c"));
	assert_false(maintainers_match(&m, "drivers/power/supply/sub/ab8500_fg.c"));
	maintainers_release(&m);
	free(text);
}

/* the prose before the list indents its field examples: no entry there */
static void test_prose_is_no_entry(void **state UNUSED)
{
	const char text[] = "Descriptions of section entries and preferred order\n"
			    "---------------------------------------------------\n\n"
			    "\tM: *Mail* patches to: FullName <address@domain>\n"
			    "\tF: *Files* and directories wildcard patterns\n\n"
			    "X AND Y\nF:\tx/\nX:\tx/y/\n";
	const char *names[] = { "Descriptions of section entries and preferred order", "x and y" };
	struct maintainers m;

	assert_int_equal(maintainers_read(text, sizeof(text) - 1, names, 2, &m), 1);
	assert_int_equal(m.nf, 1);
	assert_true(maintainers_match(&m, "x/a.c"));
	assert_false(maintainers_match(&m, "x/y/b.c"));
	assert_false(maintainers_match(&m, "xa.c"));
	maintainers_release(&m);
}

/* each of in[] (NULL-ended) is m's, none of out[] is */
static void expect_paths(const struct maintainers *m, const char *const *in, const char *const *out)
{
	for (; *in; in++)
		if (!maintainers_match(m, *in))
			fail_msg("%s should match", *in);
	for (; *out; out++)
		if (maintainers_match(m, *out))
			fail_msg("%s should not match", *out);
}

/*
 * N: lines (regular expressions, searched for in the path) of two real entries:
 * one with F: beside them, one with only N: (the example MAINTAINERS gives).
 */
static void test_regex_entries(void **state UNUSED)
{
	size_t len;
	char *text = slurp("tests/fixtures/maintainers/MAINTAINERS", &len);
	const char *sunxi[] = { "ARM/Allwinner sunXi SoC support" };
	const char *tegra[] = { "tegra architecture support" };
	/* the first by F:; the next three by N: sun[x456789]i, allwinner, sun50i alone */
	const char *sunxi_in[] = { "arch/arm64/boot/dts/allwinner/sun50i-a64.dtsi",
				   "drivers/gpu/drm/sun4i/sun4i_drv.c",
				   "drivers/phy/allwinner/phy-sun4i-usb.c",
				   "drivers/iommu/sun50i-iommu.c", NULL };
	const char *sunxi_out[] = { "drivers/gpu/drm/sun3i/x.c", "mm/page_alloc.c", NULL };
	/* [^a-z]tegra: not integrator */
	const char *tegra_in[] = { "drivers/clk/tegra/clk-tegra210.c",
				   "drivers/i2c/busses/i2c-tegra.c",
				   "arch/arm64/boot/dts/nvidia/tegra194.dtsi", NULL };
	const char *tegra_out[] = { "arch/arm/mach-integrator/core.c", NULL };
	struct maintainers m;

	assert_int_equal(maintainers_read(text, len, sunxi, 1, &m), 0);
	assert_int_equal(m.nf, 5);
	assert_int_equal(m.nn, 3);
	expect_paths(&m, sunxi_in, sunxi_out);
	maintainers_release(&m);

	assert_int_equal(maintainers_read(text, len, tegra, 1, &m), 0);
	assert_int_equal(m.nf, 0);
	assert_int_equal(m.nn, 1);
	expect_paths(&m, tegra_in, tegra_out);
	maintainers_release(&m);
	free(text);
}

/* an N: that is no regular expression is left out; X: still takes paths out of N: */
static void test_regex_bad_and_excluded(void **state UNUSED)
{
	const char text[] = "FOO\nN:\tfoo(\nN:\tbar\nX:\tdrivers/bar/old/\n";
	const char *names[] = { "foo" }, *in[] = { "drivers/bar/new.c", NULL };
	const char *out[] = { "drivers/bar/old/a.c", "drivers/foo(/a.c", NULL };
	struct maintainers m;

	assert_int_equal(maintainers_read(text, sizeof(text) - 1, names, 1, &m), 0);
	assert_int_equal(m.nn, 1);
	expect_paths(&m, in, out);
	maintainers_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_management),
		cmocka_unit_test(test_exclusions_and_globs),
		cmocka_unit_test(test_prose_is_no_entry),
		cmocka_unit_test(test_regex_entries),
		cmocka_unit_test(test_regex_bad_and_excluded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
