/* lib/parse/perf_bench.c on perf 6.1's real output (tests/fixtures/parse/perf-bench-6.1-*). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "attr.h"
#include "buf.h"
#include "parse/parse.h"

static json_t *parse_file(const char *name)
{
	struct buf text = BUF_INIT(0);
	struct err e;
	char path[256];
	json_t *doc;

	snprintf(path, sizeof(path), "tests/fixtures/parse/perf-bench-6.1-%s.txt", name);
	assert_int_equal(buf_read_file(&text, path), 0);
	doc = parse_output("perf-bench", text.data, text.len, &e);
	assert_non_null(doc);
	buf_release(&text);
	return doc;
}

static json_t *parse_text(const char *text)
{
	struct err e;
	json_t *doc = parse_output("perf-bench", text, strlen(text), &e);

	assert_non_null(doc);
	return doc;
}

static const char *status(json_t *doc)
{
	return json_string_value(json_object_get(doc, "status"));
}

/* value i of metric name; fails the test when there is none */
static double val(json_t *doc, const char *name, size_t i)
{
	json_t *a = json_object_get(json_object_get(doc, "metrics"), name);

	if (i >= json_array_size(a))
		fail_msg("metric '%s' has %zu values, wanted index %zu", name, json_array_size(a),
			 i);
	return json_number_value(json_array_get(a, i));
}

/* |got - want| <= tol (this cmocka has no assert_double_equal) */
static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

static size_t nmetrics(json_t *doc)
{
	return json_object_size(json_object_get(doc, "metrics"));
}

static int errors_mention(json_t *doc, const char *needle)
{
	json_t *s;
	size_t i;

	json_array_foreach (json_object_get(doc, "errors"), i, s)
		if (strstr(json_string_value(s), needle))
			return 1;
	return 0;
}

static void test_sched(void **state UNUSED)
{
	json_t *doc = parse_file("sched-pipe");

	assert_string_equal(status(doc), "ok");
	assert_int_equal(nmetrics(doc), 3);
	assert_near(val(doc, "perf-bench-sched-pipe.total_time_sec", 0), 0.599, 0);
	assert_near(val(doc, "perf-bench-sched-pipe.usecs_per_op", 0), 29.99715, 1e-9);
	/* LKP's perf-bench-sched-pipe.ops_per_sec */
	assert_near(val(doc, "perf-bench-sched-pipe.ops_per_sec", 0), 33336, 0);
	json_decref(doc);

	doc = parse_file("sched-messaging");
	assert_string_equal(status(doc), "ok");
	assert_int_equal(nmetrics(doc), 1);
	assert_near(val(doc, "perf-bench-sched-messaging.total_time_sec", 0), 1.495, 0);
	json_decref(doc);
	doc = parse_file("sched-messaging-threads");
	assert_near(val(doc, "perf-bench-sched-messaging.total_time_sec", 0), 0.093, 0);
	json_decref(doc);
}

/* every function of mem, perf's GB (2^30 bytes) */
static void test_mem(void **state UNUSED)
{
	json_t *doc = parse_file("mem-memcpy");

	assert_string_equal(status(doc), "ok");
	assert_int_equal(nmetrics(doc), 4);
	assert_near(val(doc, "perf-bench-mem-memcpy.default.GB_per_sec", 0), 24.172339, 1e-9);
	assert_near(val(doc, "perf-bench-mem-memcpy.x86-64-unrolled.GB_per_sec", 0), 35.00224,
		    1e-9);
	assert_near(val(doc, "perf-bench-mem-memcpy.x86-64-movsb.GB_per_sec", 0), 27.202298, 1e-9);
	json_decref(doc);

	doc = parse_file("mem-memset");
	assert_string_equal(status(doc), "ok");
	assert_near(val(doc, "perf-bench-mem-memset.x86-64-stosb.GB_per_sec", 0), 130.208333, 1e-9);
	json_decref(doc);

	/* smaller rates in perf's smaller units */
	doc = parse_text("# Running 'mem/memcpy' benchmark:\n"
			 "# function 'default' (Default memcpy() provided by glibc)\n"
			 "     512.000000 MB/sec\n"
			 "# function 'x86-64-movsb' (movsb-based memcpy())\n"
			 "     1048576.000000d KB/sec\n");
	assert_string_equal(status(doc), "ok");
	assert_near(val(doc, "perf-bench-mem-memcpy.default.GB_per_sec", 0), 0.5, 0);
	assert_near(val(doc, "perf-bench-mem-memcpy.x86-64-movsb.GB_per_sec", 0), 1, 0);
	json_decref(doc);

	/* a copy too short for perf's clock: "inf GB/sec", no value but a
	 * note (here the only rate, so the run measured nothing) */
	doc = parse_file("mem-memcpy-4KB-default");
	assert_string_equal(status(doc), "failed");
	assert_int_equal(nmetrics(doc), 0);
	assert_true(errors_mention(doc, "too short for perf's clock"));
	json_decref(doc);
}

static void test_futex_epoll(void **state UNUSED)
{
	json_t *doc = parse_file("futex-hash");

	assert_string_equal(status(doc), "ok");
	assert_int_equal(nmetrics(doc), 2);
	assert_near(val(doc, "perf-bench-futex-hash.ops_per_sec", 0), 100864, 0);
	assert_near(val(doc, "perf-bench-futex-hash.ops_per_sec_stddev_percent", 0), 15.74, 1e-9);
	json_decref(doc);

	doc = parse_file("epoll-wait");
	assert_string_equal(status(doc), "ok");
	assert_near(val(doc, "perf-bench-epoll-wait.ops_per_sec", 0), 54871, 0);
	assert_near(val(doc, "perf-bench-epoll-wait.ops_per_sec_stddev_percent", 0), 51.01, 1e-9);
	json_decref(doc);
}

/* repeats of one benchmark are its values in order */
static void test_repeats(void **state UNUSED)
{
	json_t *doc = parse_text("# Running 'sched/pipe' benchmark:\n"
				 "     Total time: 0.5 [sec]\n"
				 "# Running 'sched/pipe' benchmark:\n"
				 "     Total time: 0.25 [sec]\n");

	assert_string_equal(status(doc), "ok");
	assert_near(val(doc, "perf-bench-sched-pipe.total_time_sec", 0), 0.5, 0);
	assert_near(val(doc, "perf-bench-sched-pipe.total_time_sec", 1), 0.25, 0);
	json_decref(doc);
}

static void test_failures(void **state UNUSED)
{
	/* cut short after the header: the run failed, naming the benchmark */
	json_t *doc = parse_text("# Running 'sched/pipe' benchmark:\n"
				 "# Executed 20000 pipe operations between two processes\n");

	assert_string_equal(status(doc), "failed");
	assert_true(errors_mention(doc, "'sched-pipe' gave no result"));
	json_decref(doc);
	/* the second of two cut short fails the file */
	doc = parse_text("# Running 'futex/hash' benchmark:\n"
			 "Averaged 5 operations/sec (+- 1.00%), total secs = 1\n"
			 "# Running 'epoll/wait' benchmark:\n"
			 "perf: epoll_create failed\n");
	assert_string_equal(status(doc), "failed");
	assert_true(errors_mention(doc, "'epoll-wait'"));
	json_decref(doc);
	/* --format=simple's bare number names no benchmark */
	doc = parse_text("1.238\n");
	assert_string_equal(status(doc), "failed");
	assert_true(errors_mention(doc, "# Running"));
	json_decref(doc);
	/* a name perf never prints is not made into a metric */
	doc = parse_text("# Running 'sched/pipe x' benchmark:\n     Total time: 1 [sec]\n");
	assert_string_equal(status(doc), "failed");
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched),	    cmocka_unit_test(test_mem),
		cmocka_unit_test(test_futex_epoll), cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
