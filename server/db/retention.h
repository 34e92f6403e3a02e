#ifndef REGTRACK_SERVER_DB_RETENTION_H
#define REGTRACK_SERVER_DB_RETENTION_H

#include "err.h"

struct db_conn;

/*
 * One pass of partition upkeep and retention on the primary (sql/0034):
 * makes the month partitions of run_values and run_means from this month
 * through two months ahead (and any month a default partition holds rows
 * of), then, when raw_days > 0, summarises every month of run_values that
 * ended more than raw_days UTC days ago (each row keeps its mean as its one
 * value). Sets *made to the partitions made and *summarised to the months
 * summarised (both may be NULL). Returns 0, or -1 with e (ERR_DB when
 * PostgreSQL refused, ERR_DB_UNAVAILABLE when the connection broke). c is
 * borrowed and must be outside a transaction.
 */
int db_retention(struct db_conn *c, long raw_days, long long *made, long long *summarised,
		 struct err *e) __attribute__((warn_unused_result));

#endif
