/*
 * Unit tests of server/config.c's config_derive(): a public_url nobody gave
 * follows listen, so that a second server's links point at itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/config.h"

/* public_url after listen = `listen` (and public_url = `given` when not NULL) */
static void derived(const char *listen, const char *given, const char *want)
{
	struct config c;
	struct err e;

	config_init(&c);
	assert_int_equal(config_set(&c, "listen", listen, &e), 0);
	if (given)
		assert_int_equal(config_set(&c, "public_url", given, &e), 0);
	config_derive(&c);
	assert_string_equal(c.public_url, want);
	config_release(&c);
}

static void public_url_follows_listen(void **state)
{
	(void)state;
	derived("127.0.0.1:8080", NULL, "http://127.0.0.1:8080");
	derived("127.0.0.1:8081", NULL, "http://127.0.0.1:8081");
	derived("perf.lab:9000", NULL, "http://perf.lab:9000");
	derived("0.0.0.0:8090", NULL, "http://127.0.0.1:8090");
	derived("[::]:8091", NULL, "http://127.0.0.1:8091");
	derived("[::1]:8092", NULL, "http://[::1]:8092");
	/* port 0 is chosen at bind time: the default stays */
	derived("127.0.0.1:0", NULL, "http://127.0.0.1:8080");
	/* given, it is kept whatever listen says */
	derived("127.0.0.1:8081", "https://perf.example.org", "https://perf.example.org");
}

static void public_url_from_a_file_is_kept(void **state)
{
	char path[] = "/tmp/regtrack-config-XXXXXX";
	int fd = mkstemp(path);
	struct config c;
	struct err e;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "public_url = https://perf.example.org\n", 38), 38);
	close(fd);
	config_init(&c);
	assert_int_equal(config_load_file(&c, path, &e), 0);
	assert_int_equal(config_set(&c, "listen", "127.0.0.1:8081", &e), 0);
	config_derive(&c);
	assert_string_equal(c.public_url, "https://perf.example.org");
	config_release(&c);
	unlink(path);
}

/* an A/B request's notify: only addresses at the configured domains, nothing that bends a header */
static void notify_domains(void **state)
{
	const char *d = "example.org, Lists.Example.Net";

	(void)state;
	assert_int_equal(config_mail_domain_ok(d, "dev@example.org"), 1);
	assert_int_equal(config_mail_domain_ok(d, "dev@EXAMPLE.org"), 1);
	assert_int_equal(config_mail_domain_ok(d, "list@lists.example.net"), 1);
	assert_int_equal(config_mail_domain_ok(d, "dev@evil.example"), 0);
	assert_int_equal(config_mail_domain_ok(d, "dev@example.org.evil.example"), 0);
	assert_int_equal(config_mail_domain_ok(d, "dev@sub.example.org"), 0);
	assert_int_equal(config_mail_domain_ok(d, "dev@example.or"), 0);
	assert_int_equal(config_mail_domain_ok(d, "a@evil.example@example.org"), 0);
	assert_int_equal(config_mail_domain_ok(d, "a@evil.example,b@example.org"), 0);
	assert_int_equal(config_mail_domain_ok(d, "a@example.org\r\nBcc: x@evil.example"), 0);
	assert_int_equal(config_mail_domain_ok(d, "<a@example.org>"), 0);
	assert_int_equal(config_mail_domain_ok(d, "@example.org"), 0);
	assert_int_equal(config_mail_domain_ok(d, "dev@"), 0);
	/* none configured: none allowed */
	assert_int_equal(config_mail_domain_ok("", "dev@example.org"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(public_url_follows_listen),
		cmocka_unit_test(public_url_from_a_file_is_kept),
		cmocka_unit_test(notify_domains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
