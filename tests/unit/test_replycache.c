/*
 * Unit tests of the reply cache (server/http/replycache.c): a hit returns a
 * copy, the byte bound holds, the least recently used goes first, a
 * reply larger than the bound is not kept, a put replaces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "server/http/replycache.h"

#define E REPLY_CACHE_ENTRY_BYTES

/* key i: 64 hex chars */
static const char *key(int i)
{
	static char k[4][65];
	static int n;
	char *out = k[n++ % 4];

	snprintf(out, 65, "%064x", i);
	return out;
}

static void get_is(struct reply_cache *c, int k, const char *want)
{
	char *text;
	size_t len;
	int hit = reply_cache_get(c, key(k), &text, &len);

	if (!want) {
		assert_int_equal(hit, 0);
		assert_null(text);
		return;
	}
	assert_int_equal(hit, 1);
	assert_int_equal(len, strlen(want));
	assert_string_equal(text, want);
	free(text);
}

static void test_hit_miss_and_replace(void **state UNUSED)
{
	struct reply_cache *c = reply_cache_new(1000);
	struct reply_cache_stats st;

	get_is(c, 1, NULL);
	reply_cache_put(c, key(1), "{\"a\":1}", 7);
	get_is(c, 1, "{\"a\":1}");
	get_is(c, 2, NULL);
	reply_cache_put(c, key(1), "{}", 2);
	get_is(c, 1, "{}");
	reply_cache_stats(c, &st);
	assert_int_equal(st.hits, 2);
	assert_int_equal(st.misses, 2);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.bytes, 2 + E);
	assert_int_equal(st.evictions, 0);
	reply_cache_free(c);
}

static void test_bound_and_lru(void **state UNUSED)
{
	char big[301];
	struct reply_cache *c = reply_cache_new(3 * (300 + E));
	struct reply_cache_stats st;

	memset(big, 'x', 300);
	big[300] = '\0';
	for (int i = 1; i <= 3; i++)
		reply_cache_put(c, key(i), big, 300);
	get_is(c, 1, big); /* 1 is now the most recent: 2 is the oldest */
	reply_cache_put(c, key(4), big, 300);
	reply_cache_stats(c, &st);
	assert_int_equal(st.entries, 3);
	assert_int_equal(st.bytes, 3 * (300 + E));
	assert_int_equal(st.evictions, 1);
	get_is(c, 2, NULL);
	get_is(c, 1, big);
	get_is(c, 3, big);
	get_is(c, 4, big);
	/* 700 bytes: two older entries go, the bound holds */
	{
		char *t = calloc(701, 1);

		memset(t, 'y', 700);
		reply_cache_put(c, key(5), t, 700);
		reply_cache_stats(c, &st);
		assert_true(st.bytes <= st.max_bytes);
		assert_int_equal(st.entries, 2);
		assert_int_equal(st.bytes, 700 + E + 300 + E);
		get_is(c, 5, t);
		get_is(c, 4, big); /* the most recent of 1, 3, 4 stayed */
		get_is(c, 1, NULL);
		free(t);
	}
	/* larger than the whole bound: not kept, nothing given up for it */
	{
		char *t = calloc(3 * (300 + E), 1);

		reply_cache_put(c, key(6), t, 3 * (300 + E));
		get_is(c, 6, NULL);
		reply_cache_stats(c, &st);
		assert_int_equal(st.entries, 2);
		free(t);
	}
	reply_cache_free(c);
}

static void test_zero_keeps_nothing(void **state UNUSED)
{
	struct reply_cache *c = reply_cache_new(0);

	reply_cache_put(c, key(1), "{}", 2);
	get_is(c, 1, NULL);
	reply_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_miss_and_replace),
		cmocka_unit_test(test_bound_and_lru),
		cmocka_unit_test(test_zero_keeps_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
