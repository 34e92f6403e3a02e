/*
 * Unit tests of lib/resultdoc.c: is_rfc3339() takes exactly the date-times
 * PostgreSQL's timestamptz reads (each refused string below was refused
 * by PostgreSQL 15 with "date/time field value out of range" or "time
 * zone displacement out of range"), and resultdoc_check() names the field
 * of an integer past its column's range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "resultdoc.h"

static void rfc3339_calendar(void **state)
{
	static const char *const good[] = {
		"2026-11-30T02:19:00Z",	       "2024-02-29T00:00:00Z",
		"2000-02-29T23:59:59.5+01:00", "2016-12-31T23:59:60Z",
		"0001-01-01T00:00:00+15:00",   "9999-12-31T23:59:59-15:59",
		"2026-04-30t10:00:00z",	       "2026-01-31 10:00:00.123456789-03:30",
	};
	static const char *const bad[] = {
		"0000-01-01T00:00:00Z",	     "2026-02-30T00:00:00Z",
		"2023-02-29T00:00:00Z",	     "1900-02-29T00:00:00Z",
		"2026-04-31T00:00:00Z",	     "2026-06-31T00:00:00Z",
		"2026-13-01T00:00:00Z",	     "2026-00-01T00:00:00Z",
		"2026-01-00T00:00:00Z",	     "2026-01-01T24:00:00Z",
		"2026-01-01T00:60:00Z",	     "2026-01-01T00:00:61Z",
		"2016-12-31T23:59:60.5Z",    "2026-01-01T00:00:00+16:00",
		"2026-01-01T00:00:00+25:00", "2026-01-01T00:00:00-23:59",
		"2026-01-01T00:00:00+05:60", "2026-01-01T00:00:00",
		"2026-01-01T00:00:00.Z",     "2026-1-01T00:00:00Z",
		"2026-01-01T00:00:00+0100",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (!is_rfc3339(good[i]))
			fail_msg("refused '%s'", good[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (is_rfc3339(bad[i]))
			fail_msg("took '%s'", bad[i]);
	}
}

/* the seconds of each form, checked against `date -u -d STRING +%s` (fractions by hand) */
static void rfc3339_seconds(void **state)
{
	static const struct {
		const char *s;
		double t;
	} good[] = {
		{ "1970-01-01", 0 },
		{ "2026-12-01", 1796083200 },
		{ "2024-02-29", 1709164800 },
		{ "2026-12-07T13:00:00Z", 1796648400 },
		{ "2026-12-07T13:00:00+02:00", 1796641200 },
		{ "2026-12-07T13:00:00-15:59", 1796705940 },
		{ "2026-12-07 13:00:00.25z", 1796648400.25 },
		{ "2016-12-31T23:59:60Z", 1483228800 },
		{ "1969-12-31T23:59:59Z", -1 },
		{ "0001-01-01T00:00:00Z", -62135596800.0 },
	};
	static const char *const bad[] = {
		"2026-02-30",	       "2026-13-01", "2026-00-10", "2023-02-29", "2026-1-01",
		"2026-01-01T00:00:00", "yesterday",  "",	   "2026-01-0x", "0000-01-01",
	};
	double t;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (date_or_rfc3339_seconds(good[i].s, &t))
			fail_msg("refused '%s'", good[i].s);
		if (t != good[i].t)
			fail_msg("'%s' read as %.3f, not %.3f", good[i].s, t, good[i].t);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!date_or_rfc3339_seconds(bad[i], &t))
			fail_msg("took '%s'", bad[i]);
	}
}

/* the document's error for machine: {"hostname": ..., "nr_cpus": v, "memory_mb": m} */
static int check_machine(json_int_t v, json_int_t m, struct err *e)
{
	struct resultdoc d;
	json_t *doc = json_pack("{s:s,s:s,s:s,s:{s:[f]},s:{s:s,s:s,s:I,s:I}}", "run_id",
				"6f1c0e52-3c1e-4d2b-9a55-0f7d1d2a7b10", "commit",
				"0123456789abcdef0123456789abcdef01234567", "testcase",
				"vm-scalability", "metrics", "m.x", 1.0, "machine", "hostname", "h",
				"arch", "x86_64", "nr_cpus", v, "memory_mb", m);
	int ret;

	assert_non_null(doc);
	ret = resultdoc_check(doc, &d, e);
	if (!ret) {
		assert_int_equal(d.nr_cpus, v);
		assert_int_equal(d.memory_mb, m);
	}
	json_decref(doc);
	return ret;
}

static void integer_column_ranges(void **state)
{
	struct err e;

	(void)state;
	assert_int_equal(check_machine(INT32_MAX, INT64_MAX, &e), 0);
	assert_int_equal(check_machine(0, 0, &e), 0);
	assert_int_equal(check_machine((json_int_t)INT32_MAX + 1, 1, &e), -1);
	assert_int_equal(e.status, 400);
	assert_string_equal(e.code, "invalid_field");
	assert_string_equal(e.detail, "machine.nr_cpus");
	assert_string_equal(e.message, "'machine.nr_cpus' must be an integer in [0, 2147483647]");
	assert_int_equal(check_machine(-1, 1, &e), -1);
	assert_string_equal(e.detail, "machine.nr_cpus");
	assert_int_equal(check_machine(1, -1, &e), -1);
	assert_string_equal(e.detail, "machine.memory_mb");
}

/* the document base with extra's members added before its closing brace (caller frees) */
static json_t *doc_with(const char *base, const char *extra)
{
	char text[512];
	json_t *doc;

	snprintf(text, sizeof(text), "%s%s}", base, extra);
	doc = json_loads(text, 0, NULL);
	assert_non_null(doc);
	return doc;
}

/*
 * Checks base + extra into *d: refused with detail when detail is set (returns 0),
 * else accepted (returns 1). *doc is the document, which d borrows from: the
 * caller frees it after reading d.
 */
static int check_case(const char *base, const char *extra, const char *detail, struct resultdoc *d,
		      json_t **doc)
{
	struct err e;
	int r;

	*doc = doc_with(base, extra);
	r = resultdoc_check(*doc, d, &e);
	if (!detail) {
		if (r)
			fail_msg("refused %s: %s", extra, e.message);
		return 1;
	}
	assert_int_equal(r, -1);
	assert_int_equal(e.status, 400);
	assert_string_equal(e.detail, detail);
	return 0;
}

/* image_sha256 and host_fingerprint are checked, and stay unknown fields (runs.extra) */
static void image_fields(void **state)
{
	static const char *const base =
		"{\"run_id\": \"0b9f0a57-1c9e-4e0a-9a57-9b2a3c4d5e6f\", "
		"\"commit\": \"0123456789abcdef0123456789abcdef01234567\", "
		"\"testcase\": \"small-allocs\", \"metrics\": {\"a.b\": [1]}";
	static const struct {
		const char *extra, *detail; /* detail NULL: accepted */
	} cases[] = {
		{ ", \"image_sha256\": \""
		  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"",
		  NULL },
		{ ", \"image_sha256\": \""
		  "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\"",
		  "image_sha256" },
		{ ", \"image_sha256\": \"abc\"", "image_sha256" },
		{ ", \"image_sha256\": 5", "image_sha256" },
		{ ", \"host_fingerprint\": {\"cpu_model\": \"X\", \"microcode\": null}", NULL },
		{ ", \"host_fingerprint\": {\"cpu_model\": 3}", "host_fingerprint" },
		{ ", \"host_fingerprint\": \"x\"", "host_fingerprint" },
	};
	int image_is_field = 0;

	(void)state;
	for (int i = 0; resultdoc_fields[i]; i++)
		image_is_field |= !strcmp(resultdoc_fields[i], "image_sha256");
	assert_false(image_is_field);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct resultdoc d;
		json_t *doc;

		if (check_case(base, cases[i].extra, cases[i].detail, &d, &doc))
			assert_true(d.image_sha256 || d.host_fingerprint);
		json_decref(doc);
	}
}

/* a misspelt machine key would file the run under another setup: refused, named */
static void machine_typo_refused(void **state)
{
	struct resultdoc d;
	struct err e;
	json_t *doc = json_pack("{s:s,s:s,s:s,s:{s:[f]},s:{s:s,s:s,s:s}}", "run_id",
				"6f1c0e52-3c1e-4d2b-9a55-0f7d1d2a7b10", "commit",
				"0123456789abcdef0123456789abcdef01234567", "testcase",
				"vm-scalability", "metrics", "m.x", 1.0, "machine", "hostname", "h",
				"arch", "x86_64", "tbox_grop", "lkp-skl");

	(void)state;
	assert_int_equal(resultdoc_check(doc, &d, &e), -1);
	assert_string_equal(e.detail, "machine.tbox_grop");
	assert_non_null(
		strstr(e.message, "unknown field 'machine.tbox_grop' (known: hostname, arch"));
	json_object_del(json_object_get(doc, "machine"), "tbox_grop");
	json_object_set_new(json_object_get(doc, "machine"), "tbox_group", json_string("lkp-skl"));
	assert_int_equal(resultdoc_check(doc, &d, &e), 0);
	assert_string_equal(d.tbox_group, "lkp-skl");
	json_decref(doc);
}

/* mode is the run's, params.measure the setup's: one without the other defaults it, both
 * must agree */
static void mode_and_measure(void **state)
{
	static const char *const base =
		"{\"run_id\": \"0b9f0a57-1c9e-4e0a-9a57-9b2a3c4d5e6f\", "
		"\"commit\": \"0123456789abcdef0123456789abcdef01234567\", "
		"\"testcase\": \"small-allocs\", \"metrics\": {\"a.b\": [1]}";
	static const struct {
		const char *extra, *mode, *detail; /* detail NULL: accepted with mode */
	} cases[] = {
		{ "", "wallclock", NULL },
		{ ", \"mode\": \"icount\"", "icount", NULL },
		{ ", \"params\": {\"measure\": \"icount\"}", "icount", NULL },
		{ ", \"mode\": \"icount\", \"params\": {\"measure\": \"icount\"}", "icount", NULL },
		{ ", \"mode\": \"wallclock\", \"params\": {\"measure\": \"icount\"}", NULL,
		  "mode" },
		{ ", \"mode\": \"icount\", \"params\": {\"measure\": \"wallclock\"}", NULL,
		  "mode" },
		{ ", \"params\": {\"measure\": \"cycles\"}", NULL, "params.measure" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct resultdoc d;
		json_t *doc;

		if (check_case(base, cases[i].extra, cases[i].detail, &d, &doc))
			assert_string_equal(d.mode, cases[i].mode);
		json_decref(doc);
	}
	{
		struct resultdoc d;
		struct err e;
		json_t *doc =
			doc_with(base,
				 ", \"mode\": \"wallclock\", \"params\": {\"measure\": \"icount\"}");

		assert_int_equal(resultdoc_check(doc, &d, &e), -1);
		assert_string_equal(e.message,
				    "'mode' \"wallclock\" contradicts params.measure \"icount\"");
		json_decref(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfc3339_calendar),	 cmocka_unit_test(rfc3339_seconds),
		cmocka_unit_test(integer_column_ranges), cmocka_unit_test(image_fields),
		cmocka_unit_test(mode_and_measure),	 cmocka_unit_test(machine_typo_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
