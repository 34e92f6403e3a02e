/*
 * Unit tests of lib/failreason.c on logs as the worker sends them: a host
 * run's (its warnings first, then the case's refusal and usage), a worker
 * error line, a compiler error, none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "failreason.h"
#include "attr.h"

#define WARN                                                                                 \
	"regtrack-worker: warning: the running kernel was built with gcc-15, not the job's " \
	"gcc-12: host mode runs on the running kernel\n"

static void expect(const char *status, const char *log, const char *testcase, const char *want)
{
	char *got = failreason_pick(status, log, testcase);

	assert_string_equal(got, want);
	free(got);
}

/* the warning was taken for the reason */
static void test_case_error_not_warning(void **state UNUSED)
{
	expect("run-failed",
	       WARN "$ /usr/lib/regtrack/cases/x86_64/will-it-scale\n"
		    "will-it-scale: bad value for 'nr_task': 'lots' is neither a task count nor a "
		    "percentage\n"
		    "usage: will-it-scale [key=value ...]\n"
		    "  nr_task        default 1        number of tasks (N or P% of CPUs, 1..4096)\n"
		    "regtrack: case ended: exit status 2\n",
	       "will-it-scale",
	       "run-failed: will-it-scale: bad value for 'nr_task': 'lots' is neither a task "
	       "count nor a percentage");
}

static void test_worker_error_first(void **state UNUSED)
{
	expect("run-failed",
	       WARN
	       "will-it-scale: starting\n"
	       "regtrack-worker: unknown_testcase: no case 'x' in /usr/lib/regtrack/cases\n" WARN,
	       "will-it-scale",
	       "run-failed: regtrack-worker: unknown_testcase: no case 'x' in "
	       "/usr/lib/regtrack/cases");
	/* another case's name, or a name that only starts the same, is any line */
	expect("run-failed", "will-it-scale-2: x\nwill-it-scales: y\nlast\n", "will-it-scale",
	       "run-failed: last");
}

static void test_other_lines(void **state UNUSED)
{
	expect("build-failed", "CC mm/mmap.o\nmm/mmap.c:1: error: x\n" WARN, "small-allocs",
	       "build-failed: mm/mmap.c:1: error: x");
	/* only a warning: it, the last resort */
	expect("run-failed", WARN "  \n", "",
	       "run-failed: regtrack-worker: warning: the running kernel was built with gcc-15, "
	       "not the job's gcc-12: host mode runs on the running kernel");
	expect("boot-failed", NULL, "small-allocs", "boot-failed: no log");
	expect("boot-failed", "\n  \n", "small-allocs", "boot-failed: no log");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case_error_not_warning),
		cmocka_unit_test(test_worker_error_first),
		cmocka_unit_test(test_other_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
