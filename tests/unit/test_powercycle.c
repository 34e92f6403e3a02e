/* server/jobs/powercycle.c: the power-cycle program's argv, its exit and its time limit. */
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

#include "attr.h"
#include "buf.h"
#include "clock.h"
#include "xalloc.h"
#include "server/jobs/powercycle.h"

static void test_argv(void **state UNUSED)
{
	const char *argv[5];
	char ids[2][24];

	powercycle_argv(argv, "/usr/local/bin/pdu-cycle", "bm-07", 12, 3456, ids);
	assert_string_equal(argv[0], "/usr/local/bin/pdu-cycle");
	assert_string_equal(argv[1], "bm-07");
	assert_string_equal(argv[2], "12");
	assert_string_equal(argv[3], "3456");
	assert_null(argv[4]);
}

static char *script(const char *dir, const char *name, const char *body)
{
	char *p = xstrfmt("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(body, f);
	fclose(f);
	assert_int_equal(chmod(p, 0755), 0);
	return p;
}

static void test_run(void **state UNUSED)
{
	char tmpl[] = "/tmp/test_powercycle.XXXXXX", *ok, *bad, *slow, *out, *body;
	struct buf b = BUF_INIT(0);
	long long t0;

	assert_non_null(mkdtemp(tmpl));
	out = xstrfmt("%s/args", tmpl);
	body = xstrfmt("#!/bin/sh\nprintf '%%s|' \"$@\" > '%s'\n", out);
	ok = script(tmpl, "ok", body);
	bad = script(tmpl, "bad", "#!/bin/sh\necho 'bmc unreachable' >&2\nexit 2\n");
	slow = script(tmpl, "slow", "#!/bin/sh\nsleep 30\n");
	assert_int_equal(powercycle_run(ok, 10, "bm-07; reboot", 12, 3456), 0);
	assert_int_equal(buf_read_file(&b, out), 0);
	/* one word each, as given: no shell ever splits the host name */
	assert_string_equal(b.data, "bm-07; reboot|12|3456|");
	assert_int_equal(powercycle_run(bad, 10, "bm-07", 12, 3456), -1);
	t0 = mono_ns();
	assert_int_equal(powercycle_run(slow, 1, "bm-07", 12, 3456), -1);
	assert_true(mono_ns() - t0 < 10000000000LL);
	assert_int_equal(powercycle_run("/nonexistent/cycle", 1, "bm-07", 12, 3456), -1);
	buf_release(&b);
	unlink(ok);
	unlink(bad);
	unlink(slow);
	unlink(out);
	rmdir(tmpl);
	free(ok);
	free(bad);
	free(slow);
	free(out);
	free(body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
