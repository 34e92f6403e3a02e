/*
 * GET /api/v1/machines, /api/v1/testcases, /api/v1/metrics[?prefix=],
 * PUT /api/v1/metrics/{name} (admin): set a metric's unit, direction
 * (higher_is_better) and monitor flag, overriding the name-pattern guess.
 */
#include "server/api/api.h"
#include "jsonkeys.h"
#include "server/db/meta.h"

#include <string.h>

enum MHD_Result api_machines_get(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);
	char *text = NULL;

	return reply_db_read(rq, c ? db_machines_json(c, &text, &e) : -1, &text, &e);
}

enum MHD_Result api_testcases_get(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);
	char *text = NULL;

	return reply_db_read(rq, c ? db_testcases_json(c, &text, &e) : -1, &text, &e);
}

enum MHD_Result api_metrics_get(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);
	char *text = NULL;

	return reply_db_read(rq, c ? db_metrics_json(c, rq_arg(rq, "prefix"), &text, &e) : -1,
			     &text, &e);
}

static const char *const metric_keys[] = { "unit", "higher_is_better", "is_monitor", NULL };

enum MHD_Result api_metric_put(struct request *rq)
{
	struct err e;
	json_t *body = rq_json(rq, &e), *unit, *hib, *mon;
	const char *p[4] = { rq->path_params[0], NULL, NULL, NULL };
	struct db_conn *c;
	struct db_metric m;
	json_t *out;
	int set;

	if (!body)
		return reply_err(rq, &e);
	if (json_keys_only(body, metric_keys, "", &e)) {
		json_decref(body);
		return reply_err(rq, &e);
	}
	unit = json_object_get(body, "unit");
	hib = json_object_get(body, "higher_is_better");
	mon = json_object_get(body, "is_monitor");
	if ((unit && !json_is_string(unit)) ||
	    (hib && !json_is_boolean(hib) && !json_is_null(hib)) ||
	    (mon && !json_is_boolean(mon))) {
		/* unit and mon are borrowed from body: name the field first */
		err_setc(&e, ERR_INVALID_FIELD,
			 unit && !json_is_string(unit) ? "unit" :
			 mon && !json_is_boolean(mon)  ? "is_monitor" :
							 "higher_is_better",
			 "unit is a string; higher_is_better and is_monitor are booleans");
		json_decref(body);
		return reply_err(rq, &e);
	}
	if (strlen(rq->path_params[0]) > 256) {
		json_decref(body);
		err_setc(&e, ERR_INVALID_FIELD, "name", "metric name too long");
		return reply_err(rq, &e);
	}
	p[1] = unit ? json_string_value(unit) : NULL;
	p[2] = hib && json_is_boolean(hib) ? (json_is_true(hib) ? "t" : "f") : NULL;
	p[3] = mon ? (json_is_true(mon) ? "t" : "f") : NULL;
	c = rq_db(rq, &e);
	set = c ? db_metric_set(c, p[0], p[1], p[2], p[3], &m, &e) : -1;
	json_decref(body);
	if (set)
		return reply_err(rq, &e);
	out = json_pack("{s:s,s:s,s:o,s:b,s:s}", "name", m.name, "unit", m.unit, "higher_is_better",
			m.higher_is_better < 0 ? json_null() : json_boolean(m.higher_is_better),
			"is_monitor", m.is_monitor, "source", m.source);
	db_metric_free(&m);
	return reply_json(rq, 200, out);
}
