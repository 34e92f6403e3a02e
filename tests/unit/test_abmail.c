#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "abmail.h"
#include "attr.h"
#include "buf.h"

/*
 * A patch series tested on two arches: small-allocs' throughput 1000 -> 1120
 * (+12.0 %, an improvement) on x86_64 and -3.5 % on arm64; the monitor row
 * comes first and must not name the result.
 */
#define BASE "1111111111111111111111111111111111111111"
#define HEAD "2222222222222222222222222222222222222222"
#define BASE10 "1111111111"
#define HEAD10 "2222222222"

static const struct lkp_axis params0[] = { { "nr_task", "8" }, { "mode", "thread" } };
static const struct abmail_group groups[] = {
	{ "qemu-x86_64", "small-allocs", "x86_64-defconfig", params0, 2, NULL },
	{ "qemu-arm64", "small-allocs", "arm64-defconfig", NULL, 0, NULL },
};
static const struct abmail_row rows[] = {
	{ 0, "qemu-x86_64", "cpu.util%", "regression", 1, -5.0, 50, 47.5, 1, 1 },
	{ 0, "qemu-x86_64", "small-allocs.throughput", "improvement", 0, 12.0, 1000, 1120, 0.5,
	  0.4 },
	{ 1, "qemu-arm64", "small-allocs.throughput", "same", 0, -3.5, 2000, 1930, 3, 4 },
};
static const char *const targets[] = { "qemu-x86_64", "qemu-arm64" };
static const struct abmail_command local[] = {
	{ "qemu-x86_64", "small-allocs", "base", "regtrack-worker reproduce --commit " BASE,
	  "curl -X POST x" },
	{ "qemu-x86_64", "small-allocs", "head", "regtrack-worker reproduce --patches series.mbox",
	  NULL },
};

static struct abmail_input series_input(void)
{
	return (struct abmail_input){
		.request_id = 42,
		.public_url = "https://perf.example.org/",
		.state = "done",
		.verdict = "improvement",
		.tree = "linux",
		.base_ref = "master",
		.base_sha = BASE,
		.head_sha = HEAD,
		.patches = 1,
		.nr_patches = 3,
		.patch_subject = "[PATCH 1/3] mm: add a",
		.patch_id = "fbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfb",
		.targets = targets,
		.nr_targets = 2,
		.compiler = "gcc-12",
		.repeat = 6,
		.label = "<sa-v1-0@example.org>",
		.alpha = 0.01,
		.groups = groups,
		.nr_groups = 2,
		.rows = rows,
		.nr_rows = 3,
		.reproduce = "curl again",
		.reproduce_local = local,
		.nr_reproduce_local = 2,
	};
}

static void render(const struct abmail_input *in, struct buf *s, struct buf *b)
{
	buf_init(s, 1024);
	buf_init(b, 1 << 20);
	assert_int_equal(abmail_render(in, s, b), 0);
}

static void test_patch_series(void **state UNUSED)
{
	struct abmail_input in = series_input();
	struct buf s, b;

	render(&in, &s, &b);
	assert_string_equal(s.data, "[regtrack] +12.0% improvement of small-allocs.throughput on "
				    "qemu-x86_64 with your patch series \"[PATCH 1/3] mm: add a\"");
	/* the headline, then the other arch's change of the same metric */
	assert_non_null(strstr(b.data, "Hello,\n\nwe noticed a +12.0% improvement of "
				       "small-allocs.throughput on qemu-x86_64 with your patch "
				       "series \"[PATCH 1/3] mm: add a\".\n"
				       "On qemu-arm64: -3.5% (same).\n\n"));
	assert_non_null(
		strstr(b.data,
		       "\ntree:      linux\n"
		       "base:      master (" BASE ")\n"
		       "patch:     \"[PATCH 1/3] mm: add a\" (3 patch(es), patch-id "
		       "fbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfbfb)\n"
		       "head:      " HEAD " (git am on base)\n"
		       "targets:   qemu-x86_64, qemu-arm64\n"
		       "compiler:  gcc-12\n"
		       "runs:      6 a side\n"
		       "label:     <sa-v1-0@example.org>\n"
		       "verdict:   improvement (per target and metric: Mann-Whitney at alpha 0.01, "
		       "%change the Hodges-Lehmann shift)\n"));
	/* a table per group: its axes (params included, sorted), both of its rows */
	assert_non_null(strstr(b.data, "\nqemu-x86_64 (small-allocs):\n\n"));
	assert_non_null(strstr(b.data,
			       "compiler/kconfig/mode/nr_task/target/testcase:\n"
			       "  gcc-12/x86_64-defconfig/thread/8/qemu-x86_64/small-allocs\n"));
	assert_non_null(
		strstr(b.data, "  " BASE10 " (\"base\")\n  " HEAD10 " (\"with the patch\")\n"));
	assert_non_null(strstr(b.data, "     50.00             -2.5      47.50        cpu.util%\n"
				       "    1000.0           +12.0%     1120.0        "
				       "small-allocs.throughput\n"));
	assert_non_null(strstr(b.data, "\nqemu-arm64 (small-allocs):\n\n"));
	assert_non_null(strstr(b.data,
			       "    2000.0 \xc2\xb1  3%      -3.5%     1930.0 \xc2\xb1  4%  "
			       "small-allocs.throughput\n"));
	/* the page, the service's curl, the local commands; a patched head has no curl */
	assert_non_null(
		strstr(b.data,
		       "\nThe request, with every run: https://perf.example.org/requests/42\n"
		       "\nTo run the A/B test again in the service:\n\n  curl again\n"
		       "\nTo reproduce a data point on your own machine, inside a kernel tree "
		       "(no server, no token):\n"
		       "\n  # qemu-x86_64 small-allocs, base\n  regtrack-worker reproduce --commit " BASE
		       "\n  # or queue it in the service:\n  curl -X POST x\n"
		       "\n  # qemu-x86_64 small-allocs, head\n"
		       "  regtrack-worker reproduce --patches series.mbox\n"
		       "\nThanks,\nregtrack\n"));
	assert_string_equal(strstr(b.data, "\nThanks,\nregtrack\n"), "\nThanks,\nregtrack\n");
	buf_release(&s);
	buf_release(&b);
}

static void test_series_title_names_the_series(void **state UNUSED)
{
	struct abmail_input in = series_input();
	struct buf s, b;

	in.series_title = "mm: faster small allocs";
	render(&in, &s, &b);
	assert_non_null(strstr(b.data, "Hello,\n\nwe noticed a +12.0% improvement of "
				       "small-allocs.throughput on qemu-x86_64 with your patch "
				       "series \"mm: faster small allocs\".\n"));
	/* the patch line still names the first patch as submitted */
	assert_non_null(strstr(b.data, "\npatch:     \"[PATCH 1/3] mm: add a\" (3 patch(es)"));
	assert_null(strstr(b.data, "series \"[PATCH 1/3]"));
	buf_release(&s);
	buf_release(&b);
	/* "" is no title: the first patch's subject */
	in.series_title = "";
	render(&in, &s, &b);
	assert_non_null(strstr(b.data, "with your patch series \"[PATCH 1/3] mm: add a\".\n"));
	buf_release(&s);
	buf_release(&b);
}

static void test_commit_no_change(void **state UNUSED)
{
	struct abmail_input in = series_input();
	struct abmail_row r[] = {
		{ 0, "qemu-x86_64", "small-allocs.throughput", "same", 0, NAN, 1000, 1001, 1, 1 },
		{ 1, "qemu-arm64", "small-allocs.throughput", NULL, 0, NAN, 5, 5, NAN, NAN }
	};
	struct buf s, b;

	in.patches = 0;
	in.head_ref = "next";
	in.patch_id = NULL;
	in.verdict = "no-change";
	in.rows = r;
	in.nr_rows = 2;
	in.repeat_why = "no history";
	in.label = NULL;
	in.base_ref = BASE; /* a base given by sha is shown once */
	render(&in, &s, &b);
	assert_string_equal(s.data, "[regtrack] no-change for small-allocs.throughput with commit "
				    "222222222222 (next)");
	/* an other-target row without an HL shift reads +0.0% */
	assert_non_null(strstr(b.data, "we noticed no change beyond the floor of "
				       "small-allocs.throughput with commit 222222222222 (next).\n"
				       "On qemu-arm64: +0.0% ().\n"));
	assert_non_null(strstr(b.data, "\nbase:      " BASE "\nhead:      next (" HEAD ")\n"));
	assert_non_null(strstr(b.data, "\nruns:      6 a side: no history\n"));
	assert_null(strstr(b.data, "label:"));
	assert_non_null(strstr(b.data, "  " BASE10 " (\"base\")\n  " HEAD10 " (\"head\")\n"));
	buf_release(&s);
	buf_release(&b);
}

static void test_failed_with_notes(void **state UNUSED)
{
	struct abmail_input in = series_input();
	struct abmail_note notes[] = { { 1, "CPU model differs" }, { 7, "out of range" } };
	struct buf s, b;

	in.state = "failed";
	in.verdict = NULL;
	in.fail_reason = "head job 9 (round 1, x86_64): apply: patch does not apply";
	in.head_sha = NULL;
	in.rows = NULL;
	in.nr_rows = 0;
	in.notes = notes;
	in.nr_notes = 2;
	render(&in, &s, &b);
	assert_string_equal(s.data, "[regtrack] could not test with your patch series "
				    "\"[PATCH 1/3] mm: add a\"");
	assert_non_null(strstr(b.data,
			       "Hello,\n\nwe could not complete the test with your patch "
			       "series \"[PATCH 1/3] mm: add a\":\n\n  head job 9 (round 1, "
			       "x86_64): apply: patch does not apply\n\ntree:"));
	/* no head sha yet: no head line; a note per group, named when there are several */
	assert_null(strstr(b.data, "\nhead:"));
	assert_non_null(strstr(b.data, "\nnote:      qemu-arm64 (small-allocs): CPU model differs\n"
				       "note:       (): out of range\n"));
	assert_null(strstr(b.data, "verdict:"));
	assert_null(strstr(b.data, "(small-allocs):\n\n"));
	buf_release(&s);
	buf_release(&b);
}

static void test_machine_per_group(void **state UNUSED)
{
	struct abmail_input in = series_input();
	struct abmail_group g[] = {
		{ "qemu-x86_64", "small-allocs", "x86_64-defconfig", params0, 2,
		  "vm-4p - 4 vCPUs pinned, 2G memory, x86_64 qemu guest (tcg) on Xeon" },
		{ "qemu-arm64", "small-allocs", "arm64-defconfig", NULL, 0, NULL },
	};
	struct buf s, b;

	in.groups = g;
	render(&in, &s, &b);
	/* what each group's runs got, named when there are several; a group
	 * whose machine is not known has no line; before the verdict */
	assert_non_null(strstr(b.data, "label:     <sa-v1-0@example.org>\n"
				       "machine:   qemu-x86_64 (small-allocs): vm-4p - 4 vCPUs "
				       "pinned, 2G memory, x86_64 qemu guest (tcg) on Xeon\n"
				       "verdict:   "));
	assert_null(strstr(b.data, "machine:   qemu-arm64"));
	buf_release(&s);
	buf_release(&b);
	/* one group: the line alone */
	in.nr_groups = 1;
	in.rows = rows;
	in.nr_rows = 2;
	render(&in, &s, &b);
	assert_non_null(strstr(b.data, "\nmachine:   vm-4p - 4 vCPUs pinned, 2G memory, x86_64 "
				       "qemu guest (tcg) on Xeon\n"));
	buf_release(&s);
	buf_release(&b);
}

static void test_cap(void **state UNUSED)
{
	struct abmail_input in = series_input();
	struct buf s = BUF_INIT(1024), b = BUF_INIT(100);

	assert_int_equal(abmail_render(&in, &s, &b), -1);
	buf_release(&s);
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patch_series),
		cmocka_unit_test(test_series_title_names_the_series),
		cmocka_unit_test(test_commit_no_change),
		cmocka_unit_test(test_failed_with_notes),
		cmocka_unit_test(test_machine_per_group),
		cmocka_unit_test(test_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
