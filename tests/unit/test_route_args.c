/*
 * Unit tests of route_args_load (server/api/route_args.c): a route's query
 * arguments are its path item's and its operation's "in": "query"
 * parameters, "$ref"s resolved; "{name}" segments match the table's "{}";
 * a route the document does not describe is not checked (NULL); an
 * unresolvable "$ref" or a document without paths is an error. Also the
 * server's own table against docs/openapi.json: /api/v1/series takes its
 * filters and nothing else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "attr.h"
#include "server/api/api.h"
#include "server/api/route_args.h"

static enum MHD_Result no_handler(struct request *rq UNUSED)
{
	return MHD_NO;
}

static const struct route table[] = {
	{ "GET", "/api/v1/things", no_handler, 0, 0, NULL },
	{ "GET", "/api/v1/things/{}", no_handler, 0, 0, NULL },
	{ "POST", "/api/v1/things/{}", no_handler, 0, 0, NULL },
	{ "GET", "/api/v1/undocumented", no_handler, 0, 0, NULL },
};
#define NT (sizeof(table) / sizeof(table[0]))

static const char spec[] =
	"{\"paths\": {"
	" \"/api/v1/things\": {\"parameters\": [{\"name\": \"limit\", \"in\": \"query\"}],"
	"   \"get\": {\"parameters\": [{\"$ref\": \"#/components/parameters/State\"},"
	"                            {\"name\": \"X-Trace\", \"in\": \"header\"}]}},"
	" \"/api/v1/things/{thing_id}\": {"
	"   \"get\": {\"parameters\": [{\"name\": \"thing_id\", \"in\": \"path\"}]},"
	"   \"post\": {\"parameters\": [{\"name\": \"dry_run\", \"in\": \"query\"}]}}},"
	" \"components\": {\"parameters\": {\"State\": {\"name\": \"state\", \"in\": \"query\"}}}}";

static void test_query_names_by_route(void **state UNUSED)
{
	const char *const **a;
	struct err e;

	assert_int_equal(route_args_load(table, NT, spec, strlen(spec), &a, &e), 0);
	/* the path item's, then the operation's; a header is not a query argument */
	assert_non_null(a[0]);
	assert_string_equal(a[0][0], "limit");
	assert_string_equal(a[0][1], "state");
	assert_null(a[0][2]);
	/* {thing_id} is the table's {}; a path parameter is not a query argument */
	assert_non_null(a[1]);
	assert_null(a[1][0]);
	/* the method picks the operation */
	assert_non_null(a[2]);
	assert_string_equal(a[2][0], "dry_run");
	assert_null(a[2][1]);
	/* not in the document: not checked */
	assert_null(a[3]);
	route_args_free(a, NT);
}

static void test_bad_documents(void **state UNUSED)
{
	static const char bad_ref[] = "{\"paths\": {\"/api/v1/things\": {\"get\": {\"parameters\": "
				      "[{\"$ref\": \"#/components/parameters/Nope\"}]}}}}";
	static const char no_paths[] = "{\"openapi\": \"3.0.3\"}";
	const char *const **a = (const char *const **)&a;
	struct err e;

	assert_int_equal(route_args_load(table, NT, bad_ref, strlen(bad_ref), &a, &e), -1);
	assert_null(a);
	assert_int_equal(e.id, ERR_INTERNAL);
	assert_non_null(strstr(e.message, "GET /api/v1/things"));
	assert_int_equal(route_args_load(table, NT, no_paths, strlen(no_paths), &a, &e), -1);
	assert_null(a);
	assert_int_equal(route_args_load(table, NT, "not json", 8, &a, &e), -1);
	route_args_free(NULL, NT);
}

static void test_the_servers_table(void **state UNUSED)
{
	const char *const **a;
	struct err e;
	const char *const *series = NULL, *const *machines = NULL;

	assert_int_equal(api_route_args(&a, &e), 0);
	for (unsigned i = 0; i < nr_routes; i++) {
		if (strcmp(routes[i].method, "GET"))
			continue;
		/* every GET route of the table is in the document */
		if (!a[i])
			fail_msg("GET %s is not in docs/openapi.json", routes[i].pattern);
		if (!strcmp(routes[i].pattern, "/api/v1/series"))
			series = a[i];
		if (!strcmp(routes[i].pattern, "/api/v1/machines"))
			machines = a[i];
	}
	assert_non_null(series);
	assert_string_equal(series[0], "testcase");
	assert_string_equal(series[1], "metric");
	assert_non_null(machines);
	assert_null(machines[0]);
	route_args_free(a, nr_routes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_names_by_route),
		cmocka_unit_test(test_bad_documents),
		cmocka_unit_test(test_the_servers_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
