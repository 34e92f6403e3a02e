#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "server/abtest/abtest.h"

/*
 * abtest_plan_fill(): a request's absent fields from a plan (server/abtest/abtest.h).
 * Plans are written here in their normalized form (server/track/plan.c).
 */

static json_t *plan(const char *kconfigs, const char *compilers, const char *targets, int repeat,
		    const char *measure, const char *monitors)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "{\"name\": \"p\", \"tree\": \"linux\", \"branches\": [\"master\"], "
		 "\"testcases\": [{\"testcase\": \"execl\", \"params\": {\"nr_task\": 2}}], "
		 "\"kconfigs\": %s, \"compilers\": %s, \"targets\": %s, \"repeat\": %d, "
		 "\"measure\": \"%s\", \"monitors\": %s}",
		 kconfigs, compilers, targets, repeat, measure, monitors);
	json_t *p = json_loads(text, 0, NULL);
	assert_non_null(p);
	return p;
}

/* body after the fill as canonical text (new), or the error's "detail: message" */
static char *fill(const char *body, json_t *p)
{
	json_t *b = json_loads(body, 0, NULL);
	struct err e;
	char *out;

	assert_non_null(b);
	if (abtest_plan_fill(b, p, &e)) {
		size_t n = strlen(e.detail) + strlen(e.message) + 3;

		out = malloc(n);
		snprintf(out, n, "%s: %s", e.detail, e.message);
	} else {
		out = json_dumps(b, JSON_COMPACT | JSON_SORT_KEYS);
	}
	json_decref(b);
	json_decref(p);
	return out;
}

static void check(const char *body, json_t *p, const char *want)
{
	char *got = fill(body, p);

	assert_string_equal(got, want);
	free(got);
}

static void every_field_from_the_plan(void **state)
{
	(void)state;
	/* arm64 is in the matrix (an arm64 kconfig), vm-big too (a tbox_group) */
	check("{\"plan\": \"p\"}",
	      plan("[\"x86_64-tiny-mm\", \"arm64-tiny-mm\"]", "[\"gcc-13\"]",
		   "[\"x86_64\", \"arm64\", \"vm-big\"]", 4, "icount", "[\"perf-stat\"]"),
	      "{\"compiler\":\"gcc-13\",\"kconfig\":\"x86_64-tiny-mm\",\"measure\":\"icount\","
	      "\"monitors\":[\"perf-stat\"],\"plan\":\"p\",\"repeat\":4,\"targets\":[\"x86_64\","
	      "\"arm64\",\"vm-big\"],\"testcases\":[{\"params\":{\"nr_task\":2},\"testcase\":"
	      "\"execl\"}],\"tree\":\"linux\"}");
}

static void the_requests_fields_win(void **state)
{
	(void)state;
	check("{\"tree\": \"linux\", \"testcases\": [{\"testcase\": \"hackbench\"}], "
	      "\"targets\": [\"arm64\"], \"kconfig\": \"arm64-defconfig\", \"compiler\": \"clang-17\", "
	      "\"measure\": \"wallclock\", \"monitors\": [], \"repeat\": 9}",
	      plan("[\"x86_64-tiny-mm\"]", "[\"gcc-13\", \"gcc-12\"]", "[\"x86_64\"]", 4, "icount",
		   "[\"perf-stat\"]"),
	      "{\"compiler\":\"clang-17\",\"kconfig\":\"arm64-defconfig\",\"measure\":\"wallclock\","
	      "\"monitors\":[],\"repeat\":9,\"targets\":[\"arm64\"],\"testcases\":[{\"testcase\":"
	      "\"hackbench\"}],\"tree\":\"linux\"}");
}

static void defaults_that_compare_nothing_are_not_taken(void **state)
{
	(void)state;
	/* repeat 1 and wallclock stay unnamed; no monitors; arm64 has no kernel in the plan */
	check("{}",
	      plan("[\"x86_64-defconfig\"]", "[\"gcc-12\"]", "[\"x86_64\", \"arm64\"]", 1,
		   "wallclock", "[]"),
	      "{\"compiler\":\"gcc-12\",\"kconfig\":\"x86_64-defconfig\",\"targets\":[\"x86_64\"],"
	      "\"testcases\":[{\"params\":{\"nr_task\":2},\"testcase\":\"execl\"}],\"tree\":\"linux\"}");
}

static void one_kconfig_for_the_targets(void **state)
{
	(void)state;
	/* two configs of x86_64: the request's arm64 target needs only the arm64 one */
	check("{\"targets\": [\"arm64\"]}",
	      plan("[\"x86_64-defconfig\", \"x86_64-tiny-mm\", \"arm64-tiny-mm\"]", "[\"gcc-12\"]",
		   "[\"x86_64\", \"arm64\"]", 1, "wallclock", "[]"),
	      "{\"compiler\":\"gcc-12\",\"kconfig\":\"arm64-tiny-mm\",\"targets\":[\"arm64\"],"
	      "\"testcases\":[{\"params\":{\"nr_task\":2},\"testcase\":\"execl\"}],\"tree\":\"linux\"}");
	check("{}",
	      plan("[\"x86_64-defconfig\", \"x86_64-tiny-mm\"]", "[\"gcc-12\"]", "[\"x86_64\"]", 1,
		   "wallclock", "[]"),
	      "plan: plan 'p' builds more than one kconfig ('x86_64-defconfig', 'x86_64-tiny-mm') "
	      "and a request builds one (its name for each target's arch): give 'kconfig'");
	/* one config per arch, but not the same one */
	check("{}",
	      plan("[\"x86_64-defconfig\", \"arm64-tiny-mm\"]", "[\"gcc-12\"]",
		   "[\"x86_64\", \"arm64\"]", 1, "wallclock", "[]"),
	      "plan: plan 'p' builds more than one kconfig ('x86_64-defconfig', 'arm64-tiny-mm') "
	      "and a request builds one (its name for each target's arch): give 'kconfig'");
	check("{\"targets\": [\"arm64\"]}",
	      plan("[\"x86_64-defconfig\"]", "[\"gcc-12\"]", "[\"x86_64\"]", 1, "wallclock", "[]"),
	      "plan: plan 'p' has no kconfig for the request's targets: give 'kconfig'");
	/* host runs on any target */
	check("{}", plan("[\"host\"]", "[\"gcc-12\"]", "[\"vm-2p\"]", 3, "wallclock", "[]"),
	      "{\"compiler\":\"gcc-12\",\"kconfig\":\"host\",\"repeat\":3,\"targets\":[\"vm-2p\"],"
	      "\"testcases\":[{\"params\":{\"nr_task\":2},\"testcase\":\"execl\"}],\"tree\":\"linux\"}");
}

static void refusals_name_the_plan(void **state)
{
	(void)state;
	check("{\"tree\": \"next\"}",
	      plan("[\"x86_64-defconfig\"]", "[\"gcc-12\"]", "[\"x86_64\"]", 1, "wallclock", "[]"),
	      "plan: plan 'p' tests tree 'linux', not 'next'");
	check("{\"kconfig\": \"x86_64-defconfig\"}",
	      plan("[\"x86_64-defconfig\"]", "[\"gcc-12\", \"clang-17\"]", "[\"x86_64\"]", 1,
		   "wallclock", "[]"),
	      "plan: plan 'p' builds with 2 compilers and a request with one: give 'compiler'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_field_from_the_plan),
		cmocka_unit_test(the_requests_fields_win),
		cmocka_unit_test(defaults_that_compare_nothing_are_not_taken),
		cmocka_unit_test(one_kconfig_for_the_targets),
		cmocka_unit_test(refusals_name_the_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
