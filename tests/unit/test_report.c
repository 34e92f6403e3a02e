#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lkptext.h"
#include "attr.h"
#include "mailmsg.h"
#include "report.h"
#include "stats/compare.h"
#include "server/mail/mailer.h"

/*
 * Figures: the will-it-scale row is the one quoted in lib/lkptext.h (a
 * 0-day report: 108849 ± 2% -> 123316, +13.3%); the bisect is of a
 * throughput metric, so a fall is a regression.
 */
#define CULPRIT "3c1a2b4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
#define PARENT "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c"

static const struct lkp_row rows[] = {
	{ "will-it-scale.per_process_ops", 123316, 0.5, 108849, 2.4, -11.73 },
	{ "perf-profile.children.cycles-pp.do_mmap", 0.25, 9, 0.23, 5, NAN },
};
static const struct report_param params[] = {
	{ "mode", "process" },
	{ "nr_task", "100%" },
	{ "test", "mmap1" },
};
static const struct report_step steps[] = {
	{ "aaaaaaaaaaaa11111111111111111111111111111", "mm: first try", "bad", 108500, 5 },
	{ PARENT, "mm/mmap: prepare", "good", 123300, 5 },
	{ CULPRIT, "mm/mmap: take the lock later", "bad", 108849, 5 },
};

static struct report_input bisect_input(void)
{
	struct report_input in = {
		.kind = REPORT_BISECT,
		.tree = "linux",
		.branch = "master",
		.culprit_sha = CULPRIT,
		.culprit_subject = "mm/mmap: take the lock later",
		.culprit_author = "Jane Dev",
		.culprit_email = "jane@example.org",
		.parent_sha = PARENT,
		.parent_subject = "mm/mmap: prepare",
		.testcase = "will-it-scale",
		.kconfig = "x86_64-rhel-9.4",
		.compiler = "gcc-12",
		.tbox_group = "lkp-icl-2sp2",
		.params = params,
		.nr_params = 3,
		.machine_arch = "x86_64",
		.cpu_model = "Intel Xeon Platinum 8358",
		.nr_cpus = 128,
		.memory_mb = 256 * 1024,
		.metric = "will-it-scale.per_process_ops",
		.change_pct = -11.73,
		.is_regression = 1,
		.rows = rows,
		.nr_rows = 2,
		.steps = steps,
		.nr_steps = 3,
		.reproduce = "regtrack-worker run --once",
		.public_url = "https://perf.example.org/",
		.regression_id = 7,
		.bisect_id = 3,
		.mail_from = "regtrack bot <regtrack@example.org>",
	};
	return in;
}

static void test_prefix(void **state UNUSED)
{
	char p[64];

	report_subject_prefix("mm/mmap: take the lock later", p, sizeof(p));
	assert_string_equal(p, "mm/mmap");
	report_subject_prefix("sched/fair: eevdf: fix lag", p, sizeof(p));
	assert_string_equal(p, "sched/fair: eevdf");
	report_subject_prefix("Revert a thing", p, sizeof(p));
	assert_string_equal(p, "");
	report_subject_prefix(NULL, p, sizeof(p));
	assert_string_equal(p, "");
}

static void test_bisect_report(void **state UNUSED)
{
	struct report_input in = bisect_input();
	struct report r;
	struct err e;

	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_string_equal(r.subject, "[linux:master] [mm/mmap] 3c1a2b4d5e6f: "
				       "will-it-scale.per_process_ops -11.7% regression");
	assert_non_null(
		strstr(r.body.data,
		       "regtrack measured a -11.7% regression of "
		       "will-it-scale.per_process_ops and bisected it to commit 3c1a2b4d5e6f.\n"));
	assert_non_null(strstr(r.body.data,
			       "\ncommit:   " CULPRIT " (\"mm/mmap: take the lock later\")\n"));
	assert_non_null(strstr(r.body.data, "\nauthor:   Jane Dev <jane@example.org>\n"));
	assert_non_null(strstr(r.body.data, "\nparent:   " PARENT " (\"mm/mmap: prepare\")\n"));
	assert_non_null(strstr(r.body.data, "\ntestcase: will-it-scale\n"));
	assert_non_null(strstr(r.body.data, "\nconfig:   x86_64-rhel-9.4\n"));
	assert_non_null(strstr(r.body.data, "\ncompiler: gcc-12\n"));
	assert_non_null(strstr(r.body.data,
			       "\nmachine:  lkp-icl-2sp2 - 128 CPUs, 256G memory, x86_64 "
			       "(Intel Xeon Platinum 8358)\n"));
	assert_non_null(strstr(r.body.data,
			       "\nparameters:\n  mode: process\n  nr_task: 100%\n  test: mmap1\n"));
	/* trailers: address from mail_from, link from public_url without the double '/' */
	assert_non_null(strstr(r.body.data, "\nReported-by: regtrack <regtrack@example.org>\n"
					    "Closes: https://perf.example.org/regressions/7\n"));
	assert_non_null(strstr(r.body.data, "\n#regzbot introduced: " CULPRIT "\n"));
	/* the LKP table: parent vs first bad commit, both rows */
	assert_non_null(strstr(r.body.data, "  0f1e2d3c4b (\"mm/mmap: prepare\")\n"));
	assert_non_null(strstr(r.body.data, "    123316           -11.7%     108849 \xc2\xb1  2%  "
					    "will-it-scale.per_process_ops\n"));
	assert_non_null(strstr(r.body.data,
			       "      0.25 \xc2\xb1  9%       -0.0       0.23 \xc2\xb1  5%  "
			       "perf-profile.children.cycles-pp.do_mmap\n"));
	assert_non_null(
		strstr(r.body.data, "compiler/kconfig/mode/nr_task/tbox_group/test/testcase:\n"));
	assert_non_null(strstr(r.body.data, "\nbisect steps (3 commits tested):\n"));
	assert_non_null(strstr(r.body.data, "\n   3  bad   3c1a2b4d5e6f      108849 (5 runs)  "
					    "mm/mmap: take the lock later\n"));
	assert_non_null(strstr(r.body.data, "\n  regtrack-worker run --once\n"));
	assert_non_null(strstr(r.body.data, "\ndashboard: https://perf.example.org/regressions/7\n"
					    "bisect:    https://perf.example.org/bisects/3\n"));
	report_release(&r);
}

/* the record's evidence in words under the opening sentence */
static void test_evidence_line(void **state UNUSED)
{
	struct report_input in = bisect_input();
	struct report r;
	struct err e;

	/* none known (commits_after 0): no line */
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_null(strstr(r.body.data, "evidence:"));
	report_release(&r);
	evidence_init(&in.evidence);
	in.evidence.commits_after = 12;
	in.evidence.shift_pct = -11.7;
	in.evidence.ci_lo_pct = -12.4;
	in.evidence.ci_hi_pct = -11.1;
	in.evidence.shift = -14430;
	in.evidence.noise_sigma = 1500;
	in.evidence_p = 3.2e-9;
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_non_null(
		strstr(r.body.data,
		       "bisected it to commit 3c1a2b4d5e6f.\n"
		       "evidence: the 12 tested commits after moved by -11.7 % [-12.4, -11.1], "
		       "9.6 \xc3\x97 the series' own spread; p 3.2e-09\n\n"));
	report_release(&r);
	/* no p: the sentence alone */
	in.evidence_p = NAN;
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_non_null(strstr(r.body.data, "own spread\n\n"));
	report_release(&r);
}

/* a change from a base of zero: its levels, never LKP's hundred-digit % nor inf */
static void test_base_zero_in_words(void **state UNUSED)
{
	struct report_input in = bisect_input();
	struct report r;
	struct err e;

	in.kind = REPORT_RANGE;
	in.good_sha = PARENT;
	in.bad_sha = CULPRIT;
	in.branch = NULL;
	in.bisect_id = 0;
	in.change_pct = 4.992855555082951e104; /* LKP: 100 * (5 - 1e-100) / 1e-100 */
	evidence_init(&in.evidence);
	in.evidence.commits_after = 15;
	in.evidence.before = 0;
	in.evidence.after = 4.9925;
	in.evidence_p = NAN;
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_string_equal(r.subject, "[linux] 0f1e2d3c4b5a..3c1a2b4d5e6f: "
				       "will-it-scale.per_process_ops regression from 0 to 4.992");
	assert_non_null(strstr(r.body.data,
			       "regtrack measured a regression of will-it-scale.per_process_ops "
			       "from 0 to 4.992 (the base is 0: no %change) between 0f1e2d3c4b5a "
			       "and 3c1a2b4d5e6f (not bisected).\n"
			       "evidence: the 15 tested commits after moved from 0 to 4.992 (the "
			       "base is 0: no %change)\n"));
	assert_null(strstr(r.body.data, "4992855"));
	report_release(&r);
	in.kind = REPORT_FIXED;
	in.orig_subject = "[linux] x: y";
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_non_null(strstr(r.body.data, "will-it-scale.per_process_ops from 0 to 4.992 at "
					    "3c1a2b4d5e6f, is now marked fixed"));
	report_release(&r);
	/* a base near zero but not zero: the % with 3 significant digits */
	in.kind = REPORT_RANGE;
	in.evidence.before = 1e-9;
	in.change_pct = 4.99e11;
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_string_equal(r.subject, "[linux] 0f1e2d3c4b5a..3c1a2b4d5e6f: "
				       "will-it-scale.per_process_ops +4.99e+11% regression");
	report_release(&r);
}

/* the one step to mark the alert invalid: the page and the exact command, after the links */
static void test_invalid_step(void **state UNUSED)
{
	struct report_input in = bisect_input();
	struct report r;
	struct err e;

	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_non_null(strstr(r.body.data,
			       "bisect:    https://perf.example.org/bisects/3\n"
			       "\nnot a real change? an admin marks it invalid in one step, on "
			       "https://perf.example.org/regressions/7 or with:\n"
			       "  regtrack --server https://perf.example.org regression invalid 7 "
			       "--reason \"...\"\n"));
	report_release(&r);
	/* no public_url: the command without --server (REGTRACK_SERVER names it) */
	in.public_url = NULL;
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_non_null(
		strstr(r.body.data, "\n  regtrack regression invalid 7 --reason \"...\"\n"));
	report_release(&r);
	/* no record (an A/B verdict has none): no step */
	in.regression_id = 0;
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_null(strstr(r.body.data, "regression invalid"));
	report_release(&r);
}

static void test_range_improvement_and_fixed(void **state UNUSED)
{
	struct report_input in = bisect_input();
	struct report r;
	struct err e;

	in.kind = REPORT_RANGE;
	in.good_sha = PARENT;
	in.bad_sha = CULPRIT;
	in.branch = NULL;
	in.change_pct = 13.3;
	in.is_regression = 0;
	in.nr_steps = 0;
	in.bisect_id = 0;
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_string_equal(r.subject, "[linux] 0f1e2d3c4b5a..3c1a2b4d5e6f: "
				       "will-it-scale.per_process_ops +13.3% improvement");
	assert_null(strstr(r.body.data, "#regzbot"));
	assert_null(strstr(r.body.data, "bisect:"));
	assert_non_null(
		strstr(r.body.data, "between 0f1e2d3c4b5a and 3c1a2b4d5e6f (not bisected)"));
	report_release(&r);

	in.kind = REPORT_FIXED;
	in.orig_subject = "[linux] x: y";
	in.fix_sha = PARENT;
	in.fix_subject = "mm/mmap: undo";
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_string_equal(r.subject, "Re: [linux] x: y");
	assert_non_null(strstr(r.body.data,
			       "is now marked fixed by commit " PARENT " (\"mm/mmap: undo\")."));
	report_release(&r);

	in.orig_subject = NULL;
	assert_int_equal(report_render(&in, &r, &e), -1);
	assert_int_equal(e.id, ERR_MISSING_FIELD);
	assert_string_equal(e.detail, "orig_subject");
	report_release(&r);
	in = bisect_input();
	in.culprit_sha = NULL;
	assert_int_equal(report_render(&in, &r, &e), -1);
	assert_string_equal(e.detail, "culprit_sha");
	report_release(&r);
}

static void test_addresses(void **state UNUSED)
{
	char a[300];

	assert_true(report_addr_ok("jane@example.org"));
	assert_false(report_addr_ok("jane@example.org\r\nBcc: evil@x"));
	assert_false(report_addr_ok("jane doe@example.org"));
	assert_false(report_addr_ok("<jane@example.org>"));
	assert_false(report_addr_ok("a@b@c"));
	assert_false(report_addr_ok("@example.org"));
	assert_false(report_addr_ok("jane@"));
	assert_false(report_addr_ok("j\xc3\xa9@example.org"));
	assert_int_equal(report_addr_spec("regtrack <bot@example.org>", a, sizeof(a)), 0);
	assert_string_equal(a, "bot@example.org");
	assert_int_equal(report_addr_spec(" bot@example.org ", a, sizeof(a)), 0);
	assert_string_equal(a, "bot@example.org");
	assert_int_equal(report_addr_spec("x <bot@example.org", a, sizeof(a)), -1);
	assert_true(report_msgid_ok("<0b9f@regtrack.example.org>"));
	assert_false(report_msgid_ok("<0b9f@x>\r\nBcc: e@x"));
	assert_false(report_msgid_ok("0b9f@x"));
}

/* An independent base64 decoder for the test. */
static size_t unb64(const char *s, size_t n, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned v = 0, bits = 0;
	size_t k = 0;

	for (size_t i = 0; i < n && s[i] != '='; i++) {
		v = (v << 6) | (unsigned)(strchr(tab, s[i]) - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (char)((v >> bits) & 0xff);
		}
	}
	return k;
}

/* The header block of a composed message, split into unfolded header lines. */
static int header_count(const char *msg, const char *name)
{
	const char *end = strstr(msg, "\r\n\r\n");
	size_t n = strlen(name);
	int count = 0;

	for (const char *s = msg; s && s < end; s = strstr(s, "\r\n"), s = s ? s + 2 : s)
		if (!strncasecmp(s, name, n) && s[n] == ':')
			count++;
	return count;
}

static void test_compose_injection(void **state UNUSED)
{
	struct report_input in = bisect_input();
	const char *to[] = { "jane@example.org", "list@example.org" };
	struct report_mail m = { .from = "regtrack <regtrack@example.org>",
				 .to = to,
				 .nr_to = 2,
				 .message_id = "<1234@regtrack.example.org>",
				 .date = 0 };
	struct buf out = BUF_INIT(0);
	struct report r;
	struct err e;
	const char *hdr_end;

	in.culprit_subject = "mm: fix\r\nBcc: evil@x";
	in.metric = "x.ops\nBcc: evil2@x";
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_null(strchr(r.subject, '\n'));
	assert_null(strchr(r.subject, '\r'));
	m.subject = r.subject;
	m.body = r.body.data;
	assert_int_equal(report_compose(&out, &m, &e), 0);
	hdr_end = strstr(out.data, "\r\n\r\n");
	assert_non_null(hdr_end);
	assert_int_equal(header_count(out.data, "Bcc"), 0);
	assert_int_equal(header_count(out.data, "Subject"), 1);
	assert_int_equal(header_count(out.data, "To"), 1);
	assert_non_null(
		strstr(out.data,
		       "Subject: [linux:master] [mm: fix Bcc] 3c1a2b4d5e6f: x.ops Bcc: evil2@x\r\n"
		       " -11.7% regression\r\n"));
	assert_non_null(strstr(out.data, "To: jane@example.org,\r\n list@example.org\r\n"));
	assert_non_null(strstr(out.data, "Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"));
	/* every body line ends in CRLF: no bare LF anywhere */
	for (const char *s = out.data; (s = strchr(s, '\n')); s++)
		assert_int_equal(s[-1], '\r');
	buf_release(&out);

	/* a recipient or thread id carrying a header is refused, not repaired */
	to[1] = "list@example.org\r\nBcc: evil@x";
	assert_int_equal(report_compose(&out, &m, &e), -1);
	assert_int_equal(e.id, ERR_INVALID_FIELD);
	buf_release(&out);
	to[1] = "list@example.org";
	m.in_reply_to = "<a@b>\r\nBcc: evil@x";
	assert_int_equal(report_compose(&out, &m, &e), -1);
	assert_string_equal(e.detail, "in_reply_to");
	buf_release(&out);
	m.in_reply_to = "<first@regtrack.example.org>";
	m.references = "<first@regtrack.example.org>";
	assert_int_equal(report_compose(&out, &m, &e), 0);
	assert_non_null(strstr(out.data, "\r\nIn-Reply-To: <first@regtrack.example.org>\r\n"
					 "References: <first@regtrack.example.org>\r\n"));
	buf_release(&out);
	report_release(&r);
}

static void test_rfc2047(void **state UNUSED)
{
	/* 44 bytes of UTF-8: é and — straddle nothing; a long one must split on characters */
	const char *subj = "mm/slub: r\xc3\xa9"
			   "duire la fragmentation \xe2\x80\x94 caf\xc3\xa9 "
			   "\xe2\x80\x94 \xe2\x80\x94 \xe2\x80\x94 \xe2\x80\x94 fin";
	struct buf out = BUF_INIT(0), dec = BUF_INIT(0);
	const char *s;
	int words = 0;

	assert_int_equal(report_header_text(&out, "Subject", subj), 0);
	assert_int_equal(strncmp(out.data, "Subject: =?UTF-8?B?", 19), 0);
	for (s = out.data; (s = strstr(s, "=?UTF-8?B?")); words++) {
		const char *end = strstr(s, "?=");
		char tmp[64];
		size_t n;

		s += 10;
		assert_non_null(end);
		assert_true(end - s + 12 <= 75); /* RFC 2047 word length */
		n = unb64(s, (size_t)(end - s), tmp);
		/* each word holds whole characters: it does not start with a continuation byte */
		assert_true(((unsigned char)tmp[0] & 0xc0) != 0x80);
		assert_int_equal(buf_add(&dec, tmp, n), 0);
		s = end + 2;
	}
	assert_int_equal(words, 2);
	assert_string_equal(dec.data, subj);
	assert_null(strstr(out.data, "\r\n\r\n"));
	buf_release(&out);
	buf_release(&dec);

	/* control characters inside encoded text are spaces too */
	assert_int_equal(report_header_text(&out, "Subject", "caf\xc3\xa9\r\nBcc: x@y"), 0);
	s = strstr(out.data, "=?UTF-8?B?") + 10;
	{
		char tmp[64];
		size_t n = unb64(s, (size_t)(strstr(s, "?=") - s), tmp);
		tmp[n] = '\0';
		assert_string_equal(tmp, "caf\xc3\xa9 Bcc: x@y");
	}
	buf_release(&out);
}

static void test_long_body_line(void **state UNUSED)
{
	const char *to[] = { "a@example.org" };
	char *body = malloc(2501);
	struct report_mail m = { .from = "a@example.org",
				 .to = to,
				 .nr_to = 1,
				 .subject = "s",
				 .message_id = "<1@x.org>",
				 .body = body };
	struct buf out = BUF_INIT(0);
	struct err e;
	const char *s;

	memset(body, 'x', 2500);
	body[2500] = '\0';
	assert_int_equal(report_compose(&out, &m, &e), 0);
	s = strstr(out.data, "\r\n\r\n") + 4;
	assert_int_equal(strspn(s, "x"), 998);
	assert_int_equal(strspn(s + 1000, "x"), 998);
	assert_int_equal(strspn(s + 2000, "x"), 504);
	assert_string_equal(s + 2504, "\r\n");
	buf_release(&out);
	free(body);
}

/* a qemu run: the machine line names the guest, then the host's CPU model */
static void test_guest_machine_diffstat_omitted(void **state UNUSED)
{
	static const struct report_file files[] = {
		{ "fs/inode.c", 3, 0 },
		{ "mm/mmap.c", 10, 2 },
		{ "tools/logo.png", -1, -1 },
	};
	struct report_input in = bisect_input();
	struct report r;
	struct err e;

	in.accel = "tcg";
	in.guest_arch = "arm64";
	in.guest_cpus = 1;
	in.guest_memory_mb = 512;
	in.icount = 1;
	in.has_diffstat = 1;
	in.files_changed = 3;
	in.insertions = 13;
	in.deletions = 2;
	in.files = files;
	in.nr_files = 3;
	in.nr_rows_omitted = 4;
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_non_null(strstr(r.body.data,
			       "\nmachine:  lkp-icl-2sp2 - 1 vCPU, 512M memory, arm64 qemu "
			       "guest (tcg, icount) on Intel Xeon Platinum 8358\n"));
	assert_null(strstr(r.body.data, "128 CPUs"));
	assert_non_null(strstr(r.body.data,
			       "\nparent:   " PARENT " (\"mm/mmap: prepare\")\n"
			       "diffstat: 3 files changed, 13 insertions(+), 2 deletions(-)\n"
			       "          +3 -0  fs/inode.c\n"
			       "         +10 -2  mm/mmap.c\n"
			       "         binary  tools/logo.png\n"));
	assert_non_null(strstr(r.body.data,
			       "\n4 more metrics of both commits left out (no significant "
			       "change, or beyond the table's size); all of them:\n  "
			       "https://perf.example.org/api/v1/compare?base=" PARENT
			       "&head=" CULPRIT "&format=text\n"));
	report_release(&r);

	/* kvm without icount, guest arch unknown (an older document): the host's arch */
	in.accel = "kvm";
	in.guest_arch = NULL;
	in.guest_cpus = 2;
	in.guest_memory_mb = 0;
	in.icount = 0;
	in.files_changed = 1;
	in.insertions = 1;
	in.deletions = 0;
	in.nr_files = 1;
	in.nr_rows_omitted = 0;
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_non_null(strstr(r.body.data,
			       "\nmachine:  lkp-icl-2sp2 - 2 vCPUs, x86_64 qemu guest (kvm) "
			       "on Intel Xeon Platinum 8358\n"));
	assert_non_null(strstr(r.body.data, "\ndiffstat: 1 file changed, 1 insertion(+)\n"));
	assert_null(strstr(r.body.data, "left out"));
	report_release(&r);

	/* kvm in the shape a job named: pinned vCPUs, nodes, hugepages, the host's CPU model */
	in.guest_cpus = 16;
	in.guest_memory_mb = 4096;
	in.guest_pinned = 1;
	in.guest_numa_nodes = 2;
	in.guest_hugepages = "2M";
	in.guest_cpu_model = "host";
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_non_null(
		strstr(r.body.data,
		       "\nmachine:  lkp-icl-2sp2 - 16 vCPUs pinned, 2 NUMA nodes, 4G memory "
		       "on 2M hugepages, x86_64 qemu guest (kvm, cpu host) on Intel Xeon "
		       "Platinum 8358\n"));
	report_release(&r);
	in.guest_cpus = 2;
	in.guest_memory_mb = 0;
	in.guest_pinned = 0;
	in.guest_numa_nodes = 0;
	in.guest_hugepages = NULL;
	in.guest_cpu_model = NULL;

	/* no row to show (the bisected metric has no runs at one side): the note alone */
	in.nr_rows = 0;
	in.nr_rows_omitted = 3;
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_null(strstr(r.body.data, "%stddev"));
	assert_non_null(strstr(r.body.data, "\n3 metrics of both commits left out (no significant "
					    "change, or beyond the table's size); all of them:\n"));
	report_release(&r);
	in.nr_rows = 2;
	in.nr_rows_omitted = 0;

	/* a run on the host itself ("host" accel): the host line as before */
	in.accel = "host";
	assert_int_equal(report_render(&in, &r, &e), 0);
	assert_non_null(strstr(r.body.data,
			       "\nmachine:  lkp-icl-2sp2 - 128 CPUs, 256G memory, x86_64 "
			       "(Intel Xeon Platinum 8358)\n"));
	report_release(&r);
}

/* subscription path patterns (server/mail/mailer.h) */
/* "also seen on arm64: -62.0% (URL)" under the opening sentence, one line per arch */
static void test_also_seen(void **state UNUSED)
{
	static const struct report_also_seen also[] = {
		{ "arm64", -62.0, 8 },
		{ "riscv64", NAN, 0 }, /* size unknown, no record link */
		{ NULL, -1.0, 9 },     /* no arch: left out */
	};
	struct report_input in = bisect_input();
	struct report out;
	struct err e;

	in.also_seen = also;
	in.nr_also_seen = 3;
	assert_int_equal(report_render(&in, &out, &e), 0);
	assert_non_null(
		strstr(out.body.data,
		       "and bisected it to commit 3c1a2b4d5e6f.\n"
		       "also seen on arm64: -62.0% (https://perf.example.org/regressions/8)\n"
		       "also seen on riscv64:\n\ncommit:   " CULPRIT));
	assert_null(strstr(out.body.data, "regressions/9"));
	report_release(&out);
	/* none: the sentence and the commit as before */
	in.nr_also_seen = 0;
	assert_int_equal(report_render(&in, &out, &e), 0);
	assert_non_null(strstr(out.body.data, "to commit 3c1a2b4d5e6f.\n\ncommit:   "));
	report_release(&out);
}

/* the token-free commands under their labels and the .config link, after the curl */
static void test_reproduce_local(void **state UNUSED)
{
	static const struct report_command cmds[] = {
		{ "first bad commit", "regtrack-worker reproduce --kconfig k --commit " CULPRIT },
		{ "its parent", "regtrack-worker reproduce --kconfig k\n--commit p" },
	};
	struct report_input in = bisect_input();
	struct report out;
	struct err e;

	in.reproduce = "curl x";
	in.reproduce_local = cmds;
	in.nr_reproduce_local = 2;
	in.config_url = "https://perf.example.org/api/v1/jobs/7/kconfig";
	assert_int_equal(report_render(&in, &out, &e), 0);
	assert_non_null(strstr(out.body.data,
			       "\nto reproduce one data point:\n\n  curl x\n\n"
			       "to run the data points on your own machine, inside a kernel tree "
			       "(no server, no token):\n\n"
			       "  # first bad commit\n"
			       "  regtrack-worker reproduce --kconfig k --commit " CULPRIT "\n\n"
			       "  # its parent\n"
			       /* a line break of a command is a space: one line each */
			       "  regtrack-worker reproduce --kconfig k --commit p\n\n"
			       "kernel .config: https://perf.example.org/api/v1/jobs/7/kconfig\n"));
	report_release(&out);
	/* none: neither the heading nor the link */
	in.nr_reproduce_local = 0;
	in.config_url = NULL;
	assert_int_equal(report_render(&in, &out, &e), 0);
	assert_null(strstr(out.body.data, "own machine"));
	assert_null(strstr(out.body.data, ".config:"));
	report_release(&out);
}

static void test_path_match(void **state UNUSED)
{
	assert_true(mailer_path_match("mm/", "mm/mmap.c"));
	assert_true(mailer_path_match("mm", "mm/mmap.c"));
	assert_true(mailer_path_match("mm/mmap.c", "mm/mmap.c"));
	assert_false(mailer_path_match("mm", "mmx/a.c"));
	assert_false(mailer_path_match("mm/mmap", "mm/mmap.c"));
	assert_false(mailer_path_match("fs/", "mm/mmap.c"));
	assert_false(mailer_path_match("", "mm/mmap.c"));
	assert_true(mailer_path_match("mm/?map.c", "mm/mmap.c"));
	assert_true(mailer_path_match("mm*.c", "mm/kasan/common.c"));
	assert_true(mailer_path_match("*.h", "include/linux/mm.h"));
	assert_false(mailer_path_match("*.h", "mm/mmap.c"));
	assert_true(mailer_path_match("net/*", "net/ipv4/tcp.c"));
}

/* LKP's %change of a zero base (1e-100) prints as LKP does: '.2g' from 100000 % */
static void test_lkp_zero_base_change(void **state)
{
	struct lkp_row row = {
		"stress-ng.new_counter.ops", 0, NAN, 5, NAN, compare_pct_change(0, 5)
	};
	struct lkp_axis ax[1] = { { "testcase", "stress-ng" } };
	struct buf b;

	(void)state;
	buf_init(&b, 1 << 16);
	assert_int_equal(lkp_render(&b, ax, 1, "0123456789abcdef0123", "base",
				    "fedcba98765432100123", "head", &row, 1),
			 0);
	assert_non_null(strstr(b.data, "+5e+102%"));
	row.change_pct = compare_pct_change(-60742, -50000);
	buf_release(&b);
	buf_init(&b, 1 << 16);
	assert_int_equal(lkp_render(&b, ax, 1, "0123456789abcdef0123", "base",
				    "fedcba98765432100123", "head", &row, 1),
			 0);
	assert_non_null(strstr(b.data, "-17.7%"));
	/* 0 -> 0 did not move: 0.0 % (it printed -100.0 %) */
	row = (struct lkp_row){ "will-it-scale.per_thread_ops", 0, NAN, 0, NAN,
				compare_pct_change(0, 0) };
	buf_release(&b);
	buf_init(&b, 1 << 16);
	assert_int_equal(lkp_render(&b, ax, 1, "0123456789abcdef0123", "base",
				    "fedcba98765432100123", "head", &row, 1),
			 0);
	assert_non_null(strstr(b.data, "\n      0.00             0.0%       0.00        "
				       "will-it-scale.per_thread_ops\n"));
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_lkp_zero_base_change),
		cmocka_unit_test(test_bisect_report),
		cmocka_unit_test(test_evidence_line),
		cmocka_unit_test(test_invalid_step),
		cmocka_unit_test(test_guest_machine_diffstat_omitted),
		cmocka_unit_test(test_path_match),
		cmocka_unit_test(test_also_seen),
		cmocka_unit_test(test_reproduce_local),
		cmocka_unit_test(test_range_improvement_and_fixed),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_compose_injection),
		cmocka_unit_test(test_rfc2047),
		cmocka_unit_test(test_long_body_line),
		cmocka_unit_test(test_base_zero_in_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
