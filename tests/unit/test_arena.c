/*
 * Unit tests of lib/arena.c: 16-byte alignment of every allocation,
 * zeroing, the string helpers, growth past one block and allocations larger
 * than a block, the byte count, and reset (everything handed out again from
 * the kept block).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "arena.h"
#include "attr.h"

static int aligned16(const void *p)
{
	return ((uintptr_t)p & 15) == 0;
}

static void test_alignment(void **state UNUSED)
{
	struct arena *a = arena_new();
	static const size_t sizes[] = { 1, 3, 7, 15, 16, 17, 31, 33, 100, 1 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *p = arena_alloc(a, sizes[i]);

		assert_non_null(p);
		assert_true(aligned16(p));
		memset(p, 0xa5, sizes[i]);
	}
	/* a zero-byte allocation is aligned too */
	assert_true(aligned16(arena_alloc(a, 0)));
	assert_true(aligned16(arena_strdup(a, "x")));
	assert_true(aligned16(arena_alloc(a, 16)));
	arena_free(a);
}

static void test_distinct_and_used(void **state UNUSED)
{
	struct arena *a = arena_new();
	char *p = arena_alloc(a, 10), *q = arena_alloc(a, 10);

	/* the second starts at the next 16-byte boundary after the first */
	assert_true(q >= p + 10);
	assert_int_equal(q - p, 16);
	assert_int_equal(arena_used(a), 20);
	memset(p, 'p', 10);
	memset(q, 'q', 10);
	assert_int_equal(p[9], 'p');
	assert_int_equal(q[0], 'q');
	arena_free(a);
}

static void test_zalloc_and_strings(void **state UNUSED)
{
	struct arena *a = arena_new();
	unsigned char *z;
	char *s;

	/* dirty the block, reset, then zalloc over the same bytes */
	memset(arena_alloc(a, 256), 0xff, 256);
	arena_reset(a);
	z = arena_zalloc(a, 256);
	for (int i = 0; i < 256; i++)
		assert_int_equal(z[i], 0);
	s = arena_strdup(a, "kernel");
	assert_string_equal(s, "kernel");
	s = arena_strndup(a, "x86_64-rhel", 6);
	assert_string_equal(s, "x86_64");
	/* n past the end of the string: only the string is copied */
	s = arena_strndup(a, "ab", 100);
	assert_string_equal(s, "ab");
	s = arena_strfmt(a, "%s/%d/%.2f", "run", 7, 1.5);
	assert_string_equal(s, "run/7/1.50");
	s = arena_strfmt(a, "%s", "");
	assert_string_equal(s, "");
	arena_free(a);
}

static void test_growth_and_big(void **state UNUSED)
{
	struct arena *a = arena_new();
	char *small[2000];
	char *big;
	size_t want = 0;

	/* 2000 x 100 bytes: well past one 8 KiB block, each kept intact */
	for (int i = 0; i < 2000; i++) {
		small[i] = arena_alloc(a, 100);
		assert_true(aligned16(small[i]));
		memset(small[i], i & 0xff, 100);
		want += 100;
	}
	/* larger than a block: its own block */
	big = arena_alloc(a, 1 << 20);
	assert_true(aligned16(big));
	memset(big, 0x5a, 1 << 20);
	want += 1 << 20;
	/* small allocations continue after it */
	small[0] = arena_alloc(a, 100);
	memset(small[0], 0, 100);
	want += 100;
	for (int i = 1; i < 2000; i++) {
		assert_int_equal((unsigned char)small[i][0], i & 0xff);
		assert_int_equal((unsigned char)small[i][99], i & 0xff);
	}
	assert_int_equal((unsigned char)big[0], 0x5a);
	assert_int_equal((unsigned char)big[(1 << 20) - 1], 0x5a);
	assert_int_equal(arena_used(a), want);
	arena_free(a);
}

static void test_reset(void **state UNUSED)
{
	struct arena *a = arena_new();
	char *first, *again;

	first = arena_alloc(a, 32);
	for (int i = 0; i < 1000; i++)
		(void)arena_alloc(a, 200);
	(void)arena_alloc(a, 100000);
	assert_int_equal(arena_used(a), 32 + 1000 * 200 + 100000);
	arena_reset(a);
	assert_int_equal(arena_used(a), 0);
	/* the kept block is the first one: allocation starts over at its start */
	again = arena_alloc(a, 32);
	assert_ptr_equal(again, first);
	assert_int_equal(arena_used(a), 32);
	/* and the arena grows again as before */
	for (int i = 0; i < 1000; i++)
		memset(arena_alloc(a, 200), 1, 200);
	arena_reset(a);
	arena_reset(a);
	assert_int_equal(arena_used(a), 0);
	arena_free(a);
	/* a big allocation made while the first block is the only one, then reset */
	a = arena_new();
	first = arena_alloc(a, 16);
	(void)arena_alloc(a, 50000);
	arena_reset(a);
	assert_ptr_equal(arena_alloc(a, 16), first);
	arena_free(a);
	arena_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_distinct_and_used),
		cmocka_unit_test(test_zalloc_and_strings),
		cmocka_unit_test(test_growth_and_big),
		cmocka_unit_test(test_reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
