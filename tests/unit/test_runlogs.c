/* Unit tests of worker/runlogs.c: the newest N run logs stay, by job id then run number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker/runlogs.h"
#include "attr.h"

static char dir[64];

static void touch(const char *name)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
}

static int exists(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static int setup(void **state UNUSED)
{
	snprintf(dir, sizeof(dir), "/tmp/regtrack-test-runlogs-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static const char *const all[] = { "serial-9-1.log",  "serial-9-2.log",	  "serial-10-1.log",
				   "serial-10-2.log", "serial-100-1.log", "serial-1-x.log",
				   "run-200-1.log",   "initramfs.cpio",	  "serial-7-1.log.gz" };

static int teardown(void **state UNUSED)
{
	char path[128];

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, all[i]);
		unlink(path);
	}
	return rmdir(dir);
}

/* numeric order, not the names' (serial-100 is newer than serial-9), and only
 * PREFIX-JOB-RUN.log names count */
static void test_keeps_newest_by_job_then_run(void **state UNUSED)
{
	struct err e;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		touch(all[i]);
	assert_int_equal(runlogs_prune(dir, "serial", 3, &e), 2);
	assert_false(exists("serial-9-1.log"));
	assert_false(exists("serial-9-2.log"));
	assert_true(exists("serial-10-1.log"));
	assert_true(exists("serial-10-2.log"));
	assert_true(exists("serial-100-1.log"));
	/* lookalikes and the other mode's logs are left alone */
	assert_true(exists("serial-1-x.log"));
	assert_true(exists("serial-7-1.log.gz"));
	assert_true(exists("run-200-1.log"));
	assert_true(exists("initramfs.cpio"));
	/* nothing more to delete; 0 keeps every log */
	assert_int_equal(runlogs_prune(dir, "serial", 3, &e), 0);
	assert_int_equal(runlogs_prune(dir, "serial", 0, &e), 0);
	assert_int_equal(runlogs_prune(dir, "serial", 1, &e), 2);
	assert_true(exists("serial-100-1.log"));
	assert_false(exists("serial-10-2.log"));
}

static void test_missing_dir_is_an_error(void **state UNUSED)
{
	struct err e;

	assert_int_equal(runlogs_prune("/nonexistent/regtrack-runlogs", "serial", 3, &e), -1);
	assert_int_equal(e.id, ERR_IO);
	assert_non_null(strstr(e.message, "cannot read '/nonexistent/regtrack-runlogs'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_keeps_newest_by_job_then_run, setup, teardown),
		cmocka_unit_test(test_missing_dir_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
