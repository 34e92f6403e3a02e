/*
 * lib/stats/cpdscore.c: TCPDBench's F1 and covering on examples worked by
 * hand from the definitions (cpdscore.h), the readers of the three label
 * forms, and the real corpora of tests/fixtures/realcpd: reporting nothing
 * must score the TCPD paper's published "zero" figures (F1 .647, cover .557
 * over its 25 datasets here), and the Perfherder set's size facts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "stats/cpdscore.h"
#include "xalloc.h"

#define EPS 1e-12

static void near(double got, double want, double eps, const char *expr, int line)
{
	if (!(fabs(got - want) <= eps) && !(isnan(got) && isnan(want)))
		fail_msg("line %d: %s is %.15g, expected %.15g", line, expr, got, want);
}
#define assert_near(got, want, eps) near((got), (want), (eps), #got, __LINE__)

static struct cpdscore_points pts(size_t *at, size_t n)
{
	struct cpdscore_points p = { at, n };

	return p;
}

/* ---- true_positives and F1 ---------------------------------------------- */

static void test_true_positives(void **state UNUSED)
{
	size_t t1[] = { 10, 14 }, x1[] = { 8, 12 };
	size_t t2[] = { 10, 12 }, x2[] = { 11 };
	size_t t3[] = { 12, 10 }, x3[] = { 11, 11, 30 };

	/* tau 10: 8 and 12 tie at 2, the smaller x (8) is taken; so tau 14 gets 12 */
	assert_int_equal(cpdscore_true_positives(t1, 2, x1, 2, 2), 2);
	/* margin 1: neither is close enough to 10; 14 has nothing within 1 */
	assert_int_equal(cpdscore_true_positives(t1, 2, x1, 2, 1), 0);
	/* one prediction matches one true point: 10 (first in order) takes 11 */
	assert_int_equal(cpdscore_true_positives(t2, 2, x2, 1, 5), 1);
	/* sets: order and duplicates do not matter */
	assert_int_equal(cpdscore_true_positives(t3, 2, x3, 3, 5), 1);
	/* the margin is inclusive, and works below 0 without wrapping */
	assert_int_equal(cpdscore_true_positives(t2, 1, (size_t[]){ 15 }, 1, 5), 1);
	assert_int_equal(cpdscore_true_positives(t2, 1, (size_t[]){ 16 }, 1, 5), 0);
	assert_int_equal(cpdscore_true_positives((size_t[]){ 2 }, 1, (size_t[]){ 0 }, 1, 5), 1);
}

static void test_f1_by_hand(void **state UNUSED)
{
	size_t a[] = { 10, 50 }, x[] = { 12, 30 }, b[] = { 10 }, y[] = { 8, 11 };
	struct cpdscore_points one = pts(a, 2), two[2] = { pts(b, 1), pts(NULL, 0) };
	double p, r;

	/* T = {0, 10, 50}, X = {0, 12, 30}: 0-0 and 10-12 match; P = 2/3, R = 2/3 */
	assert_near(cpdscore_f1(&one, 1, x, 2, 5, &p, &r), 2.0 / 3, EPS);
	assert_near(p, 2.0 / 3, EPS);
	assert_near(r, 2.0 / 3, EPS);
	/*
	 * Two annotators {10} and {}: T1 = {0, 10}, T2 = {0}, T* = {0, 10},
	 * X = {0, 8, 11}. TP(T*, X) = 2 (10 takes 11, the closer), P = 2/3;
	 * R = (2/2 + 1/1) / 2 = 1; F = 2 (2/3) / (5/3) = 0.8.
	 */
	assert_near(cpdscore_f1(two, 2, y, 2, 5, &p, &r), 0.8, EPS);
	assert_near(p, 2.0 / 3, EPS);
	assert_near(r, 1, EPS);
	/* no prediction: X = {0}, P = 1, R = 1/3, F = 2 (1/3) / (4/3) = 0.5 */
	assert_near(cpdscore_f1(&one, 1, NULL, 0, 5, &p, &r), 0.5, EPS);
	assert_near(p, 1, EPS);
	/* an annotator with no change and no prediction: perfect */
	assert_near(cpdscore_f1(&two[1], 1, NULL, 0, 5, NULL, NULL), 1, EPS);
	/* a prediction at 0 is the 0 already added: no change */
	assert_near(cpdscore_f1(&one, 1, (size_t[]){ 0 }, 1, 5, NULL, NULL), 0.5, EPS);
}

/* ---- covering ------------------------------------------------------------ */

static void test_cover_by_hand(void **state UNUSED)
{
	size_t a[] = { 5 }, x[] = { 4 }, out[] = { 0, 10, 12 };
	struct cpdscore_points one = pts(a, 1), two[2] = { pts(a, 1), pts(NULL, 0) };

	/* n 10, truth [0,5) [5,10), prediction [0,10): each J = 1/2, C = 1/2 */
	assert_near(cpdscore_cover(&one, 1, NULL, 0, 10), 0.5, EPS);
	/* points outside (0, n) cut nothing */
	assert_near(cpdscore_cover(&one, 1, out, 3, 10), 0.5, EPS);
	/*
	 * prediction [0,4) [4,10): [0,5) best J 4/5 (with [0,4)), [5,10) best
	 * J 5/6 (with [4,10)); C = (5 * 4/5 + 5 * 5/6) / 10 = 49/60
	 */
	assert_near(cpdscore_cover(&one, 1, x, 1, 10), 49.0 / 60, EPS);
	/* with a second annotator seeing [0,10): best J 6/10; mean (49/60 + 3/5) / 2 */
	assert_near(cpdscore_cover(two, 2, x, 1, 10), (49.0 / 60 + 0.6) / 2, EPS);
	/* exact agreement */
	assert_near(cpdscore_cover(&one, 1, a, 1, 10), 1, EPS);
	assert_true(isnan(cpdscore_cover(&one, 1, a, 1, 0)));
}

static void test_far(void **state UNUSED)
{
	size_t alerts[] = { 20, 40 }, pred[] = { 14, 15, 26, 100, 45 };

	/* 14 and 26 are 6 from an alert, 100 far from both; 15 and 45 are 5 away */
	assert_int_equal(cpdscore_far(alerts, 2, pred, 5, 5), 3);
	assert_int_equal(cpdscore_far(alerts, 2, pred, 5, 6), 1);
	assert_int_equal(cpdscore_far(NULL, 0, pred, 5, 5), 5);
	/* of the far ones, 14 is 6 before 20 and 26 is 14 before 40 (and 6
	 * after 20, which does not count); 100 is before no alert */
	assert_int_equal(cpdscore_far_early(alerts, 2, pred, 5, 5, 20), 2);
	assert_int_equal(cpdscore_far_early(alerts, 2, pred, 5, 5, 14), 2);
	assert_int_equal(cpdscore_far_early(alerts, 2, pred, 5, 5, 13), 1);
	assert_int_equal(cpdscore_far_early(alerts, 2, pred, 5, 5, 5), 0);
	assert_int_equal(cpdscore_far_early(NULL, 0, pred, 5, 5, 20), 0);
}

/* ---- readers ------------------------------------------------------------- */

static void test_read_text(void **state UNUSED)
{
	const char *t = "# a comment\n1.5 TN\n2 TN\n\n3 SP\n4 TP\nnan TN\n5 FN\r\n6 FP\n";
	struct cpdscore_series s;
	struct cpdscore_result r;
	struct err e;

	assert_int_equal(cpdscore_series_parse(t, strlen(t), "sig", &s, &e), 0);
	assert_string_equal(s.name, "sig");
	assert_int_equal(s.n, 7);
	assert_int_equal(s.nvalues, 7);
	assert_true(isnan(s.values[4]));
	assert_near(s.values[6], 6, 0);
	assert_int_equal(s.nannot, 1);
	assert_int_equal(s.annot[0].n, 2);
	assert_int_equal(s.annot[0].at[0], 3);
	assert_int_equal(s.annot[0].at[1], 5);
	assert_true(s.has_alerts);
	assert_int_equal(s.alerts.n, 4);
	assert_int_equal(s.alerts.at[0], 2);
	assert_int_equal(s.alerts.at[3], 6);
	/* a prediction at 1 is within 5 of both changes but matches one of them */
	cpdscore_series_score(&s, (size_t[]){ 1 }, 1, &r);
	assert_int_equal(r.nchanges, 2);
	assert_int_equal(r.found, 1);
	assert_int_equal(r.far, 0);
	cpdscore_series_release(&s);

	t = "1 TN\n2 XX\n";
	assert_int_equal(cpdscore_series_parse(t, strlen(t), "x", &s, &e), -1);
	assert_string_equal(e.message, "line 2: label 'XX' is none of TP, FN, SP, FP, TN");
	cpdscore_series_release(&s);
	t = "1\n";
	assert_int_equal(cpdscore_series_parse(t, strlen(t), "x", &s, &e), -1);
	assert_string_equal(e.message, "line 1: expected 'value label', got '1'");
	cpdscore_series_release(&s);
}

/* Only nan is a missing value: inf and numbers past +-2^63 are refused by their line. */
static void test_read_text_refuses_out_of_range(void **state UNUSED)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
		{ "1 TN\n# c\ninf TN\n", "line 3: 'inf' is out of range" },
		{ "-inf TP\n1 TN\n", "line 1: '-inf' is out of range" },
		{ "1 TN\n1e400 SP\n", "line 2: '1e400' is out of range" },
		{ "1e300 TN\n", "line 1: '1e300' is out of range" },
		{ "-9.3e18 TN\n", "line 1: '-9.3e18' is out of range" },
	};
	const char *t = "9.2e18 TN\nNaN TN\n-9.2e18 TP\n";
	struct cpdscore_series s;
	struct err e;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(cpdscore_series_parse(bad[i].text, strlen(bad[i].text), "x", &s,
						       &e),
				 -1);
		assert_int_equal(e.id, ERR_INVALID_FIELD);
		assert_non_null(strstr(e.message, bad[i].message));
		cpdscore_series_release(&s);
	}
	assert_int_equal(cpdscore_series_parse(t, strlen(t), "x", &s, &e), 0);
	assert_int_equal(s.nvalues, 3);
	assert_true(isnan(s.values[1]));
	assert_near(s.values[2], -9.2e18, 0);
	cpdscore_series_release(&s);
}

/* A series with every value missing is refused in each form: it would score F1 1.0. */
static void test_read_refuses_all_missing(void **state UNUSED)
{
	static const char *const texts[] = {
		"nan TN\nnan TP\n",
		"{\"values\": [null, null, null], \"annotations\": {\"1\": [1]}}",
		"{\"values\": [null], \"changes\": [0]}",
	};
	const char *one = "{\"values\": [null, 3], \"changes\": [1]}";
	struct cpdscore_series s;
	struct err e;

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		assert_int_equal(cpdscore_series_parse(texts[i], strlen(texts[i]), "x", &s, &e),
				 -1);
		assert_int_equal(e.id, ERR_INVALID_FIELD);
		assert_string_equal(e.detail, "values");
		assert_string_equal(e.message, "no values: every value is missing (null or nan)");
		cpdscore_series_release(&s);
	}
	assert_int_equal(cpdscore_series_parse(one, strlen(one), "x", &s, &e), 0);
	assert_int_equal(s.nvalues, 2);
	cpdscore_series_release(&s);
}

/* A misspelt key or a key given twice is refused, not read as something else. */
static void test_read_json_refuses_unknown_and_twice_given_keys(void **state UNUSED)
{
	const char *typo = "{\"values\": [1, 2, 3, 4], \"changes\": [2], \"alert\": [3]}";
	const char *twice = "{\"values\": [1, 2, 3, 4], \"changes\": [2], \"changes\": [3]}";
	const char *tcpd = "{\"name\": \"n\", \"longname\": \"N\", \"values\": [1, 2], "
			   "\"annotations\": {\"6\": []}}";
	struct cpdscore_series s;
	struct err e;

	assert_int_equal(cpdscore_series_parse(typo, strlen(typo), "x", &s, &e), -1);
	assert_int_equal(e.id, ERR_INVALID_FIELD);
	assert_string_equal(e.detail, "alert");
	assert_string_equal(e.message, "unknown key 'alert' (a labelled series has values, "
				       "annotations or changes, alerts, groups, name, longname)");
	cpdscore_series_release(&s);
	assert_int_equal(cpdscore_series_parse(twice, strlen(twice), "x", &s, &e), -1);
	assert_int_equal(e.id, ERR_INVALID_JSON);
	assert_non_null(strstr(e.message, "duplicate object key"));
	cpdscore_series_release(&s);
	assert_int_equal(cpdscore_series_parse(tcpd, strlen(tcpd), "x", &s, &e), 0);
	assert_string_equal(s.name, "n");
	cpdscore_series_release(&s);
}

static void test_read_json(void **state UNUSED)
{
	const char *tcpd = "{\"name\": \"t\", \"values\": [1, null, 3, 4],"
			   " \"annotations\": {\"1\": [2], \"2\": [], \"3\": [2, 3, 2]}}";
	const char *ours = "{\"values\": [1, 1, 2, 5, 5, 6], \"groups\": [7, 7, 9, 12, 12, 14],"
			   " \"changes\": [12], \"alerts\": [9]}";
	struct cpdscore_series s;
	struct err e;

	assert_int_equal(cpdscore_series_parse(tcpd, strlen(tcpd), "file", &s, &e), 0);
	assert_string_equal(s.name, "t");
	assert_int_equal(s.n, 4);
	assert_true(isnan(s.values[1]));
	assert_int_equal(s.nannot, 3);
	assert_int_equal(s.annot[1].n, 0);
	assert_int_equal(s.annot[2].n, 2); /* duplicates dropped */
	assert_false(s.has_alerts);
	cpdscore_series_release(&s);

	/* groups 7 9 12 14 are commits 0..3; labels name groups */
	assert_int_equal(cpdscore_series_parse(ours, strlen(ours), "mine", &s, &e), 0);
	assert_string_equal(s.name, "mine");
	assert_int_equal(s.n, 4);
	assert_int_equal(s.annot[0].n, 1);
	assert_int_equal(s.annot[0].at[0], 2);
	assert_true(s.has_alerts);
	assert_int_equal(s.alerts.n, 2); /* 9 and the change at 12 */
	assert_int_equal(s.alerts.at[0], 1);
	assert_int_equal(s.alerts.at[1], 2);
	cpdscore_series_release(&s);

	ours = "{\"values\": [1, 2], \"groups\": [0, 2], \"changes\": [1]}";
	assert_int_equal(cpdscore_series_parse(ours, strlen(ours), "x", &s, &e), -1);
	assert_string_equal(e.message, "changes[0] names group 1, which has no value");
	cpdscore_series_release(&s);
	ours = "{\"values\": [1, 2], \"changes\": [2]}";
	assert_int_equal(cpdscore_series_parse(ours, strlen(ours), "x", &s, &e), -1);
	assert_string_equal(e.message, "changes[0] is 2, past the last value (2 values)");
	cpdscore_series_release(&s);
	ours = "{\"values\": [1, 2]}";
	assert_int_equal(cpdscore_series_parse(ours, strlen(ours), "x", &s, &e), -1);
	assert_int_equal(e.id, ERR_INVALID_FIELD);
	cpdscore_series_release(&s);
	/* past +-2^63, as plain `regtrack detect` and the API refuse it; TCPD's form too */
	ours = "{\"values\": [1e300, 2, 3, 4, 5, 6], \"changes\": [1]}";
	assert_int_equal(cpdscore_series_parse(ours, strlen(ours), "x", &s, &e), -1);
	assert_string_equal(e.message,
			    "values[0] is out of range (numbers must lie within +-2^63)");
	assert_string_equal(e.detail, "values");
	cpdscore_series_release(&s);
	tcpd = "{\"values\": [1, null, -1e19], \"annotations\": {\"1\": []}}";
	assert_int_equal(cpdscore_series_parse(tcpd, strlen(tcpd), "x", &s, &e), -1);
	assert_string_equal(e.message,
			    "values[2] is out of range (numbers must lie within +-2^63)");
	cpdscore_series_release(&s);
}

/* A missing value before a step must not shift the detection's position. */
static void test_detect_positions(void **state UNUSED)
{
	struct cpdscore_series s = { 0 };
	struct err e;
	size_t *pred, npred;

	s.name = xstrdup("step");
	s.nvalues = s.n = 60;
	s.values = xmalloc(s.nvalues * sizeof(*s.values));
	for (size_t i = 0; i < s.nvalues; i++)
		s.values[i] = (i < 30 ? 100 : 200) + 0.1 * (double)((i * 7) % 5);
	s.values[10] = NAN;
	s.values[11] = NAN;
	s.annot = xcalloc(1, sizeof(*s.annot));
	s.nannot = 1;
	assert_int_equal(cpdscore_detect(&s, NULL, &pred, &npred, &e), 0);
	assert_int_equal(npred, 1);
	assert_int_equal(pred[0], 30);
	free(pred);
	/* the same as runs of commits: 3 values a commit, groups 0, 2, 4, .. */
	free(s.values);
	s.nvalues = 90;
	s.values = xmalloc(s.nvalues * sizeof(*s.values));
	s.groups = xmalloc(s.nvalues * sizeof(*s.groups));
	s.commit_group = xmalloc(30 * sizeof(*s.commit_group));
	s.n = 30;
	for (size_t i = 0; i < s.nvalues; i++) {
		s.values[i] = (i / 3 < 18 ? 100 : 200) + 0.1 * (double)((i * 7) % 5);
		s.groups[i] = 2 * (i / 3);
	}
	for (size_t c = 0; c < 30; c++)
		s.commit_group[c] = 2 * c;
	for (size_t i = 6; i < 9; i++)
		s.values[i] = NAN; /* commit 2 has no value */
	assert_int_equal(cpdscore_detect(&s, NULL, &pred, &npred, &e), 0);
	assert_int_equal(npred, 1);
	assert_int_equal(pred[0], 18);
	free(pred);
	cpdscore_series_release(&s);
}

/* ---- the real corpora ----------------------------------------------------- */

static void test_tcpd_zero_is_the_papers(void **state UNUSED)
{
	struct cpdscore_total t;
	glob_t g;

	cpdscore_total_init(&t);
	assert_int_equal(glob("tests/fixtures/realcpd/tcpd/*.json", 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 31);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct cpdscore_series s;
		struct cpdscore_result r;
		struct err e;

		if (cpdscore_series_load(g.gl_pathv[i], &s, &e))
			fail_msg("%s", e.message);
		assert_int_equal(s.nannot, 5);
		cpdscore_series_score(&s, NULL, 0, &r);
		assert_near(r.f1, r.zero_f1, 0);
		assert_near(r.cover, r.zero_cover, 0);
		cpdscore_total_add(&t, &s, &r);
		cpdscore_series_release(&s);
	}
	globfree(&g);
	assert_int_equal(t.nseries, 31);
	assert_int_equal(t.naveraged, 25);
	print_message("no detection over the 25: F1 %.4f cover %.4f\n", t.zero_f1 / 25,
		      t.zero_cover / 25);
	/* published (van den Burg & Williams 2020, "zero", default): .647 / .557 */
	assert_int_equal(lround(1000 * t.zero_f1 / 25), 647);
	assert_int_equal(lround(1000 * t.zero_cover / 25), 557);
}

static void test_perfherder_facts(void **state UNUSED)
{
	struct cpdscore_total t;
	size_t with_changes = 0, alerts = 0;
	glob_t g;

	cpdscore_total_init(&t);
	assert_int_equal(glob("tests/fixtures/realcpd/perfherder/*.txt", 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 30);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct cpdscore_series s;
		struct cpdscore_result r;
		struct err e;

		if (cpdscore_series_load(g.gl_pathv[i], &s, &e))
			fail_msg("%s", e.message);
		assert_true(s.has_alerts);
		with_changes += s.annot[0].n > 0;
		alerts += s.alerts.n;
		cpdscore_series_score(&s, NULL, 0, &r);
		assert_int_equal(r.found_wide, 0);
		cpdscore_total_add(&t, &s, &r);
		cpdscore_series_release(&s);
	}
	globfree(&g);
	assert_int_equal(t.alert_series, 30);
	assert_int_equal(t.alert_points, 5202);
	assert_int_equal(t.nchanges, 25);
	assert_int_equal(with_changes, 21);
	assert_int_equal(30 - with_changes, 9);
	assert_int_equal(alerts, 38); /* 24 TP, 1 FN, 9 SP, 4 FP */
	/* no detection: 1 on the 9 without change, 2/(k+2) with k: 17 x 2/3, 4 x 1/2 */
	assert_near(t.zero_f1 / 30, (9 + 17 * 2.0 / 3 + 4 * 0.5) / 30, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_true_positives),
		cmocka_unit_test(test_f1_by_hand),
		cmocka_unit_test(test_cover_by_hand),
		cmocka_unit_test(test_far),
		cmocka_unit_test(test_read_text),
		cmocka_unit_test(test_read_text_refuses_out_of_range),
		cmocka_unit_test(test_read_refuses_all_missing),
		cmocka_unit_test(test_read_json_refuses_unknown_and_twice_given_keys),
		cmocka_unit_test(test_read_json),
		cmocka_unit_test(test_detect_positions),
		cmocka_unit_test(test_tcpd_zero_is_the_papers),
		cmocka_unit_test(test_perfherder_facts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
