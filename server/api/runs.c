/* GET /api/v1/runs/{run_id} (one run with its values), GET /api/v1/runs (the newest) */
#include "server/api/api.h"
#include "server/jsonout.h"
#include "server/api/args.h"
#include "server/db/runs.h"
#include "server/jsonout.h"
#include "resultdoc.h"
#include "xalloc.h"

#include <string.h>

static void set_text(json_t *o, const char *key, const char *v)
{
	json_object_set_new(o, key, v ? json_string(v) : json_null());
}

enum MHD_Result api_run_get(struct request *rq)
{
	const char *run_id = rq->path_params[0];
	struct err e;
	struct db_run r;
	struct db_conn *c;
	json_t *o, *metrics, *params;
	struct buf out = BUF_INIT(0);
	char *anon_extra = NULL;
	const char *extra;
	int found, over;

	if (!is_uuid(run_id)) {
		err_setc(&e, ERR_INVALID_FIELD, "run_id", "'%s' is not a UUID", run_id);
		return reply_err(rq, &e);
	}
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	found = db_run_get(c, run_id, &r, &e);
	if (found < 0)
		return reply_err(rq, &e);
	if (!found) {
		err_setc(&e, ERR_NOT_FOUND, "run_id", "no run '%s'", run_id);
		return reply_err(rq, &e);
	}
	o = json_object();
	set_text(o, "run_id", r.run_id);
	set_text(o, "commit", r.commit);
	set_text(o, "commit_subject", r.commit_subject);
	set_text(o, "testcase", r.testcase);
	params = json_loads(r.params, 0, NULL);
	json_object_set_new(o, "params", params ? params : json_object());
	set_text(o, "kconfig", r.kconfig);
	set_text(o, "compiler", r.compiler);
	set_text(o, "tbox_group", r.tbox_group);
	set_text(o, "mode", r.mode);
	json_object_set_new(o, "monitors", monitors_json(r.monitors));
	json_object_set_new(o, "has_profile", json_boolean(r.has_profile));
	set_text(o, "status", r.status);
	set_text(o, "started_at", r.started_at);
	json_object_set_new(o, "duration_s", json_num(r.duration_s));
	set_text(o, "branch", r.branch);
	set_text(o, "tree", r.tree);
	json_object_set_new(o, "job_id", r.job_id ? json_integer(r.job_id) : json_null());
	set_text(o, "received_at", r.received_at);
	json_object_set_new(o, "machine",
			    json_pack("{s:o,s:o}", "hostname",
				      r.hostname ? json_string(r.hostname) : json_null(), "arch",
				      r.arch ? json_string(r.arch) : json_null()));
	metrics = json_object();
	for (size_t i = 0; i < r.nr_metrics; i++) {
		json_t *vals = json_loads(r.metrics[i].values, 0, NULL);

		json_object_set_new(metrics, r.metrics[i].name, vals ? vals : json_array());
	}
	json_object_set_new(o, "metrics", metrics);
	/*
	 * "mean": retention dropped the raw values of the run's month, each
	 * metric's one value is the run's mean (not one iteration); "raw":
	 * every replicate as posted
	 */
	json_object_set_new(o, "values_kept", json_string(r.means_only ? "mean" : "raw"));
	set_text(o, "raw_dropped_at", r.raw_dropped_at);
	/*
	 * The fields without a column go out as PostgreSQL stored them, not
	 * parsed again for each request (they are bounded at ingest, but a
	 * run is read far more often than it is written).
	 */
	if (jsonout_json(&out, o) || out.len < 2) {
		json_decref(o);
		db_run_free(&r);
		buf_release(&out);
		return reply_errc(rq, ERR_INTERNAL, "run_id", "run '%s' could not be encoded",
				  run_id);
	}
	out.len--; /* the closing brace */
	/* without a token, no host fingerprint (README "Security: what is public") */
	if (!rq->scope && r.extra && strstr(r.extra, "\"host_fingerprint\"")) {
		json_t *x = json_loads(r.extra, 0, NULL);

		if (!x)
			anon_extra = xstrdup("{}");
		else if (!json_object_del(x, "host_fingerprint") &&
			 !(anon_extra = json_dumps(x, JSON_COMPACT)))
			anon_extra = xstrdup("{}");
		json_decref(x);
	}
	extra = anon_extra ? anon_extra : r.extra && *r.extra ? r.extra : "{}";
	over = buf_addf(&out, ",\"extra\":%s}\n", extra);
	free(anon_extra);
	json_decref(o);
	db_run_free(&r);
	if (over) {
		buf_release(&out);
		return reply_errc(rq, ERR_TOO_LARGE, "run_id", "run '%s' is too large to send",
				  run_id);
	}
	return reply_text_buf(rq, 200, "application/json", &out);
}

/* GET /api/v1/runs[?limit=] (default 20, at most 500): the newest runs, newest first */
enum MHD_Result api_runs_get(struct request *rq)
{
	static const char *const no_states[] = { NULL };
	struct err e;

	if (rq_arg(rq, "state")) {
		err_setc(&e, ERR_INVALID_FIELD, "state", "runs have no state filter");
		return reply_err(rq, &e);
	}
	return reply_list(rq, no_states, 20, 500, db_runs_recent_json);
}
