#ifndef REGTRACK_SERVER_DB_META_H
#define REGTRACK_SERVER_DB_META_H

/*
 * Typed reads of the server's small facts: the database's health, a
 * metric's properties (api/health.c, api/meta.c). Statements beside them
 * in db/meta.c. Errors are the store's (db.h): ERR_DB_UNAVAILABLE (503),
 * ERR_CONFLICT (409), ERR_DB (500).
 */

#include "err.h"
#include "server/db/db.h"

/* SELECT 1 (ST_HEALTH): 0 when the database answers, -1 with e. */
int db_health(struct db_conn *c, struct err *e) __attribute__((warn_unused_result));

/* A metric's properties as stored (ST_METRIC_SET's RETURNING). */
struct db_metric {
	const char *name, *unit; /* unit "" when none */
	int higher_is_better;	 /* 1, 0, or -1 when not known */
	int is_monitor;		 /* 1 or 0 */
	const char *source;	 /* "api", "registry", ... */
	struct db_result *res_;	 /* the row the strings point into */
};

/*
 * Sets metric name's unit, direction and monitor flag (creating the
 * metric when new); each of unit, hib, mon NULL keeps what is stored
 * (hib and mon "t" or "f"). 0 and *out, the row as stored now (until
 * db_metric_free()), or -1 with e.
 */
int db_metric_set(struct db_conn *c, const char *name, const char *unit, const char *hib,
		  const char *mon, struct db_metric *out, struct err *e)
	__attribute__((warn_unused_result));
void db_metric_free(struct db_metric *m);

/*
 * The tracking gauges of GET /metrics (ST_TRACK_GAUGES) appended to b as
 * Prometheus text: per target (label tbox_group: the job's tbox_group,
 * else "arch:ARCH", else "any") regtrack_queue_depth,
 * regtrack_queue_depth_tracking and regtrack_jobs_running; per tree
 * (label tree) regtrack_tree_polls_total, _poll_duration_seconds,
 * _poll_age_seconds, _poll_failures and _next_poll_seconds, each with its
 * HELP and TYPE lines. 0 or -1 with e (b unchanged on an error).
 */
struct buf;
int db_track_gauges(struct db_conn *c, struct buf *b, struct err *e)
	__attribute__((warn_unused_result));

/*
 * GET /api/v1/machines (db_machines_json()), /api/v1/testcases
 * (db_testcases_json()) and /api/v1/metrics (db_metrics_json(): names
 * starting with prefix, NULL: all).
 * As the public API's JSON, written by PostgreSQL's json functions (the
 * handler writes it again, compact): 0 and *text, a new NUL-terminated
 * string the caller free()s, or -1 with e: ERR_NOT_FOUND (404, detail
 * "id") when there is no row, else the store's errors (db.h).
 */
int db_machines_json(struct db_conn *c, char **text, struct err *e)
	__attribute__((warn_unused_result));
int db_testcases_json(struct db_conn *c, char **text, struct err *e)
	__attribute__((warn_unused_result));
int db_metrics_json(struct db_conn *c, const char *prefix, char **text, struct err *e)
	__attribute__((warn_unused_result));

#endif
