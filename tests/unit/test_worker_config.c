/* Unit tests of worker/config.c: defaults, file parsing, flag precedence, bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "worker/config.h"
#include "attr.h"

static char tmpdir[] = "/tmp/regtrack-test-config-XXXXXX";

static char *write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return strdup(path);
}

static int setup(void **state UNUSED)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *st UNUSED, int flag UNUSED,
		  struct FTW *ftw UNUSED)
{
	return remove(path);
}

static int teardown(void **state UNUSED)
{
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_defaults(void **state UNUSED)
{
	struct worker_config c;
	struct utsname u;
	char host[256];

	worker_config_init(&c);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(c.arch, u.machine);
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	assert_string_equal(c.tbox_group, host);
	assert_string_equal(c.work_dir, "/var/lib/regtrack-worker");
	assert_string_equal(c.capabilities, "host");
	assert_string_equal(c.server_url, "");
	assert_int_equal(c.make_jobs, 0);
	assert_int_equal(c.qemu_mem_mb, 512);
	assert_int_equal(c.qemu_cpus, 0);
	assert_int_equal(c.timeout_build_s, 7200);
	assert_int_equal(c.lease_wait_s, 30);
	assert_int_equal(c.heartbeat_s, 15);
	assert_int_equal(c.heartbeat_run_s, 50);
	assert_int_equal(c.keep_logs, 20);
	assert_int_equal(c.once, 0);
	worker_config_release(&c);
}

static const char conf_text[] = "# regtrack worker\n"
				"\n"
				"server_url = http://ci.example.org:8080/  \n"
				"   token=abc123\n"
				"work_dir = \"/srv/regtrack work\"\n"
				"arch = aarch64\n"
				"tbox_group = lkp-arm64-24c\n"
				"capabilities = qemu-aarch64, host ,host\n"
				"make_jobs = 24\n"
				"qemu_mem_mb = 2048\n"
				"timeout_boot_s = 600\n"
				"make_jobs = 16\n";

static void test_file(void **state UNUSED)
{
	struct worker_config c;
	struct err e;
	char *path = write_file("full.conf", conf_text);

	worker_config_init(&c);
	assert_int_equal(worker_config_load_file(&c, path, &e), 0);
	assert_string_equal(c.server_url, "http://ci.example.org:8080");
	assert_string_equal(c.token, "abc123");
	assert_string_equal(c.work_dir, "/srv/regtrack work");
	assert_string_equal(c.arch, "aarch64");
	assert_string_equal(c.tbox_group, "lkp-arm64-24c");
	/* canonical order, duplicates dropped */
	assert_string_equal(c.capabilities, "host,qemu-aarch64");
	assert_true(worker_config_has_cap(&c, "host"));
	assert_true(worker_config_has_cap(&c, "qemu-aarch64"));
	assert_false(worker_config_has_cap(&c, "qemu-x86_64"));
	assert_false(worker_config_has_cap(&c, "qemu"));
	assert_int_equal(c.make_jobs, 16); /* the last of two wins */
	assert_int_equal(c.qemu_mem_mb, 2048);
	assert_int_equal(c.timeout_boot_s, 600);
	assert_int_equal(c.qemu_cpus, 0); /* untouched default */
	assert_int_equal(worker_config_check(&c, &e), 0);
	worker_config_release(&c);
	free(path);
}

static void test_flags_override_file(void **state UNUSED)
{
	struct worker_config c;
	struct err e;
	char *path = write_file("flags.conf", conf_text);
	char *argv[] = { "run",
			 "--server=https://other.example.org",
			 "--once",
			 "--make-jobs",
			 "3",
			 "--config",
			 path,
			 "--arch",
			 "x86_64",
			 "--capabilities",
			 "host,qemu-x86_64",
			 "--work-dir",
			 "/tmp/w" };

	worker_config_init(&c);
	assert_int_equal(worker_config_from_args(&c, (int)(sizeof(argv) / sizeof(argv[0])), argv,
						 "envtoken", &e),
			 0);
	assert_string_equal(c.config_file, path);
	assert_string_equal(c.server_url, "https://other.example.org");
	assert_int_equal(c.once, 1);
	assert_int_equal(c.make_jobs, 3); /* flag beats file's 16 */
	assert_string_equal(c.arch, "x86_64");
	assert_string_equal(c.capabilities, "host,qemu-x86_64");
	assert_string_equal(c.work_dir, "/tmp/w");
	assert_string_equal(c.tbox_group, "lkp-arm64-24c"); /* from the file */
	assert_int_equal(c.qemu_mem_mb, 2048);		    /* from the file */
	assert_string_equal(c.token, "envtoken");	    /* env beats file */
	worker_config_release(&c);
	free(path);
}

static void test_token_flag_beats_env(void **state UNUSED)
{
	struct worker_config c;
	struct err e;
	char *argv[] = { "run", "--token", "flagtoken" };

	worker_config_init(&c);
	assert_int_equal(worker_config_from_args(&c, 3, argv, "envtoken", &e), 0);
	assert_string_equal(c.token, "flagtoken");
	worker_config_release(&c);
}

/*
 * token_file: read at start (its first line, blanks trimmed), wins over env
 * and --token; a file others may read, an empty one or a missing one is an
 * error naming it; the defaults of the sandbox keys.
 */
static void test_token_file(void **state UNUSED)
{
	struct worker_config c;
	struct err e;
	char *path = write_file("tok", "  s3cret-token \nsecond line\n");
	char *argv[] = { "run", "--token", "flagtoken", "--token-file", path };

	worker_config_init(&c);
	assert_string_equal(c.sandbox, "on");
	assert_string_equal(c.build_user, "nobody");
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(worker_config_from_args(&c, 5, argv, "envtoken", &e), 0);
	assert_int_equal(worker_config_read_token(&c, &e), -1);
	assert_string_equal(e.code, "config_invalid");
	assert_string_equal(e.detail, "token_file");
	assert_non_null(strstr(e.message, "0640"));
	assert_string_equal(c.token, "flagtoken");

	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(worker_config_read_token(&c, &e), 0);
	assert_string_equal(c.token, "s3cret-token");
	worker_config_release(&c);
	free(path);

	path = write_file("empty", " \n");
	assert_int_equal(chmod(path, 0600), 0);
	worker_config_init(&c);
	assert_int_equal(worker_config_set(&c, "token_file", path, &e), 0);
	assert_int_equal(worker_config_read_token(&c, &e), -1);
	assert_string_equal(e.detail, "token_file");
	assert_int_equal(worker_config_set(&c, "token_file", "/nonexistent/tok", &e), 0);
	assert_int_equal(worker_config_read_token(&c, &e), -1);
	assert_string_equal(e.code, "io_error");
	assert_string_equal(e.detail, "/nonexistent/tok");
	worker_config_release(&c);
	free(path);
}

static void test_bounds(void **state UNUSED)
{
	struct worker_config c;
	struct err e;

	worker_config_init(&c);
	assert_int_equal(worker_config_set(&c, "lease_wait_s", "61", &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_string_equal(e.detail, "lease_wait_s");
	assert_string_equal(e.message, "'61' is out of range [0, 60]");
	assert_int_equal(c.lease_wait_s, 30);
	assert_int_equal(worker_config_set(&c, "lease_wait_s", "60", &e), 0);
	assert_int_equal(c.lease_wait_s, 60);
	assert_int_equal(worker_config_set(&c, "lease_wait_s", "0", &e), 0);
	assert_int_equal(c.lease_wait_s, 0);
	assert_int_equal(worker_config_set(&c, "qemu_mem_mb", "63", &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_int_equal(worker_config_set(&c, "make_jobs", "-1", &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_int_equal(worker_config_set(&c, "make_jobs", "4x", &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_string_equal(e.code, "config_invalid");
	assert_string_equal(e.message, "'4x' is not an integer");
	assert_int_equal(worker_config_set(&c, "make_jobs", "", &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_int_equal(worker_config_set(&c, "make_jobs", "99999999999999999999", &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_int_equal(c.make_jobs, 0);
	assert_int_equal(worker_config_set(&c, "capabilities", "host,qemu-riscv64", &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_string_equal(c.capabilities, "host");
	assert_int_equal(worker_config_set(&c, "capabilities", " , ", &e), -1);
	assert_int_equal(worker_config_set(&c, "server_url", "ftp://x", &e), -1);
	assert_int_equal(worker_config_set(&c, "server_url", "http://", &e), -1);
	assert_int_equal(worker_config_set(&c, "no_such_key", "1", &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_string_equal(e.message, "unknown key 'no_such_key'");
	/* flag-only keys are not file keys */
	assert_int_equal(worker_config_set(&c, "once", "1", &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	worker_config_release(&c);
}

static void test_file_errors(void **state UNUSED)
{
	struct worker_config c;
	struct err e;
	char *bad_range = write_file("range.conf", "token = t\n# ok\nqemu_cpus = 513\n");
	char *no_eq = write_file("noeq.conf", "token = t\nserver_url\n");
	char *unknown = write_file("unknown.conf", "\n\nmake_job = 2\n");
	char expect[600];

	worker_config_init(&c);
	assert_int_equal(worker_config_load_file(&c, bad_range, &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	snprintf(expect, sizeof(expect), "%s:3: qemu_cpus", bad_range);
	assert_string_equal(e.detail, expect);
	snprintf(expect, sizeof(expect), "%s:3: '513' is out of range [0, 512]", bad_range);
	assert_string_equal(e.message, expect);

	assert_int_equal(worker_config_load_file(&c, no_eq, &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_int_equal(e.status, 400);
	snprintf(expect, sizeof(expect), "%s:2", no_eq);
	assert_string_equal(e.detail, expect);

	assert_int_equal(worker_config_load_file(&c, unknown, &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	snprintf(expect, sizeof(expect), "%s:3: make_job", unknown);
	assert_string_equal(e.detail, expect);

	assert_int_equal(worker_config_load_file(&c, "/nonexistent/regtrack.conf", &e), -1);
	assert_int_equal(e.id, ERR_IO);
	worker_config_release(&c);
	free(bad_range);
	free(no_eq);
	free(unknown);
}

static void test_usage_errors(void **state UNUSED)
{
	struct worker_config c;
	struct err e;
	char *a1[] = { "run", "--bogus", "1" };
	char *a2[] = { "run", "--server" };
	char *a3[] = { "run", "--once=1" };
	char *a4[] = { "run", "stray" };
	char *a5[] = { "run",	   "--heartbeat-run", "5", "--heartbeat", "10", "--server",
		       "http://h", "--token",	      "t" };
	char *a6[] = { "run", "--make-jobs", "5000" };

	worker_config_init(&c);
	assert_int_equal(worker_config_from_args(&c, 3, a1, NULL, &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_string_equal(e.message, "unknown option '--bogus'");
	assert_int_equal(worker_config_from_args(&c, 2, a2, NULL, &e), -1);
	assert_string_equal(e.message, "option '--server' needs a value");
	assert_int_equal(worker_config_from_args(&c, 2, a3, NULL, &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_int_equal(worker_config_from_args(&c, 2, a4, NULL, &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_string_equal(e.message, "unknown option 'stray'");
	assert_int_equal(worker_config_from_args(&c, 3, a6, NULL, &e), -1);
	assert_int_equal(e.id, ERR_CONFIG);
	assert_string_equal(e.detail, "make_jobs");
	assert_string_equal(e.message, "option '--make-jobs': '5000' is out of range [0, 1024]");
	/* check: missing server and token, then the heartbeat cross-check */
	assert_int_equal(worker_config_check(&c, &e), -1);
	assert_string_equal(e.detail, "server_url");
	assert_int_equal(worker_config_from_args(&c, 9, a5, NULL, &e), 0);
	assert_int_equal(worker_config_check(&c, &e), -1);
	assert_string_equal(e.detail, "heartbeat_run_s");
	/* a kexec capability needs the device the kexec'd kernel leaves its result on */
	assert_int_equal(worker_config_set(&c, "heartbeat_run_s", "60", &e), 0);
	assert_int_equal(worker_config_set(&c, "heartbeat_s", "15", &e), 0);
	assert_int_equal(worker_config_check(&c, &e), 0);
	assert_int_equal(worker_config_set(&c, "capabilities", "kexec-x86_64,host", &e), 0);
	assert_string_equal(c.capabilities, "host,kexec-x86_64");
	assert_int_equal(worker_config_check(&c, &e), -1);
	assert_string_equal(e.detail, "kexec_result_dev");
	assert_int_equal(worker_config_set(&c, "kexec_result_dev", "/dev/vdb", &e), 0);
	assert_int_equal(worker_config_check(&c, &e), 0);
	{
		struct kexec_conf k;

		worker_config_kexec(&c, &k);
		assert_string_equal(k.bin, "kexec");
		assert_string_equal(k.result_dev, "/dev/vdb");
		assert_string_equal(k.append, "console=ttyS0,115200");
		assert_int_equal(k.panic_s, 10);
	}
	worker_config_release(&c);
}

/* the annotated example in deploy/etc/ parses and says what it claims */
static void test_shipped_example(void **state UNUSED)
{
	struct worker_config c;
	struct err e;

	worker_config_init(&c);
	assert_int_equal(worker_config_load_file(&c, "deploy/etc/regtrack-worker.conf", &e), 0);
	assert_string_equal(c.server_url, "http://regtrack.example.org:8080");
	assert_string_equal(c.token, "");
	assert_string_equal(c.tbox_group, "kvm-2c-24g");
	assert_string_equal(c.capabilities, "host,qemu-x86_64,qemu-aarch64");
	assert_string_equal(c.work_dir, "/var/lib/regtrack-worker");
	assert_int_equal(c.timeout_boot_s, 300);
	assert_int_equal(c.heartbeat_run_s, 50);
	assert_int_equal(c.retry_max_s, 300);
	worker_config_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_flags_override_file),
		cmocka_unit_test(test_token_flag_beats_env),
		cmocka_unit_test(test_token_file),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_shipped_example),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
