/*
 * Unit tests of the statement tables (server/db/stmts.c): every subject's
 * statements, defined beside their readers, prepared on each connection.
 * db_new() aborts when db_stmts_check() finds a gap or a name used twice;
 * here the tables as built pass it, and each name finds its own entry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "attr.h"
#include "server/db/db_int.h"

static void test_tables_as_built(void **state UNUSED)
{
	const struct db_stmt_table *t;
	size_t tables = 0, stmts = 0;

	assert_null(db_stmts_check());
	for (size_t k = 0; (t = db_subject_table(k)); k++, tables++)
		for (int i = 0; i < t->n; i++, stmts++) {
			assert_non_null(t->defs[i].name);
			assert_non_null(t->defs[i].sql);
			/* a name finds its own entry: no other table has it */
			assert_ptr_equal(db_stmt_by_name(t->defs[i].name), &t->defs[i]);
		}
	/* the subjects of server/db/ (stmts.c's list), each with statements */
	assert_true(tables >= 30);
	assert_true(stmts >= 250);
}

static void test_by_name(void **state UNUSED)
{
	const struct db_stmt_def *d = db_stmt_by_name("series");

	assert_non_null(d);
	assert_string_equal(d->name, "series");
	assert_ptr_equal(strstr(d->sql, "SELECT r.setup_id, r.commit_id, r.id, r.run_id"), d->sql);
	assert_non_null(db_stmt_by_name("job_lease"));
	assert_null(db_stmt_by_name("no_such_statement"));
	assert_null(db_stmt_by_name(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_as_built),
		cmocka_unit_test(test_by_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
