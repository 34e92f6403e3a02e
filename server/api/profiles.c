/*
 * Profiles: GET /api/v1/runs/{run_id}/profile (a run's folded
 * stacks as text/plain), and the profile diffs
 *   GET /api/v1/profile-diff?base=SHA&head=SHA&<setup filters>[&setup=ID]
 *   GET /api/v1/bisects/{id}/profile-diff     first bad vs its parent (profile round)
 *   GET /api/v1/requests/{id}/profile-diff    base vs head [&target=&testcase=]
 * each [&limit=50&alpha=0.01&folded=1&work=METRIC]. Reply:
 *   {"event": "cpu-clock",  what perf sampled (the runs' events joined by
 *                           ',' when they differ; null without runs): the
 *                           perf-profile.*.cycles-pp.* metrics keep LKP's name
 *    "base": {"commit", "runs", "samples", "work"}, "head": {...},
 *    "work": {"metric", "per_work"},
 *    "symbols": [{"symbol", "base_children_pct", "head_children_pct",
 *                 "children_change", "base_self_pct", "head_self_pct",
 *                 "self_change", "base_children_per_work",
 *                 "head_children_per_work", "per_work_change_pct",
 *                 "p_share", "p_per_work", "p", "significant",
 *                 "verdict"}, ...],
 *    "significance": {"test": "mann-whitney", "alpha", "min_p", "status",
 *                     "basis": "per-work" | "share"},
 *    "folded": {"base": TEXT, "head": TEXT}}      (folded only with folded=1)
 * A run's work is the mean of its testcase's work metric (work=, else the
 * first of PROFILE_WORK_METRICS it has) times its setup's runtime param
 * (lib/profile.h); "per work" figures are children samples per unit of it.
 * A diff is of one setup: /profile-diff adds "setup" (setup_json(), null
 * without runs) and answers 400 missing_field "setup", the choices in the
 * message, when the two commits' profiled runs that match the filters are
 * of several setups (x86_64 and arm64 stacks are not one graph).
 * The numbers are lib/profdiff.c's (struct profdiff: what they mean, the
 * test, need-more-runs); this file reads the runs and replies. A diff
 * reads every profiled run's text (up to 4 MiB each), so it runs on the
 * deferred pool (http_defer()), at most profile_diff_max at once (503
 * "overloaded" past it) and over at most profile_diff_max_mb of folded text
 * (413 "too_large", detail "runs"): four diffs over 21 stored 4 MiB
 * profiles took 9.5 GB. A reply is kept in srv->diff_cache (at most
 * profile_diff_cache_mb) under the SHA-256 of the URL, its arguments and
 * the runs it read (ids, sides, setups, work): a run and its profile never
 * change once stored, and a run added or removed changes the key. The
 * runs are read without their text first, so a cached diff reads no
 * stacks; every reply says "X-Regtrack-Cache: hit" or "miss".
 * folded=1 (each side's merged stacks, all of them: tens of MB) needs a
 * token of any scope, 401 without; folded=top, open where reads are, is
 * the dashboard's: each side's FLAME_TOP_STACKS largest stacks, at most
 * FLAME_TOP_BYTES of them, the others summed into one "[other stacks]"
 * line (profdiff_set_top()), with "folded": {"base_stacks", "head_stacks"
 * (all of a side's), "top" (the most kept; null with folded=1)}.
 */
#include "server/api/api.h"
#include "server/api/args.h"
#include "server/db/profiles.h"
#include "server/db/runs.h"
#include "server/jsonout.h"
#include "server/http/replycache.h"
#include "profile.h"
#include "resultdoc.h"
#include "sha256.h"
#include "buf.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_LIMIT_DEFAULT 50
#define DIFF_LIMIT_MAX 10000
#define DIFF_ALPHA_DEFAULT 0.01 /* compare's default (lib/stats/compare.h) */
/*
 * folded=top, a side: the dashboard's flame graph is drawn from these
 * (frames narrower than a pixel are not drawn: 2,000 stacks hold every
 * frame wider than 1/2,000 of the samples and most of the narrower)
 */
#define FLAME_TOP_STACKS 2000
#define FLAME_TOP_BYTES (1 << 20)

/* GET /api/v1/runs/{run_id}/profile */
enum MHD_Result api_run_profile_get(struct request *rq)
{
	const char *run_id = rq->path_params[0];
	struct db_run_profile p;
	struct err e;
	struct db_conn *c;
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

/* longest metric name (lib/resultdoc: 1..256 printable ASCII) */
#define WORK_METRIC_MAX 256

enum folded_form { FOLDED_NONE, FOLDED_ALL, FOLDED_TOP };

/* ?limit=&alpha=&folded=&work= */
struct diff_args {
	size_t limit;
	double alpha;
	enum folded_form folded;
	const char *work; /* the metrics that count work, ' '-separated (borrowed) */
};

static int diff_args(struct request *rq, struct diff_args *a, struct err *e)
{
	const char *l = rq_arg(rq, "limit"), *al = rq_arg(rq, "alpha"), *f = rq_arg(rq, "folded");
	const char *w = rq_arg(rq, "work");
	char *end;

	a->limit = DIFF_LIMIT_DEFAULT;
	a->alpha = DIFF_ALPHA_DEFAULT;
	a->folded = FOLDED_NONE;
	a->work = PROFILE_WORK_METRICS;
	if (w) {
		size_t n = strlen(w);
		int ok = n >= 1 && n <= WORK_METRIC_MAX;

		for (size_t i = 0; ok && i < n; i++)
			ok = w[i] > ' ' && w[i] < 0x7f;
		if (!ok)
			return err_setc(e, ERR_INVALID_FIELD, "work",
					"work must be a metric name (1 to %d printable characters, "
					"no space)",
					WORK_METRIC_MAX);
		a->work = w;
	}
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
		if (strcmp(f, "0") && strcmp(f, "1") && strcmp(f, "top"))
			return err_setc(e, ERR_INVALID_FIELD, "folded",
					"folded must be 0, 1 or top");
		a->folded = !strcmp(f, "1")   ? FOLDED_ALL :
			    !strcmp(f, "top") ? FOLDED_TOP :
						FOLDED_NONE;
	}
	if (a->folded == FOLDED_ALL && !rq->scope)
		return err_setc(e, ERR_UNAUTHORIZED, "folded",
				"folded=1 (all the stacks) needs a token of any scope; folded=top "
				"(the %d largest stacks of each side) does not",
				FLAME_TOP_STACKS);
	return 0;
}

static json_t *side_json(const char *commit, const struct profdiff_side *s)
{
	return json_pack("{s:o,s:I,s:I,s:o}", "commit",
			 commit && *commit ? json_string(commit) : json_null(), "runs",
			 (json_int_t)s->runs, "samples", (json_int_t)s->samples, "work",
			 json_num(s->runs ? s->work : NAN));
}

/* the runs' events, distinct, joined by ',' in run order (null without runs) */
static json_t *event_json(const struct db_profile_runs *runs)
{
	struct buf b = BUF_INIT(1024);
	json_t *o;

	for (size_t i = 0; i < runs->nr; i++) {
		size_t j = 0;

		while (j < i && strcmp(runs->rows[j].event, runs->rows[i].event))
			j++;
		if (j == i && buf_addf(&b, "%s%s", b.len ? "," : "", runs->rows[i].event))
			break; /* cut at the cap: a list, never one wrong name */
	}
	o = runs->nr ? json_string(b.data) : json_null();
	buf_release(&b);
	return o;
}

static json_t *folded_json(const struct profdiff *d, enum folded_form f)
{
	return json_pack("{s:s,s:s,s:I,s:I,s:o}", "base", d->base.folded, "head", d->head.folded,
			 "base_stacks", (json_int_t)d->base.stacks, "head_stacks",
			 (json_int_t)d->head.stacks, "top",
			 f == FOLDED_TOP ? json_integer(FLAME_TOP_STACKS) : json_null());
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
	const char *work_metric = NULL;

	profdiff_init(&d, a->folded != FOLDED_NONE);
	if (a->folded == FOLDED_TOP)
		profdiff_set_top(&d, FLAME_TOP_STACKS, FLAME_TOP_BYTES);
	for (size_t i = 0; i < runs->nr; i++) {
		const struct db_profile_run *r = &runs->rows[i];

		if (r->head && !*head_sha)
			head_sha = r->commit;
		if (r->work_metric && !work_metric)
			work_metric = r->work_metric;
		if (profdiff_add_run(&d, r->head, r->folded, r->folded_len, r->work, e)) {
			profdiff_release(&d);
			err_setc(e, ERR_DB, "folded", "a stored profile is not folded text");
			return NULL;
		}
	}
	profdiff_finish(&d, a->alpha, a->limit);
	syms = json_array();
	for (size_t i = 0; i < d.nr_symbols; i++) {
		const struct profdiff_symbol *y = &d.symbols[i];

		json_t *row =
			json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:s}",
				  "symbol", y->symbol, "base_children_pct",
				  json_num(y->base_children_pct), "head_children_pct",
				  json_num(y->head_children_pct), "children_change",
				  json_num(y->children_change), "base_self_pct",
				  json_num(y->base_self_pct), "head_self_pct",
				  json_num(y->head_self_pct), "self_change",
				  json_num(y->self_change), "base_children_per_work",
				  json_num(y->base_children_per_work), "head_children_per_work",
				  json_num(y->head_children_per_work), "per_work_change_pct",
				  json_num(y->per_work_change_pct), "p_share", json_num(y->p_share),
				  "p_per_work", json_num(y->p_per_work), "p", json_num(y->p),
				  "significant", y->significant, "verdict", y->verdict);

		json_array_append_new(syms, row);
	}
	o = json_pack("{s:o,s:o,s:o,s:o,s:{s:o,s:b},s:I,s:{s:s,s:o,s:o,s:s,s:s}}", "event",
		      event_json(runs), "base", side_json(base_sha, &d.base), "head",
		      side_json(head_sha, &d.head), "symbols", syms, "work", "metric",
		      work_metric ? json_string(work_metric) : json_null(), "per_work", d.per_work,
		      "nr_symbols", (json_int_t)d.nr_all, "significance", "test", "mann-whitney",
		      "alpha", json_num(d.alpha), "min_p", json_num(d.min_p), "status", d.status,
		      "basis", d.per_work ? "per-work" : "share");
	if (!o) {
		profdiff_release(&d);
		err_setc(e, ERR_INTERNAL, "symbols", "the diff could not be written as JSON");
		return NULL;
	}
	if (a->folded != FOLDED_NONE)
		json_object_set_new(o, "folded", folded_json(&d, a->folded));
	profdiff_release(&d);
	return o;
}

static void defer_fail(struct request *rq, const struct err *e)
{
	rq->deferred_status = (unsigned)(e->status >= 400 && e->status <= 599 ? e->status : 500);
	rq->deferred = err_json(e);
}

/*
 * Runs fn (a diff) when fewer than profile_diff_max diffs are being
 * computed, else leaves 503 "overloaded" before anything is read.
 */
static void gated(struct request *rq, void (*fn)(struct request *rq))
{
	struct err e;

	rq->heavy = 1;
	if (atomic_fetch_add(&rq->srv->profile_diffs, 1) >= rq->srv->cfg->profile_diff_max) {
		atomic_fetch_sub(&rq->srv->profile_diffs, 1);
		err_setc(&e, ERR_OVERLOADED, "profile-diff",
			 "%ld profile diffs are being computed (profile_diff_max): retry in a few "
			 "seconds",
			 rq->srv->cfg->profile_diff_max);
		return defer_fail(rq, &e);
	}
	fn(rq);
	atomic_fetch_sub(&rq->srv->profile_diffs, 1);
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
	if (rq->deferred_text) {
		char *text = rq->deferred_text;

		rq->deferred_text = NULL;
		return reply_json_kept(rq, rq->deferred_status, text, rq->deferred_text_len,
				       "X-Regtrack-Cache", rq->deferred_cache);
	}
	body = rq->deferred;
	rq->deferred = NULL;
	return reply_json(rq, rq->deferred_status, body);
}

/* ?setup=: 0 when absent, else a setup id */
static int setup_arg(struct request *rq, long long *id, struct err *e)
{
	const char *v = rq_arg(rq, "setup");
	char *end;

	*id = 0;
	if (!v)
		return 0;
	*id = strtoll(v, &end, 10);
	if (!*v || *end || *id < 1)
		return err_setc(e, ERR_INVALID_FIELD, "setup",
				"setup must be a setup id (a positive integer)");
	return 0;
}

/*
 * Keeps the runs of one setup: want's (?setup=), or all of them when they
 * are of one setup. One diff merges the stacks of one kind of kernel and
 * machine: runs of several setups (x86_64 and arm64 builds, two params)
 * without setup= fail 400 missing_field "setup", the choices in the
 * message (id: kconfig, tbox_group, params). *setup_id: the setup kept, 0
 * when no run is left.
 */
static int one_setup(struct db_conn *c, struct db_profile_runs *runs, long long want,
		     long long *setup_id, struct err *e)
{
	long long *ids;
	size_t nr_ids = 0, k = 0;
	struct buf list = BUF_INIT(1024);

	*setup_id = 0;
	if (want) {
		for (size_t i = 0; i < runs->nr; i++)
			if (runs->rows[i].setup_id == want)
				runs->rows[k++] = runs->rows[i];
		runs->nr = k;
		*setup_id = k ? want : 0;
		return 0;
	}
	ids = xcalloc(runs->nr ? runs->nr : 1, sizeof(*ids));
	for (size_t i = 0; i < runs->nr; i++) {
		size_t j = 0;

		while (j < nr_ids && ids[j] != runs->rows[i].setup_id)
			j++;
		if (j == nr_ids)
			ids[nr_ids++] = runs->rows[i].setup_id;
	}
	if (nr_ids <= 1) {
		*setup_id = nr_ids ? ids[0] : 0;
		free(ids);
		return 0;
	}
	for (size_t j = 0; j < nr_ids; j++) {
		struct db_setup st;
		int found = db_setup_get(c, ids[j], &st, e);

		if (found < 0) {
			free(ids);
			buf_release(&list);
			return -1;
		}
		int full = buf_addf(&list, "%s%lld", j ? "; " : "", ids[j]) ||
			   (found &&
			    buf_addf(&list, ": %s, %s, %s", st.kconfig, st.tbox_group, st.params));

		if (found)
			db_setup_free(&st);
		if (full)
			break; /* the message is cut to fit anyway */
	}
	err_setc(e, ERR_MISSING_FIELD, "setup",
		 "base and head were profiled in %zu setups: give setup=ID, one of %s", nr_ids,
		 list.data);
	free(ids);
	buf_release(&list);
	return -1;
}

/* What one diff reads: the runs of two commits, of a bisect or of a request. */
struct diff_src {
	enum { SRC_COMMITS, SRC_BISECT, SRC_REQUEST } kind;
	const char *base, *head; /* the sides' shas ("": from the runs) */
	/* SRC_COMMITS: the commits (commits.id as text), the setup filters, ?setup= */
	const char *base_id, *head_id;
	struct db_setup_filter f;
	long long want_setup;
	long long id; /* SRC_BISECT, SRC_REQUEST */
	struct diff_args a;
};

/*
 * The runs of src (without their text: no_text), of one setup for two
 * commits (one_setup(), *setup_id; 0 for the others). 0 or -1 with e.
 */
static int src_runs(struct request *rq, struct db_conn *c, const struct diff_src *src, int no_text,
		    struct db_profile_runs *runs, long long *setup_id, struct err *e)
{
	*setup_id = 0;
	switch (src->kind) {
	case SRC_COMMITS:
		if (db_profile_runs_commits(c, src->base_id, src->head_id, &src->f, src->a.work,
					    no_text, runs, e))
			return -1;
		if (one_setup(c, runs, src->want_setup, setup_id, e)) {
			db_profile_runs_free(runs);
			return -1;
		}
		return 0;
	case SRC_BISECT:
		return db_profile_runs_bisect(c, src->id, src->a.work, no_text, runs, e);
	case SRC_REQUEST:
		return db_profile_runs_request(c, src->id, rq_arg(rq, "target"),
					       rq_arg(rq, "testcase"), src->a.work, no_text, runs,
					       e);
	}
	return 0;
}

static enum MHD_Result key_arg(void *cls, enum MHD_ValueKind kind, const char *name,
			       const char *value)
{
	(void)kind;
	return buf_addf(cls, "%s%s%s\n", name, value ? "=" : "", value ? value : "") ? MHD_NO :
										       MHD_YES;
}

/*
 * The cache key of a diff: SHA-256 of what decides its reply, the URL and
 * every query argument (the options, the filters), the sides' shas and
 * each run read (the one setup kept) with what the reply takes from it
 * but its stacks, which never change for a run id.
 */
static void diff_key(struct request *rq, const struct diff_src *src,
		     const struct db_profile_runs *runs, long long setup_id, char key[65])
{
	struct buf b = BUF_INIT(0);
	int bad = buf_addf(&b, "%s\n", rq->url);

	MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, key_arg, &b);
	bad |= buf_addf(&b, "base=%s head=%s setup=%lld\n", src->base, src->head, setup_id);
	for (size_t i = 0; i < runs->nr; i++) {
		const struct db_profile_run *r = &runs->rows[i];

		bad |= buf_addf(&b, "%lld %d %s %lld %s %.17g %s\n", r->id, r->head, r->commit,
				r->setup_id, r->event, r->work,
				r->work_metric ? r->work_metric : "-");
	}
	if (bad)
		abort(); /* uncapped */
	sha256_hex(b.data, b.len, key);
	buf_release(&b);
}

/* leaves the reply text for run_deferred() */
static void defer_text(struct request *rq, char *text, size_t len, const char *cache)
{
	rq->deferred_status = 200;
	rq->deferred_text = text;
	rq->deferred_text_len = len;
	rq->deferred_cache = cache;
}

/*
 * The diff of src: the cached reply when its runs are those of a kept one,
 * else read with their stacks (within profile_diff_max_mb), computed,
 * kept and replied.
 */
static void diff_src_run(struct request *rq, struct diff_src *src)
{
	struct db_profile_runs runs;
	struct reply_cache *cache = rq->srv->diff_cache;
	struct buf out = BUF_INIT(0);
	struct err e;
	size_t bytes = 0, max = (size_t)rq->srv->cfg->profile_diff_max_mb << 20, len;
	long long setup_id;
	char key[65], *text;
	json_t *o, *setup = NULL;
	struct db_conn *c = rq_db(rq, &e);

	if (!c || src_runs(rq, c, src, 1, &runs, &setup_id, &e))
		return defer_fail(rq, &e);
	diff_key(rq, src, &runs, setup_id, key);
	db_profile_runs_free(&runs);
	if (cache && reply_cache_get(cache, key, &text, &len))
		return defer_text(rq, text, len, "hit");
	/* the runs again, with their stacks: the key is of those read */
	if (src_runs(rq, c, src, 0, &runs, &setup_id, &e))
		return defer_fail(rq, &e);
	diff_key(rq, src, &runs, setup_id, key);
	for (size_t i = 0; i < runs.nr; i++)
		bytes += runs.rows[i].folded_len;
	if (bytes > max) {
		db_profile_runs_free(&runs);
		err_setc(&e, ERR_TOO_LARGE, "runs",
			 "the %zu profiled runs hold %zu MiB of stacks, more than "
			 "profile_diff_max_mb (%ld): narrow the diff (setup=, testcase=, target=)",
			 runs.nr, bytes >> 20, rq->srv->cfg->profile_diff_max_mb);
		return defer_fail(rq, &e);
	}
	if (src->kind == SRC_COMMITS && setup_id && !(setup = setup_json(c, setup_id, &e))) {
		db_profile_runs_free(&runs);
		return defer_fail(rq, &e);
	}
	o = diff_reply(&runs, src->base, src->head, &src->a, &e);
	db_profile_runs_free(&runs);
	if (!o) {
		json_decref(setup);
		return defer_fail(rq, &e);
	}
	if (src->kind == SRC_COMMITS)
		json_object_set_new(o, "setup", setup ? setup : json_null());
	if (jsonout_json(&out, o) || buf_addch(&out, '\n')) {
		/* uncapped: only a NULL o (a json_pack() refused a text) fails */
		json_decref(o);
		buf_release(&out);
		err_setc(&e, ERR_INTERNAL, "profile-diff",
			 "the reply could not be encoded as JSON");
		return defer_fail(rq, &e);
	}
	json_decref(o);
	if (cache)
		reply_cache_put(cache, key, out.data, out.len);
	text = buf_detach(&out, &len);
	defer_text(rq, text, len, "miss");
}

static void diff_commits_work(struct request *rq)
{
	struct diff_src src = { .kind = SRC_COMMITS };
	struct err e;
	const char *bsub, *hsub;
	struct db_conn *c;

	if (diff_args(rq, &src.a, &e) || setup_filter_from_query(rq, &src.f, &e) ||
	    setup_arg(rq, &src.want_setup, &e))
		return defer_fail(rq, &e);
	c = rq_db(rq, &e);
	if (!c ||
	    commit_resolve(rq, c, rq_arg(rq, "base"), "base", &src.base_id, &src.base, &bsub, &e) ||
	    commit_resolve(rq, c, rq_arg(rq, "head"), "head", &src.head_id, &src.head, &hsub, &e))
		return defer_fail(rq, &e);
	diff_src_run(rq, &src);
}

static void diff_commits(struct request *rq)
{
	gated(rq, diff_commits_work);
}

/* GET /api/v1/profile-diff?base=&head=&<setup filters> */
enum MHD_Result api_profile_diff_get(struct request *rq)
{
	return run_deferred(rq, diff_commits);
}

static void diff_bisect_work(struct request *rq)
{
	struct diff_src src = { .kind = SRC_BISECT };
	struct err e;
	char idb[24], state[16], first_bad[41], parent[41];
	struct db_conn *c;
	int found;

	if (rq_path_id(rq, "bisect", &src.id, idb, &e) || diff_args(rq, &src.a, &e))
		return defer_fail(rq, &e);
	c = rq_db(rq, &e);
	found = c ? db_profile_bisect_ends(c, src.id, state, sizeof(state), first_bad, parent, &e) :
		    -1;
	if (found < 0)
		return defer_fail(rq, &e);
	if (!found) {
		err_setc(&e, ERR_NOT_FOUND, "id", "no bisect %lld", src.id);
		return defer_fail(rq, &e);
	}
	if (!*first_bad || !*parent) {
		err_setc(&e, ERR_NOT_FOUND, "id",
			 "bisect %lld has no first bad commit verified against its parent "
			 "(state %s)",
			 src.id, state);
		return defer_fail(rq, &e);
	}
	src.base = parent;
	src.head = first_bad;
	diff_src_run(rq, &src);
}

static void diff_bisect(struct request *rq)
{
	gated(rq, diff_bisect_work);
}

/* GET /api/v1/bisects/{id}/profile-diff */
enum MHD_Result api_bisect_profile_diff(struct request *rq)
{
	return run_deferred(rq, diff_bisect);
}

static void diff_request_work(struct request *rq)
{
	struct diff_src src = { .kind = SRC_REQUEST };
	struct err e;
	char idb[24], base[41], head[41];
	struct db_conn *c;
	int found;

	if (rq_path_id(rq, "request", &src.id, idb, &e) || diff_args(rq, &src.a, &e))
		return defer_fail(rq, &e);
	c = rq_db(rq, &e);
	found = c ? db_profile_request_ends(c, src.id, base, head, &e) : -1;
	if (found < 0)
		return defer_fail(rq, &e);
	if (!found) {
		err_setc(&e, ERR_NOT_FOUND, "id", "no request %lld", src.id);
		return defer_fail(rq, &e);
	}
	src.base = base;
	src.head = head;
	diff_src_run(rq, &src);
}

static void diff_request(struct request *rq)
{
	gated(rq, diff_request_work);
}

/* GET /api/v1/requests/{id}/profile-diff[?target=&testcase=] */
enum MHD_Result api_request_profile_diff(struct request *rq)
{
	return run_deferred(rq, diff_request);
}
