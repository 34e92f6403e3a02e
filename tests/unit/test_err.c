/*
 * lib/err: the code table (every code named, names distinct, a status an
 * HTTP reply can carry), what err_setc() and err_set() fill, and how long
 * texts are cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "attr.h"
#include "err.h"

static void test_table(void **state UNUSED)
{
	for (int i = 0; i < ERR_NR_CODES; i++) {
		const char *name = err_code_name((enum err_code)i);
		int status = err_code_status((enum err_code)i);

		assert_non_null(name);
		assert_true(*name);
		/* a name fits struct err's code and is [a-z_] */
		assert_true(strlen(name) < sizeof(((struct err *)0)->code));
		assert_int_equal(strspn(name, "abcdefghijklmnopqrstuvwxyz_"), strlen(name));
		assert_in_range(status, 100, 599);
		for (int j = 0; j < i; j++)
			if (!strcmp(name, err_code_name((enum err_code)j)))
				fail_msg("codes %d and %d are both named '%s'", j, i, name);
	}
	/* out of range: the generic code, never a crash */
	assert_string_equal(err_code_name(ERR_NR_CODES), "error");
	assert_int_equal(err_code_status(ERR_NR_CODES), 500);
}

/* The codes programs or tests act on, with the name and status they rely on. */
static void test_known_codes(void **state UNUSED)
{
	static const struct {
		enum err_code id;
		const char *name;
		int status;
	} known[] = {
		{ ERR_BUSY, "busy", 409 },
		{ ERR_CANCELLED, "cancelled", 503 },
		{ ERR_CONFIG, "config_invalid", 400 },
		{ ERR_INVALID_FIELD, "invalid_field", 400 },
		{ ERR_INVALID_JOB, "invalid_job", 400 },
		{ ERR_IO, "io_error", 500 },
		{ ERR_MISSING_FIELD, "missing_field", 400 },
		{ ERR_NOT_FOUND, "not_found", 404 },
		{ ERR_TOO_LARGE, "too_large", 413 },
		{ ERR_TORN, "torn", 500 },
		{ ERR_TRANSPORT, "transport", 502 },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		assert_string_equal(err_code_name(known[i].id), known[i].name);
		assert_int_equal(err_code_status(known[i].id), known[i].status);
	}
}

static void test_setc(void **state UNUSED)
{
	struct err e;

	memset(&e, 'x', sizeof(e));
	assert_int_equal(err_setc(&e, ERR_NOT_FOUND, "job_id", "no job %d", 7), -1);
	assert_int_equal(e.id, ERR_NOT_FOUND);
	assert_int_equal(e.status, 404);
	assert_string_equal(e.code, "not_found");
	assert_string_equal(e.detail, "job_id");
	assert_string_equal(e.message, "no job 7");

	/* NULL detail is empty; NULL e only returns -1 */
	assert_int_equal(err_setc(&e, ERR_IO, NULL, "cannot read '%s'", "f"), -1);
	assert_int_equal(e.id, ERR_IO);
	assert_int_equal(e.status, 500);
	assert_string_equal(e.code, "io_error");
	assert_string_equal(e.detail, "");
	assert_string_equal(e.message, "cannot read 'f'");
	assert_int_equal(err_setc(NULL, ERR_IO, "d", "m"), -1);

	err_clear(&e);
	assert_int_equal(e.id, ERR_NONE);
	assert_int_equal(e.status, 0);
	assert_string_equal(e.code, "");
	assert_string_equal(e.message, "");
	assert_string_equal(e.detail, "");
}

/* a peer's code and status, as they came: no id */
static void test_set_peer(void **state UNUSED)
{
	struct err e;

	err_setc(&e, ERR_IO, "x", "y");
	assert_int_equal(err_set(&e, 418, "teapot", "pot", "%s: %s", "lease", "short"), -1);
	assert_int_equal(e.id, ERR_NONE);
	assert_int_equal(e.status, 418);
	assert_string_equal(e.code, "teapot");
	assert_string_equal(e.detail, "pot");
	assert_string_equal(e.message, "lease: short");
	assert_int_equal(err_set(&e, 502, NULL, NULL, "m"), -1);
	assert_string_equal(e.code, "error");
	assert_string_equal(e.detail, "");
	assert_int_equal(err_set(NULL, 500, "c", "d", "m"), -1);
}

static void test_truncation(void **state UNUSED)
{
	struct err e;
	char big[1024];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	err_setc(&e, ERR_INVALID_FIELD, big, "%s", big);
	assert_int_equal(strlen(e.detail), sizeof(e.detail) - 1);
	assert_int_equal(strlen(e.message), sizeof(e.message) - 1);
	assert_int_equal(strncmp(e.message, big, sizeof(e.message) - 1), 0);
	assert_string_equal(e.code, "invalid_field");

	err_set(&e, 400, big, big, "%s-%s", big, big);
	assert_int_equal(strlen(e.code), sizeof(e.code) - 1);
	assert_int_equal(strlen(e.detail), sizeof(e.detail) - 1);
	assert_int_equal(strlen(e.message), sizeof(e.message) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),	   cmocka_unit_test(test_known_codes),
		cmocka_unit_test(test_setc),	   cmocka_unit_test(test_set_peer),
		cmocka_unit_test(test_truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
