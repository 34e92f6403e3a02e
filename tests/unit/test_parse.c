/*
 * Tests of lib/parse: golden tests against LKP's own parser output
 * (NAME.expected.yaml beside NAME.txt, copied from
 * /work/shared/fixtures/real into tests/fixtures/parse/), values checked by
 * hand for fixtures without an oracle, and every fixture cut short at
 * several points (run under ASan/UBSan by `make check`). Run from the repo
 * root: fixtures are found at tests/fixtures/parse/.
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

#include "parse/parse.h"
#include "attr.h"
#include "xalloc.h"

#define FIXDIR "tests/fixtures/parse/"

/* The fixture's bytes without its first "# source:" line; new, free(). */
static char *load(const char *name, size_t *len)
{
	char *path = xstrfmt(FIXDIR "%s", name);
	FILE *f = fopen(path, "rb");
	char *data, *start;
	long n;

	if (!f)
		fail_msg("cannot open fixture '%s' (run from the repo root)", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	data = xmalloc((size_t)n + 1);
	assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
	data[n] = '\0';
	fclose(f);
	free(path);
	start = data;
	if (!strncmp(start, "# source:", 9)) {
		char *nl = strchr(start, '\n');

		start = nl ? nl + 1 : start + strlen(start);
	}
	*len = strlen(start);
	memmove(data, start, *len + 1);
	return data;
}

static json_t *parse_fixture(const char *tool, const char *name)
{
	size_t len;
	char *text = load(name, &len);
	struct err e;
	json_t *doc = parse_output(tool, text, len, &e);

	free(text);
	assert_non_null(doc);
	return doc;
}

static json_t *parse_str(const char *tool, const char *text)
{
	struct err e;
	json_t *doc = parse_output(tool, text, strlen(text), &e);

	assert_non_null(doc);
	return doc;
}

static const char *status(json_t *doc)
{
	return json_string_value(json_object_get(doc, "status"));
}

static json_t *metric(json_t *doc, const char *name)
{
	json_t *a = json_object_get(json_object_get(doc, "metrics"), name);

	if (!a)
		fail_msg("metric '%s' missing", name);
	return a;
}

static double val(json_t *doc, const char *name, size_t i)
{
	json_t *a = metric(doc, name);

	if (i >= json_array_size(a))
		fail_msg("metric '%s' has %zu values, wanted index %zu", name, json_array_size(a),
			 i);
	return json_number_value(json_array_get(a, i));
}

static size_t nvalues(json_t *doc)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	json_object_foreach (json_object_get(doc, "metrics"), k, v)
		n += json_array_size(v);
	return n;
}

static int errors_mention(json_t *doc, const char *needle)
{
	json_t *errs = json_object_get(doc, "errors"), *s;
	size_t i;

	json_array_foreach (errs, i, s)
		if (strstr(json_string_value(s), needle))
			return 1;
	return 0;
}

static void assert_rel(double got, double want, double rel, const char *what)
{
	double scale = fabs(want) > 1e-300 ? fabs(want) : 1;

	if (!(fabs(got - want) / scale <= rel))
		fail_msg("%s: got %.17g, want %.17g (rel. tolerance %g)", what, got, want, rel);
}

/* --- golden tests ---------------------------------------------------- */

/* How an oracle value (LKP aggregates runs) follows from our per-run values */
enum agg { AGG_ONE, AGG_MEAN, AGG_SUM, AGG_MAX, AGG_MIN, AGG_HMEAN, AGG_SPREAD, AGG_SKIP };

/*
 * A deliberate difference from LKP's output. key: the oracle key, or
 * "*SUFFIX" for every key ending in SUFFIX. ours: our metric without the
 * tool prefix (NULL = the same name). rel: relative tolerance (0 = 1e-9).
 * printed: LKP printed the value rounded or truncated, compare at the
 * precision printed (one unit of its last digit).
 */
struct rule {
	const char *key;
	const char *ours;
	enum agg agg;
	double rel;
	int printed;
	const char *why;
};

struct golden {
	const char *tool, *fixture, *oracle;
	const struct rule *rules;
	/* prefixes of our metrics that LKP does not print, with the reason */
	const char *const *extras;
};

#define VMS_EXACT_NS                                                                        \
	"LKP subtracts the two epoch times as doubles (resolution ~2e-7 s at 1.6e9 s); we " \
	"subtract the decimal strings exactly, so a run differs by up to ~4e-7 relative"

static const struct rule rules_vms_swapin[] = {
	{ "stddev%", NULL, AGG_ONE, 0, 1, "LKP prints %g (6 significant digits)" },
	{ "free_time", NULL, AGG_ONE, 0, 1, "LKP prints %g (6 significant digits)" },
	{ "median_stddev%", "median", AGG_SPREAD, 0, 0,
	  "LKP's spread of the per-run medians; we give the medians" },
	{ NULL, NULL, AGG_ONE, 0, 0, NULL },
};

static const struct rule rules_vms_truncate[] = {
	{ "throughput", NULL, AGG_MEAN, 1e-6, 0,
	  "LKP prints the mean over runs, truncated; we give each run. " VMS_EXACT_NS },
	{ "stddev%", "throughput", AGG_SPREAD, 1e-4, 0,
	  "LKP's spread across runs; ours per run is the spread within a run. " VMS_EXACT_NS },
	{ "median", NULL, AGG_MEAN, 1e-6, 0, "mean over runs in LKP. " VMS_EXACT_NS },
	{ "median_stddev%", "median", AGG_SPREAD, 1e-4, 0, "spread across runs. " VMS_EXACT_NS },
	{ "workload", NULL, AGG_SUM, 0, 0, "LKP sums the runs' KB; we give each run's" },
	{ "throughput_fault", NULL, AGG_MEAN, 1e-6, 0, "as throughput" },
	{ "stddev_fault%", "throughput_fault", AGG_SPREAD, 1e-4, 0, "as stddev%" },
	{ "median_fault", NULL, AGG_MEAN, 1e-6, 0, "as median" },
	{ "median_fault_stddev%", "median_fault", AGG_SPREAD, 1e-4, 0, "as median_stddev%" },
	{ NULL, NULL, AGG_ONE, 0, 0, NULL },
};

static const struct rule rules_unixbench[] = {
	{ "test.pass", NULL, AGG_SKIP, 0, 0,
	  "LKP's pass marker; a run that did not pass has status failed instead" },
	{ NULL, NULL, AGG_ONE, 0, 0, NULL },
};
static const char *const extras_unixbench[] = {
	"unixbench.1.", /* per-pass metrics named by copies: the pass's test, index, score */
	NULL,
};

static const struct rule rules_hackbench[] = {
	{ "throughput_avg", NULL, AGG_ONE, 0, 1, "LKP rounds KB / mean time to 2 decimals" },
	{ NULL, NULL, AGG_ONE, 0, 0, NULL },
};
static const char *const extras_hackbench[] = {
	"hackbench.iteration_throughput", /* every iteration, from which LKP's four follow */
	NULL,
};

static const struct rule rules_kselftest[] = {
	{ "futex.make.pass", NULL, AGG_SKIP, 0, 0,
	  "LKP counts the build (make) as a test; we report test results only" },
	{ NULL, NULL, AGG_ONE, 0, 0, NULL },
};

static const struct rule rules_stress_ng[] = {
	{ "*.pass", NULL, AGG_SKIP, 0, 0,
	  "LKP's per-stressor pass markers; failures go to status and errors" },
	{ NULL, NULL, AGG_ONE, 0, 0, NULL },
};

static const struct rule rules_wis[] = {
	{ "per_process_ops", "104.per_process_ops", AGG_ONE, 0, 0,
	  "keyed by task count as N.processes is: a file of several task counts (or runs) must "
	  "not pool them into one series" },
	{ "per_thread_ops", "104.per_thread_ops", AGG_ONE, 0, 0, "as per_process_ops" },
	{ "workload", "104.workload", AGG_ONE, 0, 0, "as per_process_ops" },
	{ NULL, NULL, AGG_ONE, 0, 0, NULL },
};

static const struct rule rules_none[] = { { NULL, NULL, AGG_ONE, 0, 0, NULL } };
static const char *const extras_none[] = { NULL };

static const struct golden goldens[] = {
	{ "will-it-scale", "wis-runtest-mmap2-lkp.txt", "wis-runtest-mmap2-lkp.expected.yaml",
	  rules_wis, extras_none },
	{ "vm-scalability", "vms-case-swapin-lkp.txt", "vms-case-swapin-lkp.expected.yaml",
	  rules_vms_swapin, extras_none },
	{ "vm-scalability", "vms-case-truncate-seq-lkp.txt",
	  "vms-case-truncate-seq-lkp.expected.yaml", rules_vms_truncate, extras_none },
	{ "unixbench", "unixbench-partial-index-lkp.txt",
	  "unixbench-partial-index-lkp.expected.yaml", rules_unixbench, extras_unixbench },
	{ "hackbench", "hackbench-lkp.txt", "hackbench-lkp.expected.yaml", rules_hackbench,
	  extras_hackbench },
	{ "fio", "fio-json-lkp.json", "fio-json-lkp.expected.yaml", rules_none, extras_none },
	{ "kselftest", "kselftest-tap-futex-nested-lkp.txt",
	  "kselftest-tap-futex-nested-lkp.expected.yaml", rules_kselftest, extras_none },
	{ "stress-ng", "stress-ng-metrics-brief-memory-class-lkp.txt",
	  "stress-ng-metrics-brief-memory-class-lkp.expected.yaml", rules_stress_ng, extras_none },
	{ "perf-profile", "perf-report-children-folded-lkp.txt",
	  "perf-report-children-folded-lkp.expected.yaml", rules_none, extras_none },
};

static const struct rule *rule_find(const struct rule *r, const char *key)
{
	for (; r->key; r++) {
		if (r->key[0] == '*') {
			size_t kl = strlen(key), sl = strlen(r->key + 1);

			if (kl >= sl && !strcmp(key + kl - sl, r->key + 1))
				return r;
		} else if (!strcmp(r->key, key)) {
			return r;
		}
	}
	return NULL;
}

static double aggregate(json_t *arr, enum agg agg, const char *what)
{
	size_t n = json_array_size(arr), i;
	double sum = 0, inv = 0, mx = -INFINITY, mn = INFINITY, mean, var = 0;
	json_t *v;

	if (!n)
		fail_msg("%s: no values", what);
	if (agg == AGG_ONE && n != 1)
		fail_msg("%s: %zu values, LKP has one", what, n);
	json_array_foreach (arr, i, v) {
		double x = json_number_value(v);

		sum += x;
		inv += 1 / x;
		mx = x > mx ? x : mx;
		mn = x < mn ? x : mn;
	}
	mean = sum / (double)n;
	json_array_foreach (arr, i, v)
		var += (json_number_value(v) - mean) * (json_number_value(v) - mean);
	switch (agg) {
	case AGG_ONE:
	case AGG_MEAN:
		return mean;
	case AGG_SUM:
		return sum;
	case AGG_MAX:
		return mx;
	case AGG_MIN:
		return mn;
	case AGG_HMEAN:
		return (double)n / inv;
	case AGG_SPREAD:
		return 100 * sqrt(var / (double)n) / mean;
	case AGG_SKIP:
		break;
	}
	fail_msg("%s: bad aggregation", what);
	return 0;
}

/* one unit of the last digit printed in text ("25.4235" -> 1e-4) */
static double printed_unit(const char *text)
{
	const char *dot = strchr(text, '.');
	size_t d = 0;

	if (!dot)
		return 1;
	for (dot++; *dot >= '0' && *dot <= '9'; dot++)
		d++;
	return pow(10, -(double)d);
}

static void golden_one(const struct golden *g)
{
	size_t len;
	char *oracle = load(g->oracle, &len);
	json_t *doc = parse_fixture(g->tool, g->fixture);
	json_t *metrics = json_object_get(doc, "metrics");
	json_t *matched = json_object();
	char *line, *save = NULL;
	const char *k;
	json_t *v;
	size_t compared = 0;

	if (strcmp(status(doc), "ok"))
		fail_msg("%s: status %s", g->fixture, status(doc));
	for (line = strtok_r(oracle, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(line, ": "), *key, *text, *ours;
		const struct rule *r;
		double want, got, tol;

		if (line[0] == '#' || !sep)
			continue;
		*sep = '\0';
		key = line;
		text = sep + 2;
		while (*text == ' ')
			text++;
		want = strtod(text, NULL);
		r = rule_find(g->rules, key);
		if (r && r->agg == AGG_SKIP)
			continue;
		ours = xstrfmt("%s.%s", g->tool, r && r->ours ? r->ours : key);
		if (!json_object_get(metrics, ours))
			fail_msg("%s: oracle '%s' -> our '%s' missing", g->fixture, key, ours);
		json_object_set_new(matched, ours, json_true());
		got = aggregate(json_object_get(metrics, ours), r ? r->agg : AGG_ONE, ours);
		tol = r && r->rel > 0 ? r->rel : 1e-9;
		if (r && r->printed && fabs(got - want) < printed_unit(text))
			tol = INFINITY; /* equal at LKP's printed precision */
		assert_rel(got, want, tol, ours);
		compared++;
		free(ours);
	}
	/* every metric of ours is in the oracle or a listed extra */
	json_object_foreach (metrics, k, v) {
		int ok = json_object_get(matched, k) != NULL;
		char *stripped = xstrfmt("%s", k + strlen(g->tool) + 1);

		for (size_t i = 0; !ok && g->extras[i]; i++)
			ok = !strncmp(k, g->extras[i], strlen(g->extras[i]));
		/* a name that LKP also prints but aggregates differently */
		for (const struct rule *r = g->rules; !ok && r->key; r++)
			ok = !strcmp(r->key, stripped);
		if (!ok)
			fail_msg("%s: our metric '%s' is not in LKP's output", g->fixture, k);
		free(stripped);
	}
	assert_true(compared > 0);
	json_decref(matched);
	json_decref(doc);
	free(oracle);
}

static void test_golden(void **state UNUSED)
{
	for (size_t i = 0; i < sizeof(goldens) / sizeof(goldens[0]); i++)
		golden_one(&goldens[i]);
}

/* --- fixtures without an oracle: values checked by hand --------------- */

static void test_wis_assertion_failure(void **state UNUSED)
{
	json_t *doc = parse_fixture("will-it-scale", "wis-assertion-failure-lkp.txt");

	assert_string_equal(status(doc), "failed");
	assert_int_equal(nvalues(doc), 0);
	assert_true(errors_mention(doc, "Assertion `ret == 1' failed"));
	json_decref(doc);
}

static void test_wis_raw_binary(void **state UNUSED)
{
	json_t *doc = parse_str("will-it-scale", "./mmap2_threads -t 16 -s 5\n"
						 "testcase:Separate file mmap/munmap\n"
						 "warmup\n"
						 "min:100 max:110 total:1700\n"
						 "measurement\n"
						 "min:101 max:111 total:1710\n"
						 "min:99 max:109 total:1690\n"
						 "average:1700\n");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "will-it-scale.16.threads", 0), 1700, 1e-12, "16.threads");
	assert_rel(val(doc, "will-it-scale.16.per_thread_ops", 0), 106, 1e-12, "1700/16 floored");
	assert_rel(val(doc, "will-it-scale.16.workload", 0), 1700, 1e-12, "workload");
	json_decref(doc);

	/* measurement lines but no average: cut short */
	doc = parse_str("will-it-scale", "warmup\nmeasurement\nmin:1 max:2 total:3\n");
	assert_string_equal(status(doc), "failed");
	json_decref(doc);

	/* runs of the binary one after the other: each keyed by its own -t
	 * (only the last average was kept, under the first -t) */
	doc = parse_str("will-it-scale",
			"./mmap2_processes -t 4 -s 5\n"
			"testcase:Separate file mmap/munmap\nwarmup\nmin:400 max:420 total:1640\n"
			"measurement\nmin:401 max:421 total:1650\naverage:1650\n"
			"./mmap2_processes -t 8 -s 5\n"
			"testcase:Separate file mmap/munmap\nwarmup\nmin:390 max:410 total:3200\n"
			"measurement\nmin:391 max:411 total:3210\naverage:3210\n"
			"./mmap2_processes -t 4 -s 5\n"
			"testcase:Separate file mmap/munmap\nwarmup\nmin:400 max:420 total:1630\n"
			"measurement\nmin:401 max:421 total:1636\naverage:1636\n");
	assert_string_equal(status(doc), "ok");
	assert_int_equal(json_array_size(metric(doc, "will-it-scale.4.processes")), 2);
	assert_rel(val(doc, "will-it-scale.4.processes", 1), 1636, 0, "third run");
	assert_rel(val(doc, "will-it-scale.8.per_process_ops", 0), 401, 0, "3210/8 floored");
	assert_rel(val(doc, "will-it-scale.4.per_process_ops", 0), 412, 0, "1650/4 floored");
	json_decref(doc);

	/* the last run cut after its measurements: failed */
	doc = parse_str("will-it-scale", "./mmap2_processes -t 4 -s 5\nmeasurement\n"
					 "min:401 max:421 total:1650\naverage:1650\n"
					 "./mmap2_processes -t 8 -s 5\nmeasurement\n"
					 "min:391 max:411 total:3210\n");
	assert_string_equal(status(doc), "failed");
	json_decref(doc);
}

/* upstream runtest.py's csv over 1..4 tasks (its layout: linear = max of
 * processes and threads at 1 task, times the task count; numbers written
 * for the test) */
static const char wis_runtest_1_to_4[] =
	"tasks,processes,processes_idle,threads,threads_idle,linear\n"
	"0,0,100,0,100,0\n"
	"1,512345,74.97,498765,75.01,512345\n"
	"2,1003456,49.95,951234,50.02,1024690\n"
	"3,1467890,24.99,1340123,25.10,1537035\n"
	"4,1898765,0.11,1623456,0.35,2049380\n";

static void test_wis_scalability(void **state UNUSED)
{
	json_t *doc = parse_str("will-it-scale", wis_runtest_1_to_4);
	json_t *metrics = json_object_get(doc, "metrics");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "will-it-scale.4.processes", 0), 1898765, 0, "4.processes");
	/* per mode against runtest.py's linear, not (processes + threads) / linear */
	assert_rel(val(doc, "will-it-scale.4.processes_scalability", 0), 1898765.0 / 2049380, 1e-12,
		   "4 processes");
	assert_rel(val(doc, "will-it-scale.4.threads_scalability", 0), 1623456.0 / 2049380, 1e-12,
		   "4 threads");
	assert_rel(val(doc, "will-it-scale.1.processes_scalability", 0), 1, 0, "1 task is linear");
	assert_rel(val(doc, "will-it-scale.1.threads_scalability", 0), 498765.0 / 512345, 1e-12,
		   "1 thread");
	assert_null(json_object_get(metrics, "will-it-scale.scalability"));
	json_decref(doc);

	/* LKP's runs: linear 0 (one task count), process mode only: no
	 * scalability at all, and none for the threads that did not run */
	doc = parse_fixture("will-it-scale", "wis-runtest-mmap2-lkp.txt");
	assert_null(json_object_get(json_object_get(doc, "metrics"),
				    "will-it-scale.104.processes_scalability"));
	json_decref(doc);
}

/* Samples of one metric are repeats of one measurement: rows of different
 * task counts, and concatenated runs, are never pooled */
static void test_wis_per_task_count(void **state UNUSED)
{
	json_t *doc = parse_str("will-it-scale", wis_runtest_1_to_4);
	json_t *metrics = json_object_get(doc, "metrics");
	char *two;

	assert_null(json_object_get(metrics, "will-it-scale.per_process_ops"));
	assert_null(json_object_get(metrics, "will-it-scale.per_thread_ops"));
	assert_null(json_object_get(metrics, "will-it-scale.workload"));
	assert_int_equal(json_array_size(metric(doc, "will-it-scale.4.per_process_ops")), 1);
	assert_rel(val(doc, "will-it-scale.4.per_process_ops", 0), 474691, 0, "1898765/4");
	assert_rel(val(doc, "will-it-scale.2.per_thread_ops", 0), 475617, 0, "951234/2");
	assert_rel(val(doc, "will-it-scale.3.workload", 0), 1467890 + 1340123, 0, "3 tasks");
	json_decref(doc);

	/* two LKP runs of the same task count concatenated (two headers): two
	 * repeats of 104.per_process_ops; a run of another count keeps its own */
	two = xstrfmt("%s%s%s",
		      "2020-01-31 08:12:43 python2 ./runtest.py mmap2 295 process 104\n"
		      "tasks,processes,processes_idle,threads,threads_idle,linear\n"
		      "0,0,100,0,100,0\n"
		      "104,1200363,0.04,0,0.00,0\n",
		      "2020-01-31 08:18:01 python2 ./runtest.py mmap2 295 process 104\n"
		      "tasks,processes,processes_idle,threads,threads_idle,linear\n"
		      "0,0,100,0,100,0\n"
		      "104,1187654,0.05,0,0.00,0\n",
		      "2020-01-31 08:23:20 python2 ./runtest.py mmap2 295 process 52\n"
		      "tasks,processes,processes_idle,threads,threads_idle,linear\n"
		      "0,0,100,0,100,0\n"
		      "52,700123,50.01,0,0.00,0\n");
	doc = parse_str("will-it-scale", two);
	free(two);
	assert_string_equal(status(doc), "ok");
	assert_int_equal(json_array_size(metric(doc, "will-it-scale.104.per_process_ops")), 2);
	assert_rel(val(doc, "will-it-scale.104.per_process_ops", 0), 11541, 0, "run 1");
	assert_rel(val(doc, "will-it-scale.104.per_process_ops", 1), 11419, 0, "1187654/104");
	assert_int_equal(json_array_size(metric(doc, "will-it-scale.52.per_process_ops")), 1);
	assert_rel(val(doc, "will-it-scale.52.per_process_ops", 0), 13463, 0, "700123/52");
	assert_null(
		json_object_get(json_object_get(doc, "metrics"), "will-it-scale.per_process_ops"));
	json_decref(doc);
}

static void test_stress_ng_misc(void **state UNUSED)
{
	json_t *doc = parse_fixture("stress-ng", "stress-ng-metrics-brief-memrate-misc-lkp.txt");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "stress-ng.memrate.ops", 0), 1664, 1e-12, "ops");
	assert_rel(val(doc, "stress-ng.memrate.ops_per_sec", 0), 27.70, 1e-12, "ops/s");
	assert_rel(val(doc, "stress-ng.memrate.write128nt_MB_per_sec", 0), 2190.96, 1e-12, "nt");
	assert_rel(val(doc, "stress-ng.memrate.write16_MB_per_sec", 0), 1064.65, 1e-12, "w16");
	assert_int_equal(nvalues(doc), 12);
	json_decref(doc);
}

/* Debian 12's stress-ng 0.15.06 as the stress-ng tool case runs it:
 * the "metrc:" layout and extra lines noted "(geometic mean of 1 instances)",
 * a note the names leave out */
static void test_stress_ng_debian12(void **state UNUSED)
{
	json_t *doc = parse_fixture("stress-ng", "stress-ng-0.15.06-brk-debian12.txt");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "stress-ng.brk.ops", 0), 4609, 1e-12, "ops");
	assert_rel(val(doc, "stress-ng.brk.ops_per_sec", 0), 3997.12, 1e-12, "ops/s");
	assert_rel(val(doc, "stress-ng.brk.nanosecs_per_sbrk_page_expand", 0), 1807.66, 1e-12,
		   "expand");
	assert_rel(val(doc, "stress-ng.brk.nanosecs_per_sbrk_page_shrink", 0), 58.67, 1e-12,
		   "shrink");
	assert_int_equal(nvalues(doc), 4);
	json_decref(doc);
}

/* A full two-pass report in UnixBench 5.1.3's layout (written after its
 * Run script, numbers made up): per-copies names, index, score. */
static void test_unixbench_two_passes(void **state UNUSED)
{
	json_t *doc = parse_str(
		"unixbench",
		"Benchmark Run: Tue Jan 02 2024 23:50:00 - 00:10:00\n"
		"4 CPUs in system; running 1 parallel copy of tests\n"
		"\n"
		"Execl Throughput                               4254.3 lps   (29.9 s, 2 samples)\n"
		"Pipe Throughput                              1000000.0 lps   (10.0 s, 7 samples)\n"
		"\n"
		"System Benchmarks Index Values               BASELINE       RESULT    INDEX\n"
		"Execl Throughput                                 43.0       4254.3    989.4\n"
		"Pipe Throughput                               12440.0    1000000.0    803.9\n"
		"                                                                   ========\n"
		"System Benchmarks Index Score                                         891.8\n"
		"\n"
		"Benchmark Run: Wed Jan 03 2024 00:10:00 - 00:30:00\n"
		"4 CPUs in system; running 4 parallel copies of tests\n"
		"\n"
		"Execl Throughput                              15000.5 lps   (29.9 s, 2 samples)\n"
		"Pipe Throughput                              3900000.0 lps   (10.0 s, 7 samples)\n"
		"\n"
		"System Benchmarks Index Values               BASELINE       RESULT    INDEX\n"
		"Execl Throughput                                 43.0      15000.5   3488.5\n"
		"Pipe Throughput                               12440.0    3900000.0   3135.0\n"
		"                                                                   ========\n"
		"System Benchmarks Index Score                                        3307.1\n");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "unixbench.1.execl_throughput", 0), 4254.3, 0, "1 copy execl");
	assert_rel(val(doc, "unixbench.4.execl_throughput", 0), 15000.5, 0, "4 copies execl");
	assert_rel(val(doc, "unixbench.4.pipe_throughput.index", 0), 3135.0, 0, "index");
	assert_rel(val(doc, "unixbench.1.score", 0), 891.8, 0, "score 1");
	assert_rel(val(doc, "unixbench.4.score", 0), 3307.1, 0, "score 4");
	/* two tests per pass: no single-test score/throughput */
	assert_null(json_object_get(json_object_get(doc, "metrics"), "unixbench.score"));
	json_decref(doc);

	/* a pass cut before its index score */
	doc = parse_str(
		"unixbench",
		"Benchmark Run: Tue Jan 02 2024 23:50:00 - 00:10:00\n"
		"4 CPUs in system; running 1 parallel copy of tests\n"
		"Execl Throughput                               4254.3 lps   (29.9 s, 2 samples)\n");
	assert_string_equal(status(doc), "failed");
	json_decref(doc);
}

/* stress-ng 0.17's --metrics layout ("metrc:", two more columns) */
static void test_stress_ng_new_layout(void **state UNUSED)
{
	json_t *doc = parse_str(
		"stress-ng",
		"stress-ng: info:  [61] dispatching hogs: 2 vm\n"
		"stress-ng: metrc: [61] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s CPU used per       RSS Max\n"
		"stress-ng: metrc: [61]                           (secs)    (secs)    (secs)   (real time) (usr+sys time) instance (%)          (KB)\n"
		"stress-ng: metrc: [61] vm               270840     10.00     19.08      0.83     27082.27       13603.21        99.58        263484\n"
		"stress-ng: info:  [61] skipped: 0\n"
		"stress-ng: info:  [61] passed: 2: vm (2)\n"
		"stress-ng: info:  [61] successful run completed in 10.01 secs\n");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "stress-ng.vm.ops", 0), 270840, 0, "ops");
	assert_rel(val(doc, "stress-ng.vm.ops_per_sec", 0), 27082.27, 0, "ops/s");
	assert_int_equal(nvalues(doc), 2);
	json_decref(doc);

	doc = parse_str("stress-ng",
			"stress-ng: info:  [61] unsuccessful run completed in 1.00 secs\n");
	assert_string_equal(status(doc), "failed");
	json_decref(doc);
}

static void test_perf_stat_csv_interval(void **state UNUSED)
{
	json_t *doc = parse_fixture("perf-stat", "perf-stat-x-csv-interval-lkp.csv");

	assert_string_equal(status(doc), "ok");
	/* the second interval has 16 of 23 events: left out */
	assert_true(errors_mention(doc, "16 of 23 events"));
	assert_int_equal(json_array_size(metric(doc, "perf-stat.ps.cpu-cycles")), 1);
	assert_rel(val(doc, "perf-stat.ps.cpu-cycles", 0), 4659960482.0 / 1.017184940, 1e-12,
		   "cycles/s");
	assert_rel(val(doc, "perf-stat.ps.task-clock", 0), 16689.57 / 1.017184940, 1e-12,
		   "task-clock msec/s");
	assert_rel(val(doc, "perf-stat.ps.node-loads", 0), 0, 1e-12, "node-loads");
	/* LKP's overall.* from the counts of the interval kept */
	assert_rel(val(doc, "perf-stat.overall.ipc", 0), 4601302284.0 / 4659960482.0, 1e-12, "ipc");
	assert_rel(val(doc, "perf-stat.overall.cache-miss-rate%", 0), 100.0 * 31369662 / 31369626,
		   1e-12, "cache misses / references");
	/* node-loads is 0: no node-load-miss-rate% */
	assert_null(json_object_get(json_object_get(doc, "metrics"),
				    "perf-stat.overall.node-load-miss-rate%"));
	assert_int_equal(nvalues(doc), 23 + 8); /* 23 events, 8 overall.* */
	json_decref(doc);
}

static void test_perf_stat_csv_hybrid(void **state UNUSED)
{
	json_t *doc = parse_fixture("perf-stat", "perf-stat-x-csv-interval-hybrid-lkp.csv");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-stat.ps.cpu_atom.cpu-cycles", 0), 340060066.0 / 1.001092774,
		   1e-12, "atom cycles");
	/* perf 6 prints task-clock in ns without a unit: we give msec */
	assert_rel(val(doc, "perf-stat.ps.task-clock", 0), 22065625475.0 / 1e6 / 1.001092774, 1e-12,
		   "task-clock");
	assert_rel(val(doc, "perf-stat.ps.context-switches", 1),
		   24722 / (2.004750051 - 1.001092774), 1e-12, "second interval");
	assert_int_equal(json_array_size(metric(doc, "perf-stat.ps.cpu_core.instructions")), 3);
	json_decref(doc);
}

static void test_perf_stat_text_and_csv(void **state UNUSED)
{
	json_t *doc = parse_str(
		"perf-stat",
		" Performance counter stats for 'system wide':\n"
		"\n"
		"         16,689.57 msec cpu-clock                 #   16.690 CPUs utilized\n"
		"     4,659,960,482      cycles:u                  #    0.279 GHz    (16.69%)\n"
		"   <not supported>      node-loads\n"
		"      16689.570000      task-clock (msec)         #   16.690 CPUs utilized\n"
		"\n"
		"       1.017184940 seconds time elapsed\n");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-stat.total.cpu-clock", 0), 16689.57, 1e-12, "cpu-clock");
	assert_rel(val(doc, "perf-stat.total.cycles-u", 0), 4659960482.0, 1e-12, "cycles:u");
	assert_rel(val(doc, "perf-stat.total.task-clock", 0), 16689.57, 1e-12, "old task-clock");
	assert_null(json_object_get(json_object_get(doc, "metrics"), "perf-stat.total.node-loads"));
	assert_true(errors_mention(doc, "node-loads"));
	assert_rel(val(doc, "perf-stat.elapsed_time", 0), 1.017184940, 0, "elapsed");
	assert_int_equal(nvalues(doc), 4);
	json_decref(doc);

	doc = parse_str("perf-stat",
			"16689.57,msec,task-clock,16689569794,100.00,16.690,CPUs utilized\n"
			"<not supported>,,node-loads,0,100.00,,\n"
			"4659960482,,instructions:u,2785208122,16.69,0.99,insn per cycle\n");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-stat.total.task-clock", 0), 16689.57, 1e-12, "csv task-clock");
	assert_rel(val(doc, "perf-stat.total.instructions-u", 0), 4659960482.0, 1e-12, "insn:u");
	assert_true(errors_mention(doc, "node-loads"));
	json_decref(doc);
}

static void test_perf_stat_per_cpu(void **state UNUSED)
{
	/* -A, text, whole run: CPU0 + CPU1 (values from the file) */
	json_t *doc = parse_fixture("perf-stat", "perf-stat-A-text.txt");
	double t1 = 0.102009428, t2 = 0.226001330, t3 = 0.342015888;

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-stat.total.task-clock", 0), 313.57 + 315.44, 1e-12, "msec");
	assert_rel(val(doc, "perf-stat.total.context-switches", 0), 344 + 207, 0, "cs");
	assert_rel(val(doc, "perf-stat.total.page-faults", 0), 9133 + 28917, 0, "pf");
	assert_true(errors_mention(doc, "cycles"));
	assert_rel(val(doc, "perf-stat.elapsed_time", 0), 0.315443736, 0, "elapsed");
	assert_int_equal(nvalues(doc), 4); /* one run, no per-CPU names; elapsed */
	json_decref(doc);

	/* -A -x, -I 100 (perf 6 pads the time): per interval, summed, per s */
	doc = parse_fixture("perf-stat", "perf-stat-A-x-csv-interval.csv");
	assert_string_equal(status(doc), "ok");
	assert_int_equal(json_array_size(metric(doc, "perf-stat.ps.page-faults")), 3);
	assert_rel(val(doc, "perf-stat.ps.page-faults", 0), (7401 + 453) / t1, 1e-12, "pf 1");
	assert_rel(val(doc, "perf-stat.ps.context-switches", 1), (69 + 172) / (t2 - t1), 1e-12,
		   "cs 2");
	assert_rel(val(doc, "perf-stat.ps.task-clock", 2), (80.09 + 80.07) / (t3 - t2), 1e-12,
		   "msec/s 3");
	assert_int_equal(nvalues(doc), 9);
	json_decref(doc);

	/* perf 6's padded -x, interval without -A */
	doc = parse_fixture("perf-stat", "perf-stat-x-csv-interval-padded.csv");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-stat.ps.page-faults", 1), 5327 / (0.204417190 - 0.100201367),
		   1e-12, "padded");
	assert_int_equal(nvalues(doc), 6);
	json_decref(doc);

	/* text -I with -A and thousands separators; two whole runs told apart
	 * by a repeated CPU/event (hand-written in perf's layout) */
	doc = parse_str("perf-stat", "#           time CPU                    counts unit events\n"
				     "     1.000512345 CPU0              1,234,567      cycles\n"
				     "     1.000512345 CPU1                 65,433      cycles\n"
				     "     2.000912345 CPU0                  1,000      cycles\n"
				     "     2.000912345 CPU1              2,000,000      cycles\n");
	assert_rel(val(doc, "perf-stat.ps.cycles", 0), 1300000 / 1.000512345, 1e-12, "i1");
	assert_rel(val(doc, "perf-stat.ps.cycles", 1), 2001000 / (2.000912345 - 1.000512345), 1e-12,
		   "i2");
	json_decref(doc);
	doc = parse_str("perf-stat", "CPU0,10,,cycles,100,100.00,,\nCPU1,5,,cycles,100,100.00,,\n"
				     "CPU0,7,,cycles,100,100.00,,\nCPU1,1,,cycles,100,100.00,,\n");
	assert_int_equal(json_array_size(metric(doc, "perf-stat.total.cycles")), 2);
	assert_rel(val(doc, "perf-stat.total.cycles", 0), 15, 0, "run 1");
	assert_rel(val(doc, "perf-stat.total.cycles", 1), 8, 0, "run 2");
	json_decref(doc);
}

static void test_perf_stat_per_socket(void **state UNUSED)
{
	/* --per-socket -I 100, text, one socket of 2 CPUs (from the file) */
	json_t *doc = parse_fixture("perf-stat", "perf-stat-per-socket-text-interval.txt");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-stat.ps.page-faults", 0), 13053 / 0.100157209, 1e-12, "pf");
	assert_rel(val(doc, "perf-stat.S0.ps.page-faults", 0), 13053 / 0.100157209, 1e-12, "S0 pf");
	assert_rel(val(doc, "perf-stat.ps.task-clock", 2), 148.67 / (0.329394052 - 0.227895934),
		   1e-12, "msec/s");
	assert_true(errors_mention(doc, "cycles")); /* "S0  1  <not supported>" */
	assert_int_equal(nvalues(doc), 18);	    /* 3 events x 3 intervals x total+S0 */
	json_decref(doc);

	/* --per-socket -x, whole run */
	doc = parse_fixture("perf-stat", "perf-stat-per-socket-x-csv.csv");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-stat.total.task-clock", 0), 724.20, 1e-12, "msec");
	assert_rel(val(doc, "perf-stat.S0.total.page-faults", 0), 27994, 0, "S0 pf");
	assert_int_equal(nvalues(doc), 6);
	json_decref(doc);

	/* two sockets (hand-written in perf's layout: this machine has one):
	 * the total is their sum, each socket kept; per-core and per-node ids
	 * are summed only */
	doc = parse_str("perf-stat", " Performance counter stats for 'system wide':\n\n"
				     "S0        2          1,000,000      cycles\n"
				     "S1        2            250,000      cycles\n"
				     "S0        2             512.50 msec task-clock\n"
				     "S1        2             487.50 msec task-clock\n\n"
				     "       0.500000000 seconds time elapsed\n");
	assert_rel(val(doc, "perf-stat.total.cycles", 0), 1250000, 0, "sum");
	assert_rel(val(doc, "perf-stat.S0.total.cycles", 0), 1000000, 0, "S0");
	assert_rel(val(doc, "perf-stat.S1.total.cycles", 0), 250000, 0, "S1");
	assert_rel(val(doc, "perf-stat.total.task-clock", 0), 1000, 1e-12, "msec");
	assert_int_equal(nvalues(doc), 7); /* and elapsed_time */
	json_decref(doc);
	doc = parse_str("perf-stat",
			"     1.000000000,S0,2,100,,cycles,1,100.00,,\n"
			"     1.000000000,S1,2,300,,cycles,1,100.00,,\n"
			"S0-D0-C0,1,2145,,page-faults,107369910,100.00,19.978,K/sec\n"
			"S0-D0-C1,1,2762,,page-faults,107666510,100.00,25.653,K/sec\n");
	assert_rel(val(doc, "perf-stat.ps.cycles", 0), 400, 0, "interval sum");
	assert_rel(val(doc, "perf-stat.S1.ps.cycles", 0), 300, 0, "S1 interval");
	assert_rel(val(doc, "perf-stat.total.page-faults", 0), 2145 + 2762, 0, "per-core");
	assert_null(json_object_get(json_object_get(doc, "metrics"),
				    "perf-stat.S0-D0-C0.total.page-faults"));
	assert_int_equal(nvalues(doc), 4);
	json_decref(doc);
	/* --per-die and --per-node ids (perf 6.1's layout; one line of each only to
	 * check both parse): counts add up, no per-die or per-node names */
	doc = parse_str("perf-stat", " Performance counter stats for 'system wide':\n\n"
				     "S0-D0           2               2058      page-faults\n"
				     "N0        2               3169      page-faults\n");
	assert_rel(val(doc, "perf-stat.total.page-faults", 0), 2058 + 3169, 0, "die + node");
	assert_int_equal(nvalues(doc), 1);
	json_decref(doc);
}

static void test_perf_profile_details(void **state UNUSED)
{
	json_t *doc = parse_fixture("perf-profile", "perf-report-children-folded-lkp.txt");

	/* rcu_irq_enter and rcu_irq_enter.part.56 are one symbol: 0.21 + 0.07 */
	assert_rel(val(doc, "perf-profile.children.cycles-pp.rcu_irq_enter", 0), 0.28, 1e-12,
		   "summed children");
	/* a chain of 13 frames keeps its first 5, .isra.9 stripped */
	assert_rel(val(doc,
		       "perf-profile.calltrace.cycles-pp._raw_spin_lock."
		       "xfs_inode_set_eofblocks_tag.xfs_file_iomap_begin_delay."
		       "xfs_file_iomap_begin.iomap_apply",
		       0),
		   8.61, 1e-12, "calltrace");
	json_decref(doc);
}

/* the metrics of doc whose names start with prefix, as name -> value 0 */
static json_t *with_prefix(json_t *doc, const char *prefix)
{
	json_t *out = json_object(), *v;
	const char *k;

	json_object_foreach (json_object_get(doc, "metrics"), k, v)
		if (!strncmp(k, prefix, strlen(prefix)))
			json_object_set(out, k, json_array_get(v, 0));
	return out;
}

#define PP_CT "perf-profile.calltrace.cycles-pp."

static void test_perf_profile_tree(void **state UNUSED)
{
	/* perf's tree form (-g graph, callee order), values read off the file */
	json_t *tree = parse_fixture("perf-profile", "perf-report-children-tree-callee.txt");
	json_t *folded, *ct_tree, *ct_folded, *v;
	const char *k;
	size_t same = 0;

	assert_string_equal(status(tree), "ok");
	assert_int_equal(json_array_size(json_object_get(tree, "errors")), 0);
	/* a root without percent, no branch, 2 frames: the entry's Children */
	assert_rel(val(tree, PP_CT "task", 0), 93.43, 1e-12, "root only");
	/* "---__do_fault" and 7 more frames in one node: first 5, Children */
	assert_rel(val(tree,
		       PP_CT "__do_fault.do_fault.__handle_mm_fault.handle_mm_fault."
			     "exc_page_fault",
		       0),
		   11.50, 1e-12, "long root");
	/* root alloc_pages_mpol, branch "|--5.22%--vma_alloc_folio_noprof" */
	assert_rel(val(tree,
		       PP_CT "alloc_pages_mpol.vma_alloc_folio_noprof.do_fault."
			     "__handle_mm_fault.handle_mm_fault",
		       0),
		   5.22, 1e-12, "branch");
	/* root of two frames, then "|--5.04%--vma_alloc_folio_noprof" */
	assert_rel(val(tree,
		       PP_CT "__alloc_frozen_pages_noprof.alloc_pages_mpol."
			     "vma_alloc_folio_noprof.do_fault.__handle_mm_fault",
		       0),
		   5.04, 1e-12, "two-frame root");
	/* nested branches: 5.51 schedule / 5.10 asm_exc_page_fault / 5.04 task;
	 * the 5th frame (asm_exc_page_fault) is in the 5.10 node; .isra.0 gone */
	assert_rel(val(tree,
		       PP_CT "finish_task_switch.__schedule.schedule."
			     "irqentry_exit_to_user_mode.asm_exc_page_fault",
		       0),
		   5.10, 1e-12, "nested");
	/* a leaf of 3 frames ("|--0.59%--task" / "0") under asm_common_interrupt */
	assert_rel(val(tree, PP_CT "asm_common_interrupt.task", 0), 0.59, 1e-12, "short leaf");
	/* the last branch (" --0.53%--") of the same entry */
	assert_rel(val(tree,
		       PP_CT "asm_common_interrupt._raw_spin_lock.__pte_offset_map_lock."
			     "finish_fault.do_fault",
		       0),
		   0.53, 1e-12, "last sibling");
	/* .part.0 stripped in the frames and the entry */
	assert_rel(val(tree,
		       PP_CT "vms_clear_ptes.vms_complete_munmap_vmas.do_vmi_align_munmap."
			     "do_vmi_munmap.__vm_munmap",
		       0),
		   5.51, 1e-12, "part stripped");
	assert_rel(val(tree, "perf-profile.children.cycles-pp.vms_clear_ptes", 0), 5.51, 1e-12,
		   "children");
	assert_rel(val(tree, "perf-profile.self.cycles-pp._raw_spin_lock", 0), 11.61, 1e-12,
		   "self");

	/*
	 * The folded form of the same perf.data: every folded call trace is in
	 * the tree's output with the same value, but one: the folded lines
	 * give exact chains (5.04% "…;asm_exc_page_fault;task;0"), the tree the
	 * node holding the 5th frame (5.10%, with chains below perf's 0.5%
	 * cut). The tree has one trace more for the same reason: the chain
	 * through wake_up_bit is 0.59% as a node, under 0.5% as exact chains.
	 */
	folded = parse_fixture("perf-profile", "perf-report-children-folded-callee.txt");
	assert_string_equal(status(folded), "ok");
	ct_tree = with_prefix(tree, "perf-profile.calltrace.");
	ct_folded = with_prefix(folded, "perf-profile.calltrace.");
	json_object_foreach (ct_folded, k, v) {
		json_t *t = json_object_get(ct_tree, k);

		if (!t)
			fail_msg("folded trace '%s' missing from the tree form", k);
		if (!strcmp(k, PP_CT "finish_task_switch.__schedule.schedule."
				     "irqentry_exit_to_user_mode.asm_exc_page_fault")) {
			assert_rel(json_real_value(v), 5.04, 1e-12, "folded exact chain");
			continue;
		}
		assert_rel(json_real_value(t), json_real_value(v), 1e-12, k);
		same++;
	}
	assert_int_equal(same, 57); /* and no "0": the unresolved entry is no key */
	assert_int_equal(json_object_size(ct_tree), json_object_size(ct_folded) + 1);
	assert_non_null(json_object_get(ct_tree, PP_CT "_raw_spin_unlock_irqrestore.wake_up_bit."
						       "end_bio_bh_io_sync.blk_update_request."
						       "blk_mq_end_request"));
	/* children and self do not depend on the call-graph form */
	json_decref(ct_tree);
	json_decref(ct_folded);
	ct_tree = with_prefix(tree, "perf-profile.children.");
	ct_folded = with_prefix(folded, "perf-profile.children.");
	assert_true(json_equal(ct_tree, ct_folded));
	json_decref(ct_tree);
	json_decref(ct_folded);
	json_decref(folded);
	json_decref(tree);

	/* --no-children: one Overhead column; a root without percent is the
	 * entry's Overhead */
	tree = parse_fixture("perf-profile", "perf-report-overhead-tree.txt");
	assert_string_equal(status(tree), "ok");
	assert_rel(val(tree,
		       PP_CT "copy_mc_enhanced_fast_string.do_fault.__handle_mm_fault."
			     "handle_mm_fault.exc_page_fault",
		       0),
		   27.39, 1e-12, "overhead root");
	assert_rel(val(tree,
		       PP_CT "_raw_spin_lock.__pte_offset_map_lock.finish_fault.do_fault."
			     "__handle_mm_fault",
		       0),
		   11.55, 1e-12, "overhead branch");
	assert_rel(val(tree, "perf-profile.self.cycles-pp.finish_task_switch", 0), 5.45, 1e-12,
		   "overhead");
	assert_int_equal(nvalues(tree), 8); /* 4 self, 4 call traces */
	json_decref(tree);

	/* sorted by symbol first: perf drops each single root's first frame
	 * ("---asm_exc_page_fault" under exc_page_fault); children and self
	 * are read, call traces are not (their names would be wrong) */
	tree = parse_fixture("perf-profile", "perf-report-children-tree-sort-sym.txt");
	assert_string_equal(status(tree), "ok");
	assert_rel(val(tree, "perf-profile.children.cycles-pp.exc_page_fault", 0), 83.11, 1e-12,
		   "children");
	assert_rel(val(tree, "perf-profile.self.cycles-pp.exc_page_fault", 0), 13.02, 1e-12,
		   "self");
	ct_tree = with_prefix(tree, "perf-profile.calltrace.");
	assert_int_equal(json_object_size(ct_tree), 0);
	json_decref(ct_tree);
	assert_true(errors_mention(tree, "sorted by symbol first"));
	json_decref(tree);

	/* perf's default (caller order): several roots under one entry. The
	 * keys are LKP's callee-first ones, from the trees of the entries that
	 * nothing calls ("0": all chains): each is the callee tree's key of the
	 * same perf.data with the same value */
	tree = parse_fixture("perf-profile", "perf-report-children-tree-caller.txt");
	assert_string_equal(status(tree), "ok");
	assert_rel(val(tree,
		       PP_CT "copy_mc_enhanced_fast_string.do_fault.__handle_mm_fault."
			     "handle_mm_fault.exc_page_fault",
		       0),
		   28.74, 1e-12, "leaf upwards");
	assert_rel(val(tree, PP_CT "exc_page_fault.asm_exc_page_fault.task", 0), 83.11, 1e-12,
		   "a node's callers");
	assert_rel(val(tree, PP_CT "handle_mm_fault.exc_page_fault.asm_exc_page_fault.task", 0),
		   67.86, 1e-12, "5 frames");
	assert_rel(val(tree, PP_CT "task", 0), 93.43, 1e-12, "two frames");
	/* the caller-first keys of before are gone */
	assert_null(json_object_get(json_object_get(tree, "metrics"), PP_CT
				    "0.task.asm_exc_page_fault.exc_page_fault.handle_mm_fault"));
	folded = parse_fixture("perf-profile", "perf-report-children-tree-callee.txt");
	ct_tree = with_prefix(tree, "perf-profile.calltrace.");
	ct_folded = with_prefix(folded, "perf-profile.calltrace.");
	same = 0;
	json_object_foreach (ct_tree, k, v) {
		json_t *t = json_object_get(ct_folded, k);

		if (!t)
			fail_msg("caller-order trace '%s' is not the callee tree's", k);
		assert_rel(json_real_value(v), json_real_value(t), 1e-12, k);
		same++;
	}
	assert_int_equal(same, 13); /* --percent-limit 10 here, 3 there; no "0" */
	json_decref(ct_tree);
	json_decref(ct_folded);
	json_decref(folded);
	json_decref(tree);
}

/* 1 when a metric name has an address perf could not name in it */
static int has_address(const char *name)
{
	const char *p = strrchr(name, '.');

	return strstr(name, "0x") || strstr(name, "[unknown]") || strstr(name, "0000000000") ||
	       (p && !strcmp(p, ".0")) || strstr(name, ".0.");
}

#define PP "perf-profile."

/* `perf report --stdio` as perf prints it by default (children, the
 * caller-order graph under each entry), of a stripped binary: its own
 * frames are addresses (0x562aa7efa06a), its entries 0x0000562aa7efa06a
 * and 0x0000000000001185 */
static void test_perf_profile_default(void **state UNUSED)
{
	json_t *doc = parse_fixture("perf-profile", "perf-report-default-caller.txt");
	json_t *callee, *ct, *ct_callee, *v;
	const char *k;
	size_t n = 0;

	assert_string_equal(status(doc), "ok");
	assert_int_equal(json_array_size(json_object_get(doc, "errors")), 0);
	/* the entries: LKP's names for the sampled cpu-clock ("cycles-pp") */
	assert_rel(val(doc, PP "children.cycles-pp.__GI___getppid", 0), 80.16, 1e-12, "children");
	assert_rel(val(doc, PP "self.cycles-pp.__GI___getppid", 0), 29.24, 1e-12, "self");
	assert_rel(val(doc, PP "children.cycles-pp.__libc_start_call_main", 0), 99.64, 1e-12,
		   "children, no self");
	assert_null(json_object_get(json_object_get(doc, "metrics"),
				    PP "self.cycles-pp.__libc_start_call_main")); /* 0.00% */
	assert_rel(val(doc, PP "self.cycles-pp.pvm_irq_enable", 0), 45.42, 1e-12, "self");
	/* the call graph: callee-first keys from the tree of the entry
	 * nothing calls (__libc_start_call_main), 5 frames at most */
	assert_rel(val(doc,
		       PP "calltrace.cycles-pp.pvm_irq_enable.__raw_callee_save_pvm_irq_enable."
			  "do_syscall_64.entry_SYSCALL_64_after_hwframe.__GI___getppid",
		       0),
		   44.97, 1e-12, "5 frames");
	assert_rel(val(doc,
		       PP "calltrace.cycles-pp.__task_pid_nr_ns.__x64_sys_getppid.do_syscall_64."
			  "entry_SYSCALL_64_after_hwframe.__GI___getppid",
		       0),
		   5.19, 1e-12, "5 frames");
	assert_rel(val(doc,
		       PP
		       "calltrace.cycles-pp.do_syscall_64.entry_SYSCALL_64_after_hwframe.__GI___getppid",
		       0),
		   50.72, 1e-12, "3 frames");
	/* __GI___getppid's caller is 0x562aa7efa06a: the key stops there */
	assert_rel(val(doc, PP "calltrace.cycles-pp.__GI___getppid", 0), 80.16, 1e-12,
		   "up to an address");
	assert_rel(val(doc, PP "calltrace.cycles-pp.handle_softirqs.__irq_exit_rcu", 0), 0.65,
		   1e-12, "irq");
	/* no address is a metric name: 17 entries and every chain through
	 * the binary's own code have one */
	json_object_foreach (json_object_get(doc, "metrics"), k, v) {
		if (has_address(k))
			fail_msg("'%s' names an address", k);
		n++;
	}
	assert_int_equal(n, 11 + 44 + 8); /* calltrace, children, self */

	/* the same perf.data in LKP's callee order: the same keys; the two
	 * pvm_irq_enable chains are perf's own node of the entry there (44.84,
	 * 44.71), 0.27 points less than the caller tree's node */
	callee = parse_fixture("perf-profile", "perf-report-default-callee.txt");
	assert_string_equal(status(callee), "ok");
	assert_int_equal(json_array_size(json_object_get(callee, "errors")), 0);
	ct = with_prefix(doc, PP "calltrace.");
	ct_callee = with_prefix(callee, PP "calltrace.");
	assert_int_equal(json_object_size(ct), 11);
	assert_int_equal(json_object_size(ct_callee), 11);
	n = 0;
	json_object_foreach (ct, k, v) {
		json_t *c = json_object_get(ct_callee, k);

		if (!c)
			fail_msg("caller-order trace '%s' is not the callee tree's", k);
		if (strstr(k, "pvm_irq_enable.")) {
			double d = json_real_value(v) - json_real_value(c);

			assert_true(d > 0.255 && d < 0.275); /* 0.27, 0.26 */
			continue;
		}
		assert_rel(json_real_value(v), json_real_value(c), 1e-12, k);
		n++;
	}
	assert_int_equal(n, 9);
	json_decref(ct);
	json_decref(ct_callee);
	ct = with_prefix(doc, PP "children.");
	ct_callee = with_prefix(callee, PP "children.");
	assert_true(json_equal(ct, ct_callee));
	json_decref(ct);
	json_decref(ct_callee);
	json_decref(callee);
	json_decref(doc);

	/* --no-children: Overhead as self, chains upwards from the entry */
	doc = parse_fixture("perf-profile", "perf-report-default-no-children.txt");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, PP "self.cycles-pp.pvm_irq_enable", 0), 45.42, 1e-12, "overhead");
	assert_rel(val(doc, PP "self.cycles-pp.__task_pid_nr_ns", 0), 5.13, 1e-12, "overhead");
	assert_rel(val(doc,
		       PP "calltrace.cycles-pp.pvm_irq_enable.__raw_callee_save_pvm_irq_enable."
			  "do_syscall_64.entry_SYSCALL_64_after_hwframe.__GI___getppid",
		       0),
		   44.62, 1e-12, "overhead branch");
	assert_rel(val(doc, PP "calltrace.cycles-pp.__GI___getppid", 0), 29.24, 1e-12,
		   "up to an address");
	n = 0;
	json_object_foreach (json_object_get(doc, "metrics"), k, v) {
		if (has_address(k))
			fail_msg("'%s' names an address", k);
		n++;
	}
	assert_int_equal(n, 3 + 8); /* calltrace, self */
	json_decref(doc);
}

static void test_perf_profile_tree_rules(void **state UNUSED)
{
	static const char head[] = "# Samples: 1K of event 'cycles:pp'\n"
				   "# Children      Self  Command  Shared Object  Symbol\n"
				   "#\n";
	char *text;
	json_t *doc, *traces;

	/* caller order (foo's root starts at its caller main): callee-first
	 * keys from the entries nothing calls (main, bar), each node's frames
	 * upwards; one symbol in two DSOs: added up; "(inlined)" and fractal
	 * mode's "[...]" remainder */
	text = xstrfmt("%s"
		       "    50.00%%     0.00%%  a  a     [.] main\n"
		       "            |\n"
		       "            ---main\n"
		       "               foo (inlined)\n"
		       "\n"
		       "    40.00%%    40.00%%  a  a     [.] foo\n"
		       "            |          \n"
		       "             --40.00%%--main\n"
		       "                       foo\n"
		       "\n"
		       "     3.00%%     1.00%%  a  libx  [.] bar\n"
		       "            |\n"
		       "            ---bar\n"
		       "               |          \n"
		       "               |--2.00%%--baz\n"
		       "               |          \n"
		       "                --1.00%%-- [...]\n"
		       "\n"
		       "     1.00%%     1.00%%  a  liby  [.] bar\n"
		       "            |\n"
		       "            ---bar\n"
		       "               baz\n"
		       "\n",
		       head);
	doc = parse_str("perf-profile", text);
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-profile.calltrace.cycles-pp.foo.main", 0), 50, 0, "inlined foo");
	assert_rel(val(doc, "perf-profile.calltrace.cycles-pp.main", 0), 50, 0, "main");
	assert_rel(val(doc, "perf-profile.calltrace.cycles-pp.baz.bar", 0), 3, 0, "2 + 1");
	assert_rel(val(doc, "perf-profile.calltrace.cycles-pp.bar", 0), 4, 0, "3 + 1");
	assert_rel(val(doc, "perf-profile.children.cycles-pp.bar", 0), 4, 0, "children sum");
	traces = with_prefix(doc, "perf-profile.calltrace.");
	assert_int_equal(json_object_size(traces), 4);
	json_decref(traces);
	json_decref(doc);
	free(text);

	/* folded chains in caller order (-g folded,caller) start at the
	 * outermost caller: no call traces rather than caller-first keys */
	text = xstrfmt("%s"
		       "    50.00%%     0.00%%  a  a     [.] foo\n"
		       "50.00%% main;foo\n"
		       "\n",
		       head);
	doc = parse_str("perf-profile", text);
	assert_string_equal(status(doc), "ok");
	traces = with_prefix(doc, "perf-profile.calltrace.");
	assert_int_equal(json_object_size(traces), 0);
	json_decref(traces);
	assert_true(errors_mention(doc, "folded chains in caller order"));
	assert_rel(val(doc, "perf-profile.children.cycles-pp.foo", 0), 50, 0, "children kept");
	json_decref(doc);
	free(text);

	/* older perf (3.x, 4.x) put a blank after "---" and "%--" */
	text = xstrfmt("%s"
		       "    50.00%%     0.00%%  a  a     [.] main\n"
		       "            |\n"
		       "            --- main\n"
		       "               |          \n"
		       "               |--30.00%%-- foo\n"
		       "               |          bar\n"
		       "               |          \n"
		       "                --20.00%%-- baz\n"
		       "\n",
		       head);
	doc = parse_str("perf-profile", text);
	assert_rel(val(doc, "perf-profile.calltrace.cycles-pp.main.foo.bar", 0), 30, 0, "old 1");
	assert_rel(val(doc, "perf-profile.calltrace.cycles-pp.main.baz", 0), 20, 0, "old 2");
	json_decref(doc);
	free(text);

	/* a graph the end of the file cuts short gives no call trace */
	text = xstrfmt("%s"
		       "    50.00%%     0.00%%  a  a     [.] main\n"
		       "            |\n"
		       "            ---main\n"
		       "               |--30.00%%--foo\n",
		       head);
	doc = parse_str("perf-profile", text);
	assert_string_equal(status(doc), "ok");
	assert_true(errors_mention(doc, "cut short"));
	assert_int_equal(nvalues(doc), 1); /* children.main; self 0.00 left out */
	json_decref(doc);
	free(text);
}

static void test_kselftest_run_vmtests(void **state UNUSED)
{
	json_t *doc = parse_fixture("kselftest", "kselftest-mm-run_vmtests-lkp.txt");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "kselftest.mm.run_vmtests.hugepage-mmap.pass", 0), 1, 0, "hugepage");
	assert_rel(val(doc, "kselftest.mm.run_vmtests.gup_test_-u.pass", 0), 1, 0, "gup -u");
	assert_rel(val(doc, "kselftest.mm.run_vmtests.userfaultfd.pass", 0), 1, 0, "uffd");
	assert_rel(val(doc, "kselftest.mm.run_vmtests.pass", 0), 1, 0, "collection");
	assert_int_equal(nvalues(doc), 7);
	json_decref(doc);

	doc = parse_str("kselftest", "TAP version 13\n1..2\nok 1 selftests: x: a\n"
				     "not ok 2 selftests: x: b # exit=1\n");
	assert_rel(val(doc, "kselftest.x.b.fail", 0), 1, 0, "not ok");
	json_decref(doc);
}

static void test_proc_vs_map_seed(void **state UNUSED)
{
	json_t *doc = parse_fixture("proc-vs-map", "proc-vs-map-smaps_rollup-arm64-24c.txt");

	assert_string_equal(status(doc), "ok");
	/* two tables of 20 samples (baseline, patched) in file order */
	assert_int_equal(json_array_size(metric(doc, "proc-vs-map.median_ms")), 40);
	assert_rel(val(doc, "proc-vs-map.median_ms", 0), 0.132, 1e-12, "baseline median");
	assert_rel(val(doc, "proc-vs-map.median_ms", 20), 0.006, 1e-12, "patched median");
	assert_rel(val(doc, "proc-vs-map.maximum_ms", 19), 3.924, 1e-12, "baseline worst");
	assert_rel(val(doc, "proc-vs-map.maximum_ms", 39), 2.043, 1e-12, "patched worst");
	assert_rel(val(doc, "proc-vs-map.minimum_ms", 17), 1.316, 1e-12, "baseline min");
	json_decref(doc);
}

static void test_kv(void **state UNUSED)
{
	json_t *doc = parse_str("kv", "# kv small-allocs\n"
				      "throughput_kbps: 1234.5\n"
				      "median_task_kbps: 10\n"
				      "throughput_kbps: 1300\n"
				      "note: warm-up done\n"
				      "x: nan\n"
				      "y: 1e999\n"
				      "z: 0x10\n"
				      "w: 5 ms\n"
				      "latency_ms: -2.5e-1\n");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "throughput_kbps", 0), 1234.5, 0, "first");
	assert_rel(val(doc, "throughput_kbps", 1), 1300, 0, "repeat");
	assert_rel(val(doc, "latency_ms", 0), -0.25, 0, "exponent");
	assert_int_equal(nvalues(doc), 4); /* note, nan, inf, hex, unit: ignored */
	json_decref(doc);

	/* a last line without newline may be cut short: left out, named */
	doc = parse_str("kv", "# kv\na: 1\nb: 12");
	assert_int_equal(nvalues(doc), 1);
	assert_true(errors_mention(doc, "no newline"));
	json_decref(doc);

	doc = parse_str("kv", "nothing here\n");
	assert_string_equal(status(doc), "failed");
	json_decref(doc);

	/* NUL bytes inside do not end the text */
	{
		static const char t[] = "# kv\na: 1\n\0garbage\nb: 2\n";
		struct err e;

		doc = parse_output("kv", t, sizeof(t) - 1, &e);
		assert_rel(val(doc, "b", 0), 2, 0, "after NUL");
		json_decref(doc);
	}
}

/* Any text has "key: number" lines: kv reads only what says it is kv */
static void test_kv_needs_opt_in(void **state UNUSED)
{
	static const char mail[] =
		"From: kernel test robot <oliver.sang@intel.com>\n"
		"To: Linus Torvalds <torvalds@linux-foundation.org>\n"
		"Subject: [linus:master] [mm]  1234567890:  will-it-scale.per_process_ops -11.7% regression\n"
		"MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=\"us-ascii\"\n"
		"X-MS-Exchange-Organization-SCL: -1\n"
		"\n"
		"Hello,\n";
	static const char ours[] = "throughput: 1234.5\nmedian: 10\n";
	json_t *doc = parse_str("kv", mail);

	assert_string_equal(status(doc), "failed");
	assert_int_equal(nvalues(doc), 0);
	assert_true(errors_mention(doc, "not kv output"));
	json_decref(doc);
	/* our cases' output without the line: failed for the tool, read by the
	 * worker's trusted entry */
	doc = parse_str("kv", ours);
	assert_string_equal(status(doc), "failed");
	json_decref(doc);
	doc = parse_output_kv_trusted(ours, strlen(ours));
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "throughput", 0), 1234.5, 0, "trusted");
	assert_rel(val(doc, "median", 0), 10, 0, "trusted median");
	json_decref(doc);
	/* blank lines before the marker are fine; "# kvm" is no marker */
	doc = parse_str("kv", "\n\n#kv\nx: 2\n");
	assert_rel(val(doc, "x", 0), 2, 0, "marker after blanks");
	json_decref(doc);
	doc = parse_str("kv", "# kvm\nx: 2\n");
	assert_string_equal(status(doc), "failed");
	json_decref(doc);
}

/* --- inputs that must not pass as ok ---------------------- */

/* the first n lines of a fixture (after its "# source:" line); new */
static char *fixture_head(const char *name, size_t nlines)
{
	size_t len;
	char *text = load(name, &len), *p = text;

	for (size_t i = 0; i < nlines && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (p)
		*p = '\0';
	return text;
}

static void test_vms_truncated(void **state UNUSED)
{
	/* the whole file: 32 tasks, each with its KB/s and its free line */
	json_t *doc = parse_fixture("vm-scalability", "vms-case-swapin-lkp.txt");
	char *text;
	size_t len;

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "vm-scalability.throughput", 0), 467497, 0, "32 tasks");
	json_decref(doc);

	/* cut after 24 of the 32 KB/s lines: no free lines yet; this gave
	 * throughput ~ 350k, a 25 % "regression" */
	text = fixture_head("vms-case-swapin-lkp.txt", 1 + 24);
	doc = parse_str("vm-scalability", text);
	assert_string_equal(status(doc), "failed");
	assert_int_equal(nvalues(doc), 0);
	assert_true(errors_mention(doc, "24 tasks printed 'KB/s' and 0 'usecs to free memory'"));
	json_decref(doc);
	free(text);

	/* every KB/s line, 20 of the 32 free lines */
	text = fixture_head("vms-case-swapin-lkp.txt", 1 + 32 + 20);
	doc = parse_str("vm-scalability", text);
	assert_string_equal(status(doc), "failed");
	assert_true(errors_mention(doc, "32 tasks printed 'KB/s' and 20"));
	json_decref(doc);
	free(text);

	/* the usemem command line says 3 tasks; 2 reported (both lines) */
	doc = parse_str("vm-scalability",
			"2020-05-06 11:25:18  ./case-anon-w-seq\n"
			"2020-05-06 11:25:18  ./usemem --runtime 300 -n 3 --prealloc 1024m\n"
			"1073741824 bytes / 859434826 usecs = 1220 KB/s\n"
			"1073741824 bytes / 859956623 usecs = 1219 KB/s\n"
			"11880398 usecs to free memory\n"
			"23078896 usecs to free memory\n");
	assert_string_equal(status(doc), "failed");
	assert_true(errors_mention(doc, "usemem ran 3 tasks, 2 reported"));
	json_decref(doc);

	/* cut in the middle of a KB/s line */
	text = load("vms-case-swapin-lkp.txt", &len);
	{
		char *mid = strstr(text, "12884901888 bytes / 860366236");

		assert_non_null(mid);
		mid[12] = '\0';
		doc = parse_str("vm-scalability", text);
		assert_string_equal(status(doc), "failed");
		json_decref(doc);
	}
	free(text);
}

/* "\xEF\xBB\xBF" before the first line, as Windows editors and some CI
 * logs save it: stripped once for every tool */
static json_t *parse_with_bom(const char *tool, const char *fixture)
{
	size_t len;
	char *text = load(fixture, &len), *bom = xmalloc(len + 4);
	struct err e;
	json_t *doc;

	memcpy(bom, "\xEF\xBB\xBF", 3);
	memcpy(bom + 3, text, len + 1);
	doc = parse_output(tool, bom, len + 3, &e);
	free(bom);
	free(text);
	assert_non_null(doc);
	return doc;
}

static void test_bom(void **state UNUSED)
{
	/* first line a task's KB/s line: all 32 tasks kept (and the count
	 * check passes) */
	json_t *doc = parse_str("vm-scalability",
				"\xEF\xBB\xBF"
				"12884901888 bytes / 859434826 usecs = 14640 KB/s\n"
				"12884901888 bytes / 859956623 usecs = 14632 KB/s\n"
				"11880398 usecs to free memory\n"
				"23078896 usecs to free memory\n");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "vm-scalability.throughput", 0), 14640 + 14632, 0, "both tasks");
	json_decref(doc);

	/* runtest.py's header after a BOM */
	doc = parse_str("will-it-scale",
			"\xEF\xBB\xBF"
			"tasks,processes,processes_idle,threads,"
			"threads_idle,linear\n0,0,100,0,100,0\n104,1200363,0.04,0,0.00,0\n");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "will-it-scale.104.processes", 0), 1200363, 0, "after BOM");
	json_decref(doc);

	/* perf-stat -x, whose first line is a counter */
	doc = parse_with_bom("perf-stat", "perf-stat-per-socket-x-csv.csv");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-stat.total.task-clock", 0), 724.20, 1e-12, "first counter");
	json_decref(doc);

	/* a fixture with its BOM gives the same document as without */
	for (size_t i = 0; i < 3; i++) {
		static const char *const f[][2] = {
			{ "vm-scalability", "vms-case-swapin-lkp.txt" },
			{ "hackbench", "hackbench-lkp.txt" },
			{ "fio", "fio-json-lkp.json" },
		};
		json_t *a = parse_fixture(f[i][0], f[i][1]), *b = parse_with_bom(f[i][0], f[i][1]);

		assert_true(json_equal(a, b));
		json_decref(a);
		json_decref(b);
	}
}

/* a kernel test robot mail: comparison tables of "number  %change  word" */
static const char robot_mail[] =
	"From: kernel test robot <oliver.sang@intel.com>\n"
	"Subject: [linus:master] [mm]  1234567890:  will-it-scale.per_process_ops -11.7% regression\n"
	"MIME-Version: 1.0\n"
	"\n"
	"Hello,\n"
	"\n"
	"kernel test robot noticed a -11.7% regression of will-it-scale.per_process_ops on:\n"
	"\n"
	"commit: 1234567890abcdef1234567890abcdef12345678 (\"mm: something\")\n"
	"\n"
	"testcase: will-it-scale\n"
	"config: x86_64-rhel-9.4\n"
	"test machine: 104 threads 2 sockets (Skylake) with 192G memory\n"
	"parameters:\n"
	"\n"
	"\tnr_task: 100%\n"
	"\tmode: process\n"
	"\ttest: mmap2\n"
	"\n"
	"=========================================================================================\n"
	"compiler/cpufreq_governor/kconfig/mode/nr_task/rootfs/tbox_group/test/testcase:\n"
	"  gcc-12/performance/x86_64-rhel-9.4/process/100%/debian-12-x86_64-20240206.cgz/lkp-skl-fpga01/mmap2/will-it-scale\n"
	"\n"
	"       a1b2c3d4e5f6a7b8 1234567890abcdef1234567890\n"
	"---------------- ---------------------------\n"
	"         %stddev     %change         %stddev\n"
	"             \\          |                \\  \n"
	"     11541            -11.7%      10191        will-it-scale.per_process_ops\n"
	"   1200363            -11.7%    1059911        will-it-scale.workload\n"
	"      0.04 \xc2\xb1  3%      +0.0        0.04 \xc2\xb1  5%  perf-stat.overall.cache-miss-rate%\n"
	"  4.66e+09            -8.2%  4.278e+09        perf-stat.i.cpu-cycles\n"
	"     22.21 \xc2\xb1  2%      -2.1       20.11        perf-profile.calltrace.cycles-pp.do_mmap\n";

/* UnixBench's report head */
static const char unixbench_report[] =
	"   BYTE UNIX Benchmarks (Version 5.1.3)\n"
	"\n"
	"   System: lkp-hsw01: GNU/Linux\n"
	"   OS: GNU/Linux -- 6.1.0 -- #1 SMP PREEMPT_DYNAMIC\n"
	"   Machine: x86_64 (unknown)\n"
	"   CPU 0: Intel(R) Xeon(R) CPU E5-2699 v3 @ 2.30GHz (4589.6 bogomips)\n"
	"   10:25:01 up 2 min,  1 user,  load average: 0.21, 0.15, 0.06; runlevel 2\n"
	"\n"
	"------------------------------------------------------------------------\n"
	"Benchmark Run: Thu Aug 18 2016 10:25:01 - 10:53:09\n"
	"72 CPUs in system; running 1 parallel copy of tests\n"
	"\n"
	"Dhrystone 2 using register variables       37812165.4 lps   (10.0 s, 7 samples)\n"
	"Execl Throughput                               4254.3 lps   (29.9 s, 2 samples)\n";

/* n pseudo-random bytes (fixed seed) with "7  j" lines among them: the
 * shape that made 50 MB of random bytes give perf-stat.total.j; new */
static char *random_bytes(size_t n)
{
	char *b = xmalloc(n + 1);
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		b[i] = (char)(x >> 56);
	}
	for (size_t at = 1000; at + 8 < n; at += 100000)
		memcpy(b + at, "\n7  j\n", 6);
	b[n] = '\0';
	return b;
}

static void test_junk_not_ok(void **state UNUSED)
{
	static const char *const tools[] = { "perf-stat", "kv" };
	size_t rlen = 1 << 20;
	char *rnd = random_bytes(rlen);

	for (size_t t = 0; t < ARRAY_SIZE(tools); t++) {
		const char *texts[] = { robot_mail, unixbench_report };
		struct err e;
		json_t *doc;

		for (size_t k = 0; k < ARRAY_SIZE(texts); k++) {
			doc = parse_str(tools[t], texts[k]);
			if (strcmp(status(doc), "failed"))
				fail_msg("%s on text %zu: status %s", tools[t], k, status(doc));
			assert_int_equal(nvalues(doc), 0);
			assert_true(json_array_size(json_object_get(doc, "errors")) > 0);
			json_decref(doc);
		}
		doc = parse_output(tools[t], rnd, rlen, &e);
		assert_string_equal(status(doc), "failed");
		json_decref(doc);
	}
	free(rnd);
	{
		json_t *doc = parse_str("perf-stat", robot_mail);

		assert_true(errors_mention(doc, "no perf stat counts"));
		json_decref(doc);
	}
}

static void test_perf_stat_event_names(void **state UNUSED)
{
	/* inside a real block, words that are no event names are not counts */
	json_t *doc = parse_str("perf-stat",
				" Performance counter stats for './case':\n"
				"\n"
				"          1,234,567      cycles\n"
				"      0.04 \xc2\xb1  3%  ratio\n"
				"         12      -11.7%\n"
				"\n"
				"       1.000000000 seconds time elapsed\n"
				"\n"
				"       0.250000000 seconds user\n"
				"       0.500000000 seconds sys\n"
				"\n"
				"Some events weren't counted. Try disabling the NMI watchdog:\n"
				"\techo 0 > /proc/sys/kernel/nmi_watchdog\n");
	const char *k;
	json_t *v;

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-stat.total.cycles", 0), 1234567, 0, "cycles");
	assert_rel(val(doc, "perf-stat.elapsed_time", 0), 1, 0, "elapsed");
	assert_rel(val(doc, "perf-stat.user_time", 0), 0.25, 0, "user");
	assert_rel(val(doc, "perf-stat.system_time", 0), 0.5, 0, "sys");
	json_object_foreach (json_object_get(doc, "metrics"), k, v)
		if (strstr(k, "%") || strstr(k, "\xc2\xb1") || strstr(k, "ratio"))
			fail_msg("junk metric '%s'", k);
	assert_int_equal(nvalues(doc), 4);
	json_decref(doc);

	/* a block quoted in a mail: the text after its times is not read */
	doc = parse_str("perf-stat", " Performance counter stats for 'system wide':\n\n"
				     "          1,234,567      cycles\n\n"
				     "       1.000000000 seconds time elapsed\n\n"
				     "Regards,\n"
				     "      72  CPUs\n");
	assert_string_equal(status(doc), "ok");
	assert_null(json_object_get(json_object_get(doc, "metrics"), "perf-stat.total.CPUs"));
	assert_int_equal(nvalues(doc), 2); /* cycles, elapsed_time */
	json_decref(doc);

	/* perf 6.1 `perf stat -e …` of one command: LKP's overall.* ratios */
	doc = parse_str(
		"perf-stat",
		"\n"
		" Performance counter stats for './page-fault runtime=0.3':\n"
		"\n"
		"     1,234,567,890      cycles                                                        \n"
		"     2,469,135,780      instructions                     #    2.00  insn per cycle              \n"
		"        12,345,678      cache-references                                              \n"
		"         1,234,567      cache-misses                     #   10.000 % of all cache refs         \n"
		"       400,000,000      branch-instructions                                           \n"
		"         4,000,000      branch-misses                    #    1.00% of all branches             \n"
		"\n"
		"       0.315443736 seconds time elapsed\n"
		"\n"
		"       0.210000000 seconds user\n"
		"       0.100000000 seconds sys\n"
		"\n");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "perf-stat.overall.ipc", 0), 2, 1e-15, "ipc");
	assert_rel(val(doc, "perf-stat.overall.cpi", 0), 0.5, 1e-15, "cpi");
	assert_rel(val(doc, "perf-stat.overall.cache-miss-rate%", 0), 100.0 * 1234567 / 12345678,
		   1e-12, "cache");
	assert_rel(val(doc, "perf-stat.overall.branch-miss-rate%", 0), 1, 1e-12, "branch");
	assert_rel(val(doc, "perf-stat.user_time", 0), 0.21, 0, "user");
	assert_rel(val(doc, "perf-stat.system_time", 0), 0.1, 0, "sys");
	json_decref(doc);
}

/* parse_result_write prints what json_dumpf prints for parse_output's document */
static void test_result_write(void **state UNUSED)
{
	for (size_t f = 0; f < 6; f++) {
		static const char *const fx[][2] = {
			{ "will-it-scale", "wis-runtest-mmap2-lkp.txt" },
			{ "perf-stat", "perf-stat-x-csv-interval-lkp.csv" },
			{ "perf-profile", "perf-report-children-folded-lkp.txt" },
			{ "fio", "fio-json-lkp.json" },
			{ "vm-scalability", "vms-case-swapin-lkp.txt" },
			{ "will-it-scale", "wis-assertion-failure-lkp.txt" },
		};
		size_t len, n1, n2;
		char *text = load(fx[f][1], &len), *mine, *theirs;
		struct err e;
		json_t *doc = parse_output(fx[f][0], text, len, &e);
		struct parse_result *r = parse_run(fx[f][0], text, len, &e);
		FILE *m1 = open_memstream(&mine, &n1), *m2 = open_memstream(&theirs, &n2);

		assert_non_null(r);
		assert_int_equal(parse_result_write(r, m1), 0);
		assert_int_equal(json_dumpf(doc, m2,
					    JSON_INDENT(2) | JSON_SORT_KEYS |
						    JSON_REAL_PRECISION(15)),
				 0);
		fclose(m1);
		fclose(m2);
		assert_string_equal(mine, theirs);
		free(mine);
		free(theirs);
		parse_result_free(r);
		json_decref(doc);
		free(text);
	}
}

/* LKP's lmbench3 fixture: LKP's stats/lmbench3 gives the two bandwidths at
 * the largest size; "mappings" (lat_mmap) it does not read */
static void test_lmbench3(void **state UNUSED)
{
	json_t *doc = parse_fixture("lmbench3", "lmbench3-mmap-bw-lkp.txt");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "lmbench3.MMAP.read.bandwidth.MB/sec", 0), 17573.23, 0, "1073.74 MB");
	assert_rel(val(doc, "lmbench3.MMAP.read_open2close.bandwidth.MB/sec", 0), 9062.41, 0,
		   "open2close");
	assert_rel(val(doc, "lmbench3.MMAP.mapping.latency.us", 0), 6613, 0, "lat_mmap 1 GB");
	assert_int_equal(nvalues(doc), 3);
	json_decref(doc);

	/* a whole results file in lmbench's layout: labels with '/', '+', "'",
	 * units microseconds and usecs, lat_ctx, lat_fs, socket bandwidth */
	doc = parse_fixture("lmbench3", "lmbench3-lat-bw-results.txt");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "lmbench3.syscall.open/close.latency.us", 0), 1.0713, 0, "open/close");
	assert_rel(val(doc, "lmbench3.Select.100fd.latency.us", 0), 1.0384, 0, "fd's");
	assert_rel(val(doc, "lmbench3.Select.100tcp.latency.us", 0), 3.6710, 0, "tcp fd's");
	assert_rel(val(doc, "lmbench3.Process.fork+/bin/sh.latency.us", 0), 850.25, 0, "sh -c");
	assert_rel(val(doc, "lmbench3.Process.fork+execve.latency.us", 0), 306.6, 0, "execve");
	assert_rel(val(doc, "lmbench3.PIPE.latency.us", 0), 4.9723, 0, "pipe");
	assert_rel(val(doc, "lmbench3.PIPE.bandwidth.MB/sec", 0), 3824.96, 0, "pipe bw");
	assert_rel(val(doc, "lmbench3.AF_UNIX.sock.stream.bandwidth.MB/sec", 0), 9715.40, 0,
		   "unix");
	assert_rel(val(doc, "lmbench3.UDP.usinglocalhost.latency.us", 0), 8.2116, 0, "udp");
	assert_rel(val(doc, "lmbench3.TCP.localhost.latency", 0), 11.6812, 0, "tcp");
	assert_rel(val(doc, "lmbench3.CONNECT.localhost.latency.us", 0), 20.5126, 0, "connect");
	assert_rel(val(doc, "lmbench3.TCP.socket.bandwidth.64B.MB/sec", 0), 132.56, 0, "64B");
	assert_rel(val(doc, "lmbench3.TCP.socket.bandwidth.10MB.MB/sec", 0), 6281.44, 0, "10MB");
	assert_rel(val(doc, "lmbench3.Pagefaults.ms", 0), 0.1507, 0, "LKP's name, us");
	assert_rel(val(doc, "lmbench3.OPS.integer.div.latency.ns", 0), 6.84, 0, "ops");
	assert_rel(val(doc, "lmbench3.OPS.int64.add.latency.ns", 0), 0.16, 0, "int64");
	assert_rel(val(doc, "lmbench3.CTX.96P.0K.latency.us", 0), 5.32, 0, "LKP's 96P");
	assert_rel(val(doc, "lmbench3.CTX.96P.64K.latency.us", 0), 41.05, 0, "64K");
	assert_rel(val(doc, "lmbench3.CTX.2P.16K.latency.us", 0), 3.53, 0, "2 procs");
	assert_rel(val(doc, "lmbench3.FILE.read.bandwidth.MB/sec", 0), 10521.35, 0, "bw_file_rd");
	assert_rel(val(doc, "lmbench3.MMAP.read.bandwidth.MB/sec", 0), 17573.23, 0, "bw_mmap_rd");
	assert_rel(val(doc, "lmbench3.BCOPY.libc.bandwidth.MB/sec", 0), 9281.77, 0, "libc bcopy");
	assert_rel(val(doc, "lmbench3.BCOPY.unrolled.bandwidth.MB/sec", 0), 6420.18, 0, "unrolled");
	assert_rel(val(doc, "lmbench3.BCOPY.memory_read.bandwidth.MB/sec", 0), 10944.61, 0, "rd");
	assert_rel(val(doc, "lmbench3.BCOPY.memory_write.bandwidth.MB/sec", 0), 8102.95, 0, "wr");
	assert_rel(val(doc, "lmbench3.semaphore.latency.us", 0), 0.6420, 0, "usecs");
	assert_rel(val(doc, "lmbench3.signal_handler_overhead.latency.us", 0), 0.8822, 0, "sig");
	assert_rel(val(doc, "lmbench3.FS.0k.create.per_sec", 0), 112645, 0, "lat_fs");
	assert_rel(val(doc, "lmbench3.FS.10k.delete.per_sec", 0), 128345, 0, "lat_fs 10k");
	/* the series we do not keep ("libc bcopy aligned, "stride=16, Memory
	 * partial …) give nothing, and nothing leaks into the kept ones */
	assert_null(
		json_object_get(json_object_get(doc, "metrics"), "lmbench3.CTX.1P.0K.latency.us"));
	assert_int_equal(json_array_size(metric(doc, "lmbench3.BCOPY.libc.bandwidth.MB/sec")), 1);
	json_decref(doc);

	doc = parse_str("lmbench3", robot_mail);
	assert_string_equal(status(doc), "failed");
	json_decref(doc);
}

static void test_sysbench(void **state UNUSED)
{
	/* 1.0, cpu twice: two repeats */
	json_t *doc = parse_fixture("sysbench", "sysbench-1.0-cpu.txt");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "sysbench.events_per_sec", 0), 4716.95, 0, "run 1");
	assert_rel(val(doc, "sysbench.events_per_sec", 1), 4709.12, 0, "run 2");
	assert_rel(val(doc, "sysbench.total_time", 0), 10.0009, 0, "10.0009s");
	assert_rel(val(doc, "sysbench.total_events", 0), 47180, 0, "events");
	assert_rel(val(doc, "sysbench.latency_95th_percentile_ms", 0), 0.87, 0, "p95");
	assert_rel(val(doc, "sysbench.latency_sum_ms", 0), 39993.37, 0, "sum");
	assert_rel(val(doc, "sysbench.events_avg", 0), 11795, 0, "11795.0000/14.07");
	assert_rel(val(doc, "sysbench.events_stddev", 0), 14.07, 0, "stddev");
	assert_rel(val(doc, "sysbench.execution_time_avg", 1), 9.9978, 0, "run 2 exec");
	json_decref(doc);

	doc = parse_fixture("sysbench", "sysbench-1.0-memory.txt");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "sysbench.operations", 0), 56207218, 0, "ops");
	assert_rel(val(doc, "sysbench.operations_per_sec", 0), 5620019.95, 0, "ops/s");
	assert_rel(val(doc, "sysbench.transferred_MiB", 0), 54889.86, 0, "MiB");
	assert_rel(val(doc, "sysbench.MiB_per_sec", 0), 5488.30, 0, "MiB/s");
	assert_rel(val(doc, "sysbench.events_avg", 0), 14051804.5, 0, "pair");
	json_decref(doc);

	doc = parse_fixture("sysbench", "sysbench-1.0-threads.txt");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "sysbench.latency_max_ms", 0), 17.32, 0, "max");
	assert_rel(val(doc, "sysbench.total_time", 0), 10.0013, 0, "time");
	json_decref(doc);

	/* 0.4: "Test execution summary", "approx.  95 percentile", ms glued */
	doc = parse_fixture("sysbench", "sysbench-0.4-cpu.txt");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "sysbench.total_time", 0), 9.7152, 0, "9.7152s");
	assert_rel(val(doc, "sysbench.latency_avg_ms", 0), 3.88, 0, "3.88ms");
	assert_rel(val(doc, "sysbench.latency_95th_percentile_ms", 0), 4.09, 0, "approx. 95");
	assert_rel(val(doc, "sysbench.latency_sum_ms", 0), 38842.5, 1e-12, "38.8425 s");
	assert_rel(val(doc, "sysbench.events_avg", 0), 2500, 0, "fairness");
	assert_null(json_object_get(json_object_get(doc, "metrics"), "sysbench.events_per_sec"));
	json_decref(doc);
	doc = parse_fixture("sysbench", "sysbench-0.4-memory.txt");
	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "sysbench.operations_per_sec", 0), 2146532.20, 0, "ops/sec");
	assert_rel(val(doc, "sysbench.MiB_per_sec", 0), 2096.22, 0, "MB/sec");
	assert_rel(val(doc, "sysbench.transferred_MiB", 0), 10240, 0, "MB");
	json_decref(doc);

	/* tests mixed in one file: failed, not pooled */
	doc = parse_fixture("sysbench", "sysbench-1.0-mixed-tests.txt");
	assert_string_equal(status(doc), "failed");
	assert_true(errors_mention(doc, "different sysbench tests (cpu, then memory"));
	json_decref(doc);

	/* a run cut before its summary, a FATAL run */
	doc = parse_str("sysbench",
			"sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\n"
			"Threads started!\n\nCPU speed:\n    events per second:  4716.95\n");
	assert_string_equal(status(doc), "failed");
	assert_true(errors_mention(doc, "no 'total time'"));
	json_decref(doc);
	doc = parse_str("sysbench", "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\n"
				    "FATAL: Cannot allocate memory for threads\n");
	assert_string_equal(status(doc), "failed");
	json_decref(doc);
	doc = parse_str("sysbench", unixbench_report);
	assert_string_equal(status(doc), "failed");
	json_decref(doc);
}

/* values are kept in a compact form (parse.c): every double comes back
 * to the bit */
static void test_value_roundtrip(void **state UNUSED)
{
	static const char *const nums[] = {
		"0",
		"-0",
		"0.1",
		"-0.25",
		"14640",
		"0.132",
		"2.600",
		"1e300",
		"-1e-300",
		"4.9e-324",
		"9007199254740993",
		"-9007199254740991",
		"123456789.987654321",
		"1e-9",
		"0.000000001234",
		"99999999999999.99",
		"3.141592653589793",
		"1e22",
	};
	char *text = xstrdup("");
	json_t *doc;

	for (size_t i = 0; i < ARRAY_SIZE(nums); i++) {
		char *next = xstrfmt("%sx: %s\n", text, nums[i]);

		free(text);
		text = next;
	}
	doc = parse_output_kv_trusted(text, strlen(text));
	assert_int_equal(json_array_size(metric(doc, "x")), ARRAY_SIZE(nums));
	for (size_t i = 0; i < ARRAY_SIZE(nums); i++) {
		double want = strtod(nums[i], NULL), got = val(doc, "x", i);

		if (memcmp(&want, &got, sizeof(want)))
			fail_msg("'%s': got %.17g, want %.17g", nums[i], got, want);
	}
	json_decref(doc);
	free(text);
}

static void test_time(void **state UNUSED)
{
	json_t *doc = parse_str("time", "\tCommand being timed: \"./execl\"\n"
					"\tUser time (seconds): 1.25\n"
					"\tSystem time (seconds): 3.50\n"
					"\tPercent of CPU this job got: 95%\n"
					"\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03\n"
					"\tMaximum resident set size (kbytes): 2048\n"
					"\tMinor (reclaiming a frame) page faults: 97\n"
					"\tVoluntary context switches: 12\n"
					"\tExit status: 0\n"
					"\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:05.50\n");

	assert_string_equal(status(doc), "ok");
	assert_rel(val(doc, "time.elapsed_time", 0), 3723, 0, "h:mm:ss");
	assert_rel(val(doc, "time.elapsed_time", 1), 5.5, 0, "m:ss.ss");
	assert_rel(val(doc, "time.percent_of_cpu_this_job_got", 0), 95, 0, "percent");
	assert_rel(val(doc, "time.system_time", 0), 3.5, 0, "sys");
	assert_rel(val(doc, "time.minor_page_faults", 0), 97, 0, "minflt");
	json_decref(doc);

	doc = parse_str("time", "\tCommand terminated by signal 9\n"
				"\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:01.00\n");
	assert_string_equal(status(doc), "failed");
	assert_int_equal(nvalues(doc), 0);
	json_decref(doc);
}

static void test_unknown_tool(void **state UNUSED)
{
	struct err e;
	const char *const *t = parse_tools();
	size_t n = 0;

	err_clear(&e);
	assert_null(parse_output("nosuch", "a: 1\n", 5, &e));
	assert_int_equal(e.status, 400);
	assert_int_equal(e.id, ERR_INVALID_FIELD);
	assert_string_equal(e.detail, "tool");
	for (; *t; t++)
		n++;
	assert_int_equal(n, 15);
	assert_string_equal(parse_tools()[0], "kv");
}

/* --- every fixture cut short ---------------------------------------- */

static const struct {
	const char *tool, *fixture;
} all_fixtures[] = {
	{ "will-it-scale", "wis-runtest-mmap2-lkp.txt" },
	{ "will-it-scale", "wis-assertion-failure-lkp.txt" },
	{ "vm-scalability", "vms-case-swapin-lkp.txt" },
	{ "vm-scalability", "vms-case-truncate-seq-lkp.txt" },
	{ "unixbench", "unixbench-partial-index-lkp.txt" },
	{ "hackbench", "hackbench-lkp.txt" },
	{ "fio", "fio-json-lkp.json" },
	{ "kselftest", "kselftest-tap-futex-nested-lkp.txt" },
	{ "kselftest", "kselftest-mm-run_vmtests-lkp.txt" },
	{ "stress-ng", "stress-ng-metrics-brief-memory-class-lkp.txt" },
	{ "stress-ng", "stress-ng-metrics-brief-memrate-misc-lkp.txt" },
	{ "perf-stat", "perf-stat-x-csv-interval-lkp.csv" },
	{ "perf-stat", "perf-stat-x-csv-interval-hybrid-lkp.csv" },
	{ "perf-stat", "perf-stat-x-csv-interval-padded.csv" },
	{ "perf-stat", "perf-stat-A-text.txt" },
	{ "perf-stat", "perf-stat-A-x-csv-interval.csv" },
	{ "perf-stat", "perf-stat-per-socket-text-interval.txt" },
	{ "perf-stat", "perf-stat-per-socket-x-csv.csv" },
	{ "perf-profile", "perf-report-children-folded-lkp.txt" },
	{ "perf-profile", "perf-report-children-folded-callee.txt" },
	{ "perf-profile", "perf-report-children-tree-callee.txt" },
	{ "perf-profile", "perf-report-children-tree-caller.txt" },
	{ "perf-profile", "perf-report-children-tree-sort-sym.txt" },
	{ "perf-profile", "perf-report-overhead-tree.txt" },
	{ "perf-profile", "perf-report-default-caller.txt" },
	{ "perf-profile", "perf-report-default-no-children.txt" },
	{ "perf-profile", "perf-report-default-callee.txt" },
	{ "proc-vs-map", "proc-vs-map-smaps_rollup-arm64-24c.txt" },
	{ "lmbench3", "lmbench3-mmap-bw-lkp.txt" },
	{ "lmbench3", "lmbench3-lat-bw-results.txt" },
	{ "sysbench", "sysbench-1.0-cpu.txt" },
	{ "sysbench", "sysbench-1.0-memory.txt" },
	{ "sysbench", "sysbench-1.0-threads.txt" },
	{ "sysbench", "sysbench-0.4-cpu.txt" },
	{ "perf-bench", "perf-bench-6.1-sched-pipe.txt" },
	{ "perf-bench", "perf-bench-6.1-mem-memcpy.txt" },
	{ "perf-bench", "perf-bench-6.1-futex-hash.txt" },
	{ "sysbench", "sysbench-0.4-memory.txt" },
};

static void check_doc_shape(json_t *doc)
{
	const char *k;
	json_t *v, *x;
	size_t i;

	assert_true(json_is_object(json_object_get(doc, "metrics")));
	assert_true(json_is_array(json_object_get(doc, "errors")));
	json_object_foreach (json_object_get(doc, "metrics"), k, v) {
		assert_true(json_array_size(v) > 0);
		json_array_foreach (v, i, x)
			assert_true(json_is_real(x) && isfinite(json_real_value(x)));
	}
}

static void test_truncated(void **state UNUSED)
{
	for (size_t f = 0; f < sizeof(all_fixtures) / sizeof(all_fixtures[0]); f++) {
		size_t len, full;
		char *text = load(all_fixtures[f].fixture, &len);
		struct err e;
		json_t *doc = parse_output(all_fixtures[f].tool, text, len, &e);

		check_doc_shape(doc);
		full = nvalues(doc);
		json_decref(doc);
		/* 23 points spread over the file, and the last bytes */
		for (size_t k = 0; k <= 25; k++) {
			size_t cut = k <= 23 ? len * k / 24 : len - (k - 23);
			char *copy = xmalloc(cut + 1);

			/* an exact-size heap copy: ASan sees any read past the cut */
			memcpy(copy, text, cut);
			doc = parse_output(all_fixtures[f].tool, copy, cut, &e);
			assert_non_null(doc);
			check_doc_shape(doc);
			if (strcmp(status(doc), "failed") && nvalues(doc) > full)
				fail_msg("%s cut at %zu of %zu: %zu values, more than the %zu of "
					 "the whole file",
					 all_fixtures[f].fixture, cut, len, nvalues(doc), full);
			if (!strcmp(status(doc), "failed"))
				assert_int_equal(nvalues(doc), 0);
			json_decref(doc);
			free(copy);
		}
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_wis_assertion_failure),
		cmocka_unit_test(test_wis_raw_binary),
		cmocka_unit_test(test_wis_scalability),
		cmocka_unit_test(test_wis_per_task_count),
		cmocka_unit_test(test_stress_ng_misc),
		cmocka_unit_test(test_stress_ng_debian12),
		cmocka_unit_test(test_unixbench_two_passes),
		cmocka_unit_test(test_stress_ng_new_layout),
		cmocka_unit_test(test_perf_stat_csv_interval),
		cmocka_unit_test(test_perf_stat_csv_hybrid),
		cmocka_unit_test(test_perf_stat_text_and_csv),
		cmocka_unit_test(test_perf_stat_per_cpu),
		cmocka_unit_test(test_perf_stat_per_socket),
		cmocka_unit_test(test_perf_profile_details),
		cmocka_unit_test(test_perf_profile_tree),
		cmocka_unit_test(test_perf_profile_default),
		cmocka_unit_test(test_perf_profile_tree_rules),
		cmocka_unit_test(test_kselftest_run_vmtests),
		cmocka_unit_test(test_proc_vs_map_seed),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_kv_needs_opt_in),
		cmocka_unit_test(test_vms_truncated),
		cmocka_unit_test(test_bom),
		cmocka_unit_test(test_junk_not_ok),
		cmocka_unit_test(test_perf_stat_event_names),
		cmocka_unit_test(test_result_write),
		cmocka_unit_test(test_lmbench3),
		cmocka_unit_test(test_sysbench),
		cmocka_unit_test(test_value_roundtrip),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_unknown_tool),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
