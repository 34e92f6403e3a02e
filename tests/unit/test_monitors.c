/*
 * Tests of worker/monitors: the job's monitors, a run's profile and perf
 * metrics from the guest's serial log (the blocks worker/init/init.c
 * prints), the bound on the folded text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "worker/monitors.h"
#include "parse/perf_fold.h"
#include "attr.h"
#include "xalloc.h"

static void test_monitors(void **state UNUSED)
{
	json_t *a = json_pack("[s,s,s]", "perf-stat", "perf-profile", "perf-stat");
	json_t *bad = json_pack("[s]", "perf-top");
	json_t *out;
	unsigned m = 99;
	struct err e;

	assert_int_equal(monitors_parse(NULL, &m, &e), 0);
	assert_int_equal(m, 0);
	assert_int_equal(monitors_parse(a, &m, &e), 0);
	assert_int_equal(m, MONITOR_PERF_PROFILE | MONITOR_PERF_STAT);
	out = monitors_mask_json(m);
	/* sorted, deduplicated */
	assert_int_equal(json_array_size(out), 2);
	assert_string_equal(json_string_value(json_array_get(out, 0)), "perf-profile");
	assert_string_equal(json_string_value(json_array_get(out, 1)), "perf-stat");
	json_decref(out);
	assert_int_equal(monitors_parse(bad, &m, &e), -1);
	assert_string_equal(e.detail, "monitors[0]");
	assert_non_null(strstr(e.message, "perf-top"));
	json_decref(bad);
	bad = json_string("perf-stat");
	assert_int_equal(monitors_parse(bad, &m, &e), -1);
	json_decref(bad);
	json_decref(a);
}

/* A serial log as /init prints it: kernel noise, '\r's, the two blocks. */
static const char serial[] =
	"==== regtrack-init release=6.1.192 ====\r\n"
	"==== regtrack-result-begin ====\r\n"
	"rt| throughput: 100\r\n"
	"==== regtrack-result-end exit=0 signal=0 timeout=0 elapsed_ns=5 ====\r\n"
	"==== regtrack-perf-stat-begin ====\r\n"
	"rt| \r\n"
	"rt|  Performance counter stats for 'system wide':\r\n"
	"rt| \r\n"
	"rt|             342.60 msec cpu-clock                        #    1.679 CPUs utilized\r\n"
	"rt|                885      context-switches                 #    2.583 K/sec\r\n"
	"rt|    <not supported>      cycles\r\n"
	"rt| \r\n"
	"rt|        0.204060886 seconds time elapsed\r\n"
	"==== regtrack-perf-stat-end ====\r\n"
	"==== regtrack-profile-begin event=cpu-clock samples=8 stacks=3 dropped=0 ====\r\n"
	"rt| small-allocs;entry_SYSCALL_64;do_syscall_64;vm_mmap_pgoff;do_mmap 5\r\n"
	"[    3.141592] a kernel message between the lines\r\n"
	"rt| small-allocs;entry_SYSCALL_64;do_syscall_64;__vm_munmap 2\r\n"
	"rt| swapper;default_idle.isra.0 1\r\n"
	"==== regtrack-profile-end ====\r\n"
	"reboot: Restarting system\r\n";

static void test_fill_from_serial(void **state UNUSED)
{
	json_t *run = json_pack("{s:{s:[f]}}", "metrics", "small-allocs.throughput", 100.0);
	json_t *m, *prof;
	char *folded, *stat;
	size_t flen, slen;
	struct err e;

	profile_from_serial(serial, &folded, &flen, &stat, &slen);
	assert_non_null(folded);
	assert_string_equal(folded,
			    "small-allocs;entry_SYSCALL_64;do_syscall_64;vm_mmap_pgoff;do_mmap 5\n"
			    "small-allocs;entry_SYSCALL_64;do_syscall_64;__vm_munmap 2\n"
			    "swapper;default_idle.isra.0 1\n");
	assert_non_null(stat);
	assert_non_null(strstr(stat, "342.60 msec cpu-clock"));
	assert_int_equal(profile_fill_run(run, MONITOR_PERF_PROFILE | MONITOR_PERF_STAT, folded,
					  flen, stat, slen, &e),
			 0);
	prof = json_object_get(run, "profile");
	assert_string_equal(json_string_value(json_object_get(prof, "event")), "cpu-clock");
	assert_int_equal(json_integer_value(json_object_get(prof, "samples")), 8);
	assert_string_equal(json_string_value(json_object_get(prof, "folded")), folded);
	assert_int_equal(json_array_size(json_object_get(run, "monitors")), 2);
	m = json_object_get(run, "metrics");
	assert_non_null(json_object_get(m, "small-allocs.throughput"));
	/* 5 of 8 samples pass through do_mmap, its leaf: 62.5 % children and self */
	assert_true(
		fabs(json_real_value(
			     json_array_get(json_object_get(m,
							    "perf-profile.children.cycles-pp.do_mmap"),
					    0)) -
		     62.5) < 1e-9);
	assert_true(
		fabs(json_real_value(
			     json_array_get(json_object_get(m,
							    "perf-profile.self.cycles-pp.do_mmap"),
					    0)) -
		     62.5) < 1e-9);
	assert_true(
		fabs(json_real_value(json_array_get(
			     json_object_get(m, "perf-profile.children.cycles-pp.do_syscall_64"),
			     0)) -
		     87.5) < 1e-9);
	/* no self time in do_syscall_64: no self metric (each column has the floor) */
	assert_null(json_object_get(m, "perf-profile.self.cycles-pp.do_syscall_64"));
	/* the compiler suffix is stripped; the comm is no symbol */
	assert_non_null(json_object_get(m, "perf-profile.self.cycles-pp.default_idle"));
	assert_null(json_object_get(m, "perf-profile.children.cycles-pp.small-allocs"));
	/* perf stat through lib/parse/perf_stat.c; <not supported> left out */
	assert_true(
		fabs(json_number_value(
			     json_array_get(json_object_get(m, "perf-stat.total.cpu-clock"), 0)) -
		     342.60) < 1e-9);
	assert_true(
		fabs(json_number_value(
			     json_array_get(json_object_get(m, "perf-stat.total.context-switches"),
					    0)) -
		     885) < 1e-9);
	assert_null(json_object_get(m, "perf-stat.total.cycles"));
	free(folded);
	free(stat);
	json_decref(run);
}

static void test_missing_and_bound(void **state UNUSED)
{
	json_t *run = json_pack("{s:{s:[f]}}", "metrics", "x.y", 1.0);
	char *folded, *stat, *big;
	size_t flen, slen;
	struct err e;

	/* a boot without the blocks: nothing but the monitors */
	profile_from_serial("==== regtrack-init release=6.1 ====\n", &folded, &flen, &stat, &slen);
	assert_null(folded);
	assert_null(stat);
	assert_int_equal(profile_fill_run(run, MONITOR_PERF_PROFILE, NULL, 0, NULL, 0, &e), 0);
	assert_null(json_object_get(run, "profile"));
	assert_int_equal(json_object_size(json_object_get(run, "metrics")), 1);
	/* past the bound: refused, naming the field */
	big = xmalloc(PERF_FOLD_MAX_BYTES + 2);
	memset(big, 'a', PERF_FOLD_MAX_BYTES + 1);
	big[PERF_FOLD_MAX_BYTES + 1] = '\0';
	assert_int_equal(profile_fill_run(run, MONITOR_PERF_PROFILE, big, PERF_FOLD_MAX_BYTES + 1,
					  NULL, 0, &e),
			 -1);
	assert_string_equal(e.detail, "profile.folded");
	assert_int_equal(e.id, ERR_TOO_LARGE);
	free(big);
	json_decref(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_monitors),
		cmocka_unit_test(test_fill_from_serial),
		cmocka_unit_test(test_missing_and_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
