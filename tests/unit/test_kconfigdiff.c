/*
 * Unit tests of lib/kconfigdiff.c: two real .config files (tests/fixtures/
 * kconfig/README.md) give, byte for byte, what the kernel's own
 * scripts/diffconfig printed for them; small texts pin each rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kconfigdiff.h"
#include "attr.h"

/* tests run from the top of the tree (make check-unit) */
#define FIXDIR "tests/fixtures/kconfig/"

static char *slurp(const char *path, size_t *len)
{
	struct buf b = BUF_INIT(0);

	assert_int_equal(buf_read_file(&b, path), 0);
	return buf_detach(&b, len);
}

static void parse_file(struct kconfig *k, const char *name)
{
	size_t len;
	char *text = slurp(name, &len);

	kconfig_parse(k, text, len);
	free(text);
}

static void test_real_configs_match_diffconfig(void **state UNUSED)
{
	struct kconfig a = KCONFIG_INIT, b = KCONFIG_INIT;
	struct kconfigdiff d = KCONFIGDIFF_INIT;
	struct buf out = BUF_INIT(0);
	size_t len;
	char *want = slurp(FIXDIR "x86_64-tiny-mm-preempt-thp.diffconfig", &len);

	parse_file(&a, FIXDIR "x86_64-tiny-mm.config");
	parse_file(&b, FIXDIR "x86_64-tiny-mm-preempt-thp.config");
	/* option lines of each file: grep -c '^CONFIG_\|^# CONFIG_.* is not set' */
	assert_int_equal(a.nr, 1100);
	assert_int_equal(b.nr, 1107);
	assert_string_equal(kconfig_get(&a, "PREEMPT_NONE"), "y");
	assert_string_equal(kconfig_get(&a, "PREEMPT"), "n");
	assert_string_equal(kconfig_get(&a, "LOG_BUF_SHIFT"), "17");
	assert_string_equal(kconfig_get(&a, "CC_VERSION_TEXT"),
			    "\"gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0\"");
	assert_null(kconfig_get(&a, "PREEMPT_RCU"));
	assert_null(kconfig_get(&a, "CONFIG_PREEMPT"));

	kconfigdiff_compute(&d, &a, &b);
	assert_int_equal(d.nr_removed, 6);
	assert_int_equal(d.nr_changed, 9);
	assert_int_equal(d.nr_added, 13);
	assert_int_equal(d.nr, 28);
	assert_int_equal(kconfigdiff_format(&d, &out), 0);
	assert_string_equal(out.data, want);

	/* a few lines spelled out: first removed, a changed string, a changed number, last added */
	assert_int_equal(d.entries[0].op, KCONFIGDIFF_REMOVED);
	assert_string_equal(d.entries[0].name, "INLINE_READ_UNLOCK");
	assert_null(d.entries[0].new_value);
	buf_reset(&out);
	assert_int_equal(kconfigdiff_format_entry(&d.entries[6], &out), 0);
	assert_string_equal(out.data,
			    " CC_VERSION_TEXT \"gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0\" -> "
			    "\"gcc (Debian 12.2.0-14+deb12u1) 12.2.0\"");
	buf_reset(&out);
	assert_int_equal(kconfigdiff_format_entry(&d.entries[8], &out), 0);
	assert_string_equal(out.data, " HZ 250 -> 1000");
	buf_reset(&out);
	assert_int_equal(kconfigdiff_format_entry(&d.entries[27], &out), 0);
	assert_string_equal(out.data, "+XARRAY_MULTI y");

	/* the reverse direction swaps - and +, and old and new */
	kconfigdiff_release(&d);
	kconfigdiff_compute(&d, &b, &a);
	assert_int_equal(d.nr_removed, 13);
	assert_int_equal(d.nr_changed, 9);
	assert_int_equal(d.nr_added, 6);
	buf_reset(&out);
	assert_int_equal(kconfigdiff_format_entry(&d.entries[13 + 2], &out), 0);
	assert_string_equal(out.data, " HZ 1000 -> 250");

	/* a file against itself: no difference */
	kconfigdiff_release(&d);
	kconfigdiff_compute(&d, &a, &a);
	assert_int_equal(d.nr, 0);
	buf_reset(&out);
	assert_int_equal(kconfigdiff_format(&d, &out), 0);
	assert_string_equal(out.data, "");

	buf_release(&out);
	kconfigdiff_release(&d);
	kconfig_release(&a);
	kconfig_release(&b);
	free(want);
}

static char *diff_text(const char *base, const char *head)
{
	struct kconfig a = KCONFIG_INIT, b = KCONFIG_INIT;
	struct kconfigdiff d = KCONFIGDIFF_INIT;
	struct buf out = BUF_INIT(0);

	kconfig_parse(&a, base, strlen(base));
	kconfig_parse(&b, head, strlen(head));
	kconfigdiff_compute(&d, &a, &b);
	assert_int_equal(kconfigdiff_format(&d, &out), 0);
	kconfigdiff_release(&d);
	kconfig_release(&a);
	kconfig_release(&b);
	return buf_detach(&out, NULL);
}

static void test_rules(void **state UNUSED)
{
	static const char base[] = "#\n"
				   "# Automatically generated file; DO NOT EDIT.\n"
				   "# Linux/x86_64 6.1.192 Kernel Configuration\n"
				   "#\n"
				   "CONFIG_LOCALVERSION=\"\"\n"
				   "# CONFIG_PREEMPT is not set\n"
				   "CONFIG_HZ=250\n"
				   "CONFIG_SLUB=y\r\n"
				   "# CONFIG_KASAN is not set\n"
				   "CONFIG_NR_CPUS=8\n"
				   "#\n"
				   "# Memory Management options\n"
				   "#\n"
				   "CONFIG_NOEQUALS\n"
				   "CONFIG_NR_CPUS=64\n" /* the later definition wins */
				   "CONFIG_ZSWAP=m";	 /* last line without '\n' */
	static const char head[] = "CONFIG_ZSWAP=y\n"
				   "CONFIG_LOCALVERSION=\"-rt\"\n"
				   "CONFIG_PREEMPT=y\n"
				   "CONFIG_HZ=250\n"
				   "CONFIG_SLUB=y\n"
				   "CONFIG_NR_CPUS=64\n"
				   "CONFIG_KFENCE=y\n"
				   "# CONFIG_DEBUG_VM is not set\n";
	struct kconfig k = KCONFIG_INIT;
	char *t;

	kconfig_parse(&k, base, strlen(base));
	assert_int_equal(k.nr, 7);
	assert_string_equal(kconfig_get(&k, "NR_CPUS"), "64");
	assert_int_equal(k.opts[3].line, 15); /* NR_CPUS, sorted 4th, from line 15 */
	assert_string_equal(kconfig_get(&k, "SLUB"), "y");
	assert_string_equal(kconfig_get(&k, "ZSWAP"), "m");
	assert_string_equal(kconfig_get(&k, "KASAN"), "n");
	assert_null(kconfig_get(&k, "NOEQUALS"));
	kconfig_release(&k);

	t = diff_text(base, head);
	assert_string_equal(t, "-KASAN n\n"
			       " LOCALVERSION \"\" -> \"-rt\"\n"
			       " PREEMPT n -> y\n"
			       " ZSWAP m -> y\n"
			       "+DEBUG_VM n\n"
			       "+KFENCE y\n");
	free(t);

	/* not a .config at all: no options, and no difference between two such */
	kconfig_parse(&k, "hello\n\n# comment\n", 18);
	assert_int_equal(k.nr, 0);
	kconfig_release(&k);
	t = diff_text("", "CONFIG_A=y\n");
	assert_string_equal(t, "+A y\n");
	free(t);
}

static void test_cap(void **state UNUSED)
{
	struct kconfigdiff_entry e = { KCONFIGDIFF_CHANGED, "LOG_BUF_SHIFT", "17", "18" };
	struct buf small = BUF_INIT(8);

	assert_int_equal(kconfigdiff_format_entry(&e, &small), -1);
	buf_release(&small);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_configs_match_diffconfig),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
