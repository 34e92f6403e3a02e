/*
 * job_execute() in host mode with stand-in case programs (shell scripts in
 * a temporary cases dir): params -> argv, metrics naming, statuses, spec
 * validation. The real kernel path is tests/kernel/run.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "runcmd.h"
#include "xalloc.h"
#include "worker/execute.h"
#include "worker/hostrun.h"

struct fixture {
	char *dir, *cases, *work;
	struct worker_env env;
	struct job_spec spec;
	int phases;
};

static void write_script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(body, f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	char tmpl[] = "/tmp/test_execute.XXXXXX";
	char *p;

	assert_non_null(mkdtemp(tmpl));
	fx->dir = xstrdup(tmpl);
	fx->cases = xstrfmt("%s/cases", fx->dir);
	fx->work = xstrfmt("%s/work", fx->dir);
	assert_int_equal(mkdir(fx->cases, 0755), 0);
	p = xstrfmt("%s/x86_64", fx->cases);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);

	/* prints two samples of one metric and a non-numeric line; records argv */
	p = xstrfmt("%s/x86_64/fake", fx->cases);
	write_script(p, "#!/bin/sh\n"
			"printf '%s\\n' \"$@\" > args.txt\n"
			"echo 'value: 42.5'\n"
			"echo 'name: not-a-number'\n"
			"echo 'value: 43'\n"
			"echo 'ops_per_sec: 1e6'\n");
	free(p);
	p = xstrfmt("%s/x86_64/failing", fx->cases);
	write_script(p, "#!/bin/sh\necho 'value: 1'\necho 'cannot map' >&2\nexit 3\n");
	free(p);
	p = xstrfmt("%s/x86_64/sleepy", fx->cases);
	write_script(p, "#!/bin/sh\nsleep 30\necho 'value: 1'\n");
	free(p);
	p = xstrfmt("%s/x86_64/silent", fx->cases);
	write_script(p, "#!/bin/sh\necho 'nothing to see'\n");
	free(p);

	fx->env.work_dir = fx->work;
	fx->env.arch = "x86_64";
	fx->env.cases_dir = fx->cases;
	fx->env.timeout_run_s = 30;
	fx->spec.id = 7;
	fx->spec.kconfig = "host";
	fx->spec.testcase = "fake";
	fx->spec.repeat = 1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	const char *argv[] = { "rm", "-rf", fx->dir, NULL };
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, argv, 30);
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	runcmd_release(&cmd);
	json_decref(fx->spec.params);
	free(fx->cases);
	free(fx->work);
	free(fx->dir);
	free(fx);
	return 0;
}

static void count_phase(void *ctx, const char *phase, double progress, const char *message)
{
	struct fixture *fx = ctx;

	assert_string_equal(phase, "run");
	assert_true(progress >= 0 && progress < 1);
	assert_non_null(strstr(message, "fake"));
	fx->phases++;
}

static void test_host_ok(void **state)
{
	struct fixture *fx = *state;
	struct job_outcome out;
	struct utsname u;
	struct err e;
	json_t *run, *vals;
	struct buf argsb = BUF_INIT(0);
	char *args, *path;
	size_t i;

	fx->spec.repeat = 3;
	fx->spec.params = json_pack("{s:s, s:i, s:f, s:f, s:b, s:s}", "zeta", "last", "nr_task", 2,
				    "ratio", 0.5, "runtime", 0.2, "flag", 1, "measure",
				    "wallclock");
	assert_int_equal(job_execute(&fx->spec, &fx->env, count_phase, fx, &out, &e), 0);
	assert_string_equal(out.status, "ok");
	assert_int_equal(fx->phases, 3);
	assert_int_equal(json_array_size(out.runs), 3);
	assert_null(out.kconfig_text);
	uname(&u);
	json_array_foreach (out.runs, i, run) {
		vals = json_object_get(json_object_get(run, "metrics"), "fake.value");
		assert_int_equal(json_array_size(vals), 2);
		assert_true(json_real_value(json_array_get(vals, 0)) == 42.5);
		assert_true(json_real_value(json_array_get(vals, 1)) == 43.0);
		vals = json_object_get(json_object_get(run, "metrics"), "fake.ops_per_sec");
		assert_true(json_real_value(json_array_get(vals, 0)) == 1e6);
		assert_null(json_object_get(json_object_get(run, "metrics"), "fake.name"));
		assert_int_equal(json_object_size(json_object_get(run, "metrics")), 2);
		assert_string_equal(json_string_value(json_object_get(run, "mode")), "wallclock");
		assert_string_equal(json_string_value(json_object_get(run, "accel")), "host");
		/* on the host itself: no qemu guest to describe */
		assert_null(json_object_get(run, "guest"));
		assert_string_equal(json_string_value(json_object_get(run, "kernel_release")),
				    u.release);
		assert_int_equal(strlen(json_string_value(json_object_get(run, "started_at"))), 20);
		assert_true(json_real_value(json_object_get(run, "duration_s")) > 0);
	}
	assert_non_null(strstr(out.log_tail, "value: 43\n"));
	job_outcome_release(&out);

	/* argv: key order, numbers and booleans spelled out, no "measure" */
	path = xstrfmt("%s/run/host/args.txt", fx->work);
	assert_int_equal(buf_read_file(&argsb, path), 0);
	args = buf_detach(&argsb, NULL);
	/* 0.2 as typed, not 0.20000000000000001 */
	assert_string_equal(args, "flag=1\nnr_task=2\nratio=0.5\nruntime=0.2\nzeta=last\n");
	free(args);
	free(path);
}

static void test_host_case_fails(void **state)
{
	struct fixture *fx = *state;
	struct job_outcome out;
	struct err e;

	fx->spec.testcase = "failing";
	fx->spec.repeat = 2;
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), 0);
	assert_string_equal(out.status, "run-failed");
	assert_int_equal(json_array_size(out.runs), 0); /* stops at the first failure */
	assert_non_null(strstr(out.log_tail, "cannot map"));
	assert_non_null(strstr(out.log_tail, "exit status 3"));
	job_outcome_release(&out);
}

static void test_host_no_metrics(void **state)
{
	struct fixture *fx = *state;
	struct job_outcome out;
	struct err e;

	fx->spec.testcase = "silent";
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), 0);
	assert_string_equal(out.status, "run-failed");
	assert_int_equal(json_array_size(out.runs), 0);
	job_outcome_release(&out);
}

static void test_host_icount_refused(void **state)
{
	struct fixture *fx = *state;
	struct job_outcome out;
	struct err e;

	fx->spec.params = json_pack("{s:s}", "measure", "icount");
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), 0);
	assert_string_equal(out.status, "run-failed");
	assert_non_null(strstr(out.log_tail, "icount"));
	job_outcome_release(&out);
	json_decref(fx->spec.params);

	/* a guest's shape on the host itself: refused the same way, never run as if absent */
	fx->spec.params = json_pack("{s:i, s:b}", "vcpus", 16, "pin", 1);
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), 0);
	assert_string_equal(out.status, "run-failed");
	assert_non_null(strstr(out.log_tail, "shape a qemu guest"));
	assert_int_equal(json_array_size(out.runs), 0);
	job_outcome_release(&out);
}

static void test_host_cancel(void **state)
{
	struct fixture *fx = *state;
	volatile sig_atomic_t cancel = 1;
	struct job_outcome out;
	struct err e;

	fx->spec.testcase = "sleepy";
	fx->env.cancel = &cancel;
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), -1);
	assert_string_equal(e.code, "cancelled");
	assert_int_equal(json_array_size(out.runs), 0);
	job_outcome_release(&out);
	fx->env.cancel = NULL;
}

static void expect_invalid(struct fixture *fx, const char *detail)
{
	struct job_outcome out;
	struct err e;

	err_clear(&e);
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), -1);
	assert_string_equal(e.code, "invalid_job");
	if (detail)
		assert_string_equal(e.detail, detail);
	assert_int_equal(json_array_size(out.runs), 0);
	job_outcome_release(&out);
}

static void test_invalid_specs(void **state)
{
	struct fixture *fx = *state;

	fx->spec.params = json_pack("{s:[i]}", "list", 1);
	expect_invalid(fx, "list");
	json_decref(fx->spec.params);
	fx->spec.params = json_pack("{s:s}", "measure", "cycles");
	expect_invalid(fx, "params.measure");
	json_decref(fx->spec.params);
	fx->spec.params = json_pack("{s:i}", "vcpus", 0);
	expect_invalid(fx, "params.vcpus");
	json_decref(fx->spec.params);
	fx->spec.params = json_pack("{s:s}", "numa", "all");
	expect_invalid(fx, "params.numa");
	json_decref(fx->spec.params);
	fx->spec.params = json_pack("{s:s, s:s}", "measure", "icount", "accel", "kvm");
	expect_invalid(fx, "params.accel");
	json_decref(fx->spec.params);
	fx->spec.params = json_pack("{s:s}", "path", "a b");
	expect_invalid(fx, "path");
	json_decref(fx->spec.params);
	fx->spec.params = json_pack("{s:i}", "bad key", 1);
	expect_invalid(fx, "bad key");
	json_decref(fx->spec.params);
	fx->spec.params = NULL;

	fx->spec.testcase = "../fake";
	expect_invalid(fx, "testcase");
	fx->spec.testcase = "init";
	expect_invalid(fx, "testcase");
	fx->spec.testcase = "missing";
	expect_invalid(fx, NULL);
	fx->spec.testcase = "fake";

	fx->spec.kconfig = "x86_64-nonesuch";
	expect_invalid(fx, "kconfig");
	fx->spec.kconfig = "arm64-tiny-mm"; /* not for an x86_64 worker */
	expect_invalid(fx, "kconfig");
	fx->spec.kconfig = "host";
	fx->spec.repeat = -1;
	expect_invalid(fx, "repeat");
}

/* the running kernel's compiler from /proc/version, as a job spells it */
static void test_kernel_compiler(void **state)
{
	static const char *const cases[][2] = {
		{ "Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian "
		  "12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC",
		  "gcc-12" },
		{ "Linux version 6.18.44 (builder@sandboxing) (gcc (GCC) 15.3.0, GNU ld (GNU "
		  "Binutils) 2.46) #1 SMP",
		  "gcc-15" },
		{ "Linux version 5.10.0-23-amd64 (debian-kernel@lists.debian.org) (gcc-10 (Debian "
		  "10.2.1-6) 10.2.1 20210110, GNU ld (GNU Binutils for Debian) 2.35.2) #1 SMP",
		  "gcc-10" },
		{ "Linux version 4.19.0 (u@h) (gcc version 8.3.0 (Debian 8.3.0-6)) #1 SMP",
		  "gcc-8" },
		{ "Linux version 6.6.0 (u@h) (Debian clang version 16.0.6 (15), Debian LLD 16.0.6) #1",
		  "clang-16" },
		{ "Linux version 6.6.0 (u@h) (something else) #1", "" },
		{ "not a banner", "" },
	};
	char cc[64];
	struct buf w = BUF_INIT(0);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hostrun_kernel_compiler(cases[i][0], cc, sizeof(cc));
		assert_string_equal(cc, cases[i][1]);
	}
	/* a distro kernel names no commit; its compiler is checked */
	assert_int_equal(hostrun_kernel_check("6.1.0-28-amd64", cases[0][0],
					      "1111111111111111111111111111111111111111", "gcc-12",
					      &w),
			 0);
	assert_int_equal(w.len, 0);
	assert_int_equal(hostrun_kernel_check("6.1.0-28-amd64", cases[1][0], "11111111", "gcc-12",
					      &w),
			 1);
	assert_string_equal(
		w.data,
		"regtrack-worker: warning: the running kernel was built with gcc-15, not the job's gcc-12: host mode runs on the running kernel\n");
	buf_reset(&w);
	/* CONFIG_LOCALVERSION_AUTO: the release names the commit */
	assert_int_equal(hostrun_kernel_check("6.1.0-rc3-00012-gabcdef123456", NULL,
					      "abcdef1234567890abcdef1234567890abcdef12", "gcc-12",
					      &w),
			 0);
	assert_int_equal(hostrun_kernel_check("6.1.0-rc3-00012-gabcdef123456-dirty", NULL,
					      "1111111111111111111111111111111111111111", NULL, &w),
			 1);
	assert_string_equal(
		w.data,
		"regtrack-worker: warning: the running kernel (6.1.0-rc3-00012-gabcdef123456-dirty) is commit abcdef123456, not the job's 111111111111: host mode runs on the running kernel\n");
	buf_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_host_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_case_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_no_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_icount_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_specs, setup, teardown),
		cmocka_unit_test(test_kernel_compiler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
