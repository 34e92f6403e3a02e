/*
 * Unit tests of lib/mailhdr.c: the header fields the inbox poller reads
 * from each message of a public-inbox archive (Message-ID, In-Reply-To,
 * References, a folded Subject, the Date).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "mailhdr.h"
#include "attr.h"

static const char msg[] = "From: Rev Iewer <rev@example.org>\r\n"
			  "Subject: Re: [PATCH v2 2/3] mm: make\r\n"
			  "\tsmall-allocs  faster\r\n"
			  "Date: Tue, 6 Jan 2026 09:00:00 -0130\r\n"
			  "Message-ID: <sa-v2-review@example.org>\r\n"
			  "In-Reply-To: <sa-v2-2@example.org>\r\n"
			  "References: <sa-v2-0@example.org>\r\n"
			  " <sa-v2-2@example.org>\r\n"
			  "\r\n"
			  "Subject: not a header\r\n";

static void test_fields(void **state UNUSED)
{
	char v[256];

	assert_int_equal(mailhdr_get(msg, strlen(msg), "subject", v, sizeof(v)), 1);
	assert_string_equal(v, "Re: [PATCH v2 2/3] mm: make small-allocs faster");
	assert_int_equal(mailhdr_get(msg, strlen(msg), "Message-ID", v, sizeof(v)), 1);
	assert_string_equal(v, "<sa-v2-review@example.org>");
	assert_int_equal(mailhdr_get(msg, strlen(msg), "References", v, sizeof(v)), 1);
	assert_string_equal(v, "<sa-v2-0@example.org> <sa-v2-2@example.org>");
	assert_int_equal(mailhdr_get(msg, strlen(msg), "Cc", v, sizeof(v)), 0);
	assert_string_equal(v, "");
	/* a field of the body is no header */
	assert_int_equal(mailhdr_get(msg, 40, "Date", v, sizeof(v)), 0);
	/* cut to the buffer */
	assert_int_equal(mailhdr_get(msg, strlen(msg), "From", v, 4), 1);
	assert_string_equal(v, "Rev");
}

static void test_msgids(void **state UNUSED)
{
	char id[64];

	assert_int_equal(mailhdr_msgid("<a@x> <b@y>", 1, id, sizeof(id)), 1);
	assert_string_equal(id, "b@y");
	assert_int_equal(mailhdr_msgid("<a@x> <b@y>", 2, id, sizeof(id)), 0);
	assert_int_equal(mailhdr_msgid("no id", 0, id, sizeof(id)), 0);
	assert_int_equal(mailhdr_msgid("<>", 0, id, sizeof(id)), 0);
}

static void test_dates(void **state UNUSED)
{
	time_t t;

	assert_int_equal(mailhdr_date("Mon, 5 Jan 2026 10:00:00 +0000", &t), 0);
	assert_int_equal((long long)t, 1767607200LL);
	assert_int_equal(mailhdr_date("5 Jan 2026 11:30 +0130", &t), 0);
	assert_int_equal((long long)t, 1767607200LL);
	assert_int_equal(mailhdr_date("Tue, 6 Jan 2026 09:00:00 -0130", &t), 0);
	assert_int_equal((long long)t, 1767693600LL + 1800);
	assert_int_equal(mailhdr_date("yesterday", &t), -1);
	assert_int_equal(mailhdr_date("5 Foo 2026 10:00 +0000", &t), -1);
	/* a year PostgreSQL cannot store would fail every poll of the inbox at that message */
	assert_int_equal(mailhdr_date("1 Jan 999999 00:00:00 +0000", &t), -1);
	assert_int_equal(mailhdr_date("5 Jan 2026 10:00", &t), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_msgids),
		cmocka_unit_test(test_dates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
