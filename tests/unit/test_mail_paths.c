#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/mail/mailer.h"
#include "attr.h"

/*
 * Which subscriptions a report goes to (server/mail/mailer.h): a path pattern
 * against one file (prefix on a '/' boundary, or an fnmatch glob whose '*'
 * crosses '/'), a subscription's pattern list against the culprit's files,
 * and the whole predicate with its metric glob.
 */

static const char *const culprit[] = { "include/linux/mmzone.h", "mm/page_alloc.c",
				       "mm/kasan/common.c", NULL };

static void test_prefix(void **state UNUSED)
{
	assert_true(mailer_path_match("mm/", "mm/mmap.c"));
	assert_true(mailer_path_match("mm", "mm/mmap.c"));
	assert_true(mailer_path_match("mm", "mm/kasan/common.c"));
	assert_true(mailer_path_match("mm/mmap.c", "mm/mmap.c"));
	assert_true(mailer_path_match("mm", "mm"));
	/* a prefix ends on a '/' boundary */
	assert_false(mailer_path_match("mm/", "mmx/a.c"));
	assert_false(mailer_path_match("mm", "mmx/a.c"));
	assert_false(mailer_path_match("mm/mmap", "mm/mmap.c"));
	assert_false(mailer_path_match("mm/mmap.c", "mm/mmap.c.orig"));
	/* not a substring match, and case matters */
	assert_false(mailer_path_match("kasan/", "mm/kasan/common.c"));
	assert_false(mailer_path_match("MM/", "mm/mmap.c"));
	assert_false(mailer_path_match("fs/", "mm/mmap.c"));
	/* longer than the file */
	assert_false(mailer_path_match("mm/mmap.c/x", "mm/mmap.c"));
}

static void test_glob(void **state UNUSED)
{
	assert_true(mailer_path_match("include/linux/mm*.h", "include/linux/mm.h"));
	assert_true(mailer_path_match("include/linux/mm*.h", "include/linux/mmzone.h"));
	assert_true(mailer_path_match("include/linux/mm*.h", "include/linux/mm_types.h"));
	assert_false(mailer_path_match("include/linux/mm*.h", "include/linux/memory.h"));
	assert_false(mailer_path_match("include/linux/mm*.h", "include/linux/mm.c"));
	assert_false(mailer_path_match("include/linux/mm*.h", "arch/x86/include/linux/mm.h"));
	/* without FNM_PATHNAME '*' crosses '/' */
	assert_true(mailer_path_match("include/linux/mm*.h", "include/linux/mm/sub.h"));
	assert_true(mailer_path_match("mm*.c", "mm/kasan/common.c"));
	assert_true(mailer_path_match("*.h", "include/linux/mm.h"));
	assert_false(mailer_path_match("*.h", "mm/mmap.c"));
	assert_true(mailer_path_match("net/*", "net/ipv4/tcp.c"));
	/* a glob is anchored at both ends: no prefix semantics */
	assert_false(mailer_path_match("m?", "mm/mmap.c"));
	assert_true(mailer_path_match("mm/?map.c", "mm/mmap.c"));
	assert_true(mailer_path_match("mm/[lm]map.c", "mm/mmap.c"));
	assert_false(mailer_path_match("mm/[!m]map.c", "mm/mmap.c"));
}

static void test_empty_pattern(void **state UNUSED)
{
	assert_false(mailer_path_match("", "mm/mmap.c"));
	assert_false(mailer_path_match("", ""));
}

static void test_list(void **state UNUSED)
{
	static const char *const none[] = { NULL };

	/* one matching file of the culprit is enough, for any pattern of the list */
	assert_true(mailer_paths_match("mm/", culprit));
	assert_true(mailer_paths_match("fs/\nmm/kasan", culprit));
	assert_true(mailer_paths_match("include/linux/mm*.h", culprit));
	assert_true(mailer_paths_match("fs/\nnet/\ninclude/linux/mm*.h", culprit));
	/* no match */
	assert_false(mailer_paths_match("fs/\nnet/", culprit));
	assert_false(mailer_paths_match("mmx/\nmm/slub.c\ninclude/linux/slab*.h", culprit));
	/* empty pattern lines are skipped, an empty list matches nothing */
	assert_true(mailer_paths_match("\n\nmm/\n", culprit));
	assert_false(mailer_paths_match("", culprit));
	assert_false(mailer_paths_match("\n", culprit));
	/* a culprit without files, or whose files are not known, matches no pattern */
	assert_false(mailer_paths_match("mm/", none));
	assert_false(mailer_paths_match("*", none));
	assert_false(mailer_paths_match("mm/", NULL));
	assert_false(mailer_paths_match("*", NULL));
}

static void test_subscription(void **state UNUSED)
{
	/* "" = any, for the metric and for the paths (files then do not matter) */
	assert_true(mailer_sub_match("", "", "will-it-scale.per_process_ops", NULL));
	assert_true(mailer_sub_match("", "", "will-it-scale.per_process_ops", culprit));
	assert_true(mailer_sub_match("will-it-scale.*", "", "will-it-scale.per_process_ops", NULL));
	assert_false(mailer_sub_match("hackbench.*", "", "will-it-scale.per_process_ops", culprit));
	/* with paths: the culprit's files decide */
	assert_true(mailer_sub_match("", "mm/", "will-it-scale.per_process_ops", culprit));
	assert_false(mailer_sub_match("", "mmx/", "will-it-scale.per_process_ops", culprit));
	assert_false(mailer_sub_match("", "mm/", "will-it-scale.per_process_ops", NULL));
	/* both must hold */
	assert_false(
		mailer_sub_match("hackbench.*", "mm/", "will-it-scale.per_process_ops", culprit));
	assert_true(mailer_sub_match("*per_process*", "include/linux/mm*.h",
				     "will-it-scale.per_process_ops", culprit));
}

/* Which configurations keep mail in the outbox, and the reason they give. */
static void test_hold_reason(void **state UNUSED)
{
	char smtp[] = "smtp://127.0.0.1:2525", none[] = "", dir[] = "/tmp/mail";
	char def[] = "regtrack <regtrack@localhost>", own[] = "perf bot <perf@example.org>";
	char url[] = "https://perf.example.org";
	struct config cfg = {
		.smtp_url = none, .mail_dry_run_dir = none, .mail_from = def, .public_url = url
	};
	char why[200];

	assert_int_equal(mailer_hold_reason(&cfg, why, sizeof(why)), 1);
	assert_string_equal(why, "held: smtp_url not set");
	/* a dry run writes files: the defaults reach nobody */
	cfg.mail_dry_run_dir = dir;
	assert_int_equal(mailer_hold_reason(&cfg, why, sizeof(why)), 0);
	cfg.mail_dry_run_dir = none;
	cfg.smtp_url = smtp;
	assert_int_equal(mailer_hold_reason(&cfg, why, sizeof(why)), 1);
	assert_string_equal(why, "held: mail_from is the default (regtrack@localhost) and "
				 "public_url not set");
	cfg.public_url_given = 1;
	assert_int_equal(mailer_hold_reason(&cfg, why, sizeof(why)), 1);
	assert_string_equal(why, "held: mail_from is the default (regtrack@localhost)");
	/* another name on the default address is still the default address */
	cfg.mail_from = (char[]){ "regtrack demo <REGTRACK@localhost>" };
	assert_int_equal(mailer_hold_reason(&cfg, why, sizeof(why)), 1);
	cfg.mail_from = own;
	assert_int_equal(mailer_hold_reason(&cfg, why, sizeof(why)), 0);
	cfg.public_url_given = 0;
	assert_int_equal(mailer_hold_reason(&cfg, why, sizeof(why)), 1);
	assert_string_equal(why, "held: public_url not set");
	/* given as the built-in value is still the default; another host or port is not */
	cfg.public_url_given = 1;
	cfg.public_url = (char[]){ "http://127.0.0.1:8080/" };
	assert_int_equal(mailer_hold_reason(&cfg, why, sizeof(why)), 1);
	assert_string_equal(why, "held: public_url is the default (http://127.0.0.1:8080)");
	cfg.public_url = (char[]){ "http://localhost:8080" };
	assert_int_equal(mailer_hold_reason(&cfg, why, sizeof(why)), 0);
	cfg.public_url = (char[]){ "http://127.0.0.1:80801" };
	assert_int_equal(mailer_hold_reason(&cfg, why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix),	      cmocka_unit_test(test_glob),
		cmocka_unit_test(test_empty_pattern), cmocka_unit_test(test_list),
		cmocka_unit_test(test_subscription),  cmocka_unit_test(test_hold_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
