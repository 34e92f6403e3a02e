#include "server/jobs/ingest.h"
#include "server/jsonout.h"
#include "server/server.h"
#include "server/db/db.h"
#include "server/db/jobs.h"
#include "server/db/runs.h"
#include "server/db/trees.h"
#include "server/db/profiles.h"
#include "buf.h"
#include "sha256.h"
#include "stats/metric.h"
#include "vmspec.h"
#include "xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ingest_committed(struct server *srv, size_t runs_created, size_t values_created)
{
	if (values_created)
		atomic_fetch_add(&srv->values_ingested, values_created);
	if (runs_created)
		atomic_fetch_add(&srv->trees_gen, 1);
}

/* Every top-level field without a column of its own (resultdoc_fields) goes to runs.extra. */
static json_t *extra_fields(json_t *doc)
{
	json_t *extra = json_object();
	const char *key;
	json_t *v;

	json_object_foreach (doc, key, v) {
		int known = 0;
		for (int i = 0; resultdoc_fields[i]; i++)
			if (!strcmp(key, resultdoc_fields[i]))
				known = 1;
		if (!known)
			json_object_set(extra, key, v);
	}
	return extra;
}

/*
 * The canonical text of a document, whose SHA-256 tells an identical copy
 * from different content. Keys sorted, compact; the same numbers written
 * the same: an integer (|v| <= 2^53, where a double holds it exactly) as
 * the real of the same value, so [1] and [1.0] are the same document as
 * JSON says; run_id in lower case (the column is a uuid: "ABC…" and
 * "abc…" are one run); with params (not NULL), the document's params
 * object replaced by them: the machine shape in its one spelling
 * (vmspec_canonical()), so "pin": "1" and "pin": true are one document
 * as they are one setup. params NULL: the document's params as posted,
 * the hash runs stored before the shape was rewritten carry. legacy: the
 * text before any normalisation (json_dumps of the document as parsed),
 * which runs stored earlier still carry; params is then not used.
 */
/* an integer a double holds exactly: |v| <= 2^53 (no llabs: INT64_MIN has no absolute value) */
static int exact_in_double(const json_t *v)
{
	json_int_t x;

	if (!json_is_integer(v))
		return 0;
	x = json_integer_value(v);
	return x >= -(1LL << 53) && x <= (1LL << 53);
}

static void canon_numbers(json_t *j)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach (j, k, v) {
			if (exact_in_double(v))
				json_object_set_new(j, k, json_real((double)json_integer_value(v)));
			else
				canon_numbers(v);
		}
	} else if (json_is_array(j)) {
		json_array_foreach (j, i, v) {
			if (exact_in_double(v))
				json_array_set_new(j, i, json_real((double)json_integer_value(v)));
			else
				canon_numbers(v);
		}
	}
}

static void canonical_hash(json_t *doc, int legacy, const json_t *params, char hash[65])
{
	json_t *c = legacy ? json_incref(doc) : json_deep_copy(doc);
	json_t *rid = json_object_get(c, "run_id");
	char *text;

	if (!c)
		abort();
	if (!legacy) {
		if (params && json_is_object(json_object_get(c, "params")) &&
		    json_object_set_new(c, "params", json_deep_copy(params)))
			abort();
		canon_numbers(c);
		if (json_is_string(rid)) {
			char low[64];
			size_t n = json_string_length(rid);

			if (n < sizeof(low)) {
				for (size_t i = 0; i < n; i++)
					low[i] = (char)tolower(
						(unsigned char)json_string_value(rid)[i]);
				low[n] = '\0';
				json_object_set_new(c, "run_id", json_string(low));
			}
		}
	}
	text = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
	if (!text)
		abort();
	sha256_hex(text, strlen(text), hash);
	free(text);
	json_decref(c);
}

static void undo(struct db_conn *c, int nested)
{
	if (!nested)
		db_rollback(c);
	else
		db_savepoint_rollback(c);
}

/*
 * The job a document names (job_id) must exist, else 404 "not_found"
 * (detail "job_id"; the foreign key would refuse the run with a 500), and
 * be of the document's commit and testcase, else 400 "invalid_field"
 * (detail "commit" / "testcase"): the run would be listed under a job
 * that did not run it. The worker copies both from the job (its
 * completion.c), so they differ only in a wrong document. An A/B request's
 * head job with patches (sql/0016) is the exception for the commit: its
 * run is of the commit `git am` made on the job's commit, which only the
 * worker knows. With poster_token, that token must be one that may post to
 * the job, else 403 (detail "job_id"): else any submit or worker token
 * could post runs into another's A/B request, bisect or tracking job and
 * turn its verdict. One read of the job for all of it.
 */
static int check_job(struct db_conn *c, const struct resultdoc *d, long long poster_token,
		     struct err *e)
{
	struct db_job_post j;

	switch (db_job_post_check(c, d->job_id, poster_token, &j, e)) {
	case -1:
		return -1;
	case 0:
		return err_setc(e, ERR_NOT_FOUND, "job_id", "no job %lld", d->job_id);
	}
	if (!j.may_post)
		return err_setc(e, ERR_FORBIDDEN, "job_id",
				"job %lld was not leased to a worker of this token, nor is it of "
				"a request this token submitted: its runs come from those",
				d->job_id);
	if (strcmp(j.commit, d->commit) && !j.patched)
		return err_setc(e, ERR_INVALID_FIELD, "commit",
				"'commit' %.12s is not the commit of job %lld (%.12s)", d->commit,
				d->job_id, j.commit);
	if (strcmp(j.testcase, d->testcase))
		return err_setc(e, ERR_INVALID_FIELD, "testcase",
				"'testcase' '%.128s' is not the testcase of job %lld ('%.128s')",
				d->testcase, d->job_id, j.testcase);
	return 0;
}

static long long find_or_create(struct db_conn *c, const struct resultdoc *d,
				const char *params_key, long long *tree_id, long long *commit_id,
				long long *machine_id, struct err *e)
{
	const char *tbox = d->tbox_group ? d->tbox_group : d->hostname ? d->hostname : "unknown";
	long long tc;

	*tree_id = 0;
	if (d->tree) {
		*tree_id = db_tree_name_upsert(c, d->tree, e);
		if (*tree_id < 0)
			return -1;
	}
	*commit_id = db_commit_upsert(c, d->commit, d->commit_time, d->commit_subject, *tree_id, e);
	if (*commit_id < 0)
		return -1;
	/* fill in what an earlier document of this commit did not say */
	if ((d->commit_time || d->commit_subject || d->tree) &&
	    db_commit_fill(c, *commit_id, d->commit_time, d->commit_subject, *tree_id, e))
		return -1;
	tc = db_testcase_upsert(c, d->testcase, e);
	if (tc < 0)
		return -1;
	*machine_id = 0;
	if (d->machine && d->hostname && d->arch) {
		const struct db_run_machine m = {
			.hostname = d->hostname,
			.arch = d->arch,
			.tbox_group = tbox,
			.nr_cpus = d->nr_cpus,
			.memory_mb = d->memory_mb,
			.cpu_model = d->cpu_model,
		};

		*machine_id = db_machine_upsert(c, &m, e);
		if (*machine_id < 0)
			return -1;
	}
	{
		const struct db_setup_new s = {
			.testcase_id = tc,
			.params_key = params_key,
			.kconfig = d->kconfig ? d->kconfig : "unknown",
			.compiler = d->compiler ? d->compiler : "unknown",
			.tbox_group = tbox,
			.mode = d->mode,
			.monitors = d->monitors,
		};

		return db_setup_upsert(c, &s, e);
	}
}

int ingest_result(struct db_conn *c, json_t *doc, const struct resultdoc *d, int nested,
		  long long poster_token, struct ingest_outcome *out, struct err *e)
{
	char *params_key = NULL, *extra_text = NULL;
	char hash[65];
	long long tree_id, commit_id, machine_id, setup_id;
	json_t *extra = NULL, *params;
	int ret = -1, stored;

	memset(out, 0, sizeof(*out));
	/* a document posted by hand names no job: host mode has no guest to shape or to
	 * count instructions of, as a job of kconfig host is refused (lib/vmspec.h); a
	 * job's result carries the params its job was queued with */
	if (!d->job_id && d->kconfig && !strcmp(d->kconfig, "host")) {
		if (vmspec_host_job_check(d->params, "", e))
			return -1;
		if (!strcmp(d->mode, "icount"))
			return err_setc(e, ERR_INVALID_FIELD, "mode",
					"'mode' \"icount\" needs qemu; kconfig \"host\" measures "
					"wall-clock time");
	}
	/* the setup's params in their one spelling (vmspec.h): pin "true" from a command line
	 * and true from the API are one series; a copy, the document is not changed */
	params = d->params ? json_deep_copy(d->params) : json_object();
	if (!params)
		abort();
	if (vmspec_canonical(params, "", e)) {
		json_decref(params);
		return -1;
	}
	/* the hash of the document with that spelling: posted again in another, it is the
	 * same run */
	canonical_hash(doc, 0, params, hash);
	params_key = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(params);
	extra = extra_fields(doc);
	extra_text = json_dumps(extra, JSON_COMPACT);
	if (!params_key || !extra_text)
		abort();

	/* nested: inside the caller's transaction, fenced by a savepoint */
	if (nested ? db_savepoint(c, e) : db_begin(c, e))
		goto out;
	if (d->job_id && check_job(c, d, poster_token, e))
		goto rollback;
	setup_id = find_or_create(c, d, params_key, &tree_id, &commit_id, &machine_id, e);
	if (setup_id < 0)
		goto rollback;

	{
		const struct db_run_new r = {
			.run_id = d->run_id,
			.job_id = d->job_id,
			.commit_id = commit_id,
			.setup_id = setup_id,
			.machine_id = machine_id,
			.tree_id = tree_id,
			.branch = d->branch,
			.status = d->status,
			.started_at = d->started_at,
			.duration_s = d->duration_s,
			.doc_sha256 = hash,
			.extra = extra_text,
		};

		stored = db_run_insert(c, &r, &out->id, e);
	}
	if (stored < 0)
		goto rollback;
	if (!stored) {
		struct db_run_stored have;
		int found;

		undo(c, nested);
		found = db_run_stored_get(c, d->run_id, &have, e);
		if (found < 0)
			goto out;
		/* a run stored before the shape was rewritten carries the hash of its params
		 * as posted; one stored before the numbers were normalised, the legacy hash */
		if (found && strcmp(have.sha256, hash))
			canonical_hash(doc, 0, NULL, hash);
		if (found && strcmp(have.sha256, hash))
			canonical_hash(doc, 1, NULL, hash);
		if (found && !strcmp(have.sha256, hash)) {
			/* what the store holds, not what this copy carries: after
			 * retention one mean a metric (runs.h db_run_stored) */
			out->created = 0;
			out->nr_metrics = have.nr_metrics;
			out->nr_values = have.nr_values;
			out->means_only = have.means_only;
			ret = 0;
		} else {
			err_setc(e, ERR_CONFLICT, "run_id",
				 "run '%s' is already stored with different content", d->run_id);
		}
		goto out;
	}

	/* the profile in the run's transaction: a run is stored with it or not at all */
	if (d->profile_folded && db_profile_insert(c, out->id, d->profile_event, d->profile_samples,
						   d->profile_folded, e))
		goto rollback;
	if (d->nr_metrics) {
		if (db_run_values_copy(c, out->id, d->metrics, &out->nr_values, e))
			goto rollback;
		/* change detection (detect.h): queue the setup, last so the
		 * pending row is held for the shortest time */
		if (db_detect_enqueue(c, setup_id, e))
			goto rollback;
	}
	if (nested ? db_savepoint_release(c, e) : db_commit(c, e))
		goto rollback;
	out->created = 1;
	out->nr_metrics = d->nr_metrics;
	ret = 0;
	goto out;
rollback:
	undo(c, nested);
out:
	free(params_key);
	free(extra_text);
	json_decref(extra);
	return ret;
}
