/*
 * The alert-quality ledger (server/detect/quality.h has the definitions):
 *   GET /api/v1/quality[?days=N | ?since=DATE][&plan=&testcase=&metric=&tbox_group=]
 *       the records first detected in the window (default the last 90
 *       days; since: YYYY-MM-DD or RFC 3339, up to now) counted by what
 *       their state says of the alert: precision overall and per plan,
 *       testcase, metric and tbox_group (and per their combination), and
 *       false alarms per week per plan. Filters are exact names. Unknown
 *       arguments and bad values: 400 naming the argument.
 */
#include "server/api/api.h"
#include "server/api/args.h"
#include "server/db/quality.h"
#include "server/detect/quality.h"
#include "resultdoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DAYS_DEFAULT 90
#define DAYS_MAX 3650
#define NAME_MAX_LEN 200

static const char *const known_args[] = { "days",   "since",	  "plan", "testcase",
					  "metric", "tbox_group", NULL };
/* the filters, in struct db_quality_query's order */
static const char *const filter_args[] = { "plan", "testcase", "metric", "tbox_group" };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The window and filters from the query; 0, or -1 with e (400 naming the argument). */
static int quality_args(struct request *rq, struct db_quality_query *q, struct err *e)
{
	const char *days_s, *since_s,
		**filters[4] = { &q->plan, &q->testcase, &q->metric, &q->tbox_group };
	long long days = DAYS_DEFAULT;

	/* an argument not in known_args is refused before (route_args.h) */
	for (size_t i = 0; known_args[i]; i++) {
		const char *v = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND,
							    known_args[i]);
		if (v && (!*v || strlen(v) > NAME_MAX_LEN))
			return err_setc(e, ERR_INVALID_FIELD, known_args[i],
					"'%s' must be a non-empty value of at most %d bytes",
					known_args[i], NAME_MAX_LEN);
	}
	for (size_t i = 0; i < 4; i++)
		*filters[i] = rq_arg(rq, filter_args[i]);
	days_s = rq_arg(rq, "days");
	since_s = rq_arg(rq, "since");
	q->until = now_s();
	if (days_s && since_s)
		return err_setc(e, ERR_INVALID_FIELD, "days", "give 'days' or 'since', not both");
	if (since_s) {
		if (date_or_rfc3339_seconds(since_s, &q->since))
			return err_setc(e, ERR_INVALID_FIELD, "since",
					"'since' must be a date (YYYY-MM-DD) or an RFC 3339 time, "
					"not '%s'",
					since_s);
		if (q->since >= q->until || q->until - q->since > DAYS_MAX * 86400.0)
			return err_setc(e, ERR_INVALID_FIELD, "since",
					"'since' must lie in the past, at most %d days back",
					DAYS_MAX);
		return 0;
	}
	if (days_s) {
		char *end;

		errno = 0;
		days = strtoll(days_s, &end, 10);
		if (errno || end == days_s || *end || days < 1 || days > DAYS_MAX)
			return err_setc(e, ERR_INVALID_FIELD, "days",
					"'days' must be an integer in [1, %d], not '%s'", DAYS_MAX,
					days_s);
	}
	q->since = q->until - (double)days * 86400.0;
	return 0;
}

enum MHD_Result api_quality_get(struct request *rq)
{
	struct db_quality_query q;
	struct db_quality rows;
	struct err e;
	json_t *o, *f;
	struct db_conn *c;

	memset(&q, 0, sizeof(q));
	if (quality_args(rq, &q, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	if (db_quality_read(c, &q, &rows, &e)) {
		db_quality_release(&rows);
		return reply_err(rq, &e);
	}
	o = quality_json(rows.rows, rows.nr, q.since, q.until);
	db_quality_release(&rows);
	f = json_object();
	json_object_set_new(f, "plan", q.plan ? json_string(q.plan) : json_null());
	json_object_set_new(f, "testcase", q.testcase ? json_string(q.testcase) : json_null());
	json_object_set_new(f, "metric", q.metric ? json_string(q.metric) : json_null());
	json_object_set_new(f, "tbox_group",
			    q.tbox_group ? json_string(q.tbox_group) : json_null());
	json_object_set_new(o, "filters", f);
	return reply_json(rq, 200, o);
}
