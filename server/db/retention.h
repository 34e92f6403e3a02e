#ifndef REGTRACK_SERVER_DB_RETENTION_H
#define REGTRACK_SERVER_DB_RETENTION_H

#include "err.h"

struct db_conn;

/*
 * One pass of partition upkeep and retention on the primary (sql/0034,
 * sql/0039): makes the month partitions of run_values and run_means from
 * this month through two months ahead (and any month run_means' default
 * partition holds rows of); then, when raw_days > 0 and no other pass holds
 * the retention lock, drops every month of run_values that ended more than
 * raw_days UTC days ago: recorded in run_values_dropped (from then on its
 * runs are read from run_means, sql/0039 run_points()), detached
 * CONCURRENTLY and dropped, and finishes any month an earlier pass left
 * half done. Sets *made to the partitions made and *dropped to the months
 * dropped (both may be NULL). Returns 0, or -1 with e (ERR_DB when
 * PostgreSQL refused, ERR_DB_UNAVAILABLE when the connection broke); a
 * month left half done is finished by the next pass. c is borrowed and
 * must be outside a transaction; the detach waits for the queries that
 * still read the month (under c's statement_timeout).
 */
int db_retention(struct db_conn *c, long raw_days, long long *made, long long *dropped,
		 struct err *e) __attribute__((warn_unused_result));

#endif
