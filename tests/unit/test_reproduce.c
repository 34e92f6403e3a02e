/* regtrack-worker reproduce's pure parts (worker/reproduce.h): --params and the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "worker/reproduce.h"

static void test_params(void **state UNUSED)
{
	struct err e;
	json_t *o = reproduce_parse_params("nr_task=1,mode=threads,ratio=0.5,size=-3", &e);
	char *t;

	assert_non_null(o);
	t = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	/* numbers as the service's params hold them, so the setup is the same */
	assert_string_equal(t, "{\"mode\":\"threads\",\"nr_task\":1,\"ratio\":0.5,\"size\":-3}");
	free(t);
	json_decref(o);
	o = reproduce_parse_params("", &e);
	assert_int_equal(json_object_size(o), 0);
	json_decref(o);
	assert_null(reproduce_parse_params("nr_task", &e));
	assert_string_equal(e.detail, "params");
	assert_null(reproduce_parse_params("=1", &e));
	assert_null(reproduce_parse_params("a=1,a=2", &e));
	o = reproduce_parse_params("v=1e3x,w=", &e);
	assert_string_equal(json_string_value(json_object_get(o, "v")), "1e3x");
	assert_string_equal(json_string_value(json_object_get(o, "w")), "");
	json_decref(o);
}

static void test_table(void **state UNUSED)
{
	json_t *runs = json_loads("[{\"metrics\": {\"b.ops\": [10, 30], \"a.time\": [1]}},"
				  " {\"metrics\": {\"b.ops\": [30]}}]",
				  0, NULL);
	char *t = reproduce_table(runs);
	char *a = strstr(t, "a.time"), *b = strstr(t, "b.ops");

	/* by name; b.ops: run means 20 and 30 -> mean 25, population stddev 5 = 20 % */
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a < b);
	assert_non_null(strstr(b, " 25 "));
	assert_non_null(strstr(b, " 20.00% "));
	assert_non_null(strstr(b, "  20 30\n"));
	assert_true(strstr(b, " 25 ") < strchr(b, '\n'));
	assert_non_null(strstr(a, " 0.00% "));
	free(t);
	json_decref(runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
