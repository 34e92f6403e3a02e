/*
 * Test plans (server/track/plan.h has the plan's JSON):
 *   POST   /api/v1/plans (admin)            a new plan -> 201 the plan; 409 when it exists
 *   GET    /api/v1/plans                    every plan, by name
 *   GET    /api/v1/plans/{name}             one plan
 *   PUT    /api/v1/plans/{name} (admin)     create (201) or replace (200) it
 *   DELETE /api/v1/plans/{name} (admin)     204; its queued jobs are cancelled
 *   GET    /api/v1/plans/{name}/pushes[?limit=]  what each push queued and skipped, and why
 *   POST   /api/v1/plans/{name}/backtest (admin)  {"since", "set": {KEY: VALUE}}: what other
 *          detector settings would have alerted on the plan's history (server/detect/backtest.h);
 *          stores nothing. Run on the deferred pool (a plan may have many long series).
 *
 * Every field is checked (plan_normalize) with a 4xx naming it; a plan of
 * a tree that does not exist is 404 naming `tree`. A new or changed plan
 * makes its tree due for a poll: the first poll tests each branch's head.
 */
#include "server/api/api.h"
#include "server/api/args.h"
#include "server/detect/backtest.h"
#include "server/config.h"
#include "server/track/plan.h"
#include "server/track/poller.h"
#include "server/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * replies 200 with text, the JSON a plan read gave (got 1; taken), 404
 * naming the plan when none (got 0), or e (got -1)
 */
static enum MHD_Result reply_read(struct request *rq, int got, char *text, struct err *e,
				  const char *name)
{
	json_t *j;

	if (got < 0)
		return reply_err(rq, e);
	if (!got) {
		err_setc(e, ERR_NOT_FOUND, "name", "no plan '%s'", name);
		return reply_err(rq, e);
	}
	j = json_loads(text, 0, NULL);
	free(text);
	if (!j) {
		err_setc(e, ERR_INTERNAL, "", "plan JSON unreadable");
		return reply_err(rq, e);
	}
	return reply_json(rq, 200, j);
}

/* POST (create_only) and PUT (name from the path) */
static enum MHD_Result store(struct request *rq, const char *name, int create_only)
{
	struct err e;
	json_t *b = rq_json(rq, &e), *spec = NULL;
	enum db_plan_change change;
	struct db_conn *c;

	if (!b)
		return reply_err(rq, &e);
	if (plan_normalize(b, name, rq->srv->cfg->plan_max_jobs_per_push,
			   rq->srv->cfg->detect_window, &spec, &e))
		goto bad;
	c = rq_db(rq, &e);
	if (!c || plan_store(c, spec, create_only, &change, &e))
		goto bad;
	if (change != DB_PLAN_UNCHANGED)
		poller_kick(rq->srv->poller);
	json_decref(b);
	return reply_json(rq, change == DB_PLAN_CREATED ? 201 : 200, spec);
bad:
	json_decref(spec);
	json_decref(b);
	return reply_err(rq, &e);
}

enum MHD_Result api_plans_post(struct request *rq)
{
	return store(rq, NULL, 1);
}

enum MHD_Result api_plans_get(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);
	char *text = NULL;
	int got = c ? db_plans_json(c, &text, &e) : -1;

	return reply_read(rq, got, text, &e, "");
}

enum MHD_Result api_plan_get(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);
	char *text = NULL;
	int got = c ? db_plan_json(c, rq->path_params[0], &text, &e) : -1;

	return reply_read(rq, got, text, &e, rq->path_params[0]);
}

enum MHD_Result api_plan_put(struct request *rq)
{
	return store(rq, rq->path_params[0], 0);
}

enum MHD_Result api_plan_delete(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);
	long cancelled;
	int got = c ? db_plan_delete(c, rq->path_params[0], &cancelled, &e) : -1;

	if (got < 0)
		return reply_err(rq, &e);
	if (!got) {
		err_setc(&e, ERR_NOT_FOUND, "name", "no plan '%s'", rq->path_params[0]);
		return reply_err(rq, &e);
	}
	return reply_empty(rq, 204);
}

enum MHD_Result api_plan_pushes_get(struct request *rq)
{
	static const char *const no_states[] = { NULL };
	struct err e;
	const char *state;
	char limit[24];
	struct db_conn *c;
	char *text = NULL;
	int got;

	if (list_args(rq, no_states, 50, 1000, &state, limit, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	got = c ? db_plan_pushes_json(c, rq->path_params[0], limit, &text, &e) : -1;
	return reply_read(rq, got, text, &e, rq->path_params[0]);
}

/* the backtest, on a pool thread: the reply (or the error) left in rq->deferred */
static void backtest_run(struct request *rq)
{
	static const char *const keys[] = { "since", "set", NULL };
	struct err e;
	json_t *b = rq->body.len ? rq_json(rq, &e) : json_object(), *out = NULL;
	const char *since = NULL, *k;
	json_t *v;
	struct db_conn *c;

	if (!b)
		goto fail;
	json_object_foreach (b, k, v) {
		size_t i;

		for (i = 0; keys[i] && strcmp(keys[i], k); i++)
			;
		if (!keys[i]) {
			err_setc(&e, ERR_INVALID_FIELD, k, "unknown field '%.100s' (since, set)",
				 k);
			goto fail;
		}
	}
	if (json_str_field(b, "since", 0, 64, &since, &e))
		goto fail;
	v = json_object_get(b, "set");
	if (v && !json_is_null(v) && !json_is_object(v)) {
		err_setc(&e, ERR_INVALID_FIELD, "set", "'set' is an object of detector settings");
		goto fail;
	}
	c = rq_db(rq, &e);
	if (!c || backtest_plan(c, rq->srv->cfg, rq->path_params[0], since, v, &out, &e))
		goto fail;
	json_decref(b);
	rq->deferred_status = 200;
	rq->deferred = out;
	return;
fail:
	json_decref(b);
	rq->deferred_status = (unsigned)(e.status >= 400 && e.status <= 599 ? e.status : 500);
	rq->deferred = err_json(&e);
}

enum MHD_Result api_plan_backtest(struct request *rq)
{
	json_t *body;

	if (!rq->resumed) {
		if (!http_defer(rq, backtest_run))
			return MHD_YES;
		backtest_run(rq); /* no pool (stopping): here and now */
	}
	body = rq->deferred;
	rq->deferred = NULL;
	return reply_json(rq, rq->deferred_status, body);
}
