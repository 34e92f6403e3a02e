/*
 * Unit tests of lib/profile.c and lib/profdiff.c: monitors normalized as
 * setups.monitors holds them, folded lines checked with the line and the
 * reason, and the profile diff's numbers for known inputs (children and
 * self percentages counted by hand below, the Mann-Whitney p of 5 vs 5
 * runs that do not overlap: 2 / C(10, 5) = 2/252), and the result
 * document's monitors and profile fields (lib/resultdoc.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "resultdoc.h"

static void monitors_normalized(void **state)
{
	char m[MONITORS_TEXT_MAX];
	struct err e;
	json_t *v;

	(void)state;
	v = json_pack("[s,s,s]", "perf-stat", "perf-profile", "perf-stat");
	assert_int_equal(monitors_from_json(v, "monitors", m, &e), 0);
	assert_string_equal(m, "perf-profile,perf-stat");
	json_decref(v);
	v = json_array();
	assert_int_equal(monitors_from_json(v, "monitors", m, &e), 0);
	assert_string_equal(m, "");
	json_decref(v);
	assert_int_equal(monitors_from_json(NULL, "monitors", m, &e), 0);
	assert_string_equal(m, "");
	v = json_pack("[s,s]", "perf-stat", "perf-trace");
	assert_int_equal(monitors_from_json(v, "monitors", m, &e), -1);
	assert_int_equal(e.status, 400);
	assert_string_equal(e.detail, "monitors[1]");
	json_decref(v);
	v = json_string("perf-stat");
	assert_int_equal(monitors_from_json(v, "testcases[2].monitors", m, &e), -1);
	assert_string_equal(e.detail, "testcases[2].monitors");
	json_decref(v);

	assert_int_equal(monitors_from_text("perf-stat,perf-profile", "monitors", m, &e), 0);
	assert_string_equal(m, "perf-profile,perf-stat");
	assert_int_equal(monitors_from_text("", "monitors", m, &e), 0);
	assert_string_equal(m, "");
	snprintf(m, sizeof(m), "x");
	assert_int_equal(monitors_from_text("none", "monitors", m, &e), 0);
	assert_string_equal(m, "");
	assert_int_equal(monitors_from_text("perf-profile,", "monitors", m, &e), -1);
	assert_int_equal(monitors_from_text("perf", "monitors", m, &e), -1);
	assert_string_equal(e.detail, "monitors");

	assert_true(monitors_has("perf-profile,perf-stat", "perf-stat"));
	assert_true(monitors_has("perf-profile", "perf-profile"));
	assert_false(monitors_has("perf-profile", "perf-stat"));
	assert_false(monitors_has("", "perf-stat"));
	v = monitors_json("perf-profile,perf-stat");
	assert_int_equal(json_array_size(v), 2);
	assert_string_equal(json_string_value(json_array_get(v, 1)), "perf-stat");
	json_decref(v);
}

static void folded_lines(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "a;b 0\n", "line 1: the sample count must be in [1, 10^15]" },
		{ "a;b 3\na;;b 3\n", "line 2: an empty frame" },
		{ ";a 1", "line 1: an empty frame" },
		{ "a; 1", "line 1: an empty frame" },
		{ "a;b\n", "line 1: no space before the sample count" },
		{ "a;b x\n", "line 1: the sample count is not a decimal integer" },
		{ "a;b \n", "line 1: no sample count after the last space" },
		{ " 5\n", "line 1: no frames before the sample count" },
		{ "a 1\n\nb 1\n", "line 2: an empty line" },
		{ "a\tb 1\n", "line 1: a control character in the frames" },
		{ "a 10000000000000000\n", "line 1: the sample count is larger than 10^15" },
	};
	long long n;
	struct err e;

	(void)state;
	assert_int_equal(folded_check("", 0, "profile.folded", &n, &e), 0);
	assert_int_equal(n, 0);
	/* a frame may hold spaces: the count is after the last one */
	{
		static const char sp[] = "perf-exec;do_mmap;operator new(unsigned long) 3\nx 4";

		assert_int_equal(folded_check(sp, strlen(sp), "profile.folded", &n, &e), 0);
	}
	assert_int_equal(n, 7);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!folded_check(bad[i].text, strlen(bad[i].text), "profile.folded", &n, &e))
			fail_msg("took '%s'", bad[i].text);
		assert_int_equal(e.status, 400);
		assert_string_equal(e.detail, "profile.folded");
		assert_string_equal(e.message, bad[i].why);
	}
}

static const struct profdiff_symbol *sym(const struct profdiff *d, const char *name)
{
	for (size_t i = 0; i < d->nr_symbols; i++)
		if (!strcmp(d->symbols[i].symbol, name))
			return &d->symbols[i];
	fail_msg("no symbol %s", name);
	return NULL;
}

/*
 * base: a;b;c 10, a;b 5, x;c 5 (20 samples): children a 15, b 15, c 15,
 * x 5; self c 15, b 5. head: a;b;c 30, a;d 10 (40): children a 40, b 30,
 * c 30, d 10; self c 30, d 10. So (children %, base -> head) a 75 -> 100,
 * b 75 -> 75, c 75 -> 75, d 0 -> 25, x 25 -> 0; (self %) b 25 -> 0,
 * c 75 -> 75, d 0 -> 25.
 */
static void diff_known_numbers(void **state)
{
	static const char base[] = "a;b;c 10\na;b 5\nx;c 5\n", head[] = "a;b;c 30\na;d 10";
	struct profdiff d;
	struct err e;
	const struct profdiff_symbol *y;
	static const char *const order[] = { "d", "a", "x", "b", "c" };

	(void)state;
	profdiff_init(&d, 1);
	assert_int_equal(profdiff_add_run(&d, 0, base, strlen(base), 0, &e), 0);
	assert_int_equal(profdiff_add_run(&d, 1, head, strlen(head), 0, &e), 0);
	assert_int_equal(profdiff_add_run(&d, 1, "a;;b 1", 6, 0, &e), -1); /* refused, no change */
	assert_string_equal(e.message, "line 1: an empty frame");
	profdiff_finish(&d, 0.01, 50);
	assert_int_equal(d.base.runs, 1);
	assert_int_equal(d.head.runs, 1);
	assert_int_equal(d.base.samples, 20);
	assert_int_equal(d.head.samples, 40);
	assert_int_equal(d.nr_all, 5);
	assert_int_equal(d.nr_symbols, 5);
	/* |children_change| descending, then |self_change|, then name */
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(d.symbols[i].symbol, order[i]);
	y = sym(&d, "a");
	assert_float_equal(y->base_children_pct, 75.0, 1e-12);
	assert_float_equal(y->head_children_pct, 100.0, 1e-12);
	assert_float_equal(y->children_change, 25.0, 1e-12);
	assert_float_equal(y->self_change, 0.0, 1e-12);
	y = sym(&d, "x");
	assert_float_equal(y->children_change, -25.0, 1e-12);
	y = sym(&d, "b");
	assert_float_equal(y->base_self_pct, 25.0, 1e-12);
	assert_float_equal(y->head_self_pct, 0.0, 1e-12);
	assert_float_equal(y->self_change, -25.0, 1e-12);
	y = sym(&d, "d");
	assert_float_equal(y->head_children_pct, 25.0, 1e-12);
	assert_float_equal(y->head_self_pct, 25.0, 1e-12);
	/* one run a side: no test can reach alpha */
	assert_string_equal(d.status, "need-more-runs");
	assert_true(isnan(y->p));
	assert_false(y->significant);
	/* merged text: stacks sorted, counts as given */
	assert_string_equal(d.base.folded, "a;b 5\na;b;c 10\nx;c 5\n");
	assert_string_equal(d.head.folded, "a;b;c 30\na;d 10\n");
	profdiff_release(&d);
}

/* a recursive stack counts its samples once for the symbol's children % */
static void diff_recursion_and_merge(void **state)
{
	struct profdiff d;
	struct err e;
	const struct profdiff_symbol *y;

	(void)state;
	profdiff_init(&d, 1);
	assert_int_equal(profdiff_add_run(&d, 0, "a;b;a 4\nc 4", 11, 0, &e), 0);
	assert_int_equal(profdiff_add_run(&d, 0, "c 2\na;b;a 2\n", 12, 0, &e), 0);
	assert_int_equal(profdiff_add_run(&d, 0, "", 0, 0, &e), 0); /* no samples: not a run */
	profdiff_finish(&d, 0.01, 1);
	assert_int_equal(d.base.runs, 2);
	assert_int_equal(d.base.samples, 12);
	assert_int_equal(d.nr_all, 3);
	assert_int_equal(d.nr_symbols, 1); /* limit */
	y = &d.symbols[0];
	assert_string_equal(y->symbol, "a"); /* |change| 50 ties c; |self| 50 ties c; name */
	assert_float_equal(y->base_children_pct, 50.0, 1e-12);
	assert_float_equal(y->base_self_pct, 50.0, 1e-12);
	assert_float_equal(y->children_change, -50.0, 1e-12);
	assert_string_equal(d.base.folded, "a;b;a 6\nc 6\n");
	assert_string_equal(d.head.folded, "");
	assert_int_equal(d.head.samples, 0);
	profdiff_release(&d);
}

/*
 * GCC's clones are their function: base's demo_delay.constprop.0 (one call
 * site, a constant argument) and head's demo_delay are one symbol, as the
 * perf-profile.* metrics name it (the demo's diff had them as two, 0 % on
 * one side each); the folded text keeps perf's names.
 */
static void diff_clone_suffixes_are_one_symbol(void **state)
{
	const char *base = "case;__munmap;demo_delay.constprop.0 3\ncase;work 1\n";
	const char *head = "case;__mmap64;demo_delay 6\ncase;__munmap;demo_delay.isra.0.cold 2\n";
	struct profdiff d;
	struct err e;
	const struct profdiff_symbol *y;

	(void)state;
	profdiff_init(&d, 1);
	assert_int_equal(profdiff_add_run(&d, 0, base, strlen(base), 0, &e), 0);
	assert_int_equal(profdiff_add_run(&d, 1, head, strlen(head), 0, &e), 0);
	profdiff_finish(&d, 0.01, 50);
	y = sym(&d, "demo_delay");
	assert_non_null(y);
	assert_float_equal(y->base_children_pct, 75.0, 1e-12);
	assert_float_equal(y->head_children_pct, 100.0, 1e-12);
	assert_float_equal(y->head_self_pct, 100.0, 1e-12);
	for (size_t i = 0; i < d.nr_symbols; i++)
		assert_null(strchr(d.symbols[i].symbol, '.'));
	assert_non_null(strstr(d.base.folded, "demo_delay.constprop.0 3"));
	profdiff_release(&d);
}

/*
 * 5 runs a side: base main;work 90+i, main;idle 10; head main;work 50+i,
 * main;slow 50. slow's children % is 0 in every base run and ~50 in every
 * head run: no overlap, exact p = 2 / C(10, 5) = 0.0079365 <= 0.01. main
 * is 100 % everywhere: every value tied, p = 1.
 */
static void diff_significance(void **state)
{
	struct profdiff d;
	struct err e;
	char t[128];
	const struct profdiff_symbol *y;

	(void)state;
	profdiff_init(&d, 0);
	for (int i = 0; i < 5; i++) {
		snprintf(t, sizeof(t), "main;work %d\nmain;idle 10\n", 90 + i);
		assert_int_equal(profdiff_add_run(&d, 0, t, strlen(t), 0, &e), 0);
		snprintf(t, sizeof(t), "main;work %d\nmain;slow 50\n", 50 + i);
		assert_int_equal(profdiff_add_run(&d, 1, t, strlen(t), 0, &e), 0);
	}
	profdiff_finish(&d, 0.01, 50);
	assert_string_equal(d.status, "ok");
	assert_float_equal(d.min_p, 2.0 / 252.0, 1e-12);
	y = sym(&d, "slow");
	assert_float_equal(y->p, 2.0 / 252.0, 1e-12);
	assert_true(y->significant);
	assert_float_equal(y->base_children_pct, 0.0, 1e-12);
	/* head: 250 of 260 + 250 = 510 samples */
	assert_float_equal(y->head_children_pct, 100.0 * 250 / 510, 1e-9);
	y = sym(&d, "work");
	assert_float_equal(y->p, 2.0 / 252.0, 1e-12);
	assert_true(y->significant);
	y = sym(&d, "main");
	assert_float_equal(y->p, 1.0, 1e-12);
	assert_false(y->significant);
	assert_null(d.base.folded);
	profdiff_release(&d);

	/* 4 vs 4: min p 2/70 > 0.01 */
	profdiff_init(&d, 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(profdiff_add_run(&d, 0, "main;idle 5", 11, 0, &e), 0);
		assert_int_equal(profdiff_add_run(&d, 1, "main;slow 5", 11, 0, &e), 0);
	}
	profdiff_finish(&d, 0.01, 50);
	assert_string_equal(d.status, "need-more-runs");
	assert_true(isnan(sym(&d, "slow")->p));
	profdiff_release(&d);
}

static json_t *doc_with(json_t *monitors, json_t *profile)
{
	json_t *doc = json_pack("{s:s,s:s,s:s,s:{s:[f]}}", "run_id",
				"6f1c0e52-3c1e-4d2b-9a55-0f7d1d2a7b10", "commit",
				"0123456789abcdef0123456789abcdef01234567", "testcase",
				"small-allocs", "metrics", "m.x", 1.0);

	if (monitors)
		json_object_set_new(doc, "monitors", monitors);
	if (profile)
		json_object_set_new(doc, "profile", profile);
	return doc;
}

static int check(json_t *doc, struct resultdoc *d, struct err *e)
{
	int r = resultdoc_check(doc, d, e);

	json_decref(doc);
	return r;
}

/*
 * A patch that removes work: base runs clear a page (4 samples an
 * operation) and copy it (6 an operation), 100 operations a run; head
 * only copies, at the same 6 samples an operation, so it does 200 in
 * the same time. copy's share grows from 60 % to 100 % in every run (the
 * share test: p 2/252, "significant"), yet per operation it costs the
 * same: base 6.00, 6.01, …, 6.04, head 6.005, …, 6.045 samples an
 * operation, interleaved (U 15 of 25, exact p 174/252): `same`. clear
 * and main (the whole operation) did get cheaper per operation.
 */
static void diff_per_work(void **state)
{
	struct profdiff d;
	struct err e;
	char t[128];
	const struct profdiff_symbol *y;

	(void)state;
	profdiff_init(&d, 0);
	for (int i = 0; i < 5; i++) {
		snprintf(t, sizeof(t), "main;copy %d\nmain;clear 400\n", 600 + i);
		assert_int_equal(profdiff_add_run(&d, 0, t, strlen(t), 100, &e), 0);
		snprintf(t, sizeof(t), "main;copy %d\n", 1201 + 2 * i);
		assert_int_equal(profdiff_add_run(&d, 1, t, strlen(t), 200, &e), 0);
	}
	profdiff_finish(&d, 0.01, 50);
	assert_true(d.per_work);
	assert_float_equal(d.base.work, 500, 0);
	assert_float_equal(d.head.work, 1000, 0);
	y = sym(&d, "copy");
	assert_float_equal(y->base_children_pct, 100.0 * 3010 / 5010, 1e-9);
	assert_float_equal(y->head_children_pct, 100.0, 1e-12);
	assert_float_equal(y->p_share, 2.0 / 252.0, 1e-12); /* the share: "significant" */
	assert_float_equal(y->base_children_per_work, 3010.0 / 500, 1e-12);
	assert_float_equal(y->head_children_per_work, 6025.0 / 1000, 1e-12);
	assert_float_equal(y->per_work_change_pct, 100 * (6.025 / 6.02 - 1), 1e-9);
	assert_float_equal(y->p_per_work, 174.0 / 252.0, 1e-12);
	assert_float_equal(y->p, y->p_per_work, 0);
	assert_false(y->significant);
	assert_string_equal(y->verdict, "same");
	y = sym(&d, "clear");
	assert_float_equal(y->base_children_per_work, 4.0, 1e-12);
	assert_float_equal(y->head_children_per_work, 0.0, 0);
	assert_float_equal(y->per_work_change_pct, -100.0, 1e-12);
	assert_float_equal(y->p, 2.0 / 252.0, 1e-12);
	assert_string_equal(y->verdict, "different");
	y = sym(&d, "main"); /* 100 % on both sides, 10 -> ~6 samples an operation */
	assert_float_equal(y->p_share, 1.0, 1e-12);
	assert_float_equal(y->p, 2.0 / 252.0, 1e-12);
	assert_string_equal(y->verdict, "different");
	profdiff_release(&d);

	/* one run without its work: per-work figures and significance from the shares */
	profdiff_init(&d, 0);
	for (int i = 0; i < 5; i++) {
		snprintf(t, sizeof(t), "main;copy %d\nmain;clear 400\n", 600 + i);
		assert_int_equal(profdiff_add_run(&d, 0, t, strlen(t), i ? 100 : NAN, &e), 0);
		snprintf(t, sizeof(t), "main;copy %d\n", 1201 + 2 * i);
		assert_int_equal(profdiff_add_run(&d, 1, t, strlen(t), 200, &e), 0);
	}
	profdiff_finish(&d, 0.01, 50);
	assert_false(d.per_work);
	assert_true(isnan(d.base.work));
	y = sym(&d, "copy");
	assert_true(isnan(y->base_children_per_work) && isnan(y->head_children_per_work));
	assert_true(isnan(y->per_work_change_pct) && isnan(y->p_per_work));
	assert_float_equal(y->p, 2.0 / 252.0, 1e-12);
	assert_string_equal(y->verdict, "different");
	profdiff_release(&d);
}
static void resultdoc_profile(void **state)
{
	struct resultdoc d;
	struct err e;
	char *big;

	(void)state;
	assert_int_equal(check(doc_with(NULL, NULL), &d, &e), 0);
	assert_string_equal(d.monitors, "");
	assert_null(d.profile_folded);
	assert_int_equal(check(doc_with(json_pack("[s,s]", "perf-stat", "perf-profile"),
					json_pack("{s:s,s:i,s:s}", "event", "cpu-clock", "samples",
						  7, "folded", "a;do_mmap 7\n")),
			       &d, &e),
			 0);
	assert_string_equal(d.monitors, "perf-profile,perf-stat");
	/* borrowed from the (freed) document: only the scalars are checked here */
	assert_int_equal(d.profile_samples, 7);
	assert_int_equal(d.profile_folded_len, 12);
	/* a profile needs perf-profile among the monitors */
	assert_int_equal(check(doc_with(json_pack("[s]", "perf-stat"),
					json_pack("{s:s,s:i,s:s}", "event", "cpu-clock", "samples",
						  7, "folded", "a 7")),
			       &d, &e),
			 -1);
	assert_string_equal(e.detail, "monitors");
	assert_int_equal(check(doc_with(json_pack("[s]", "perf-top"), NULL), &d, &e), -1);
	assert_string_equal(e.detail, "monitors[0]");
	assert_int_equal(check(doc_with(json_pack("[s]", "perf-profile"),
					json_pack("{s:s,s:i,s:s}", "event", "cpu-clock", "samples",
						  7, "folded", "a;;b 7")),
			       &d, &e),
			 -1);
	assert_int_equal(e.status, 400);
	assert_string_equal(e.detail, "profile.folded");
	assert_string_equal(e.message, "line 1: an empty frame");
	assert_int_equal(check(doc_with(json_pack("[s]", "perf-profile"),
					json_pack("{s:s,s:i}", "event", "cpu-clock", "samples", 7)),
			       &d, &e),
			 -1);
	assert_string_equal(e.code, "missing_field");
	assert_string_equal(e.detail, "profile.folded");
	assert_int_equal(check(doc_with(json_pack("[s]", "perf-profile"),
					json_pack("{s:s,s:i,s:s}", "event", "cpu clock", "samples",
						  7, "folded", "a 7")),
			       &d, &e),
			 -1);
	assert_string_equal(e.detail, "profile.event");
	assert_int_equal(check(doc_with(json_pack("[s]", "perf-profile"),
					json_pack("{s:s,s:i,s:s}", "event", "cpu-clock", "samples",
						  -1, "folded", "a 7")),
			       &d, &e),
			 -1);
	assert_string_equal(e.detail, "profile.samples");
	/* one byte past the bound: 413 naming the field and the bound */
	big = malloc(RESULTDOC_MAX_PROFILE_BYTES + 2);
	memset(big, 'a', RESULTDOC_MAX_PROFILE_BYTES + 1);
	memcpy(big + RESULTDOC_MAX_PROFILE_BYTES - 1, " 1", 2);
	big[RESULTDOC_MAX_PROFILE_BYTES + 1] = '\0';
	assert_int_equal(check(doc_with(json_pack("[s]", "perf-profile"),
					json_pack("{s:s,s:i,s:s}", "event", "cpu-clock", "samples",
						  1, "folded", big)),
			       &d, &e),
			 -1);
	assert_int_equal(e.status, 413);
	assert_string_equal(e.code, "too_large");
	assert_string_equal(e.detail, "profile.folded");
	assert_non_null(strstr(e.message, "RESULTDOC_MAX_PROFILE_BYTES = 4194304"));
	/* exactly the bound is taken */
	big[RESULTDOC_MAX_PROFILE_BYTES] = '\0';
	memcpy(big + RESULTDOC_MAX_PROFILE_BYTES - 2, " 1", 2);
	assert_int_equal(check(doc_with(json_pack("[s]", "perf-profile"),
					json_pack("{s:s,s:i,s:s}", "event", "cpu-clock", "samples",
						  1, "folded", big)),
			       &d, &e),
			 0);
	free(big);
}

/*
 * A trimmed folded text keeps the largest stacks (ties by text), in text
 * order, and sums the others into one root line; the figures stay those
 * of every stack. base: a;b 9, a;c 7, d 7, e 2, f;g 1 (26 samples).
 */
static void diff_folded_top(void **state)
{
	static const char base[] = "a;b 9\na;c 7\nd 7\ne 2\nf;g 1\n";
	struct profdiff d;
	struct err e;

	(void)state;
	/* 3 stacks: a;b 9, then a;c and d (7 each, by text); e and f;g are 3 others */
	profdiff_init(&d, 1);
	profdiff_set_top(&d, 3, SIZE_MAX);
	assert_int_equal(profdiff_add_run(&d, 0, base, strlen(base), 0, &e), 0);
	profdiff_finish(&d, 0.01, 50);
	assert_string_equal(d.base.folded, "[other stacks] 3\na;b 9\na;c 7\nd 7\n");
	assert_int_equal(d.base.stacks, 5);
	assert_int_equal(d.base.samples, 26);
	assert_int_equal(d.nr_all, 7); /* a b c d e f g: every stack's symbols */
	profdiff_release(&d);

	/* bytes: "a;b 9\n" counts 3 + 22, so 60 bytes keep two stacks */
	profdiff_init(&d, 1);
	profdiff_set_top(&d, SIZE_MAX, 60);
	assert_int_equal(profdiff_add_run(&d, 0, base, strlen(base), 0, &e), 0);
	profdiff_finish(&d, 0.01, 50);
	assert_string_equal(d.base.folded, "[other stacks] 10\na;b 9\na;c 7\n");
	profdiff_release(&d);

	/* the first stack stays whatever its size; all kept: no other line */
	profdiff_init(&d, 1);
	profdiff_set_top(&d, 5, 1);
	assert_int_equal(profdiff_add_run(&d, 0, base, strlen(base), 0, &e), 0);
	profdiff_finish(&d, 0.01, 50);
	assert_string_equal(d.base.folded, "[other stacks] 17\na;b 9\n");
	profdiff_release(&d);
	profdiff_init(&d, 1);
	profdiff_set_top(&d, 5, SIZE_MAX);
	assert_int_equal(profdiff_add_run(&d, 0, base, strlen(base), 0, &e), 0);
	profdiff_finish(&d, 0.01, 50);
	assert_string_equal(d.base.folded, "a;b 9\na;c 7\nd 7\ne 2\nf;g 1\n");
	profdiff_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(monitors_normalized),
		cmocka_unit_test(folded_lines),
		cmocka_unit_test(diff_known_numbers),
		cmocka_unit_test(diff_recursion_and_merge),
		cmocka_unit_test(diff_clone_suffixes_are_one_symbol),
		cmocka_unit_test(diff_significance),
		cmocka_unit_test(diff_per_work),
		cmocka_unit_test(diff_folded_top),
		cmocka_unit_test(resultdoc_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
