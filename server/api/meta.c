/*
 * GET /api/v1/machines, /api/v1/testcases, /api/v1/metrics[?prefix=],
 * PUT /api/v1/metrics/{name} (admin): set a metric's unit, direction
 * (higher_is_better) and monitor flag, overriding the name-pattern guess.
 */
#include "server/api/api.h"

#include <string.h>

#include "banned.h"

enum MHD_Result api_machines_get(struct request *rq)
{
	return reply_db_json(rq, ST_MACHINES_JSON, 0, NULL);
}

enum MHD_Result api_testcases_get(struct request *rq)
{
	return reply_db_json(rq, ST_TESTCASES_JSON, 0, NULL);
}

enum MHD_Result api_metrics_get(struct request *rq)
{
	const char *p[1] = { rq_arg(rq, "prefix") };
	return reply_db_json(rq, ST_METRICS_JSON, 1, p);
}

enum MHD_Result api_metric_put(struct request *rq)
{
	struct err e;
	json_t *body = rq_json(rq, &e), *unit, *hib, *mon;
	const char *p[4] = { rq->path_params[0], NULL, NULL, NULL };
	PGconn *c;
	PGresult *r;
	json_t *out;

	if (!body)
		return reply_err(rq, &e);
	unit = json_object_get(body, "unit");
	hib = json_object_get(body, "higher_is_better");
	mon = json_object_get(body, "is_monitor");
	if ((unit && !json_is_string(unit)) || (hib && !json_is_boolean(hib) && !json_is_null(hib)) ||
	    (mon && !json_is_boolean(mon))) {
		json_decref(body);
		return reply_errf(rq, 400, "invalid_field",
				  unit && !json_is_string(unit) ? "unit"
				  : mon && !json_is_boolean(mon) ? "is_monitor" : "higher_is_better",
				  "unit is a string; higher_is_better and is_monitor are booleans");
	}
	if (strlen(rq->path_params[0]) > 256) {
		json_decref(body);
		return reply_errf(rq, 400, "invalid_field", "name", "metric name too long");
	}
	p[1] = unit ? json_string_value(unit) : NULL;
	p[2] = hib && json_is_boolean(hib) ? (json_is_true(hib) ? "t" : "f") : NULL;
	p[3] = mon ? (json_is_true(mon) ? "t" : "f") : NULL;
	c = rq_db(rq, &e);
	r = c ? db_exec(c, ST_METRIC_SET, 4, p, &e) : NULL;
	json_decref(body);
	if (!r)
		return reply_err(rq, &e);
	out = json_pack("{s:s,s:s,s:o,s:b,s:s}", "name", PQgetvalue(r, 0, 0), "unit",
			PQgetvalue(r, 0, 1), "higher_is_better",
			PQgetisnull(r, 0, 2) ? json_null() : json_boolean(PQgetvalue(r, 0, 2)[0] == 't'),
			"is_monitor", PQgetvalue(r, 0, 3)[0] == 't', "source", PQgetvalue(r, 0, 4));
	PQclear(r);
	return reply_json(rq, 200, out);
}
