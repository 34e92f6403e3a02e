/*
 * Unit tests of lib/sha256.c: the FIPS 180-2 test vectors ("abc", the
 * empty string, the two-block message) as lowercase hex, and bytes past a
 * NUL counted by length, not by string.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sha256.h"
#include "attr.h"

static void test_vectors(void **state UNUSED)
{
	static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char out[65];

	sha256_hex("abc", 3, out);
	assert_string_equal(out,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("", 0, out);
	assert_string_equal(out,
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex(two_blocks, strlen(two_blocks), out);
	assert_string_equal(out,
			    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_length_not_nul(void **state UNUSED)
{
	char a[65], b[65];

	sha256_hex("a\0b", 3, a);
	sha256_hex("a", 1, b);
	assert_int_equal(strlen(a), 64);
	assert_string_not_equal(a, b);
	assert_string_equal(b, "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_length_not_nul),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
