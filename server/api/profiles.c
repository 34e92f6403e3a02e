/*
 * Profiles (issue 22): GET /api/v1/runs/{run_id}/profile (a run's folded
 * stacks as text/plain), and the profile diffs
 *   GET /api/v1/profile-diff?base=SHA&head=SHA&<setup filters>
 *   GET /api/v1/bisects/{id}/profile-diff     first bad vs its parent (profile round)
 *   GET /api/v1/requests/{id}/profile-diff    base vs head [&target=&testcase=]
 * each [&limit=50&alpha=0.01&folded=1]. Reply:
 *   {"base": {"commit", "runs", "samples"}, "head": {...},
 *    "symbols": [{"symbol", "base_children_pct", "head_children_pct",
 *                 "children_change", "base_self_pct", "head_self_pct",
 *                 "self_change", "p", "significant"}, ...],
 *    "significance": {"test": "mann-whitney", "alpha", "min_p", "status"},
 *    "folded": {"base": TEXT, "head": TEXT}}      (folded only with folded=1)
 * The numbers are lib/profdiff.c's (struct profdiff: what they mean, the
 * test, need-more-runs); this file reads the runs and replies. A diff
 * reads every profiled run's text (up to 4 MiB each), so it runs on the
 * deferred pool (http_defer()).
 */
#include "server/api/api.h"
#include "server/api/args.h"
#include "server/db/profiles.h"
#include "server/jsonout.h"
#include "profile.h"
#include "resultdoc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_LIMIT_DEFAULT 50
#define DIFF_LIMIT_MAX 10000
#define DIFF_ALPHA_DEFAULT 0.01 /* compare's default (lib/stats/compare.h) */

/* GET /api/v1/runs/{run_id}/profile */
enum MHD_Result api_run_profile_get(struct request *rq)
{
	const char *run_id = rq->path_params[0];
	struct db_run_profile p;
	struct err e;
	PGconn *c;
	int found;
	enum MHD_Result ret;

	if (!is_uuid(run_id))
		return reply_errc(rq, ERR_INVALID_FIELD, "run_id", "'%.100s' is not a UUID",
				  run_id);
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	found = db_run_profile(c, run_id, &p, &e);
	if (found < 0)
		return reply_err(rq, &e);
	if (!found)
		return reply_errc(rq, ERR_NOT_FOUND, "run_id", "no run '%s'", run_id);
	if (!p.event) {
		db_run_profile_free(&p);
		return reply_errc(rq, ERR_NOT_FOUND, "run_id",
				  "run '%s' has no profile (it ran without perf-profile)", run_id);
	}
	ret = reply_text(rq, 200, "text/plain; charset=utf-8", p.folded, p.folded_len);
	db_run_profile_free(&p);
	return ret;
}

/* ?limit=&alpha=&folded= */
struct diff_args {
	size_t limit;
	double alpha;
	int folded;
};

static int diff_args(struct request *rq, struct diff_args *a, struct err *e)
{
	const char *l = rq_arg(rq, "limit"), *al = rq_arg(rq, "alpha"), *f = rq_arg(rq, "folded");
	char *end;

	a->limit = DIFF_LIMIT_DEFAULT;
	a->alpha = DIFF_ALPHA_DEFAULT;
	a->folded = 0;
	if (l) {
		long n = strtol(l, &end, 10);

		if (!*l || *end || n < 1 || n > DIFF_LIMIT_MAX)
			return err_setc(e, ERR_INVALID_FIELD, "limit",
					"limit must be an integer in [1, %d]", DIFF_LIMIT_MAX);
		a->limit = (size_t)n;
	}
	if (al) {
		a->alpha = strtod(al, &end);
		if (!*al || *end || !(a->alpha > 0 && a->alpha < 1))
			return err_setc(e, ERR_INVALID_FIELD, "alpha",
					"alpha must be a number in (0, 1)");
	}
	if (f) {
		if (strcmp(f, "0") && strcmp(f, "1"))
			return err_setc(e, ERR_INVALID_FIELD, "folded", "folded must be 0 or 1");
		a->folded = f[0] == '1';
	}
	return 0;
}

static json_t *side_json(const char *commit, const struct profdiff_side *s)
{
	return json_pack("{s:o,s:I,s:I}", "commit",
			 commit && *commit ? json_string(commit) : json_null(), "runs",
			 (json_int_t)s->runs, "samples", (json_int_t)s->samples);
}

/*
 * The diff of runs (each a base or head run) as the reply; base_sha and
 * head_sha name the sides (a side's sha comes from its runs when it is
 * "": a request's head of patches). NULL with e when a stored profile is
 * not folded text (500: ingest checked it).
 */
static json_t *diff_reply(const struct db_profile_runs *runs, const char *base_sha,
			  const char *head_sha, const struct diff_args *a, struct err *e)
{
	struct profdiff d;
	json_t *o, *syms;

	profdiff_init(&d, a->folded);
	for (size_t i = 0; i < runs->nr; i++) {
		const struct db_profile_run *r = &runs->rows[i];

		if (r->head && !*head_sha)
			head_sha = r->commit;
		if (profdiff_add_run(&d, r->head, r->folded, r->folded_len, e)) {
			profdiff_release(&d);
			err_setc(e, ERR_DB, "folded", "a stored profile is not folded text");
			return NULL;
		}
	}
	profdiff_finish(&d, a->alpha, a->limit);
	syms = json_array();
	for (size_t i = 0; i < d.nr_symbols; i++) {
		const struct profdiff_symbol *y = &d.symbols[i];

		json_array_append_new(syms,
				      json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b}", "symbol",
						y->symbol, "base_children_pct",
						json_num(y->base_children_pct), "head_children_pct",
						json_num(y->head_children_pct), "children_change",
						json_num(y->children_change), "base_self_pct",
						json_num(y->base_self_pct), "head_self_pct",
						json_num(y->head_self_pct), "self_change",
						json_num(y->self_change), "p", json_num(y->p),
						"significant", y->significant));
	}
	o = json_pack("{s:o,s:o,s:o,s:I,s:{s:s,s:o,s:o,s:s}}", "base", side_json(base_sha, &d.base),
		      "head", side_json(head_sha, &d.head), "symbols", syms, "nr_symbols",
		      (json_int_t)d.nr_all, "significance", "test", "mann-whitney", "alpha",
		      json_num(d.alpha), "min_p", json_num(d.min_p), "status", d.status);
	if (a->folded)
		json_object_set_new(o, "folded",
				    json_pack("{s:s,s:s}", "base", d.base.folded, "head",
					      d.head.folded));
	profdiff_release(&d);
	return o;
}

static void defer_fail(struct request *rq, const struct err *e)
{
	rq->deferred_status = (unsigned)(e->status >= 400 && e->status <= 599 ? e->status : 500);
	rq->deferred = err_json(e);
}

static void defer_reply(struct request *rq, struct db_profile_runs *runs, const char *base,
			const char *head, const struct diff_args *a)
{
	struct err e;
	json_t *o = diff_reply(runs, base, head, a, &e);

	db_profile_runs_free(runs);
	if (!o)
		return defer_fail(rq, &e);
	rq->deferred_status = 200;
	rq->deferred = o;
}

/* the handler's two visits: queue fn on the pool, then reply what it left */
static enum MHD_Result run_deferred(struct request *rq, void (*fn)(struct request *rq))
{
	json_t *body;

	if (!rq->resumed) {
		if (!http_defer(rq, fn))
			return MHD_YES;
		fn(rq); /* no pool (stopping): here and now */
	}
	body = rq->deferred;
	rq->deferred = NULL;
	return reply_json(rq, rq->deferred_status, body);
}

static void diff_commits(struct request *rq)
{
	struct db_setup_filter f;
	struct db_profile_runs runs;
	struct diff_args a;
	struct err e;
	const char *bid, *bsha, *bsub, *hid, *hsha, *hsub;
	PGconn *c;

	if (diff_args(rq, &a, &e) || setup_filter_from_query(rq, &f, &e))
		return defer_fail(rq, &e);
	c = rq_db(rq, &e);
	if (!c || commit_resolve(rq, c, rq_arg(rq, "base"), "base", &bid, &bsha, &bsub, &e) ||
	    commit_resolve(rq, c, rq_arg(rq, "head"), "head", &hid, &hsha, &hsub, &e) ||
	    db_profile_runs_commits(c, bid, hid, &f, &runs, &e))
		return defer_fail(rq, &e);
	defer_reply(rq, &runs, bsha, hsha, &a);
}

/* GET /api/v1/profile-diff?base=&head=&<setup filters> */
enum MHD_Result api_profile_diff_get(struct request *rq)
{
	return run_deferred(rq, diff_commits);
}

static void diff_bisect(struct request *rq)
{
	struct db_profile_runs runs;
	struct diff_args a;
	struct err e;
	long long id;
	char idb[24], state[16], first_bad[41], parent[41];
	PGconn *c;
	int found;

	if (rq_path_id(rq, "bisect", &id, idb, &e) || diff_args(rq, &a, &e))
		return defer_fail(rq, &e);
	c = rq_db(rq, &e);
	found = c ? db_profile_bisect_ends(c, id, state, sizeof(state), first_bad, parent, &e) : -1;
	if (found < 0)
		return defer_fail(rq, &e);
	if (!found) {
		err_setc(&e, ERR_NOT_FOUND, "id", "no bisect %lld", id);
		return defer_fail(rq, &e);
	}
	if (!*first_bad || !*parent) {
		err_setc(&e, ERR_NOT_FOUND, "id",
			 "bisect %lld has no first bad commit verified against its parent "
			 "(state %s)",
			 id, state);
		return defer_fail(rq, &e);
	}
	if (db_profile_runs_bisect(c, id, &runs, &e))
		return defer_fail(rq, &e);
	defer_reply(rq, &runs, parent, first_bad, &a);
}

/* GET /api/v1/bisects/{id}/profile-diff */
enum MHD_Result api_bisect_profile_diff(struct request *rq)
{
	return run_deferred(rq, diff_bisect);
}

static void diff_request(struct request *rq)
{
	struct db_profile_runs runs;
	struct diff_args a;
	struct err e;
	long long id;
	char idb[24], base[41], head[41];
	PGconn *c;
	int found;

	if (rq_path_id(rq, "request", &id, idb, &e) || diff_args(rq, &a, &e))
		return defer_fail(rq, &e);
	c = rq_db(rq, &e);
	found = c ? db_profile_request_ends(c, id, base, head, &e) : -1;
	if (found < 0)
		return defer_fail(rq, &e);
	if (!found) {
		err_setc(&e, ERR_NOT_FOUND, "id", "no request %lld", id);
		return defer_fail(rq, &e);
	}
	if (db_profile_runs_request(c, id, rq_arg(rq, "target"), rq_arg(rq, "testcase"), &runs, &e))
		return defer_fail(rq, &e);
	defer_reply(rq, &runs, base, head, &a);
}

/* GET /api/v1/requests/{id}/profile-diff[?target=&testcase=] */
enum MHD_Result api_request_profile_diff(struct request *rq)
{
	return run_deferred(rq, diff_request);
}
