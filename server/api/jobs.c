/*
 * Jobs and the worker protocol:
 *   POST /api/v1/jobs (submit)            queue runs of a testcase at a commit
 *                                         (monitors: ["perf-profile", "perf-stat"], sql/0018;
 *                                         image_sha256: with accel kexec, an uploaded
 *                                         image booted instead of building, sql/0038);
 *                                         params' machine shape stored in its one spelling
 *                                         (vmspec_canonical(): "pin": "true" is stored true)
 *   GET  /api/v1/jobs[?state=&limit=]     recent jobs, newest first; state filters by
 *                                         "status": the state, but a done job without a
 *                                         run is failed (build/boot/run-failed) or
 *                                         skipped (same-image)
 *   GET  /api/v1/jobs/{id}                one job: state, attempts, phase history, runs,
 *                                         run_guests {run id: {accel, cpus, guest}}: what
 *                                         each run got (runs.extra; null where not recorded)
 *   GET  /api/v1/jobs/{id}/kconfig        the .config the worker built with
 *   POST /api/v1/jobs/lease (worker)      {machine_id, wait_s <= 60, request_id?}
 *                                         -> 200 {job, lease_timeout_s} | 204
 *     request_id: a UUID the worker keeps while it retries one lease after
 *     a failure (502, timeout, broken connection); a job already leased to
 *     the machine under it is handed over again (sql/0012, lease_try())
 *   POST /api/v1/jobs/{id}/heartbeat      {machine_id, phase, progress, message}
 *                                         -> 200 {lease_expires_at, lease_timeout_s}
 *   POST /api/v1/jobs/{id}/complete       {machine_id, status, results[], log_tail, kconfig,
 *                                          image_sha256?, same_image_as?}
 *   POST /api/v1/jobs/{id}/cancel (submit) a queued or leased job -> cancelled; 409 otherwise
 *
 * A job's outcome (ok, build-failed, boot-failed, run-failed, same-image) is
 * what the worker reported (same-image: the image it built is one of the
 * lease's skip_images, so it ran nothing; same_image_as names the commit
 * whose runs stand for it, sql/0022); the job's state is `done` for any outcome, and one
 * other than ok (no run came of it) sets fail_reason to the outcome and the
 * worker's reason from its log tail. `failed` means no worker finished
 * it: its lease expired max_attempts times. A cancelled leased job's
 * worker learns it from the 409 of its next heartbeat.
 * lease_timeout_s (the server's --lease-timeout, seconds) is in every reply
 * that starts or renews a lease, not only in register's: a worker that
 * registered before the server restarted with a smaller timeout sizes its
 * heartbeat periods by the value it learns last (registration:
 * api/workers.c).
 * A heartbeat for a lease past its expiry gets 409 "lease_lost" whether
 * or not the reaper has requeued the job yet (the lease's end does not
 * depend on when the reaper runs). A heartbeat or complete for a lease
 * that is no longer the caller's (requeued, or leased by another machine)
 * gets 409
 * "lease_lost" and stores nothing; a heartbeat for a job that does not
 * exist gets 404.
 */
#include "server/api/api.h"
#include "server/jobs/imagestore.h"
#include "server/track/casecheck.h"
#include "server/jsonout.h"
#include "arch.h"
#include "names.h"
#include "clock.h"
#include "jsonkeys.h"
#include "server/db/jobs.h"
#include "server/db/runs.h"
#include "server/db/trees.h"
#include "server/track/gitmirror.h"
#include "server/jobs/jobdone.h"
#include "server/jobs/lease.h"
#include "profile.h"
#include "server/log.h"
#include "server/api/args.h"
#include "server/api/quota.h"
#include "resultdoc.h"
#include "vmspec.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#define MAX_WAIT_S 60
#define MAX_LOG_TAIL (256 * 1024)
#define MAX_KCONFIG (4 * 1024 * 1024)

/* the fields of POST /api/v1/jobs: any other is a typo, refused rather than defaulted */
static const char *const job_fields[] = { "tree",	  "commit",   "kconfig",      "compiler",
					  "testcase",	  "params",   "arch",	      "tbox_group",
					  "repeat",	  "priority", "max_attempts", "monitors",
					  "image_sha256", NULL };

enum MHD_Result api_jobs_post(struct request *rq)
{
	struct err e;
	json_t *b = rq_json(rq, &e), *params, *warnings = json_array();
	const char *tree = NULL, *commit, *kconfig, *compiler, *testcase, *arch, *tbox, *cap;
	const char *image = NULL;
	long long repeat, priority, max_attempts, tree_id = 0, commit_id, tc_id, id;
	char *params_text = NULL, capbuf[64], monitors[MONITORS_TEXT_MAX], sha[1][41];
	struct casecheck cc = { 0 };
	struct db_conn *c = NULL;
	int in_tx = 0;
	enum MHD_Result ret;

	if (!b) {
		json_decref(warnings);
		return reply_err(rq, &e);
	}
	if (json_keys_only(b, job_fields, "", &e))
		goto bad;
	if (monitors_from_json(json_object_get(b, "monitors"), "monitors", monitors, &e))
		goto bad;
	if (json_str_field(b, "tree", 0, 128, &tree, &e) ||
	    json_str_field(b, "commit", 1, 256, &commit, &e) ||
	    json_str_field(b, "kconfig", 1, 128, &kconfig, &e) ||
	    json_str_field(b, "compiler", 0, 128, &compiler, &e) ||
	    json_str_field(b, "testcase", 1, 128, &testcase, &e) ||
	    json_str_field(b, "arch", 0, 32, &arch, &e) ||
	    json_str_field(b, "tbox_group", 0, 128, &tbox, &e) ||
	    json_str_field(b, "image_sha256", 0, 64, &image, &e) ||
	    json_int_field(b, "repeat", 1, 1, 1000, &repeat, &e) ||
	    json_int_field(b, "priority", 0, -1000, 1000, &priority, &e) ||
	    json_int_field(b, "max_attempts", rq->srv->cfg->max_attempts, 1, 100, &max_attempts,
			   &e))
		goto bad;
	if (!names_full_sha(commit) && !tree) {
		err_setc(&e, ERR_INVALID_FIELD, "commit",
			 "'commit' must be a full 40-digit lowercase hex sha (or, with 'tree', a "
			 "ref)");
		goto bad;
	}
	if (!names_plain(kconfig, 128) || !names_plain(testcase, 128) ||
	    (compiler && !names_plain(compiler, 128)) || (tbox && !names_plain(tbox, 128)) ||
	    (tree && !names_plain(tree, 128))) {
		err_setc(&e, ERR_INVALID_FIELD,
			 !names_plain(kconfig, 128)		 ? "kconfig" :
			 !names_plain(testcase, 128)		 ? "testcase" :
			 compiler && !names_plain(compiler, 128) ? "compiler" :
			 tbox && !names_plain(tbox, 128)	 ? "tbox_group" :
								   "tree",
			 "names must be 1..128 chars of [A-Za-z0-9._+-]");
		goto bad;
	}
	if (quota_priority(rq, priority, &e))
		goto bad;
	params = json_object_get(b, "params");
	if (params && !json_is_null(params) && params_check(params, &e))
		goto bad;
	if (json_is_null(params))
		params = NULL;
	if (strcmp(kconfig, "host")) {
		const char *ka = arch_of_kconfig(kconfig);
		if (!arch)
			arch = ka;
		if (!arch || (strcmp(arch, "x86_64") && strcmp(arch, "aarch64"))) {
			err_setc(&e, ERR_INVALID_FIELD, "arch",
				 "a kernel job needs arch x86_64 or aarch64 (or a kconfig named x86_64-… "
				 "or arm64-…)");
			goto bad;
		}
		/* a vcpus count the arch's qemu machine cannot boot: a 400 now, not a
		 * run-failed */
		if (vmspec_arch_check(params, arch, "", &e))
			goto bad;
		if (!tree) {
			err_setc(&e, ERR_MISSING_FIELD, "tree",
				 "a kernel job needs a tracked 'tree'");
			goto bad;
		}
	} else {
		/* the running kernel on the host as it is: no guest to shape (lib/vmspec.h) */
		if (vmspec_host_job_check(params, "", &e))
			goto bad;
	}
	/* the shape in its one spelling (pin "true" is stored true): one series, not three */
	if (vmspec_canonical(params, "", &e))
		goto bad;
	/* 15 digits: params are typed by people; 0.2 stays 0.2, not 0.20000000000000001 */
	params_text = params ? json_dumps(params,
					  JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) :
			       xstrdup("{}");
	cap = vmspec_job_capability(kconfig, arch, params_text, capbuf, sizeof(capbuf));
	/* a kernel another worker built and uploaded (server/jobs/imagestore.h): booted, not built */
	if (image && (!imagestore_name_ok(image) || strncmp(cap, "kexec-", 6))) {
		err_setc(&e, ERR_INVALID_FIELD, "image_sha256",
			 !imagestore_name_ok(image) ?
				 "'image_sha256' must be 64 lowercase hex digits" :
				 "'image_sha256' is for a bare-metal job (params.accel \"kexec\")");
		goto bad;
	}
	if (image && !imagestore_has(rq->srv->cfg->data_dir, image)) {
		err_setc(&e, ERR_NOT_FOUND, "image_sha256",
			 "no image %s: its worker uploads it with PUT /api/v1/images/%s", image,
			 image);
		goto bad;
	}

	c = rq_db(rq, &e);
	if (!c || quota_queue(rq, c, &e))
		goto bad;
	/* what the workers registered: an unknown testcase or param is a 400 (casecheck.h) */
	if (casecheck_load(c, &cc, &e) ||
	    casecheck_testcase(&cc, "", testcase, params, warnings, &e) ||
	    casecheck_served(c, cap, tbox, arch, warnings, &e))
		goto bad;
	if (tree) {
		struct db_tree t;

		if (db_tree_get(c, tree, &t, &e) < 0)
			goto bad;
		tree_id = t.id;
		/* a branch, a tag or a short sha: the commit it names in the mirror, as A/B
		 * requests resolve theirs */
		if (!names_full_sha(commit) &&
		    (!tree_id || gitmirror_resolve(rq->srv->cfg->data_dir, tree, t.url,
						   (int)rq->srv->cfg->git_timeout_s, 1, &commit,
						   (const char *const[]){ "commit" }, sha, &e))) {
			db_tree_release(&t);
			if (!tree_id)
				err_setc(&e, ERR_NOT_FOUND, "tree",
					 "no tree '%s' to find commit '%s' in", tree, commit);
			goto bad;
		}
		db_tree_release(&t);
		if (!names_full_sha(commit))
			commit = sha[0];
		if (!tree_id && strcmp(kconfig, "host")) {
			err_setc(&e, ERR_NOT_FOUND, "tree",
				 "no tree '%s': register it with POST /api/v1/trees", tree);
			goto bad;
		}
	}
	commit_id = db_commit_upsert(c, commit, NULL, NULL, tree_id, &e);
	if (commit_id < 0)
		goto bad;
	tc_id = db_testcase_upsert(c, testcase, &e);
	if (tc_id < 0)
		goto bad;
	/* the job and its warnings together */
	if (db_begin(c, &e))
		goto bad;
	in_tx = 1;
	{
		const struct db_job_new j = {
			.tree_id = tree_id,
			.commit_id = commit_id,
			.testcase_id = tc_id,
			.params = params_text,
			.kconfig = kconfig,
			.compiler = compiler ? compiler : "gcc-12",
			.arch = arch,
			.tbox_group = tbox,
			.capability = cap,
			.repeat = repeat,
			.priority = priority,
			.max_attempts = max_attempts,
			.token_id = rq->token_id,
			.monitors = monitors,
			.boot_image = image,
		};
		id = db_job_insert(c, &j, &e);
	}
	if (id < 0)
		goto bad;
	if (json_array_size(warnings)) {
		char *arr = casecheck_pg_array(warnings);
		int n = db_job_warnings_set(c, id, arr, &e);

		free(arr);
		if (n < 0)
			goto bad;
	}
	in_tx = 0;
	if (db_commit(c, &e))
		goto bad;
	ret = reply_json(rq, 201,
			 json_pack("{s:I,s:s,s:s,s:O}", "id", (json_int_t)id, "state", "queued",
				   "capability", cap, "warnings", warnings));
	lease_queue_kick(rq->srv->leases);
	casecheck_release(&cc);
	json_decref(warnings);
	free(params_text);
	json_decref(b);
	return ret;
bad:
	if (in_tx)
		db_rollback(c);
	casecheck_release(&cc);
	json_decref(warnings);
	free(params_text);
	json_decref(b);
	return reply_err(rq, &e);
}

enum MHD_Result api_jobs_get(struct request *rq)
{
	/* the jobs' status (JOB_STATUS, db/jobs.c): done = ended with runs */
	static const char *const states[] = { "queued",	 "leased",    "done", "failed",
					      "skipped", "cancelled", NULL };

	return reply_list(rq, states, 200, 5000, db_jobs_json);
}

enum MHD_Result api_job_get(struct request *rq)
{
	return reply_by_id(rq, "job", db_job_json);
}

enum MHD_Result api_job_kconfig(struct request *rq)
{
	struct err e;
	long long id;
	char idb[24], *text = NULL;
	size_t len;
	struct db_conn *c;
	enum MHD_Result ret;
	int got;

	if (rq_path_id(rq, "job", &id, idb, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	got = c ? db_job_kconfig(c, id, &text, &len, &e) : -1;
	if (got < 0)
		return reply_err(rq, &e);
	if (!got) {
		err_setc(&e, ERR_NOT_FOUND, "id", "job %lld has no .config", id);
		return reply_err(rq, &e);
	}
	ret = reply_text(rq, 200, "text/plain; charset=utf-8", text, len);
	free(text);
	return ret;
}

/* A worker token acts for the machines it registered; an admin token for any. */
static int owner_ok(struct request *rq, long long owner, long long machine, struct err *e)
{
	if (!owner || owner == rq->token_id || rq->scope == SCOPE_ADMIN)
		return 0;
	return err_setc(e, ERR_FORBIDDEN, "machine_id",
			"machine %lld was registered by another token", machine);
}

/* Machine id exists (marked seen) and the caller's token owns it. */
static int machine_owned(struct request *rq, struct db_conn *c, long long id, struct err *e)
{
	long long owner = 0;

	switch (db_machine_seen(c, id, &owner, e)) {
	case -1:
		return -1;
	case 0:
		return err_setc(e, ERR_NOT_FOUND, "machine_id", "no machine %lld: register first",
				id);
	}
	return owner_ok(rq, owner, id, e);
}

/* The machine job id is leased to, if any, is the caller's token's. */
static int job_owned(struct request *rq, struct db_conn *c, long long id, struct err *e)
{
	long long machine = 0, owner = 0;

	switch (db_job_machine_owner(c, id, &machine, &owner, e)) {
	case -1:
		return -1;
	case 0:
		return 0;
	}
	return owner_ok(rq, owner, machine, e);
}

/* 200 {job, lease_timeout_s}; steals job */
static enum MHD_Result reply_leased(struct request *rq, json_t *job)
{
	return reply_json(rq, 200,
			  json_pack("{s:o,s:I}", "job", job, "lease_timeout_s",
				    (json_int_t)rq->srv->cfg->lease_timeout_s));
}

enum MHD_Result api_jobs_lease(struct request *rq)
{
	struct err e;
	json_t *b, *job, *rid;
	char reqid[37] = "";
	long long machine, wait_s;
	struct db_conn *c;
	int got;

	if (rq->resumed) {
		job = rq->deferred;
		rq->deferred = NULL;
		if (!job)
			return reply_empty(rq, 204);
		return reply_leased(rq, job);
	}
	b = rq_json(rq, &e);
	if (!b)
		return reply_err(rq, &e);
	if (!json_object_get(b, "machine_id")) {
		json_decref(b);
		err_setc(&e, ERR_MISSING_FIELD, "machine_id", "'machine_id' is required");
		return reply_err(rq, &e);
	}
	if (json_int_field(b, "machine_id", 0, 1, 1LL << 62, &machine, &e) ||
	    json_int_field(b, "wait_s", 0, 0, MAX_WAIT_S, &wait_s, &e)) {
		json_decref(b);
		return reply_err(rq, &e);
	}
	/* optional: the worker's name for this lease request, kept over its retries */
	rid = json_object_get(b, "request_id");
	if (rid && !json_is_null(rid)) {
		uuid_t u;

		if (!json_is_string(rid) || uuid_parse(json_string_value(rid), u)) {
			json_decref(b);
			err_setc(&e, ERR_INVALID_FIELD, "request_id",
				 "'request_id' must be a UUID");
			return reply_err(rq, &e);
		}
		uuid_unparse_lower(u, reqid);
	}
	json_decref(b);
	c = rq_db(rq, &e);
	if (!c || machine_owned(rq, c, machine, &e))
		return reply_err(rq, &e);
	got = lease_try(c, machine, reqid[0] ? reqid : NULL, rq->srv->cfg->lease_timeout_s, &job,
			&e);
	if (got < 0)
		return reply_err(rq, &e);
	if (got)
		return reply_leased(rq, job);
	if (!wait_s || !rq->srv->leases)
		return reply_empty(rq, 204);
	http_park(rq);
	lease_queue_park(rq->srv->leases, machine, reqid[0] ? reqid : NULL,
			 mono_ms() + wait_s * 1000, http_unpark, rq);
	return MHD_YES;
}

/* The job id of the path (idb: its text) and the body's machine_id (0: not given). */
static int path_job_and_machine(struct request *rq, json_t *b, long long *id, char idb[24],
				long long *machine, struct err *e)
{
	if (rq_path_id(rq, "job", id, idb, e))
		return -1;
	return json_int_field(b, "machine_id", 0, 0, 1LL << 62, machine, e);
}

enum MHD_Result api_job_heartbeat(struct request *rq)
{
	struct err e;
	json_t *b = rq_json(rq, &e), *pv;
	const char *phase, *message;
	char idb[24], expires[64];
	struct db_heartbeat hb = { .progress = NAN };
	struct db_conn *c;
	enum MHD_Result ret;
	int got;

	if (!b)
		return reply_err(rq, &e);
	if (path_job_and_machine(rq, b, &hb.job_id, idb, &hb.machine_id, &e) ||
	    json_str_field(b, "phase", 0, 32, &phase, &e) ||
	    json_str_field(b, "message", 0, 1024, &message, &e))
		goto bad;
	if (phase && !names_plain(phase, 32)) {
		err_setc(&e, ERR_INVALID_FIELD, "phase", "phase is a word like build or run");
		goto bad;
	}
	pv = json_object_get(b, "progress");
	if (pv && !json_is_null(pv)) {
		if (!json_is_number(pv) || json_number_value(pv) < 0 || json_number_value(pv) > 1) {
			err_setc(&e, ERR_INVALID_FIELD, "progress",
				 "progress must be a number in [0, 1]");
			goto bad;
		}
		hb.progress = json_number_value(pv);
	}
	hb.lease_s = rq->srv->cfg->lease_timeout_s;
	hb.phase = phase;
	hb.message = message;
	c = rq_db(rq, &e);
	got = c && !job_owned(rq, c, hb.job_id, &e) ?
		      db_job_heartbeat(c, &hb, expires, sizeof(expires), &e) :
		      -1;
	if (got < 0)
		goto bad;
	if (!got) {
		char state[16];

		switch (db_job_state(c, hb.job_id, state, sizeof(state), &e)) {
		case -1:
			break;
		case 0:
			err_setc(&e, ERR_NOT_FOUND, "id", "no job %s", idb);
			break;
		default:
			if (!strcmp(state, "cancelled"))
				err_setc(&e, ERR_LEASE_LOST, "id",
					 "job %s was cancelled: stop and do not complete it", idb);
			else
				err_setc(&e, ERR_LEASE_LOST, "id",
					 "job %s is not leased to this worker any more: stop and do not "
					 "complete it",
					 idb);
		}
		goto bad;
	}
	ret = reply_json(rq, 200,
			 json_pack("{s:s,s:I}", "lease_expires_at", expires, "lease_timeout_s",
				   (json_int_t)rq->srv->cfg->lease_timeout_s));
	json_decref(b);
	return ret;
bad:
	json_decref(b);
	return reply_err(rq, &e);
}

static const char *const outcomes[] = { "ok",	      "build-failed", "boot-failed",
					"run-failed", "same-image",   NULL };

/* 1 when s is n lowercase hex digits */
static int is_hex(const char *s, size_t n)
{
	size_t i = 0;

	while (s && i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	return s && i == n && !s[n];
}

/*
 * The completion's "image_sha256" (optional, 64 hex) and "same_image_as"
 * (40 hex; required with status same-image, refused otherwise; a
 * same-image completion carries no results and needs its image). 0 or -1
 * with e (400 naming the field).
 */
static int image_fields(json_t *b, const char *status, const char **image, const char **same_as,
			struct err *e)
{
	int same = !strcmp(status, "same-image");

	if (json_str_field(b, "image_sha256", 0, 64, image, e) ||
	    json_str_field(b, "same_image_as", 0, 40, same_as, e))
		return -1;
	if (*image && !is_hex(*image, 64))
		return err_setc(e, ERR_INVALID_FIELD, "image_sha256",
				"'image_sha256' must be 64 lowercase hex digits");
	if (*same_as && (!same || !is_hex(*same_as, 40)))
		return err_setc(e, ERR_INVALID_FIELD, "same_image_as",
				"'same_image_as' is a 40-hex commit, with status same-image only");
	if (same && (!*same_as || !*image))
		return err_setc(e, ERR_MISSING_FIELD, *image ? "same_image_as" : "image_sha256",
				"status same-image needs image_sha256 and same_image_as");
	if (same && json_array_size(json_object_get(b, "results")))
		return err_setc(e, ERR_INVALID_FIELD, "results",
				"a same-image job made no run: 'results' must be empty");
	return 0;
}

enum MHD_Result api_job_complete(struct request *rq)
{
	struct err e;
	json_t *b = rq_json(rq, &e), *results, *doc;
	const char *status, *log_tail, *kconfig, *image = NULL, *same_as = NULL;
	char idb[24];
	struct resultdoc *docs = NULL;
	struct jobdone d;
	size_t n = 0, i;
	struct db_conn *c = NULL;
	long long job_id, machine;
	int known = 0, got;
	enum MHD_Result ret;

	if (!b)
		return reply_err(rq, &e);
	if (path_job_and_machine(rq, b, &job_id, idb, &machine, &e) ||
	    json_str_field(b, "status", 1, 32, &status, &e) ||
	    json_str_field(b, "log_tail", 0, MAX_LOG_TAIL, &log_tail, &e) ||
	    json_str_field(b, "kconfig", 0, MAX_KCONFIG, &kconfig, &e))
		goto bad;
	for (i = 0; outcomes[i]; i++)
		if (!strcmp(status, outcomes[i]))
			known = 1;
	if (!known) {
		err_setc(&e, ERR_INVALID_FIELD, "status",
			 "status must be ok, build-failed, boot-failed, run-failed or same-image");
		goto bad;
	}
	if (image_fields(b, status, &image, &same_as, &e))
		goto bad;
	results = json_object_get(b, "results");
	if (results && !json_is_array(results)) {
		err_setc(&e, ERR_INVALID_FIELD, "results",
			 "'results' must be an array of result documents");
		goto bad;
	}
	n = json_array_size(results);
	if (!strcmp(status, "ok") && !n) {
		err_setc(&e, ERR_INVALID_FIELD, "results",
			 "status ok needs at least one result document");
		goto bad;
	}
	docs = xcalloc(n ? n : 1, sizeof(*docs));
	json_array_foreach (results, i, doc) {
		if (resultdoc_check(doc, &docs[i], &e)) {
			char detail[sizeof(e.detail)];
			snprintf(detail, sizeof(detail), "results[%zu].%.200s", i, e.detail);
			snprintf(e.detail, sizeof(e.detail), "%s", detail);
			goto bad;
		}
		if (docs[i].job_id && docs[i].job_id != job_id) {
			err_setc(&e, ERR_INVALID_FIELD, "results.job_id",
				 "result %zu names job %lld, not %lld", i, docs[i].job_id, job_id);
			goto bad;
		}
		docs[i].job_id = job_id; /* link the run; the document itself is stored as sent */
	}

	c = rq_db(rq, &e);
	if (!c || job_owned(rq, c, job_id, &e))
		goto bad;
	d = (struct jobdone){ .job_id = job_id,
			      .job_text = idb,
			      .machine = machine,
			      .status = status,
			      .log_tail = log_tail,
			      .kconfig = kconfig,
			      .image = image,
			      .same_as = same_as,
			      .results = results,
			      .docs = docs };
	got = jobdone_store(rq->srv, c, &d, &e);
	if (got < 0)
		goto bad;
	free(docs);
	/* `status` points into b: build the reply before b goes */
	if (got)
		ret = reply_json(rq, 200,
				 json_pack("{s:I,s:s,s:b}", "id", (json_int_t)job_id, "state",
					   "done", "already", 1));
	else
		ret = reply_json(rq, 200,
				 json_pack("{s:I,s:s,s:s,s:I}", "id", (json_int_t)job_id, "state",
					   "done", "outcome", status, "runs", (json_int_t)n));
	json_decref(b);
	return ret;
bad:
	free(docs);
	json_decref(b);
	return reply_err(rq, &e);
}

enum MHD_Result api_job_cancel(struct request *rq)
{
	struct err e;
	long long id;
	char idb[24], was[16], state[16];
	struct db_conn *c;
	int got;

	if (rq_path_id(rq, "job", &id, idb, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	got = c ? db_job_cancel(c, id, was, sizeof(was), &e) : -1;
	if (got < 0)
		return reply_err(rq, &e);
	if (got)
		return reply_json(rq, 200,
				  json_pack("{s:I,s:s,s:s}", "id", (json_int_t)id, "state",
					    "cancelled", "was", was));
	switch (db_job_state(c, id, state, sizeof(state), &e)) {
	case -1:
		break;
	case 0:
		err_setc(&e, ERR_NOT_FOUND, "id", "no job %s", idb);
		break;
	default:
		err_setc(&e, ERR_CONFLICT, "state",
			 "job %s is %s: only a queued or leased job can be cancelled", idb, state);
	}
	return reply_err(rq, &e);
}
