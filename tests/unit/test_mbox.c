/*
 * Unit tests of lib/mbox.c: the patch count and the first patch's sender
 * and date, which the worker's `git am` uses as the committer so every
 * worker derives the same head sha from one mbox.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "mbox.h"
#include "attr.h"

/* `git format-patch --cover-letter --stdout` of two commits, cut down */
static const char series[] =
	"From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
	"From: \"Dev One\" <dev@example.org>\n"
	"Date: Tue, 1 Dec 2026 10:00:00 +0100\n"
	"Subject: [PATCH 0/2] mm: faster\n"
	"\n"
	"A cover letter, no diff. It quotes a line:\n"
	"--- not a diff\n"
	"\n"
	"From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
	"From: =?UTF-8?q?Dev=20Two?= <two@example.org>\n"
	"Date: Wed, 2 Dec 2026 11:30:00 +0000\n"
	"Subject: [PATCH 1/2] mm: make\n"
	" small-allocs faster\n"
	"\n"
	"Body.\n"
	"---\n"
	" mm/a.c | 1 +\n"
	"\n"
	"diff --git a/mm/a.c b/mm/a.c\n"
	"--- a/mm/a.c\n"
	"+++ b/mm/a.c\n"
	"@@ -1 +1,2 @@\n"
	" x\n"
	"+y\n"
	"\n"
	"From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
	"From: Dev Three <three@example.org>\n"
	"Date: Thu, 3 Dec 2026 12:00:00 +0000\n"
	"Subject: [PATCH 2/2] mm: more\n"
	"\n"
	"--- a/mm/b.c\n"
	"+++ b/mm/b.c\n"
	"@@ -1 +1 @@\n"
	"-a\n"
	"+b\n";

static void test_series(void **state UNUSED)
{
	struct mbox_info m;

	assert_int_equal(mbox_scan(series, strlen(series), &m), 2);
	assert_int_equal(m.nr_messages, 3);
	assert_int_equal(m.nr_patches, 2);
	/* the first patch's headers, not the cover letter's */
	assert_string_equal(m.name, "=?UTF-8?q?Dev=20Two?=");
	assert_string_equal(m.email, "two@example.org");
	assert_string_equal(m.date, "Wed, 2 Dec 2026 11:30:00 +0000");
	assert_string_equal(m.subject, "[PATCH 1/2] mm: make small-allocs faster");
}

static void test_forms_of_from(void **state UNUSED)
{
	static const char *const froms[][3] = {
		{ "From: \"Last, First\" <lf@example.org>", "Last, First", "lf@example.org" },
		{ "From: First Last <fl@example.org>", "First Last", "fl@example.org" },
		{ "From: fl@example.org (First Last)", "First Last", "fl@example.org" },
		{ "From: fl@example.org", "", "fl@example.org" },
		{ "From: First\n  Last <folded@example.org>", "First Last", "folded@example.org" },
	};
	char text[512];
	struct mbox_info m;

	for (size_t i = 0; i < sizeof(froms) / sizeof(froms[0]); i++) {
		snprintf(text, sizeof(text),
			 "From abc Mon Sep 17 00:00:00 2001\r\n%s\r\nDate: Mon, 1 Jan 2024 00:00:00 +0000\r\n"
			 "\r\ndiff --git a/x b/x\r\n",
			 froms[i][0]);
		assert_int_equal(mbox_scan(text, strlen(text), &m), 1);
		assert_string_equal(m.name, froms[i][1]);
		assert_string_equal(m.email, froms[i][2]);
		assert_string_equal(m.date, "Mon, 1 Jan 2024 00:00:00 +0000");
	}
}

static void test_no_patch(void **state UNUSED)
{
	static const char *const texts[] = {
		"",
		"just some text\n",
		"From abc Mon Sep 17 00:00:00 2001\nFrom: a <a@b>\nSubject: [PATCH 0/1] cover\n\nhello\n",
		/* a diff line in the headers is not a patch; "--- " alone without "+++ " neither */
		"From abc Mon Sep 17 00:00:00 2001\ndiff --git: x\n\n--- a/x\nno plus line\n",
	};
	struct mbox_info m;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		assert_int_equal(mbox_scan(texts[i], strlen(texts[i]), &m), 0);
		assert_string_equal(m.email, "");
	}
	/* a "From " inside a body, not after a blank line, starts no message */
	{
		static const char t[] = "From a Mon\nFrom: x <x@y>\n\nline\nFrom b Mon\n"
					"diff --git a/x b/x\n";
		assert_int_equal(mbox_scan(t, strlen(t), &m), 1);
		assert_int_equal(m.nr_messages, 1);
	}
}

static void test_long_fields_cut(void **state UNUSED)
{
	char text[4096], name[1500];
	struct mbox_info m;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(text, sizeof(text), "From a\nFrom: %s <e@x>\n\ndiff --git a/x b/x\n", name);
	assert_int_equal(mbox_scan(text, strlen(text), &m), 1);
	assert_int_equal(strlen(m.name), sizeof(m.name) - 1);
	assert_string_equal(m.email, "e@x");
}

/*
 * git am's timeout grows with the series, sized against the server's limit:
 * a 4 MiB series took 167 s of git am on a test machine, the fixed 120 s
 * killed it
 */
static void test_am_timeout_sized_with_the_limit(void **state UNUSED)
{
	assert_int_equal(MBOX_MAX_BYTES, 4 * 1024 * 1024);
	assert_int_equal(mbox_am_timeout_s(0), 120);
	assert_int_equal(mbox_am_timeout_s(4096), 120);
	assert_true(mbox_am_timeout_s(MBOX_MAX_BYTES) >= 3 * 167);
	assert_int_equal(mbox_am_timeout_s(MBOX_MAX_BYTES), 632);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_forms_of_from),
		cmocka_unit_test(test_no_patch),
		cmocka_unit_test(test_long_fields_cut),
		cmocka_unit_test(test_am_timeout_sized_with_the_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
