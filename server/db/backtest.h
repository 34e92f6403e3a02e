#ifndef REGTRACK_SERVER_DB_BACKTEST_H
#define REGTRACK_SERVER_DB_BACKTEST_H

#include <stddef.h>

#include "err.h"

struct db_conn;

/*
 * The reads of a backtest (server/detect/backtest.h; statements in
 * db/backtest.c). Every one is a SELECT: run them in a read-only
 * transaction (db_begin_read_only()) so that the backtest sees one
 * snapshot and cannot write. Errors are the store's (db.h); every function
 * returns -1 with e filled on one.
 */

/* One setup a plan's jobs put runs into (ST_BACKTEST_SETUPS). */
struct db_backtest_setup {
	long long id;
	char *testcase, *params, *kconfig, *compiler, *tbox_group, *mode, *monitors;
	/* new copies; params is JSON object text; db_backtest_setups_free() */
};
/* The setups of plan `name`, by id: 0 with *rows a new array of *n, or -1. */
int db_backtest_setups(struct db_conn *c, const char *name, struct db_backtest_setup **rows,
		       size_t *n, struct err *e) __attribute__((warn_unused_result));
void db_backtest_setups_free(struct db_backtest_setup *rows, size_t n);

/* A stored regression record as a backtest scores it (ST_BACKTEST_RECORDS). */
struct db_backtest_record {
	long long id, metric_id, good_commit, bad_commit; /* commits.id */
	char state[16];					  /* regressions.state */
};
/*
 * Every record of setup_id, whatever its state or detected flag, by id: 0
 * with *rows a new array (free()) of *n, or -1.
 */
int db_backtest_records(struct db_conn *c, long long setup_id, struct db_backtest_record **rows,
			size_t *n, struct err *e) __attribute__((warn_unused_result));

/*
 * The commits of setup_id's runs dated on or after since (an RFC 3339
 * text; a commit's date is its commit_time, else when regtrack first saw
 * it): 0 with *ids a new array (free()) of *n, ascending, or -1.
 */
int db_backtest_since(struct db_conn *c, long long setup_id, const char *since, long long **ids,
		      size_t *n, struct err *e) __attribute__((warn_unused_result));

#endif
