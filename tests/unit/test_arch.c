/*
 * Unit tests of lib/arch.c: the names uname -m, the kernel and Debian give
 * the two architectures, and the kconfig names the workers build
 * (worker/kconfig/, the demo's, LKP's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch.h"
#include "attr.h"

static void test_normalize(void **state UNUSED)
{
	assert_string_equal(arch_normalize("x86_64"), "x86_64");
	assert_string_equal(arch_normalize("amd64"), "x86_64");
	assert_string_equal(arch_normalize("x86-64"), "x86_64");
	assert_string_equal(arch_normalize("aarch64"), "aarch64");
	assert_string_equal(arch_normalize("arm64"), "aarch64");
	assert_null(arch_normalize("x86"));
	assert_null(arch_normalize("i686"));
	assert_null(arch_normalize("arm"));
	assert_null(arch_normalize("ARM64"));
	assert_null(arch_normalize("arm64 "));
	assert_null(arch_normalize(""));
	assert_null(arch_normalize(NULL));
}

static void test_of_kconfig(void **state UNUSED)
{
	assert_string_equal(arch_of_kconfig("x86_64-tiny-mm"), "x86_64");
	assert_string_equal(arch_of_kconfig("x86_64-defconfig"), "x86_64");
	assert_string_equal(arch_of_kconfig("x86_64-rhel-8.3"), "x86_64");
	assert_string_equal(arch_of_kconfig("arm64-tiny-mm"), "aarch64");
	assert_string_equal(arch_of_kconfig("arm64-defconfig"), "aarch64");
	assert_string_equal(arch_of_kconfig("aarch64-defconfig"), "aarch64");
	assert_string_equal(arch_of_kconfig("x86_64"), "x86_64");
	assert_string_equal(arch_of_kconfig("arm64"), "aarch64");
	/* the host kernel, no architecture word, a prefix that is not a word */
	assert_null(arch_of_kconfig("host"));
	assert_null(arch_of_kconfig("tiny-mm"));
	assert_null(arch_of_kconfig("x86_64tiny"));
	assert_null(arch_of_kconfig("arm64_defconfig"));
	assert_null(arch_of_kconfig("i386-defconfig"));
	assert_null(arch_of_kconfig(""));
	assert_null(arch_of_kconfig("-x86_64"));
	assert_null(arch_of_kconfig(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_of_kconfig),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
