/*
 * Unit tests of lib/robotmail.c: every field read from real mails of the
 * 0-day kernel test robot in both its layouts (tests/fixtures/robotmail/,
 * README there gives their sources), a mail missing its commit, and the
 * A/B request made from them. Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "buf.h"
#include "robotmail.h"

#define FIXDIR "tests/fixtures/robotmail/"

static int parse_file(const char *name, struct robotmail *m, struct err *e)
{
	struct buf b = BUF_INIT(1 << 22);
	int rc;

	assert_int_equal(buf_read_file(&b, name), 0);
	rc = robotmail_parse(b.data, b.len, m, e);
	buf_release(&b);
	return rc;
}

static void assert_params(const struct robotmail *m, const char *want)
{
	char *got = json_dumps(m->params, JSON_COMPACT | JSON_PRESERVE_ORDER);

	assert_string_equal(got, want);
	free(got);
}

/* what must be read from one real mail; NULL: not checked (that mail lacks it) */
struct want {
	const char *file;
	enum robotmail_layout layout;
	const char *message_id, *subject, *commit, *commit_subject, *repo_url, *repo_branch;
	const char *base, *base_url, *base_branch, *patch_link, *compared_base, *testcase;
	const char *params, *kconfig, *compiler, *tbox_group, *machine, *metric, *change_pct;
	const char *change_kind;
};

static const struct want mails[] = {
	{
		.file = "kernel-test-robot-vm-scalability-regression.eml",
		.layout = ROBOTMAIL_NOTICED,
		.message_id = "<202406201010.a1344783-robot-sender@example.org>",
		.subject = "[linus:master] [mm]  d2136d749d:  "
			   "vm-scalability.throughput -7.1% regression",
		.commit = "d2136d749d76af980b3accd72704eea4eab625bd",
		.commit_subject = "mm: support multi-size THP numa balancing",
		.repo_url = "https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git",
		.repo_branch = "master",
		.base = "",
		.base_url = "",
		.base_branch = "",
		.patch_link = "",
		.compared_base = "6b0ed7b3c77547d2",
		.testcase = "vm-scalability",
		.params = "{\"runtime\":\"300s\",\"size\":\"512G\",\"test\":"
			  "\"anon-cow-rand-hugetlb\",\"cpufreq_governor\":\"performance\"}",
		/* no config:/compiler: lines in this one: the table's axis gives them */
		.kconfig = "x86_64-rhel-8.3",
		.compiler = "gcc-13",
		.tbox_group = "lkp-icl-2sp2",
		.machine = "128 threads 2 sockets Intel(R) Xeon(R) Gold 6338 CPU @ "
			   "2.00GHz (Ice Lake) with 256G memory",
		.metric = "vm-scalability.throughput",
		.change_pct = "-7.1",
		.change_kind = "regression",
	},
	{
		.file = "kernel-test-robot-stress-ng-improvement.eml",
		.layout = ROBOTMAIL_NOTICED,
		.message_id = "<202506042255.d1d90443-lkp@intel.com>",
		.subject = "[linus:master] [pipe]  ee5eda8ea5:  "
			   "stress-ng.pipeherd.ops_per_sec 26.0% improvement",
		.commit = "ee5eda8ea59546af2e8f192c060fbf29862d7cbd",
		.commit_subject = "pipe: change pipe_write() to never add a zero-sized buffer",
		.repo_url = "https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git",
		.repo_branch = "master",
		.base = "",
		.base_url = "",
		.patch_link = "",
		.compared_base = "f2ffc48de2017c69",
		.testcase = "stress-ng",
		.params = "{\"nr_threads\":\"100%\",\"testtime\":\"60s\",\"test\":\"pipeherd\","
			  "\"cpufreq_governor\":\"performance\"}",
		.kconfig = "x86_64-rhel-9.4",
		.compiler = "gcc-12",
		.tbox_group = "lkp-icl-2sp7",
		.machine = "64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU @ "
			   "3.10GHz (Ice Lake) with 256G memory",
		.metric = "stress-ng.pipeherd.ops_per_sec",
		.change_pct = "26.0",
		.change_kind = "improvement",
	},
	{
		.file = "kernel-test-robot-fyi-vm-scalability-small-allocs-mt.eml",
		.layout = ROBOTMAIL_FYI,
		.message_id = "<20201217023445.GD27932@robot-host.example.org>",
		.subject = "[locking/rwsem]  2f06f70292:  vm-scalability.throughput "
			   "385.1% improvement",
		.commit = "2f06f702925b512a95b95dca3855549c047eef58",
		.commit_subject = "locking/rwsem: Prevent potential lock starvation",
		.repo_url = "https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git",
		.repo_branch = "master",
		.base = "",
		.base_url = "",
		.patch_link = "",
		.compared_base = "c8fe8b0564388f41",
		.testcase = "vm-scalability",
		.params = "{\"runtime\":\"300s\",\"test\":\"small-allocs-mt\","
			  "\"cpufreq_governor\":\"performance\",\"ucode\":\"0x5003003\"}",
		.kconfig = "x86_64-rhel-8.3",
		.compiler = "gcc-9",
		.tbox_group = "lkp-csl-2ap4",
		.machine = "192 threads Intel(R) Xeon(R) Platinum 9242 CPU @ 2.30GHz with 192G "
			   "memory",
		.metric = "vm-scalability.throughput",
		.change_pct = "385.1",
		.change_kind = "improvement",
	},
	/* the robot's report on a posted patch, quoted three deep in a reply */
	{
		.file = "kernel-test-robot-quoted-patch-unixbench.eml",
		.layout = ROBOTMAIL_NOTICED,
		/* the reply's own: the report's is not in this mail's headers */
		.message_id = "<ccc99276-2f26-4cea-9f55-be7f75c8bf00@intel.com>",
		.commit = "ac34cb39e8aea9915ec2f4e08c979eb2ed1d7561",
		.commit_subject = "[PATCH v2] sched/fair: bump sd->max_newidle_lb_cost when "
				  "newidle balance fails",
		.repo_url = "https://github.com/intel-lab-lkp/linux/commits/Patch-Author/"
			    "sched-fair-bump-sd-max_newidle_lb_cost-when-newidle-balance-fails/"
			    "20250626-224805",
		.repo_branch = "",
		.base = "5bc34be478d09c4d16009e665e020ad0fcd0deea",
		.base_url = "https://git.kernel.org/cgit/linux/kernel/git/tip/tip.git",
		.base_branch = "",
		.patch_link = "https://lore.kernel.org/all/20250626144017.1510594-2-"
			      "author@example.org/",
		.compared_base = "5bc34be478d09c4d",
		.testcase = "unixbench",
		.params = "{\"runtime\":\"300s\",\"nr_task\":\"100%\",\"test\":\"shell1\","
			  "\"cpufreq_governor\":\"performance\"}",
		.kconfig = "x86_64-rhel-9.4",
		.compiler = "gcc-12",
		.tbox_group = "", /* the quote skips the table's axis */
		.machine = "64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU @ "
			   "3.10GHz (Ice Lake) with 256G memory",
		.metric = "unixbench.throughput",
		.change_pct = "22.9",
		.change_kind = "regression",
	},
};

static void check(const char *field, const char *got, const char *want)
{
	if (!want)
		return;
	if (strcmp(got, want))
		fail_msg("%s: got '%s', want '%s'", field, got, want);
}

#define CHECK(m, w, f) check(#f, (m)->f, (w)->f)

static void test_real_mails(void **state UNUSED)
{
	for (size_t i = 0; i < sizeof(mails) / sizeof(mails[0]); i++) {
		const struct want *w = &mails[i];
		char path[256];
		struct robotmail m;
		struct err e;

		print_message("%s\n", w->file);
		snprintf(path, sizeof(path), FIXDIR "%s", w->file);
		assert_int_equal(parse_file(path, &m, &e), 0);
		assert_int_equal(m.layout, w->layout);
		CHECK(&m, w, message_id);
		CHECK(&m, w, subject);
		CHECK(&m, w, commit);
		CHECK(&m, w, commit_subject);
		CHECK(&m, w, repo_url);
		CHECK(&m, w, repo_branch);
		CHECK(&m, w, base);
		CHECK(&m, w, base_url);
		CHECK(&m, w, base_branch);
		CHECK(&m, w, patch_link);
		CHECK(&m, w, compared_base);
		CHECK(&m, w, testcase);
		CHECK(&m, w, kconfig);
		CHECK(&m, w, compiler);
		CHECK(&m, w, tbox_group);
		CHECK(&m, w, machine);
		CHECK(&m, w, metric);
		CHECK(&m, w, change_pct);
		CHECK(&m, w, change_kind);
		assert_params(&m, w->params);
		robotmail_release(&m);
	}
}

/* the quoted report's base repository in the JSON form (url, no branch) */
static void test_quoted_patch_json(void **state UNUSED)
{
	struct robotmail m;
	struct err e;
	json_t *j;

	assert_int_equal(parse_file(FIXDIR "kernel-test-robot-quoted-patch-unixbench.eml", &m, &e),
			 0);
	j = robotmail_json(&m);
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(j, "base_repo"), "url")),
			    "https://git.kernel.org/cgit/linux/kernel/git/tip/tip.git");
	assert_true(json_is_null(json_object_get(json_object_get(j, "base_repo"), "branch")));
	json_decref(j);
	robotmail_release(&m);
}

/* a functional report of the FYI layout: the compiler from its headline, a branch as base */
static void test_fyi_functional_built_with(void **state UNUSED)
{
	static const char fyi[] =
		"FYI, we noticed the following commit (built with gcc-9):\n"
		"\n"
		"commit: 0123456789abcdef0123456789abcdef01234567 (\"mm: x\")\n"
		"url: https://github.com/0day-ci/linux/commits/A/mm-x/20210101-000000\n"
		"base: https://git.kernel.org/cgit/linux/kernel/git/akpm/mm.git mm-everything\n"
		"\n"
		"in testcase: boot\n"
		"\n"
		"on test machine: qemu-system-x86_64 -enable-kvm -cpu SandyBridge -smp 2 -m 16G\n";
	struct robotmail m;
	struct err e;

	assert_int_equal(robotmail_parse(fyi, strlen(fyi), &m, &e), 0);
	assert_int_equal(m.layout, ROBOTMAIL_FYI);
	assert_string_equal(m.compiler, "gcc-9");
	assert_string_equal(m.metric, "");
	assert_string_equal(m.base, "");
	assert_string_equal(m.base_branch, "mm-everything");
	assert_string_equal(m.testcase, "boot");
	assert_string_equal(m.machine,
			    "qemu-system-x86_64 -enable-kvm -cpu SandyBridge -smp 2 -m 16G");
	assert_int_equal(json_object_size(m.params), 0);
	robotmail_release(&m);
}

static void test_malformed(void **state UNUSED)
{
	struct robotmail m;
	struct err e;
	/* the robot's headline and nothing else it needs */
	static const char no_testcase[] =
		"kernel test robot noticed a -7.1% regression of vm-scalability.throughput on:\n"
		"\n"
		"commit: d2136d749d76af980b3accd72704eea4eab625bd (\"mm: x\")\n";
	static const char no_machine[] =
		"kernel test robot noticed a -7.1% regression of vm-scalability.throughput on:\n"
		"commit: d2136d749d76af980b3accd72704eea4eab625bd (\"mm: x\")\n"
		"testcase: vm-scalability\n";
	static const char not_robot[] = "Subject: Re: [PATCH] mm: x\n\nLooks good to me.\n";

	assert_int_equal(parse_file(FIXDIR "malformed-no-commit.eml", &m, &e), -1);
	assert_string_equal(e.detail, "from_mail.commit");
	assert_string_equal(e.message, "the robot's mail is incomplete: no 'commit: SHA' line");
	assert_int_equal(e.status, 400);
	assert_null(m.params);

	assert_int_equal(robotmail_parse(no_testcase, strlen(no_testcase), &m, &e), -1);
	assert_string_equal(e.detail, "from_mail.testcase");
	assert_int_equal(robotmail_parse(no_machine, strlen(no_machine), &m, &e), -1);
	assert_string_equal(e.detail, "from_mail.machine");
	assert_int_equal(robotmail_parse(not_robot, strlen(not_robot), &m, &e), -1);
	assert_string_equal(e.detail, "from_mail");
	assert_string_equal(e.message, "not a kernel test robot report: no 'kernel test robot "
				       "noticed' or 'FYI, we noticed' line");
	assert_int_equal(robotmail_parse("", 0, &m, &e), -1);
	assert_string_equal(e.detail, "from_mail");
}

/* a mail copied from an archive as quoted-printable, with a base: line */
static void test_quoted_printable_and_base(void **state UNUSED)
{
	static const char qp[] =
		"Message-ID: <x@example.org>\n"
		"Content-Type: text/plain; charset=utf-8\n"
		"Content-Transfer-Encoding: quoted-printable\n"
		"\n"
		"kernel test robot noticed a 12.0% improvement of unixbench.score on:\n"
		"\n"
		"commit: 0123456789abcdef0123456789abcdef01234567 (\"exec: faster\")\n"
		"base: 89abcdef0123456789abcdef0123456789abcdef\n"
		"testcase: unixbench\n"
		"test machine: 8 threads Intel(R) Core(TM) i7 with 16G=\n"
		" memory\n"
		"parameters:\n"
		"\n"
		"\tnr_task: 100%\n"
		"\ttest: execl\n"
		"\tcpufreq_governor: performance\n"
		"\n";
	struct robotmail m;
	struct err e;
	json_t *req = json_object();
	char *got;

	assert_int_equal(robotmail_parse(qp, strlen(qp), &m, &e), 0);
	assert_string_equal(m.machine, "8 threads Intel(R) Core(TM) i7 with 16G memory");
	assert_string_equal(m.base, "89abcdef0123456789abcdef0123456789abcdef");
	assert_string_equal(m.tbox_group, "");
	assert_int_equal(robotmail_request(&m, req, &e), 0);
	got = json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(got, "{\"base\":\"89abcdef0123456789abcdef0123456789abcdef\","
				 "\"head\":\"0123456789abcdef0123456789abcdef01234567\","
				 "\"label\":\"<x@example.org>\",\"testcases\":[{\"params\":"
				 "{\"nr_task\":\"100%\"},\"testcase\":\"execl\"}]}");
	free(got);
	json_decref(req);
	robotmail_release(&m);
}

static void test_request_mapping(void **state UNUSED)
{
	struct robotmail m;
	struct err e;
	json_t *req = json_object();
	char *got;

	assert_int_equal(parse_file(FIXDIR
				    "kernel-test-robot-fyi-vm-scalability-small-allocs-mt.eml",
				    &m, &e),
			 0);
	assert_int_equal(robotmail_request(&m, req, &e), 0);
	got = json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(got, "{\"base\":\"2f06f702925b512a95b95dca3855549c047eef58^\","
				 "\"head\":\"2f06f702925b512a95b95dca3855549c047eef58\","
				 "\"label\":\"<20201217023445.GD27932@robot-host.example.org>\","
				 "\"testcases\":[{\"params\":{\"mode\":\"thread\"},"
				 "\"testcase\":\"small-allocs\"}]}");
	free(got);
	json_decref(req);
	robotmail_release(&m);

	/* a case this lab has no mapping for: said, with what it does map */
	req = json_object();
	assert_int_equal(parse_file(FIXDIR "kernel-test-robot-stress-ng-improvement.eml", &m, &e),
			 0);
	assert_int_equal(robotmail_request(&m, req, &e), -1);
	assert_string_equal(e.detail, "from_mail.testcase");
	assert_string_equal(e.message,
			    "the robot's testcase 'stress-ng' (test: pipeherd) is not one this lab "
			    "runs (it runs vm-scalability small-allocs, vm-scalability "
			    "small-allocs-mt, unixbench execl, will-it-scale page_fault2; name the "
			    "testcases to run another)");
	assert_int_equal(json_object_size(req), 0);
	/* the caller's own testcases win: nothing to map */
	json_object_set_new(req, "testcases", json_pack("[{s:s}]", "testcase", "execl"));
	json_object_set_new(req, "base", json_string("v6.15"));
	assert_int_equal(robotmail_request(&m, req, &e), 0);
	assert_string_equal(json_string_value(json_object_get(req, "base")), "v6.15");
	assert_string_equal(json_string_value(json_object_get(req, "head")),
			    "ee5eda8ea59546af2e8f192c060fbf29862d7cbd");
	json_decref(req);
	robotmail_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_mails),
		cmocka_unit_test(test_quoted_patch_json),
		cmocka_unit_test(test_fyi_functional_built_with),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_quoted_printable_and_base),
		cmocka_unit_test(test_request_mapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
