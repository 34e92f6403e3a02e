#ifndef REGTRACK_SERVER_DB_DETECT_EXPLAIN_H
#define REGTRACK_SERVER_DB_DETECT_EXPLAIN_H

/*
 * The reasons of the last detection of each series (sql/0023, statements in
 * db/detect_explain.c): what server/detect/detect_explain.c writes and the
 * series API reads. Errors are the store's (db.h) (ERR_DB, ERR_DB_UNAVAILABLE,
 * ERR_DB_TIMEOUT); each function returns -1 with e filled on one.
 */
#include <jansson.h>
#include <stddef.h>

#include "err.h"

struct db_conn;

/*
 * Replaces the reasons of the series of setup_id named in rows, a JSON
 * array (borrowed text) of {"m": metric id, "n": n_commits, "s": settings,
 * "c": candidates} (the shapes of settings and candidates are sql/0023's),
 * in one statement: a detection of a setup of M metrics writes once, not M
 * times. Each metric at most once. 0 or -1.
 */
int db_detect_explain_set(struct db_conn *c, long long setup_id, const char *rows, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The reasons of series (setup_id, metric name) as ST_DETECT_EXPLAIN_JSON
 * gives them: *out a new object (caller json_decref()s), or NULL when the
 * series was never detected. 0 or -1 (ERR_DB on JSON that does not parse).
 */
int db_detect_explain_json(struct db_conn *c, long long setup_id, const char *metric, json_t **out,
			   struct err *e) __attribute__((warn_unused_result));

#endif
