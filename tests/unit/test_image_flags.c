/*
 * Issue 23's flags: a culprit that touches only what the measured kernel
 * does not build (lib/report.h report_outside_build), and the host
 * fingerprint fields two sides of a comparison differ in (lib/hostfp.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "hostfp.h"
#include "report.h"

static int outside(const char *kconfig, char *areas, size_t size, size_t n, ...)
{
	struct report_file f[8];
	va_list ap;

	memset(f, 0, sizeof(f));
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		f[i].path = va_arg(ap, const char *);
	va_end(ap);
	return report_outside_build(f, n, kconfig, areas, size);
}

static void test_outside_build(void **state UNUSED)
{
	char a[128];

	assert_true(outside("x86_64-tiny-mm", a, sizeof(a), 2, "Documentation/mm/a.rst",
			    "tools/perf/x.c"));
	assert_string_equal(a, "Documentation/, tools/");
	assert_true(outside("x86_64-defconfig", a, sizeof(a), 2, "arch/arm64/mm/fault.c",
			    "arch/arm64/Kconfig"));
	assert_string_equal(a, "arch/arm64/");
	/* its own arch, a file elsewhere, or nothing known: not flagged */
	assert_false(outside("x86_64-defconfig", a, sizeof(a), 1, "arch/x86/mm/fault.c"));
	assert_false(outside("arm64-tiny-mm", a, sizeof(a), 1, "arch/arm64/mm/fault.c"));
	assert_true(outside("arm64-tiny-mm", a, sizeof(a), 1, "arch/x86/mm/fault.c"));
	assert_false(outside("x86_64-defconfig", a, sizeof(a), 2, "Documentation/x", "mm/mmap.c"));
	assert_false(outside("x86_64-defconfig", a, sizeof(a), 0));
	/* host mode: no arch can be left out */
	assert_false(outside("host", a, sizeof(a), 1, "arch/arm64/Kconfig"));
	assert_true(outside("host", a, sizeof(a), 1, "Documentation/x"));
}

static void test_hostfp_diff(void **state UNUSED)
{
	json_t *a = json_loads("[{\"cpu_model\": \"X\", \"microcode\": \"0x1\", \"cmdline\": null}]",
			       0, NULL);
	json_t *b = json_loads("[{\"cpu_model\": \"X\", \"microcode\": \"0x2\", \"cmdline\": null}]",
			       0, NULL);
	json_t *mix = json_loads("[{\"cpu_model\": \"X\", \"microcode\": \"0x1\"}, "
				 "{\"cpu_model\": \"X\", \"microcode\": \"0x2\"}]",
				 0, NULL);
	json_t *empty = json_array(), *d;
	char *s;

	d = hostfp_diff(a, a);
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	d = hostfp_diff(a, b);
	s = json_dumps(d, JSON_COMPACT);
	assert_string_equal(s, "[\"microcode\"]");
	free(s);
	json_decref(d);
	/* one side ran on both microcode levels: a mixture differs from either (an absent
	 * field is null on both) */
	d = hostfp_diff(a, mix);
	s = json_dumps(d, JSON_COMPACT);
	assert_string_equal(s, "[\"microcode\"]");
	free(s);
	json_decref(d);
	/* a field a newer worker added (numa_nodes): runs without it say nothing of it; once
	 * both sides carry it, a change of it is one */
	{
		json_t *old = json_loads("[{\"cpu_model\": \"X\", \"microcode\": \"0x1\"}]", 0,
					 NULL);
		json_t *new1 = json_loads("[{\"cpu_model\": \"X\", \"microcode\": \"0x1\", "
					  "\"numa_nodes\": \"0:0-1 1:2-3\"}]",
					  0, NULL);
		json_t *new2 = json_loads("[{\"cpu_model\": \"X\", \"microcode\": \"0x1\", "
					  "\"numa_nodes\": \"0:0-3\"}]",
					  0, NULL);

		d = hostfp_diff(old, new1);
		assert_int_equal(json_array_size(d), 0);
		json_decref(d);
		d = hostfp_diff(new1, new2);
		s = json_dumps(d, JSON_COMPACT);
		assert_string_equal(s, "[\"numa_nodes\"]");
		free(s);
		json_decref(d);
		s = hostfp_note(new1, new2);
		assert_string_equal(s, "base and head ran on hosts that differ in host NUMA nodes "
				       "(0:0-1 1:2-3 vs 0:0-3)");
		free(s);
		json_decref(old);
		json_decref(new1);
		json_decref(new2);
	}
	/* older runs without a fingerprint: nothing to say */
	d = hostfp_diff(a, empty);
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	d = hostfp_diff(NULL, b);
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	json_decref(a);
	json_decref(b);
	json_decref(mix);
	json_decref(empty);
}

static void test_hostfp_note(void **state UNUSED)
{
	json_t *a = json_loads("[{\"cpu_model\": \"X\", \"microcode\": \"0xf0\", "
			       "\"kernel_release\": \"6.1.0\"}]",
			       0, NULL);
	json_t *b = json_loads("[{\"cpu_model\": \"X\", \"microcode\": \"0xf4\", "
			       "\"kernel_release\": \"6.5.0\\nx\"}, "
			       "{\"cpu_model\": \"X\", \"microcode\": \"0xf0\", "
			       "\"kernel_release\": null}]",
			       0, NULL);
	char *s;

	assert_null(hostfp_note(a, a));
	assert_null(hostfp_note(a, NULL));
	s = hostfp_note(a, b);
	/* sorted fields, both sides' values (a mixture joined by '/'), control chars as spaces */
	assert_string_equal(s, "base and head ran on hosts that differ in host kernel (6.1.0 vs "
			       "unknown/6.5.0 x), microcode (0xf0 vs 0xf0/0xf4)");
	free(s);
	/* a box whose KVM stopped working: its runs went from kvm to tcg (worker/fingerprint.h);
	 * runs from before the worker sent accel say nothing of it */
	{
		json_t *kvm = json_loads("[{\"cpu_model\": \"X\", \"accel\": \"kvm\"}]", 0, NULL);
		json_t *tcg = json_loads("[{\"cpu_model\": \"X\", \"accel\": \"tcg\"}]", 0, NULL);
		json_t *old = json_loads("[{\"cpu_model\": \"X\"}]", 0, NULL);
		json_t *d = hostfp_diff(kvm, tcg);

		s = json_dumps(d, JSON_COMPACT);
		assert_string_equal(s, "[\"accel\"]");
		free(s);
		json_decref(d);
		s = hostfp_note(kvm, tcg);
		assert_string_equal(s, "base and head ran on hosts that differ in accelerator "
				       "(kvm vs tcg)");
		free(s);
		assert_null(hostfp_note(old, tcg));
		assert_null(hostfp_note(kvm, old));
		json_decref(kvm);
		json_decref(tcg);
		json_decref(old);
	}
	json_decref(a);
	json_decref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outside_build),
		cmocka_unit_test(test_hostfp_diff),
		cmocka_unit_test(test_hostfp_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
