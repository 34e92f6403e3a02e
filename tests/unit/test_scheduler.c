#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "attr.h"
#include "server/track/scheduler.h"

/*
 * scheduler_plan(): which commits of a push a plan tests (server/track/scheduler.h).
 * Ranges are made here: commit i is "cI", touching the files given per commit.
 */

#define MAX_N 64

static const char *names[MAX_N];
static char name_buf[MAX_N][8];
static struct sched_commit commits[MAX_N];

/* n commits; files[i] (NULL-terminated lists, or NULL: "README") */
static void range(size_t n, const char *const *const *files)
{
	static const char *const readme[] = { "README", NULL };

	for (size_t i = 0; i < n; i++) {
		const char *const *f = files && files[i] ? files[i] : readme;
		size_t nf = 0;

		while (f[nf])
			nf++;
		snprintf(name_buf[i], sizeof(name_buf[i]), "c%zu", i);
		names[i] = name_buf[i];
		commits[i] = (struct sched_commit){ names[i], f, nf };
	}
}

/* the picks as "c1:every c3:head" */
static const char *str(const struct sched_pick *p, size_t n)
{
	static char out[2][1024];
	static int k;
	char *o = out[k ^= 1];

	o[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(o + strlen(o), sizeof(out[0]) - strlen(o), "%sc%zu:%s", i ? " " : "",
			 p[i].index, p[i].reason);
	return o;
}

static void check(const struct sched_rule *r, size_t n, int first, const char *tested,
		  const char *skipped)
{
	struct sched_result res;

	scheduler_plan(r, commits, n, first, &res);
	assert_string_equal(str(res.tested, res.nr_tested), tested);
	assert_string_equal(str(res.skipped, res.nr_skipped), skipped);
	scheduler_result_release(&res);
}

static void test_first_look_is_the_baseline(void **state UNUSED)
{
	struct sched_rule r = { .heads = 1, .every = 1, .max_per_push = 50 };

	range(5, NULL);
	check(&r, 5, 1, "c4:baseline", "");
	check(&r, 0, 1, "", "");
}

static void test_heads_only(void **state UNUSED)
{
	struct sched_rule r = { .heads = 1, .max_per_push = 50 };

	range(4, NULL);
	check(&r, 4, 0, "c3:head", "");
	check(&r, 1, 0, "c0:head", "");
}

static void test_every_nth_and_the_head(void **state UNUSED)
{
	struct sched_rule r = { .heads = 1, .every = 2, .max_per_push = 50 };

	range(7, NULL);
	/* 2nd, 4th, 6th from the oldest, and the head (7th) */
	check(&r, 7, 0, "c1:every c3:every c5:every c6:head", "");
	/* the head that is an Nth is one job, named head */
	check(&r, 4, 0, "c1:every c3:head", "");
	r.heads = 0;
	check(&r, 7, 0, "c1:every c3:every c5:every", "");
	r.every = 1;
	check(&r, 3, 0, "c0:every c1:every c2:every", "");
}

static void test_paths_prefix_and_glob(void **state UNUSED)
{
	static const char *const fs[] = { "fs/a.c", NULL };
	static const char *const mm[] = { "mm/mmap.c", NULL };
	static const char *const hdr[] = { "include/linux/mm_types.h", NULL };
	static const char *const mmx[] = { "mmx/a.c", NULL };
	static const char *const both[] = { "fs/b.c", "mm/slub.c", NULL };
	static const char *const *const files[] = { fs, mm, hdr, mmx, both, fs };
	static const char *const paths[] = { "mm", "include/linux/mm*.h" };
	struct sched_rule r = {
		.heads = 1, .every = 1, .max_per_push = 50, .paths = paths, .nr_paths = 2
	};

	range(6, files);
	/* "mm" is a prefix on a '/' boundary: mmx/ does not match; the head carries the push */
	check(&r, 6, 0, "c1:every c2:every c4:every c5:head", "");
	assert_int_equal(scheduler_touches(&r, &commits[3]), 0);
	assert_int_equal(scheduler_touches(&r, &commits[4]), 1);
	/* a push touching none: nothing, the head skipped for the paths */
	r.every = 0;
	check(&r, 1, 0, "", "c0:paths");
	{
		static const char *const *const only_fs[] = { fs, mmx, fs };

		range(3, only_fs);
		check(&r, 3, 0, "", "c2:paths");
	}
}

static void test_max_per_push_keeps_the_head_and_spreads(void **state UNUSED)
{
	struct sched_rule r = { .heads = 1, .every = 1, .max_per_push = 3 };

	range(10, NULL);
	/* 10 picked, 3 kept: the head and the last of two halves of c0..c8 */
	check(&r, 10, 0, "c3:every c8:every c9:head",
	      "c0:max_per_push c1:max_per_push c2:max_per_push c4:max_per_push c5:max_per_push "
	      "c6:max_per_push c7:max_per_push");
	r.max_per_push = 1;
	check(&r, 4, 0, "c3:head", "c0:max_per_push c1:max_per_push c2:max_per_push");
	/* without heads the cap spreads over all */
	r.heads = 0;
	r.max_per_push = 2;
	check(&r, 4, 0, "c1:every c3:every", "c0:max_per_push c2:max_per_push");
	/* at the cap: nothing skipped */
	r.max_per_push = 4;
	check(&r, 4, 0, "c0:every c1:every c2:every c3:every", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_look_is_the_baseline),
		cmocka_unit_test(test_heads_only),
		cmocka_unit_test(test_every_nth_and_the_head),
		cmocka_unit_test(test_paths_prefix_and_glob),
		cmocka_unit_test(test_max_per_push_keeps_the_head_and_spreads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
