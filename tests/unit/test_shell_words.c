/*
 * The reproduce command lines of pages and mails (server/abtest/abtest_mail.c):
 * every word that came from a submission is quoted for a POSIX shell, so
 * that pasted, it reaches the program as submitted and runs nothing
 * (params once went into the shell as they were: pasting one ran a
 * command). The mails' lines are abtest_reproduce_command()'s, the same
 * as the API's reproduce_local.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>

#include "attr.h"
#include "buf.h"
#include "server/abtest/abtest.h"

static void test_word(const char *in, const char *want)
{
	struct buf b = BUF_INIT(0);

	assert_int_equal(abtest_shell_word(&b, in), 0);
	assert_string_equal(b.data, want);
	buf_release(&b);
}

static void test_words_quoted(void **state UNUSED)
{
	test_word("nr_task=1,mode=threads", "nr_task=1,mode=threads");
	test_word("", "''");
	test_word("a b", "'a b'");
	test_word("$(touch x)", "'$(touch x)'");
	test_word("it's", "'it'\\''s'");
	test_word("`id`;\\*", "'`id`;\\*'");
}

static void test_reproduce_command_quotes_params(void **state UNUSED)
{
	json_t *p = json_pack("{s:i,s:s}", "nr_task", 1, "opt", "a b;$(touch x) 'q'");
	char *cmd = abtest_reproduce_command("x86_64-defconfig", "small-allocs", p, NULL, NULL,
					     "0123abcd", 0, 6);

	assert_non_null(cmd);
	assert_string_equal(cmd, "regtrack-worker reproduce --kconfig x86_64-defconfig --testcase "
				 "small-allocs --params 'nr_task=1,opt=a b;$(touch x) '\\''q'\\''' "
				 "--commit 0123abcd --repeat 6");
	free(cmd);
	json_decref(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words_quoted),
		cmocka_unit_test(test_reproduce_command_quotes_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
