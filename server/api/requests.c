/*
 * A/B requests: a change tested against its base.
 *   POST /api/v1/requests (submit)       {request_fields[] below} -> 202 {id, state
 *                                        "resolving", url}: refs and jobs follow in the
 *                                        background (resolver.h);
 *                                        "from_mail": a robot's report gives head, base,
 *                                        testcases, label; "dry_run": 200 (requests_mail.c)
 *   GET  /api/v1/requests[?state=&limit=] newest first
 *   GET  /api/v1/requests/{id}           state, progress per side, jobs, what waits for a
 *                                        worker, the comparison rows and verdict, reproduce
 *   GET  /api/v1/requests/{id}/mbox      the patches as submitted (application/mbox)
 *   POST /api/v1/requests/{id}/cancel (submit)
 *
 * Submission: a plan gives the fields the body does not (abtest_plan_apply, before any
 * is checked); every field is checked with a 4xx naming it and the request stored;
 * then, off the HTTP threads, base and head are resolved in the tree's mirror (fetched
 * once when it does not know a ref yet), or the request fails with the reason (a ref
 * that is no commit of the tree, a fetch that failed or timed out); an mbox must hold
 * a patch (mbox.h) and stay under MAX_PATCHES (413). Each target x testcase is a group
 * of `rounds` pairs of jobs, base then head, queued in that order (A B A B) above
 * tracking jobs (REQUEST_PRIORITY); a target that is an arch is pinned to one tbox_group
 * by the first lease (db_job_lease()), a target no worker serves is queued all the same
 * and listed in `waiting_for`. The verdict is abtest.h's, settled when the last job
 * finishes or the request is read.
 */
#include "server/api/requests_int.h"
#include "server/track/casecheck.h"
#include "resultdoc.h"
#include "server/api/args.h"
#include "server/abtest/abtest.h"
#include "server/db/requests.h"
#include "server/db/trees.h"
#include "server/track/gitmirror.h"
#include "server/jobs/ingest.h"
#include "server/jobs/lease.h"
#include "server/abtest/resolver.h"
#include "arch.h"
#include "jsonkeys.h"
#include "mbox.h"
#include "names.h"
#include "vmspec.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATCHES MBOX_MAX_BYTES /* a large series is ~1 MiB; mbox.h sizes git am's timeout */
#define MAX_TARGETS 16
#define MAX_TESTCASES 32
#define MAX_JOBS 2000

static int is_word(const char *s, size_t max)
{
	return names_plain(s, max);
}

static int word_field(json_t *b, const char *key, int required, const char **out, struct err *e)
{
	if (json_str_field(b, key, required, 128, out, e))
		return -1;
	if (*out && !is_word(*out, 128))
		return err_setc(e, ERR_INVALID_FIELD, key,
				"'%s' must be 1..128 chars of [A-Za-z0-9._+-], not starting with - or .",
				key);
	return 0;
}

/* an arch target (x86_64, arm64, aarch64, amd64) -> the jobs' arch; NULL for a tbox_group */
static const char *target_arch(const char *t)
{
	return arch_normalize(t);
}

/* the arch a kconfig name starts with (arch_of_kconfig), *n the length of that prefix and '-' */
static const char *kconfig_arch(const char *k, size_t *n)
{
	const char *arch = arch_of_kconfig(k);

	*n = arch ? (size_t)(strchr(k, '-') - k) + 1 : 0;
	return arch;
}

/*
 * params object: scalar values; measure added when the request names one; the
 * machine shape (lib/vmspec.h) checked with that measure in it (measure icount
 * with accel kexec is a 400 here, not a job that no machine can run) and written
 * in its one spelling (vmspec_canonical()), as a job's and a result's are, so
 * the request's setups are the series its results and the noise it is sized by
 * are found in; prefix ("testcases[J].") starts the field a 400 names
 */
static int params_text(json_t *params, const char *measure, const char *prefix, char **out,
		       struct err *e)
{
	json_t *p = params ? json_deep_copy(params) : json_object();
	if (!json_is_object(p)) {
		char field[64];

		json_decref(p);
		snprintf(field, sizeof(field), "%sparams", prefix);
		return err_setc(e, ERR_INVALID_FIELD, field, "'params' must be an object");
	}
	/* the one params rule (results, jobs, bisects, plans): detail "params.KEY" */
	if (params_check(p, e)) {
		char key[sizeof(e->detail)];

		json_decref(p);
		memcpy(key, e->detail, sizeof(key));
		snprintf(e->detail, sizeof(e->detail), "%s%.200s", prefix, key);
		return -1;
	}
	if (measure)
		json_object_set_new(p, "measure", json_string(measure));
	if (vmspec_canonical(p, prefix, e)) {
		json_decref(p);
		return -1;
	}
	*out = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
	json_decref(p);
	return 0;
}

/* the fields that need no database */
static int check_fields(json_t *b, struct submission *s, struct err *e)
{
	json_t *mcp;

	if (word_field(b, "tree", 1, &s->tree, e) ||
	    json_str_field(b, "base", 1, 256, &s->base, e) ||
	    json_str_field(b, "head", 0, 256, &s->head, e) ||
	    word_field(b, "kconfig", 0, &s->kconfig, e) ||
	    word_field(b, "compiler", 0, &s->compiler, e) ||
	    json_str_field(b, "measure", 0, 16, &s->measure, e) ||
	    json_str_field(b, "notify", 0, 256, &s->notify, e) ||
	    json_str_field(b, "label", 0, 1024, &s->label, e) ||
	    json_int_field(b, "repeat", 0, 1, 100, &s->repeat, e) ||
	    monitors_from_json(json_object_get(b, "monitors"), "monitors", s->monitors, e))
		return -1;
	{
		json_t *pv = json_object_get(b, "patches");

		if (pv && !json_is_null(pv)) {
			if (!json_is_string(pv))
				return err_setc(e, ERR_INVALID_FIELD, "patches",
						"'patches' must be the text of an mbox");
			if (json_string_length(pv) > MAX_PATCHES)
				return err_setc(e, ERR_TOO_LARGE, "patches",
						"'patches' holds %zu bytes, more than %d",
						json_string_length(pv), MAX_PATCHES);
			s->patches = json_string_value(pv);
		}
	}
	if (!s->head == !s->patches)
		return err_setc(e, s->head ? ERR_INVALID_FIELD : ERR_MISSING_FIELD,
				s->head ? "patches" : "head",
				"give either 'head' (a ref or sha) or 'patches' (an mbox), not both");
	if (s->patches && !mbox_scan(s->patches, strlen(s->patches), &s->mbox))
		return err_setc(e, ERR_INVALID_FIELD, "patches",
				"'patches' holds no patch: an mbox as git format-patch writes it, "
				"with a diff in each patch");
	if (s->patches && !s->mbox.email[0])
		return err_setc(e, ERR_INVALID_FIELD, "patches",
				"the first patch has no From: address for the committer");
	if (s->measure && strcmp(s->measure, "wallclock") && strcmp(s->measure, "icount"))
		return err_setc(e, ERR_INVALID_FIELD, "measure", "measure is wallclock or icount");
	if (s->notify && !strchr(s->notify, '@'))
		return err_setc(e, ERR_INVALID_FIELD, "notify", "'notify' must be a mail address");
	mcp = json_object_get(b, "min_change_pct");
	s->min_change_pct = NAN;
	if (mcp && !json_is_null(mcp)) {
		if (!json_is_number(mcp) || json_number_value(mcp) < 0 ||
		    json_number_value(mcp) > 1000)
			return err_setc(e, ERR_INVALID_FIELD, "min_change_pct",
					"min_change_pct must be a number in [0, 1000]");
		s->min_change_pct = json_number_value(mcp);
	}
	s->host = s->kconfig && !strcmp(s->kconfig, "host");
	if (s->host && s->patches)
		return err_setc(e, ERR_INVALID_FIELD, "patches",
				"kconfig host runs the case on the running kernel: patches cannot "
				"be applied to it (use a kernel kconfig)");
	if (s->host && s->measure && !strcmp(s->measure, "icount"))
		return err_setc(e, ERR_INVALID_FIELD, "measure",
				"measure icount needs qemu; host mode measures wall-clock time");
	if (!s->compiler)
		s->compiler = "gcc-12";
	return 0;
}

/* targets x testcases -> groups; arch of a tbox_group target from its machines or the kconfig */
static int expand(struct db_conn *c, json_t *b, struct submission *s, struct err *e)
{
	json_t *targets = json_object_get(b, "targets"), *tcs = json_object_get(b, "testcases");
	size_t nt = json_array_size(targets), nc = json_array_size(tcs), i, j;
	size_t kn;
	const char *karch = s->kconfig && !s->host ? kconfig_arch(s->kconfig, &kn) : NULL;
	const char *suffix = s->kconfig && !s->host ? s->kconfig + kn : "defconfig";

	if (!targets)
		return err_setc(e, ERR_MISSING_FIELD, "targets",
				"'targets' is required: [\"x86_64\", ...]");
	if (!json_is_array(targets) || !nt || nt > MAX_TARGETS)
		return err_setc(e, ERR_INVALID_FIELD, "targets",
				"'targets' must be an array of 1..%d arches or tbox_groups",
				MAX_TARGETS);
	if (!tcs)
		return err_setc(e, ERR_MISSING_FIELD, "testcases",
				"'testcases' is required: [{\"testcase\": NAME, \"params\": {}}]");
	if (!json_is_array(tcs) || !nc || nc > MAX_TESTCASES)
		return err_setc(e, ERR_INVALID_FIELD, "testcases",
				"'testcases' must be an array of 1..%d objects", MAX_TESTCASES);
	if (!*suffix)
		return err_setc(e, ERR_INVALID_FIELD, "kconfig", "'kconfig' names no config");
	s->groups = xcalloc(nt * nc, sizeof(*s->groups));
	for (i = 0; i < nt; i++) {
		json_t *t = json_array_get(targets, i);
		const char *tn = json_string_value(t), *arch;
		char tarch[32] = "";

		if (!tn || !is_word(tn, 128))
			return err_setc(e, ERR_INVALID_FIELD, "targets",
					"a target is an arch (x86_64, arm64) or a tbox_group name");
		for (j = 0; j < i; j++)
			if (!strcmp(tn, json_string_value(json_array_get(targets, j))))
				return err_setc(e, ERR_INVALID_FIELD, "targets",
						"target '%s' is listed twice", tn);
		arch = target_arch(tn);
		if (!arch) {
			int got = db_request_tbox_arch(c, tn, tarch, sizeof(tarch), e);

			if (got < 0)
				return -1;
			arch = got ? (target_arch(tarch) ? target_arch(tarch) : NULL) : karch;
			if (!arch && !s->host)
				return err_setc(
					e, ERR_INVALID_FIELD, "targets",
					"no machine of tbox_group '%s' has registered: name its arch "
					"with a kconfig like x86_64-defconfig or arm64-defconfig",
					tn);
		}
		for (j = 0; j < nc; j++) {
			json_t *tc = json_array_get(tcs, j);
			struct group *g = &s->groups[s->nr_groups];
			const char *name = json_string_value(json_object_get(tc, "testcase"));
			char where[32]; /* "testcases[J].": the field a 400 names, as casecheck's */

			if (!json_is_object(tc) || !name || !is_word(name, 128))
				return err_setc(
					e, ERR_INVALID_FIELD, "testcases",
					"each testcase is {\"testcase\": NAME, \"params\": {...}}");
			snprintf(where, sizeof(where), "testcases[%zu].", j);
			g->target = tn;
			g->arch = arch;
			g->tbox_group = target_arch(tn) ? NULL : tn;
			g->testcase = name;
			s->nr_groups++;
			/* the running kernel has no guest to shape, as a host job has none */
			if (s->host && vmspec_host_check(json_object_get(tc, "params"), where, e))
				return -1;
			if (params_text(json_object_get(tc, "params"), s->measure, where,
					&g->params, e))
				return -1;
			if (s->host) {
				snprintf(g->kconfig, sizeof(g->kconfig), "host");
				snprintf(g->capability, sizeof(g->capability), "host");
			} else {
				/* the target's qemu machine takes the vcpus (vmspec.h) */
				if (vmspec_arch_check(json_object_get(tc, "params"), arch, where,
						      e))
					return -1;
				snprintf(g->kconfig, sizeof(g->kconfig), "%s-%s",
					 !strcmp(arch, "x86_64") ? "x86_64" : "arm64", suffix);
				vmspec_job_capability(g->kconfig, arch, g->params, g->capability,
						      sizeof(g->capability));
			}
		}
	}
	/* each testcase and its params against what the workers registered */
	if (casecheck_testcases(c, tcs, e))
		return -1;
	if (s->nr_groups * 2 *
		    (size_t)(s->repeat && s->repeat < MAX_ROUNDS ? s->repeat : MAX_ROUNDS) >
	    MAX_JOBS)
		return err_setc(e, ERR_INVALID_FIELD, "testcases", "more than %d jobs", MAX_JOBS);
	return 0;
}

/* repeat omitted: abtest_choose_repeat() over the groups' setups */
static int choose_repeat(struct db_conn *c, struct submission *s, struct err *e)
{
	struct abtest_setup *g = requests_setups(s);
	int rc;

	rc = abtest_choose_repeat(c, g, s->nr_groups, s->compiler,
				  s->measure ? s->measure : "wallclock", s->min_change_pct,
				  &s->repeat, &s->repeat_why, &s->noise, e);
	free(g);
	return rc;
}

/* base/head in the tree's mirror (gitmirror_resolve: fetched once when it lacks one) */
static int resolve(const struct config *cfg, struct submission *s, const char *url, struct err *e)
{
	const char *refs[2] = { s->base, s->head }, *fields[2] = { "base", "head" };
	char shas[2][41];

	if (gitmirror_resolve(cfg->data_dir, s->tree, url, (int)cfg->resolve_timeout_s,
			      s->head ? 2 : 1, refs, fields, shas, e))
		return -1;
	memcpy(s->base_sha, shas[0], 41);
	if (s->head)
		memcpy(s->head_sha, shas[1], 41);
	if (s->head && !strcmp(s->base_sha, s->head_sha))
		return err_setc(e, ERR_INVALID_FIELD, "head",
				"'head' is the same commit as 'base'");
	return 0;
}

/* a request's fields (checked before a plan adds its own): any other is a typo, refused */
static const char *const request_fields[] = { "tree",		"base",	   "head",	"patches",
					      "plan",		"targets", "testcases", "kconfig",
					      "compiler",	"measure", "monitors",	"repeat",
					      "min_change_pct", "notify",  "label",	"from_mail",
					      "dry_run",	NULL };
static const char *const tc_fields[] = { "testcase", "params", NULL };

/* what submit() does with a submission */
enum submit_mode {
	SUBMIT_ACCEPT,	/* checked as far as no git is needed, stored resolving (the API and
			 * the server's own callers: one way to make a request) */
	SUBMIT_RESOLVE, /* a stored one resolved and queued (resolver.h's threads) */
};

/* the submission stored in state resolving: the body as checked, its patches in their column */
static long long accept_request(struct db_conn *c, const struct submission *s, json_t *b,
				long long token_id, struct err *e)
{
	json_t *kept = json_copy(b);
	char *spec;
	long long id;
	struct db_request_new q = {
		.tree_id = s->tree_id,
		.base_ref = s->base,
		.head_ref = s->head,
		.patches = s->patches,
		.nr_patches = (long)s->mbox.nr_patches,
		.notify = s->notify,
		.label = s->label,
		.token_id = token_id,
	};

	json_object_del(kept, "patches");
	spec = json_dumps(kept, JSON_COMPACT | JSON_REAL_PRECISION(15));
	json_decref(kept);
	q.spec = spec;
	id = db_request_insert(c, &q, e);
	free(spec);
	return id;
}

/*
 * A submission body b (borrowed) checked and, by mode, stored resolving or
 * resolved and queued: the request's id with s filled (SUBMIT_RESOLVE: id,
 * or 0 when it was cancelled meanwhile), or -1 with e. c: NULL to take rq's
 * connection when needed (rq NULL: c is given).
 */
static long long submit(struct server *srv, struct request *rq, struct db_conn *c, json_t *b,
			long long token_id, enum submit_mode mode, long long id,
			struct submission *s, struct err *e)
{
	struct db_tree t = { 0 };
	long long ret = -1;

	if (json_keys_only(b, request_fields, "", e) ||
	    json_each_keys_only(json_object_get(b, "testcases"), tc_fields, "testcases", e))
		goto out;
	if (!c && !(c = rq_db(rq, e)))
		goto out;
	/* a plan's fields for those the request does not give, before they are checked; a
	 * stored submission has them already */
	if (mode != SUBMIT_RESOLVE && json_object_get(b, "plan") && abtest_plan_apply(c, b, e))
		goto out;
	if (check_fields(b, s, e))
		goto out;
	if (s->notify && !config_mail_domain_ok(srv->cfg->notify_domains, s->notify)) {
		err_setc(e, ERR_INVALID_FIELD, "notify",
			 "'notify' must be an address at one of the server's notify_domains (%s)",
			 *srv->cfg->notify_domains ? srv->cfg->notify_domains : "none set");
		goto out;
	}
	switch (db_tree_get(c, s->tree, &t, e)) {
	case -1:
		goto out;
	case 0:
		err_setc(e, ERR_NOT_FOUND, "tree",
			 "no tree '%s': register it with POST /api/v1/trees", s->tree);
		goto out;
	}
	s->tree_id = t.id;
	if (expand(c, b, s, e))
		goto out;
	if (mode == SUBMIT_ACCEPT) {
		/* what can be said without git: a tree to fetch, refs git may be handed */
		if (!t.url || !*t.url) {
			err_setc(e, ERR_INVALID_FIELD, "tree",
				 "tree '%s' has no url to resolve refs in", s->tree);
			goto out;
		}
		if (gitmirror_ref_check(s->base, "base", e) ||
		    (s->head && gitmirror_ref_check(s->head, "head", e)))
			goto out;
		ret = accept_request(c, s, b, token_id, e);
		if (ret > 0)
			resolver_kick(srv->resolver);
		goto out;
	}
	if (resolve(srv->cfg, s, t.url, e) || (!s->repeat && choose_repeat(c, s, e)))
		goto out;
	ret = requests_store(srv, token_id, c, s, b, mode == SUBMIT_RESOLVE ? id : 0, e);
	if (ret > 0)
		lease_queue_kick(srv->leases);
out:
	db_tree_release(&t);
	return ret;
}

long long api_request_submit(struct server *srv, struct db_conn *c, json_t *body, struct err *e)
{
	struct submission s = { 0 };
	long long id = submit(srv, NULL, c, body, 0, SUBMIT_ACCEPT, 0, &s, e);

	requests_submission_release(&s);
	return id;
}

int api_request_resolve(struct server *srv, struct db_conn *c, long long id, struct err *e)
{
	struct submission s = { 0 };
	char *spec, *patches;
	long long token_id, got;
	json_t *b;

	got = db_request_submission(c, id, &spec, &patches, &token_id, e);
	if (got <= 0)
		return (int)got;
	b = json_loads(spec, 0, NULL);
	if (!json_is_object(b)) {
		json_decref(b);
		free(spec);
		free(patches);
		return err_setc(e, ERR_INTERNAL, "", "request %lld's submission is not an object",
				id);
	}
	if (patches)
		json_object_set_new(b, "patches", json_string(patches));
	got = submit(srv, NULL, c, b, token_id, SUBMIT_RESOLVE, id, &s, e);
	requests_submission_release(&s);
	json_decref(b);
	free(spec);
	free(patches);
	return got < 0 ? -1 : 0;
}

/*
 * The work of POST /api/v1/requests, on the deferred pool (http_defer()):
 * the checks read the database (plans, trees, the cases the workers
 * registered). Resolving the refs may fetch the tree's mirror: that is
 * resolver.h's, in the background (a stalled upstream held pool threads
 * until git gave up).
 */
static void requests_post_run(struct request *rq)
{
	struct err e;
	json_t *b = NULL;
	struct submission s = { 0 };
	json_t *dry;
	long long id;
	char url[64];

	if (rq->too_large) {
		err_setc(&e, ERR_TOO_LARGE, "patches",
			 "the request body is over the server's limit");
		goto bad;
	}
	b = rq_json(rq, &e);
	if (!b)
		goto bad;
	/* the keys before a robot's report becomes a request's fields (its commit, base and
	 * case); dry_run answers what it would queue */
	if (json_keys_only(b, request_fields, "", &e) ||
	    json_each_keys_only(json_object_get(b, "testcases"), tc_fields, "testcases", &e) ||
	    requests_from_mail(b, &dry, &e))
		goto bad;
	if (dry) {
		rq->deferred_status = 200;
		rq->deferred = dry;
		goto out;
	}
	id = submit(rq->srv, rq, NULL, b, rq->token_id, SUBMIT_ACCEPT, 0, &s, &e);
	if (id < 0)
		goto bad;
	snprintf(url, sizeof(url), "/api/v1/requests/%lld", id);
	rq->deferred_status = 202;
	rq->deferred = json_pack("{s:I,s:s,s:s}", "id", (json_int_t)id, "state", "resolving", "url",
				 url);
	goto out;
bad:
	rq->deferred_status = (unsigned)(e.status >= 400 && e.status <= 599 ? e.status : 500);
	rq->deferred = err_json(&e);
out:
	requests_submission_release(&s);
	json_decref(b);
}

enum MHD_Result api_requests_post(struct request *rq)
{
	json_t *body;

	if (!rq->resumed && http_defer(rq, requests_post_run))
		requests_post_run(rq); /* no pool (stopping): here and now */
	else if (!rq->resumed)
		return MHD_YES; /* back here once it is done */
	body = rq->deferred;
	rq->deferred = NULL;
	return reply_json(rq, rq->deferred_status, body);
}

enum MHD_Result api_requests_get(struct request *rq)
{
	static const char *const states[] = { "resolving", "queued",	"running", "done",
					      "failed",	   "cancelled", NULL };

	return reply_list(rq, states, 100, 1000, db_requests_json);
}

enum MHD_Result api_request_get(struct request *rq)
{
	struct err e;
	long long id;
	char idb[24];
	struct db_conn *c;

	if (rq_path_id(rq, "request", &id, idb, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c || abtest_settle(c, id, &e) < 0)
		return reply_err(rq, &e);
	return reply_by_id(rq, "request", db_request_json);
}

enum MHD_Result api_request_cancel(struct request *rq)
{
	struct err e;
	long long id;
	char idb[24];
	long jobs = 0;
	struct db_conn *c;
	int n;

	if (rq_path_id(rq, "request", &id, idb, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c || db_begin(c, &e))
		return reply_err(rq, &e);
	n = db_request_cancel(c, id, &jobs, &e);
	if (n < 0 || (n && db_commit(c, &e))) {
		db_rollback(c);
		return reply_err(rq, &e);
	}
	if (!n) {
		int x;

		db_rollback(c);
		x = db_request_exists(c, id, &e);
		if (x < 0)
			return reply_err(rq, &e);
		if (!x)
			err_setc(&e, ERR_NOT_FOUND, "id", "no request %lld", id);
		else
			err_setc(&e, ERR_CONFLICT, "id", "request %lld is not queued or running",
				 id);
		return reply_err(rq, &e);
	}
	return reply_json(rq, 200,
			  json_pack("{s:I,s:s,s:I}", "id", (json_int_t)id, "state", "cancelled",
				    "jobs_cancelled", (json_int_t)jobs));
}
