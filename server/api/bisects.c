/*
 * Bisects:
 *   POST /api/v1/bisects (submit)      {tree, good, bad, testcase, params, kconfig, compiler,
 *                                       tbox_group or arch, metric, [runs_per_step, ref_runs, k,
 *                                       regression_id, monitors]} -> 201 {id, state, regression_id}
 *     testcase and params checked against the workers' tables as a job's (casecheck.h),
 *     the machine shape in its one spelling as results store it (vmspec_canonical()),
 *     vcpus its arch's qemu machine takes (vmspec_arch_check()); kconfig host: no
 *     accel..numa nor measure icount (a job's 400) but for a host setup stored so;
 *     linked to a regression: the one named (404 when none, 409 when it has a
 *     bisect), else the regression without a bisect of the same range, testcase,
 *     metric and setup, if any; it goes to `bisecting` with a history note
 *     monitors: those of the profile round (default ["perf-profile"], [] = none): once the
 *     first bad commit is found, it and its parent get profiled runs (bisect_step.c), which
 *     GET /api/v1/bisects/{id}/profile-diff compares; the runs that decide stay unprofiled
 *   GET  /api/v1/bisects[?state=&limit=] newest first, without steps
 *   GET  /api/v1/bisects/{id}           state, range, steps, first bad commit, confidence, cost
 *   POST /api/v1/bisects/{id}/cancel (submit)
 *   POST /api/v1/regressions/{id}/bisect (admin)  "bisect now": a bisect of the regression's
 *                                      own range, setup and metric, linked to it -> 201
 *                                      {id, state, regression_id}; 404 no regression, 409
 *                                      it has a bisect
 * The work happens in the coordinator thread (bisect.h).
 */
#include "server/api/api.h"
#include "arch.h"
#include "names.h"
#include "server/api/args.h"
#include "server/bisect/bisect.h"
#include "server/bisect/bisect_coord.h"
#include "server/track/casecheck.h"
#include "server/db/bisects.h"
#include "server/db/series.h"
#include "server/detect/regressions.h"
#include "resultdoc.h"
#include "vmspec.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* an int field of the body (json_int_field within int bounds) */
static int get_int(json_t *o, const char *key, long long def, long long min, long long max,
		   int *out, struct err *e)
{
	long long v;

	if (json_int_field(o, key, def, min, max, &v, e))
		return -1;
	*out = (int)v;
	return 0;
}

/*
 * A name field (names_plain(): tree, testcase, kconfig, compiler, arch,
 * tbox_group) or, with metric set, a metric name, which may also hold
 * ':' '/' '%' '@' (LKP's "MB/sec", "cycles-pp.x@plt").
 */
static int check_name(const char *key, const char *s, size_t max, int metric, struct err *e)
{
	if (!s)
		return 0;
	if (!metric) {
		if (!names_plain(s, max))
			return err_setc(e, ERR_INVALID_FIELD, key,
					"'%s' must be 1..%zu characters of [A-Za-z0-9._+-], "
					"the first a letter, a digit or '_'",
					key, max);
		return 0;
	}
	if (!*s || strlen(s) > max)
		return err_setc(e, ERR_INVALID_FIELD, key, "'%s' must be 1..%zu characters", key,
				max);
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._+-:/%@", *p))
			return err_setc(e, ERR_INVALID_FIELD, key,
					"'%s' has a character not allowed", key);
	return 0;
}

/*
 * s->regression_id: reg (> 0), checked: it exists and has no bisect; else
 * (reg 0) the regression of s's range and setup without a bisect, or 0
 */
static int link_regression(struct db_conn *c, struct bisect_spec *s, long long reg, struct err *e)
{
	long long has;

	if (reg) {
		if (db_regression_bisect_of(c, reg, &has, e) < 0)
			return e->id == ERR_NOT_FOUND ? err_setc(e, ERR_NOT_FOUND, "regression_id",
								 "no regression %lld", reg) :
							-1;
		if (has)
			return err_setc(e, ERR_CONFLICT, "regression_id",
					"regression %lld has bisect %lld already", reg, has);
		s->regression_id = reg;
		return 0;
	}
	{
		const struct db_bisect_reg_key k = {
			.good = s->good,
			.bad = s->bad,
			.testcase = s->testcase,
			.metric = s->metric,
			.kconfig = s->kconfig,
			.compiler = s->compiler ? s->compiler : "gcc-12",
			.tbox_group = s->tbox_group,
			.params = s->params,
		};

		if (db_bisect_regression_match(c, &k, &has, e) < 0) {
			if (e->id != ERR_NOT_FOUND)
				return -1;
			has = 0;
		}
	}
	s->regression_id = has;
	return 0;
}

/*
 * Host mode (kconfig "host") has no guest to shape and measures wall-clock
 * time: params (borrowed) naming accel..numa, or measure "icount", are the
 * 400 a host job with them gets (vmspec_host_job_check()); but
 * for a host setup of testcase stored with those very params, key (their
 * one spelling) or given (as posted), which is bisected as stored (the runs
 * of host jobs queued before jobs were checked). 0, or -1 with e.
 */
static int host_shape(struct db_conn *c, const char *testcase, const json_t *params,
		      const char *given, const char *key, struct err *e)
{
	struct err dbe;
	int stored;

	if (!vmspec_host_job_check(params, "", e))
		return 0;
	stored = db_setup_stored(c, testcase, "host", key, &dbe);
	if (!stored && strcmp(given, key))
		stored = db_setup_stored(c, testcase, "host", given, &dbe);
	if (stored < 0)
		*e = dbe;
	return stored == 1 ? 0 : -1;
}

enum MHD_Result api_bisects_post(struct request *rq)
{
	struct err e;
	json_t *b = rq_json(rq, &e), *params;
	struct bisect_spec s;
	char *ptext = NULL, *given = NULL, monitors[MONITORS_TEXT_MAX];
	struct db_conn *c = NULL;
	long long id, reg;
	enum MHD_Result ret;
	int in_tx = 0;
	struct casecheck cc = { 0 };

	if (!b)
		return reply_err(rq, &e);
	memset(&s, 0, sizeof(s));
	if (json_str_field(b, "tree", 1, 4096, &s.tree, &e) ||
	    json_str_field(b, "good", 1, 4096, &s.good, &e) ||
	    json_str_field(b, "bad", 1, 4096, &s.bad, &e) ||
	    json_str_field(b, "testcase", 1, 4096, &s.testcase, &e) ||
	    json_str_field(b, "kconfig", 1, 4096, &s.kconfig, &e) ||
	    json_str_field(b, "compiler", 0, 4096, &s.compiler, &e) ||
	    json_str_field(b, "arch", 0, 4096, &s.arch, &e) ||
	    json_str_field(b, "tbox_group", 0, 4096, &s.tbox_group, &e) ||
	    json_str_field(b, "metric", 1, 4096, &s.metric, &e) ||
	    get_int(b, "runs_per_step", 5, 1, 100, &s.runs_per_step, &e) ||
	    get_int(b, "ref_runs", 10, 2, 100, &s.ref_runs, &e) ||
	    get_int(b, "k", 0, 0, 64, &s.k, &e) ||
	    json_int_field(b, "regression_id", 0, 1, (1LL << 62), &reg, &e))
		goto bad;
	if (check_name("tree", s.tree, 128, 0, &e) ||
	    check_name("testcase", s.testcase, 128, 0, &e) ||
	    check_name("kconfig", s.kconfig, 128, 0, &e) ||
	    check_name("compiler", s.compiler, 128, 0, &e) ||
	    check_name("arch", s.arch, 32, 0, &e) ||
	    check_name("tbox_group", s.tbox_group, 128, 0, &e) ||
	    check_name("metric", s.metric, 256, 1, &e))
		goto bad;
	if (!names_full_sha(s.good) || !names_full_sha(s.bad)) {
		err_setc(&e, ERR_INVALID_FIELD, names_full_sha(s.good) ? "bad" : "good",
			 "'good' and 'bad' must be full 40-digit lowercase hex shas");
		goto bad;
	}
	if (!strcmp(s.good, s.bad)) {
		err_setc(&e, ERR_INVALID_FIELD, "bad", "'good' and 'bad' are the same commit");
		goto bad;
	}
	if (s.arch && strcmp(s.arch, "x86_64") && strcmp(s.arch, "aarch64")) {
		err_setc(&e, ERR_INVALID_FIELD, "arch", "arch is x86_64 or aarch64");
		goto bad;
	}
	params = json_object_get(b, "params");
	if (params && !json_is_null(params) && params_check(params, &e))
		goto bad;
	if (json_is_null(params))
		params = NULL;
	/* a kernel bisect's probes boot its arch's qemu machine: vcpus it takes */
	if (strcmp(s.kconfig, "host") &&
	    vmspec_arch_check(params, s.arch ? s.arch : arch_of_kconfig(s.kconfig), "", &e))
		goto bad;
	given = params ? json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS) : xstrdup("{}");
	/* the shape as results store it (vmspec.h): pin "true" finds the regression of pin true */
	if (vmspec_canonical(params, "", &e))
		goto bad;
	/* the profile round's monitors (bisect_step.c); absent: the default, perf-profile */
	if (json_object_get(b, "monitors")) {
		if (monitors_from_json(json_object_get(b, "monitors"), "monitors", monitors, &e))
			goto bad;
		s.monitors = monitors;
	}
	ptext = params ? json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS) : xstrdup("{}");
	s.params = ptext;
	s.token_id = rq->token_id;
	c = rq_db(rq, &e);
	/* what the workers registered, as for a job: an unknown testcase or param is a 400 */
	if (!c || casecheck_load(c, &cc, &e) ||
	    casecheck_testcase(&cc, "", s.testcase, params, NULL, &e) ||
	    (!strcmp(s.kconfig, "host") && host_shape(c, s.testcase, params, given, ptext, &e)))
		goto bad;
	if (db_begin(c, &e))
		goto bad;
	in_tx = 1;
	if (link_regression(c, &s, reg, &e))
		goto bad;
	id = bisect_create(c, &s, &e);
	if (id < 0)
		goto bad;
	if (s.regression_id) {
		char note[64];

		snprintf(note, sizeof(note), "bisect %lld started by hand", id);
		if (db_bisect_reg_link(c, s.regression_id, id, &e) ||
		    regression_transition(c, s.regression_id, "bisecting", NULL, rq->token_id, note,
					  NULL, NULL, &e))
			goto bad;
	}
	in_tx = 0;
	if (db_commit(c, &e))
		goto bad;
	bisect_coord_kick(rq->srv->bisects);
	ret = reply_json(rq, 201,
			 s.regression_id ?
				 json_pack("{s:I,s:s,s:I}", "id", (json_int_t)id, "state", "queued",
					   "regression_id", (json_int_t)s.regression_id) :
				 json_pack("{s:I,s:s,s:n}", "id", (json_int_t)id, "state", "queued",
					   "regression_id"));
	casecheck_release(&cc);
	free(ptext);
	free(given);
	json_decref(b);
	return ret;
bad:
	if (in_tx)
		db_rollback(c);
	casecheck_release(&cc);
	free(ptext);
	free(given);
	json_decref(b);
	return reply_err(rq, &e);
}

enum MHD_Result api_bisect_get(struct request *rq)
{
	return reply_by_id(rq, "bisect", db_bisect_json);
}

enum MHD_Result api_bisects_get(struct request *rq)
{
	static const char *const states[] = { "queued", "running",   "done",
					      "failed", "cancelled", NULL };

	return reply_list(rq, states, 100, 1000, db_bisects_json);
}

enum MHD_Result api_bisect_cancel(struct request *rq)
{
	struct err e;
	long long id;
	char idb[24];
	struct db_conn *c;
	int n;

	if (rq_path_id(rq, "bisect", &id, idb, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	n = c ? bisect_cancel(c, id, "cancelled through the API", &e) : -1;
	if (n < 0)
		return reply_err(rq, &e);
	if (!n) {
		int x = db_bisect_exists(c, id, &e);

		if (x < 0)
			return reply_err(rq, &e);
		if (!x)
			err_setc(&e, ERR_NOT_FOUND, "id", "no bisect %lld", id);
		else
			err_setc(&e, ERR_CONFLICT, "id", "bisect %lld is not queued or running",
				 id);
		return reply_err(rq, &e);
	}
	return reply_json(rq, 200,
			  json_pack("{s:I,s:s}", "id", (json_int_t)id, "state", "cancelled"));
}

enum MHD_Result api_regression_bisect(struct request *rq)
{
	struct db_bisect_reg_todo t;
	struct bisect_spec s;
	struct err e;
	long long rid, id = -1, has;
	char idb[24], note[80];
	struct db_conn *c;
	int got;

	if (rq_path_id(rq, "regression", &rid, idb, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c || db_begin(c, &e))
		return reply_err(rq, &e);
	got = db_bisect_reg_one(c, rid, &t, &e);
	if (got == 0) {
		if (db_regression_bisect_of(c, rid, &has, &e) < 0) {
			if (e.id == ERR_NOT_FOUND)
				err_setc(&e, ERR_NOT_FOUND, "id", "no regression %lld", rid);
		} else if (has) {
			err_setc(&e, ERR_CONFLICT, "id", "regression %lld has bisect %lld already",
				 rid, has);
		} else {
			err_setc(&e, ERR_CONFLICT, "id",
				 "regression %lld: its commits are in no registered tree (POST "
				 "/api/v1/trees), and a bisect walks the tree's history",
				 rid);
		}
		got = -1;
	}
	if (got > 0) {
		bisect_spec_of_todo(&t, &s); /* as auto_bisect does */
		s.token_id = rq->token_id;
		id = bisect_create(c, &s, &e);
		snprintf(note, sizeof(note), "bisect %lld started by hand (bisect now)", id);
		if (id < 0 || db_bisect_reg_link(c, rid, id, &e) ||
		    regression_transition(c, rid, "bisecting", NULL, rq->token_id, note, NULL, NULL,
					  &e) ||
		    db_commit(c, &e))
			got = -1;
		db_bisect_reg_todo_release(&t);
	}
	if (got < 0) {
		db_rollback(c);
		return reply_err(rq, &e);
	}
	bisect_coord_kick(rq->srv->bisects);
	return reply_json(rq, 201,
			  json_pack("{s:I,s:s,s:I}", "id", (json_int_t)id, "state", "queued",
				    "regression_id", (json_int_t)rid));
}
