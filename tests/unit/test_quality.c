#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>

#include "attr.h"
#include "server/detect/quality.h"
#include "server/detect/regressions.h"

/*
 * The alert-quality ledger's arithmetic (server/detect/quality.h): labels from
 * regression_state_label(), precision, the groups, false alarms per week.
 */

#define DAY 86400.0
#define T0 1750000000.0 /* any since */

static json_t *find(json_t *a, const char *key, const char *name)
{
	size_t i;
	json_t *o;

	json_array_foreach (a, i, o) {
		json_t *v = json_object_get(o, key);

		if (name ? json_is_string(v) && !strcmp(json_string_value(v), name) :
			   json_is_null(v))
			return o;
	}
	fail_msg("no %s '%s'", key, name ? name : "null");
	return NULL;
}

static long long ival(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

static void assert_counts(json_t *o, long long t, long long f, long long u)
{
	assert_int_equal(ival(o, "true_changes"), t);
	assert_int_equal(ival(o, "false_alarms"), f);
	assert_int_equal(ival(o, "unjudged"), u);
	assert_int_equal(ival(o, "alerts"), t + f + u);
	if (t + f)
		assert_float_equal(json_real_value(json_object_get(o, "precision")),
				   (double)t / (double)(t + f), 1e-12);
	else
		assert_true(json_is_null(json_object_get(o, "precision")));
}

/* every state has one label, and the reply's table lists them as the function says */
static void test_labels(void **state UNUSED)
{
	json_t *l = quality_labels_json();
	char *s = json_dumps(l, JSON_COMPACT | JSON_PRESERVE_ORDER);

	assert_string_equal(s, "{\"true_change\":[\"confirmed\",\"bisecting\",\"bisected\","
			       "\"reported\",\"fixed\",\"wontfix\"],\"false_alarm\":[\"invalid\"],"
			       "\"unjudged\":[\"new\"]}");
	free(s);
	json_decref(l);
	assert_int_equal(regression_state_label("duplicate"), 0);
	assert_int_equal(regression_state_label(NULL), 0);
}

static void test_counts(void **state UNUSED)
{
	/* in db_quality_read()'s order: no plan first, then by testcase, metric, tbox_group */
	static const struct db_quality_row rows[] = {
		{ NULL, "ebizzy", "ebizzy.throughput", "vm-2p", "new", 0, 2 },
		{ "p1", "will-it-scale", "wis.ops", "vm-2p", "confirmed", 0, 3 },
		{ "p1", "will-it-scale", "wis.ops", "vm-2p", "invalid", 1, 1 },
		{ "p1", "will-it-scale", "wis.ops", "vm-2p", "invalid", 3, 2 },
		{ "p1", "will-it-scale", "wis.ops", "vm-4p", "fixed", 2, 1 },
		{ "p2", "will-it-scale", "wis.ops", "vm-4p", "wontfix", 0, 1 },
		{ "p2", "will-it-scale", "wis.ops", "vm-4p", "invalid", 4, 1 },
		{ "p2", "will-it-scale", "wis.ops", "vm-4p", "bogus", 4, 5 },
	};
	/* 4.5 weeks: 5 steps, the last half a week */
	json_t *o = quality_json(rows, sizeof(rows) / sizeof(rows[0]), T0, T0 + 31.5 * DAY);
	json_t *w = json_object_get(o, "window"), *fa, *p1, *p2, *none;

	assert_float_equal(json_real_value(json_object_get(w, "days")), 31.5, 1e-9);
	assert_float_equal(json_real_value(json_object_get(w, "weeks")), 4.5, 1e-9);
	assert_string_equal(json_string_value(json_object_get(w, "since")), "2025-06-15T15:06:40Z");
	assert_int_equal(json_array_size(json_object_get(w, "week_starts")), 5);
	assert_string_equal(json_string_value(json_array_get(json_object_get(w, "week_starts"), 1)),
			    "2025-06-22T15:06:40Z");
	assert_counts(json_object_get(o, "overall"), 5, 4, 7);
	assert_counts(find(json_object_get(o, "by_plan"), "plan", "p1"), 4, 3, 0);
	assert_counts(find(json_object_get(o, "by_plan"), "plan", "p2"), 1, 1, 5);
	assert_counts(find(json_object_get(o, "by_plan"), "plan", NULL), 0, 0, 2);
	assert_true(json_is_null(
		json_object_get(json_array_get(json_object_get(o, "by_plan"), 0), "plan")));
	assert_counts(find(json_object_get(o, "by_testcase"), "testcase", "will-it-scale"), 5, 4,
		      5);
	assert_counts(find(json_object_get(o, "by_metric"), "metric", "ebizzy.throughput"), 0, 0,
		      2);
	assert_counts(find(json_object_get(o, "by_tbox_group"), "tbox_group", "vm-2p"), 3, 3, 2);
	assert_counts(find(json_object_get(o, "by_tbox_group"), "tbox_group", "vm-4p"), 2, 1, 5);
	/* groups: (none, ebizzy), (p1, vm-2p), (p1, vm-4p), (p2, vm-4p) */
	assert_int_equal(json_array_size(json_object_get(o, "groups")), 4);
	assert_counts(json_array_get(json_object_get(o, "groups"), 1), 3, 3, 0);
	assert_counts(json_array_get(json_object_get(o, "groups"), 3), 1, 1, 5);
	fa = json_object_get(o, "false_alarms_per_week");
	assert_int_equal(json_array_size(fa), 3);
	p1 = find(fa, "plan", "p1");
	p2 = find(fa, "plan", "p2");
	none = find(fa, "plan", NULL);
	assert_int_equal(ival(p1, "false_alarms"), 3);
	assert_int_equal(ival(p1, "alerts"), 7);
	assert_float_equal(json_real_value(json_object_get(p1, "per_week")), 3 / 4.5, 1e-12);
	char *s = json_dumps(json_object_get(p1, "weekly"), JSON_COMPACT);
	assert_string_equal(s, "[0,1,0,2,0]");
	free(s);
	s = json_dumps(json_object_get(p2, "weekly"), JSON_COMPACT);
	assert_string_equal(s, "[0,0,0,0,1]");
	free(s);
	assert_float_equal(json_real_value(json_object_get(none, "per_week")), 0, 0);
	json_decref(o);
}

/* no record in the window: zero counts, null precision, weeks still listed */
static void test_empty(void **state UNUSED)
{
	json_t *o = quality_json(NULL, 0, T0, T0 + 90 * DAY);

	assert_counts(json_object_get(o, "overall"), 0, 0, 0);
	assert_int_equal(json_array_size(json_object_get(o, "by_plan")), 0);
	assert_int_equal(json_array_size(json_object_get(o, "false_alarms_per_week")), 0);
	assert_int_equal(json_array_size(
				 json_object_get(json_object_get(o, "window"), "week_starts")),
			 13);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
