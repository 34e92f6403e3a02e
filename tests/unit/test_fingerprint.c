/* Unit tests of worker/fingerprint.c: stored roots give exact fields; this machine's fields are
 * present. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "worker/execute_int.h"
#include "worker/fingerprint.h"
#include "attr.h"

/* tests run from the top of the tree (make check-unit) */
#define FIXTURES "tests/fixtures/worker"

static void test_cpulist(void **state UNUSED)
{
	assert_int_equal(fingerprint_count_cpulist("0"), 1);
	assert_int_equal(fingerprint_count_cpulist("0-1\n"), 2);
	assert_int_equal(fingerprint_count_cpulist("0-3,8,10-11"), 7);
	assert_int_equal(fingerprint_count_cpulist("0-223"), 224);
	assert_int_equal(fingerprint_count_cpulist(""), -1);
	assert_int_equal(fingerprint_count_cpulist("3-1"), -1);
	assert_int_equal(fingerprint_count_cpulist("0-"), -1);
	assert_int_equal(fingerprint_count_cpulist("a"), -1);
	assert_int_equal(fingerprint_count_cpulist("0;1"), -1);
}

static void test_root_x86_64(void **state UNUSED)
{
	struct fingerprint fp;
	struct err e;
	json_t *j, *v;

	assert_int_equal(fingerprint_collect(&fp, FIXTURES "/root-x86_64", &e), 0);
	assert_string_equal(fp.hostname, "lkp-test-x86");
	assert_string_equal(fp.kernel_release, "6.18.44-fc-v669");
	assert_string_equal(fp.kernel_version, "#1 SMP PREEMPT_DYNAMIC @0");
	assert_string_equal(
		fp.cmdline,
		"BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=/dev/vda1 ro console=ttyS0 mitigations=auto");
	assert_string_equal(fp.cpu_model, "Intel(R) Xeon(R) Processor");
	assert_string_equal(fp.microcode, "0x1");
	assert_int_equal(fp.nr_cpus, 2);		 /* sys/devices/system/cpu/online "0-1" */
	assert_int_equal(fp.memory_mb, 24684084 / 1024); /* MemTotal 24684084 kB */
	assert_null(fp.cpufreq_governor);
	assert_null(fp.cpufreq_driver);
	assert_string_equal(fp.smt_control, "notsupported");
	assert_string_equal(fp.smt_active, "0");
	assert_null(fp.numa_nodes); /* no sys/devices/system/node */
	assert_int_equal(json_object_size(fp.vulnerabilities), 19);
	assert_string_equal(json_string_value(json_object_get(fp.vulnerabilities, "meltdown")),
			    "Not affected");
	assert_string_equal(
		json_string_value(json_object_get(fp.vulnerabilities, "spectre_v2")),
		"Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Retpoline");

	j = fingerprint_json(&fp);
	assert_true(json_is_null(json_object_get(j, "cpufreq_governor")));
	assert_int_equal(json_integer_value(json_object_get(j, "nr_cpus")), 2);
	assert_int_equal(json_integer_value(json_object_get(j, "memory_mb")), 24105);
	v = json_object_get(j, "vulnerabilities");
	assert_true(json_equal(v, fp.vulnerabilities));
	assert_string_equal(json_string_value(json_object_get(j, "microcode")), "0x1");
	json_decref(j);
	fingerprint_release(&fp);
}

static void test_root_arm64(void **state UNUSED)
{
	struct fingerprint fp;
	struct err e;
	json_t *j;

	assert_int_equal(fingerprint_collect(&fp, FIXTURES "/root-arm64", &e), 0);
	assert_string_equal(fp.hostname, "lkp-altra-4c");
	assert_string_equal(fp.kernel_release, "6.1.0-18-arm64");
	assert_string_equal(fp.cpu_model, "ARM Neoverse-N1"); /* 0x41 / 0xd0c */
	assert_null(fp.microcode);
	assert_int_equal(fp.nr_cpus, 4);       /* no cpu/online: 4 "processor" lines */
	assert_int_equal(fp.memory_mb, 31838); /* 32602168 kB / 1024 */
	assert_string_equal(fp.cpufreq_governor, "performance");
	assert_string_equal(fp.cpufreq_driver, "cppc_cpufreq");
	assert_null(fp.smt_control);
	assert_null(fp.smt_active);
	/* nodes 0 and 2 with CPUs, node 1 memory only: left out */
	assert_string_equal(fp.numa_nodes, "0:0-1 2:2-3");
	assert_int_equal(json_object_size(fp.vulnerabilities), 4);
	assert_string_equal(json_string_value(json_object_get(fp.vulnerabilities, "spectre_v2")),
			    "Mitigation: CSV2, BHB");
	j = fingerprint_json(&fp);
	assert_true(json_is_null(json_object_get(j, "smt_control")));
	assert_string_equal(json_string_value(json_object_get(j, "numa_nodes")), "0:0-1 2:2-3");
	assert_string_equal(json_string_value(json_object_get(j, "cpufreq_governor")),
			    "performance");
	json_decref(j);
	fingerprint_release(&fp);
}

static void test_missing_root(void **state UNUSED)
{
	struct fingerprint fp;
	struct err e;

	assert_int_equal(fingerprint_collect(&fp, FIXTURES "/no-such-root", &e), -1);
	assert_int_equal(e.id, ERR_IO);
	assert_null(fp.kernel_release);
	assert_int_equal(fp.nr_cpus, 0);
	assert_int_equal(json_object_size(fp.vulnerabilities), 0);
	fingerprint_release(&fp);
}

/* The running machine: every field it has is present and agrees with libc. */
static void test_this_machine(void **state UNUSED)
{
	struct fingerprint fp;
	struct err e;
	struct utsname u;
	struct sysinfo si;
	char host[256];
	DIR *d;

	assert_int_equal(fingerprint_collect(&fp, "/", &e), 0);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(fp.kernel_release, u.release);
	assert_string_equal(fp.kernel_version, u.version);
	assert_string_equal(fp.arch, u.machine);
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	assert_string_equal(fp.hostname, host);
	assert_int_equal(fp.nr_cpus, sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(sysinfo(&si), 0);
	assert_int_equal(fp.memory_mb,
			 (long)((unsigned long long)si.totalram * si.mem_unit / 1024 / 1024));
	assert_non_null(fp.cmdline);
	assert_non_null(fp.cpu_model);
	assert_true(strlen(fp.cpu_model) > 0);
	if (access("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", R_OK) == 0)
		assert_non_null(fp.cpufreq_governor);
	else
		assert_null(fp.cpufreq_governor);
	if (access("/sys/devices/system/cpu/smt/control", R_OK) == 0)
		assert_non_null(fp.smt_control);
	d = opendir("/sys/devices/system/cpu/vulnerabilities");
	if (d) {
		struct dirent *de;
		size_t n = 0;

		while ((de = readdir(d)))
			if (de->d_name[0] != '.') {
				n++;
				assert_non_null(json_object_get(fp.vulnerabilities, de->d_name));
			}
		closedir(d);
		assert_int_equal(json_object_size(fp.vulnerabilities), n);
	}
	fingerprint_release(&fp);
}

/*
 * Each run's host fingerprint names the accelerator that run used: a job that names no accel
 * runs under KVM or TCG as the probe finds, and a series that turns from one to the other is
 * an environment change, not a regression to bisect.
 */
static void test_stamp_runs_carry_their_accel(void **state UNUSED)
{
	static const char *const accel[] = { "kvm", "tcg", "host", "kexec" };
	struct fingerprint fp;
	struct err e;
	json_t *runs = json_array(), *run, *hfp;
	size_t i;

	assert_int_equal(fingerprint_collect(&fp, FIXTURES "/root-x86_64", &e), 0);
	for (i = 0; i < 4; i++)
		json_array_append_new(runs,
				      exec_run_object(json_object(), "2026-01-01T00:00:00Z", 1.0,
						      "wallclock", accel[i], "6.1.0", -1, 1, NULL));
	/* a run without an accel (not one the executors make): null, not a guess */
	json_array_append_new(runs, json_object());
	fingerprint_stamp_runs(&fp, runs);
	json_array_foreach (runs, i, run) {
		hfp = json_object_get(run, "host_fingerprint");
		assert_true(json_is_object(hfp));
		assert_int_equal(json_object_size(hfp), 7);
		if (i < 4)
			assert_string_equal(json_string_value(json_object_get(hfp, "accel")),
					    accel[i]);
		else
			assert_true(json_is_null(json_object_get(hfp, "accel")));
		assert_string_equal(json_string_value(json_object_get(hfp, "cpu_model")),
				    "Intel(R) Xeon(R) Processor");
		assert_string_equal(json_string_value(json_object_get(hfp, "microcode")), "0x1");
		assert_string_equal(json_string_value(json_object_get(hfp, "kernel_release")),
				    "6.18.44-fc-v669");
		assert_true(json_is_null(json_object_get(hfp, "cpufreq_governor")));
		assert_true(json_is_null(json_object_get(hfp, "numa_nodes")));
		assert_non_null(json_string_value(json_object_get(hfp, "cmdline")));
	}
	/* each run its own object: one run's accel is not another's */
	assert_ptr_not_equal(json_object_get(json_array_get(runs, 0), "host_fingerprint"),
			     json_object_get(json_array_get(runs, 1), "host_fingerprint"));
	json_decref(runs);
	fingerprint_release(&fp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_root_x86_64),
		cmocka_unit_test(test_root_arm64),
		cmocka_unit_test(test_missing_root),
		cmocka_unit_test(test_this_machine),
		cmocka_unit_test(test_stamp_runs_carry_their_accel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
