#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/detect/backtest.h"
#include "server/detect/plan_detect.h"

/*
 * Backtests (server/detect/backtest.h) on a setup written here: 40 commits (ids
 * 101..140), one run each, of three metrics with small fixed noise:
 *   1 custom.big    1000, -20 % from position 20 (commit 121)
 *   2 custom.small   500,  +3 % from position 20
 *   3 perf-stat.x    100,  +3 % from position 20 (a monitor: floor 5 %)
 * and the plan's detector settings (server/detect/plan_detect.h).
 */

#define NC 40
#define STEP 20

static struct db_detect_point rows[3 * NC];

static void fill_rows(void)
{
	static const char *const names[] = { "custom.big", "custom.small", "perf-stat.x" };
	static const double base[] = { 1000, 500, 100 }, factor[] = { 0.80, 1.03, 1.03 };

	for (int m = 0; m < 3; m++)
		for (int i = 0; i < NC; i++) {
			struct db_detect_point *p = &rows[m * NC + i];
			double noise = (double)((i * 7919 + m * 13) % 11 - 5) * 0.0004;

			p->metric_id = m + 1;
			p->metric = names[m];
			p->higher_is_better = 1;
			p->is_monitor = m == 2;
			p->commit_id = 101 + i;
			p->value = base[m] * (i >= STEP ? factor[m] : 1.0) * (1 + noise);
		}
}

static void opts(struct detect_opts *o, double min_change_pct)
{
	detect_opts_init(o);
	o->min_change_pct = min_change_pct;
}

static void run(struct backtest *b, double cur_pct, double next_pct,
		const struct db_backtest_record *rec, size_t nrec, const long long *since,
		size_t nsince)
{
	struct detect_opts cur, next;
	struct backtest_input in;

	fill_rows();
	opts(&cur, cur_pct);
	opts(&next, next_pct);
	backtest_init(b, &cur, &next);
	memset(&in, 0, sizeof(in));
	in.setup_id = 7;
	in.p = rows;
	in.n = 3 * NC;
	in.rec = rec;
	in.nrec = nrec;
	in.since = since != NULL;
	in.since_ids = since;
	in.nsince = nsince;
	backtest_add(b, &in);
}

static void record(struct db_backtest_record *r, long long id, long long metric, long long good,
		   long long bad, const char *state)
{
	r->id = id;
	r->metric_id = metric;
	r->good_commit = good;
	r->bad_commit = bad;
	snprintf(r->state, sizeof(r->state), "%s", state);
}

/* a tighter minimum change drops the small step, which people had marked invalid */
static void removed_alert_was_a_false_alarm(void **state)
{
	struct db_backtest_record rec[2];
	struct backtest b;

	(void)state;
	record(&rec[0], 11, 1, 120, 121, "confirmed");
	/* a wider record holds the small step's range: it scores it */
	record(&rec[1], 12, 2, 118, 122, "invalid");
	run(&b, 1, 5, rec, 2, NULL, 0);
	assert_int_equal(b.series, 3);
	/* three series of the same 40 commits: 40 commits, 120 points */
	assert_int_equal(b.commits, NC);
	assert_int_equal(b.points, 3 * NC);
	/* the monitor's +3 % is below its 5 % floor on both sides */
	assert_int_equal(b.before.alerts, 2);
	assert_int_equal(b.before.n[BACKTEST_TRUE], 1);
	assert_int_equal(b.before.n[BACKTEST_FALSE], 1);
	assert_true(fabs(backtest_precision(&b.before) - 0.5) < 1e-12);
	assert_int_equal(b.after.alerts, 1);
	assert_int_equal(b.after.n[BACKTEST_TRUE], 1);
	assert_true(fabs(backtest_precision(&b.after) - 1.0) < 1e-12);
	assert_int_equal(b.nadded, 0);
	assert_int_equal(b.add.alerts, 0);
	assert_int_equal(b.nremoved, 1);
	assert_int_equal(b.rem.alerts, 1);
	assert_int_equal(b.rem.n[BACKTEST_FALSE], 1);
	assert_string_equal(b.removed[0].metric, "custom.small");
	assert_int_equal(b.removed[0].setup_id, 7);
	assert_int_equal(b.removed[0].good_commit, 120);
	assert_int_equal(b.removed[0].bad_commit, 121);
	assert_int_equal(b.removed[0].record_id, 12);
	assert_string_equal(b.removed[0].state, "invalid");
	assert_int_equal(b.removed[0].label, BACKTEST_FALSE);
	assert_true(b.removed[0].change_pct > 2.5 && b.removed[0].change_pct < 3.5);
	backtest_release(&b);
}

/* the reverse: a looser minimum adds it; without a record it is unlabelled */
static void added_alert_without_record_is_unlabelled(void **state)
{
	struct db_backtest_record rec[1];
	struct backtest b;

	(void)state;
	record(&rec[0], 11, 1, 120, 121, "new");
	run(&b, 5, 1, rec, 1, NULL, 0);
	assert_int_equal(b.before.alerts, 1);
	assert_int_equal(b.before.n[BACKTEST_UNJUDGED], 1);
	assert_true(isnan(backtest_precision(&b.before)));
	assert_int_equal(b.nremoved, 0);
	assert_int_equal(b.nadded, 1);
	assert_string_equal(b.added[0].metric, "custom.small");
	assert_int_equal(b.added[0].record_id, 0);
	assert_string_equal(b.added[0].state, "");
	assert_int_equal(b.added[0].label, BACKTEST_UNLABELLED);
	assert_int_equal(b.add.n[BACKTEST_UNLABELLED], 1);
	assert_int_equal(b.after.alerts, 2);
	assert_int_equal(b.after.n[BACKTEST_UNJUDGED], 1);
	assert_int_equal(b.after.n[BACKTEST_UNLABELLED], 1);
	backtest_release(&b);
}

/* a record of another metric, or one that does not hold the range, scores nothing */
static void records_of_other_ranges_do_not_match(void **state)
{
	struct db_backtest_record rec[3];
	struct backtest b;

	(void)state;
	record(&rec[0], 21, 1, 120, 121, "fixed");
	record(&rec[1], 22, 2, 121, 125, "invalid"); /* starts after the step */
	record(&rec[2], 23, 3, 120, 121, "invalid"); /* the monitor's, not small's */
	run(&b, 1, 5, rec, 3, NULL, 0);
	assert_int_equal(b.nremoved, 1);
	assert_int_equal(b.removed[0].label, BACKTEST_UNLABELLED);
	assert_int_equal(b.before.n[BACKTEST_TRUE], 1);
	assert_int_equal(b.before.n[BACKTEST_UNLABELLED], 1);
	backtest_release(&b);
}

/* since: only alerts whose first bad commit is dated since then count */
static void since_counts_only_later_alerts(void **state)
{
	static const long long late[] = { 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140 };
	static const long long step[] = { 121, 122 };
	struct backtest b;

	(void)state;
	run(&b, 1, 5, NULL, 0, late, sizeof(late) / sizeof(late[0]));
	assert_int_equal(b.series, 3);
	assert_int_equal(b.before.alerts, 0);
	assert_int_equal(b.after.alerts, 0);
	assert_int_equal(b.nremoved, 0);
	backtest_release(&b);
	run(&b, 1, 5, NULL, 0, step, 2);
	assert_int_equal(b.before.alerts, 2);
	assert_int_equal(b.nremoved, 1);
	backtest_release(&b);
}

/* the same settings on both sides: nothing added or removed */
static void same_settings_change_nothing(void **state)
{
	struct backtest b;

	(void)state;
	run(&b, 1, 1, NULL, 0, NULL, 0);
	assert_int_equal(b.before.alerts, 2);
	assert_int_equal(b.after.alerts, 2);
	assert_int_equal(b.nadded + b.nremoved, 0);
	backtest_release(&b);
}

/*
 * A second setup over commits 111..150, one metric of which lacks commit
 * 150: every series and point counts, each commit once (101..150).
 */
static void commits_are_counted_once_over_setups(void **state)
{
	static struct db_detect_point more[3 * NC];
	struct backtest_input in;
	struct backtest b;

	(void)state;
	run(&b, 1, 5, NULL, 0, NULL, 0);
	memcpy(more, rows, sizeof(more));
	for (size_t i = 0; i < 3 * NC; i++)
		more[i].commit_id += 10;
	memmove(&more[NC - 1], &more[NC], 2 * NC * sizeof(*more));
	memset(&in, 0, sizeof(in));
	in.setup_id = 8;
	in.p = more;
	in.n = 3 * NC - 1;
	backtest_add(&b, &in);
	assert_int_equal(b.series, 6);
	assert_int_equal(b.points, 6 * NC - 1);
	assert_int_equal(b.commits, NC + 10);
	assert_int_equal(b.ncommit_ids, NC + 10);
	assert_int_equal(b.commit_ids[0], 101);
	assert_int_equal(b.commit_ids[NC + 9], 150);
	backtest_release(&b);
}

/* --- the settings table -------------------------------------------------------- */

/* check text under prefix: "" when it passes (*out then the normalized text), else the detail */
static void check(const char *text, const char *prefix, const char *want_detail,
		  const char *want_out)
{
	json_t *in = json_loads(text, JSON_DECODE_ANY, NULL), *out = NULL;
	struct err e;
	int ret;

	assert_non_null(in);
	ret = plan_detect_check(in, prefix, &out, &e);
	if (want_detail) {
		assert_int_equal(ret, -1);
		assert_null(out);
		assert_int_equal(e.status, 400);
		assert_string_equal(e.detail, want_detail);
	} else {
		char *s = out ? json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

		assert_int_equal(ret, 0);
		if (want_out)
			assert_string_equal(s, want_out);
		else
			assert_null(out);
		free(s);
	}
	json_decref(in);
	json_decref(out);
}

static void settings_are_checked_by_the_table(void **state)
{
	(void)state;
	check("{\"p_max\": 0.0001, \"window\": 32, \"min_change_pct\": 2}", "detect.", NULL,
	      "{\"min_change_pct\":2.0,\"p_max\":0.0001,\"window\":32}");
	check("{\"min_seg\": 4, \"min_effect\": 0}", "detect.", NULL,
	      "{\"min_effect\":0.0,\"min_seg\":4}");
	check("{}", "detect.", NULL, NULL);
	check("null", "detect.", NULL, NULL);
	check("{\"p_max\": 2}", "detect.", "detect.p_max", NULL);
	check("{\"p_max\": -0.1}", "detect.", "detect.p_max", NULL);
	check("{\"p_max\": \"1e-3\"}", "detect.", "detect.p_max", NULL);
	check("{\"window\": 4}", "detect.", "detect.window", NULL);
	check("{\"window\": 32.5}", "detect.", "detect.window", NULL);
	check("{\"min_change_pct\": 1001}", "set.", "set.min_change_pct", NULL);
	check("{\"rho\": 1}", "set.", "set.rho", NULL);
	check("{\"window\": 16, \"min_seg\": 9}", "detect.", "detect.min_seg", NULL);
	check("5", "detect.", "detect", NULL);
}

static void settings_apply_over_the_defaults(void **state)
{
	struct config cfg;
	struct detect_opts o, m;
	json_t *in = json_loads("{\"window\": 32, \"min_effect\": 2}", 0, NULL), *d = NULL, *j;
	struct err e;

	(void)state;
	config_init(&cfg);
	cfg.detect_min_change_pct = 2.5;
	plan_detect_defaults(&cfg, &o);
	assert_int_equal(o.window, 64);
	assert_true(o.p_max == 0.001);
	assert_true(o.min_change_pct == 2.5);
	assert_int_equal(plan_detect_check(in, "detect.", &d, &e), 0);
	plan_detect_apply(d, &o);
	assert_int_equal(o.window, 32);
	assert_true(o.min_effect == 2.0);
	assert_int_equal(o.min_seg, 3);
	j = plan_detect_json(&o);
	assert_int_equal(json_integer_value(json_object_get(j, "window")), 32);
	assert_true(json_real_value(json_object_get(j, "min_change_pct")) == 2.5);
	assert_int_equal(json_object_size(j), 5);
	plan_detect_metric(&o, 1, &m);
	assert_true(m.min_change_pct == PLAN_DETECT_MONITOR_MIN_PCT);
	plan_detect_metric(&o, 0, &m);
	assert_true(m.min_change_pct == 2.5);
	json_decref(j);
	json_decref(d);
	json_decref(in);
	config_release(&cfg);
}

static void set_arguments_become_numbers(void **state)
{
	json_t *o = json_object(), *d = NULL;
	struct err e;

	(void)state;
	assert_int_equal(plan_detect_set_arg(o, "window=32", &e), 0);
	assert_int_equal(plan_detect_set_arg(o, "p_max=1e-4", &e), 0);
	assert_true(json_is_integer(json_object_get(o, "window")));
	assert_true(json_real_value(json_object_get(o, "p_max")) == 1e-4);
	assert_int_equal(plan_detect_check(o, "set.", &d, &e), 0);
	json_decref(d);
	assert_int_equal(plan_detect_set_arg(o, "min_seg=three", &e), 0);
	assert_int_equal(plan_detect_check(o, "set.", &d, &e), -1);
	assert_string_equal(e.detail, "set.min_seg");
	assert_int_equal(plan_detect_set_arg(o, "window", &e), -1);
	assert_string_equal(e.detail, "set");
	assert_int_equal(plan_detect_set_arg(o, "=5", &e), -1);
	json_decref(o);
}

/*
 * A value that is no finite decimal number stays a string, so the check
 * names its key: a nan must not vanish (json_real of it is NULL), nor hex
 * read as 16.
 */
static void set_arguments_that_are_no_decimal_number_are_refused(void **state)
{
	static const char *const bad[] = { "min_change_pct=nan",  "min_change_pct=inf",
					   "min_change_pct=NaN",  "p_max=-inf",
					   "min_change_pct=0x10", "window=0x40",
					   "min_effect=1e400",	  "min_effect= 1",
					   "min_effect=",	  "min_effect=1e" };
	struct err e;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *o = json_object(), *d = NULL;
		char want[64];

		snprintf(want, sizeof(want), "set.%.*s", (int)strcspn(bad[i], "="), bad[i]);
		assert_int_equal(plan_detect_set_arg(o, bad[i], &e), 0);
		assert_int_equal(json_object_size(o), 1);
		assert_int_equal(plan_detect_check(o, "set.", &d, &e), -1);
		assert_string_equal(e.detail, want);
		assert_null(d);
		json_decref(o);
	}
	{
		json_t *o = json_object(), *d = NULL;

		assert_int_equal(plan_detect_set_arg(o, "min_change_pct=+2.5e0", &e), 0);
		assert_int_equal(plan_detect_set_arg(o, "min_seg=-3", &e), 0);
		assert_true(json_real_value(json_object_get(o, "min_change_pct")) == 2.5);
		assert_int_equal(json_integer_value(json_object_get(o, "min_seg")), -3);
		assert_int_equal(plan_detect_check(o, "set.", &d, &e), -1);
		assert_string_equal(e.detail, "set.min_seg");
		json_decref(o);
	}
}

/* min_seg at most half the window once the keys given are applied over the others */
static void set_min_seg_must_fit_the_window_it_lands_in(void **state)
{
	struct detect_opts o;
	json_t *seg = json_pack("{s:i}", "min_seg", 40), *win = json_pack("{s:i}", "window", 16);
	json_t *pmax = json_pack("{s:f}", "p_max", 0.01);
	struct err e;

	(void)state;
	detect_opts_init(&o); /* window 64 */
	o.min_seg = 40;
	assert_int_equal(plan_detect_check_fit(&o, seg, "set.", &e), -1);
	assert_string_equal(e.detail, "set.min_seg");
	assert_int_equal(e.status, 400);
	/* a plan's own settings are not the set's to blame */
	assert_int_equal(plan_detect_check_fit(&o, pmax, "set.", &e), 0);
	assert_int_equal(plan_detect_check_fit(&o, NULL, "set.", &e), 0);
	o.min_seg = 32;
	assert_int_equal(plan_detect_check_fit(&o, seg, "set.", &e), 0);
	o.min_seg = 9;
	o.window = 16;
	assert_int_equal(plan_detect_check_fit(&o, win, "set.", &e), -1);
	assert_string_equal(e.detail, "set.window");
	o.min_seg = 8;
	assert_int_equal(plan_detect_check_fit(&o, win, "set.", &e), 0);
	json_decref(seg);
	json_decref(win);
	json_decref(pmax);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(removed_alert_was_a_false_alarm),
		cmocka_unit_test(added_alert_without_record_is_unlabelled),
		cmocka_unit_test(records_of_other_ranges_do_not_match),
		cmocka_unit_test(since_counts_only_later_alerts),
		cmocka_unit_test(same_settings_change_nothing),
		cmocka_unit_test(commits_are_counted_once_over_setups),
		cmocka_unit_test(settings_are_checked_by_the_table),
		cmocka_unit_test(settings_apply_over_the_defaults),
		cmocka_unit_test(set_arguments_become_numbers),
		cmocka_unit_test(set_arguments_that_are_no_decimal_number_are_refused),
		cmocka_unit_test(set_min_seg_must_fit_the_window_it_lands_in),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
