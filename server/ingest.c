#include "server/ingest.h"
#include "server/jsonout.h"
#include "server/server.h"
#include "server/db/db.h"
#include "server/db/jobs.h"
#include "server/db/runs.h"
#include "server/db/profiles.h"
#include "buf.h"
#include "sha256.h"
#include "stats/metric.h"
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

/* text[] literal element: double-quoted, with \ and " escaped */
static int add_array_elem(struct buf *b, const char *s)
{
	int r = 0;

	if (b->len > 1)
		r |= buf_addch(b, ',');
	r |= buf_addch(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			r |= buf_addch(b, '\\');
		r |= buf_addch(b, *s);
	}
	r |= buf_addch(b, '"');
	return r;
}

struct name_id {
	const char *name; /* borrowed from the document */
	long long id;	  /* metrics.id, 0 = not known yet */
};

static int cmp_name_id(const void *a, const void *b)
{
	return strcmp(((const struct name_id *)a)->name, ((const struct name_id *)b)->name);
}

/*
 * Fills in the ids of the names (sorted by name) whose id is 0, from the
 * metrics table; *missing = how many are still unknown.
 */
static int lookup_ids(PGconn *c, struct name_id *v, size_t n, size_t *missing, struct err *e)
{
	struct buf nb = BUF_INIT(0);
	struct db_metric_ids known;
	int ret = buf_addch(&nb, '{');

	for (size_t i = 0; i < n; i++)
		if (!v[i].id)
			ret |= add_array_elem(&nb, v[i].name);
	ret |= buf_addch(&nb, '}');
	if (ret)
		abort(); /* uncapped buffers cannot fail */
	ret = db_metric_ids(c, nb.data, &known, e);
	buf_release(&nb);
	if (ret)
		return -1;
	for (size_t i = 0; i < known.nr; i++) {
		struct name_id key = { known.rows[i].name, 0 }, *hit;

		hit = bsearch(&key, v, n, sizeof(*v), cmp_name_id);
		if (hit)
			hit->id = known.rows[i].id;
	}
	db_metric_ids_free(&known);
	*missing = 0;
	for (size_t i = 0; i < n; i++)
		*missing += !v[i].id;
	return 0;
}

/*
 * Registers the names whose id is 0 with the registry's defaults for unit
 * and direction (lib/stats/metric.h); in name order, so concurrent ingests
 * lock in one order.
 */
static int insert_metrics(PGconn *c, const struct name_id *v, size_t n, struct err *e)
{
	struct buf nb = BUF_INIT(0), ub = BUF_INIT(0), hb = BUF_INIT(0), mb = BUF_INIT(0);
	int ret = 0;

	ret |= buf_addch(&nb, '{') | buf_addch(&ub, '{') | buf_addch(&hb, '{') |
	       buf_addch(&mb, '{');
	for (size_t i = 0; i < n; i++) {
		int hib;

		if (v[i].id)
			continue;
		hib = metric_higher_is_better(v[i].name);
		ret |= add_array_elem(&nb, v[i].name);
		ret |= add_array_elem(&ub, metric_unit_guess(v[i].name));
		if (hb.len > 1)
			ret |= buf_addch(&hb, ',');
		ret |= buf_addstr(&hb, hib < 0 ? "NULL" : hib ? "t" : "f");
		if (mb.len > 1)
			ret |= buf_addch(&mb, ',');
		ret |= buf_addstr(&mb, metric_is_monitor(v[i].name) ? "t" : "f");
	}
	ret |= buf_addch(&nb, '}') | buf_addch(&ub, '}') | buf_addch(&hb, '}') |
	       buf_addch(&mb, '}');
	if (ret)
		abort();
	{
		const char *params[4] = { nb.data, ub.data, hb.data, mb.data };
		ret = db_runs_do(c, ST_METRICS_INSERT, 4, params, e);
	}
	buf_release(&nb);
	buf_release(&ub);
	buf_release(&hb);
	buf_release(&mb);
	return ret;
}

/* big-endian writers for COPY's binary format */
static unsigned char *put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
	return p + 2;
}

static unsigned char *put32(unsigned char *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
	return p + 4;
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
	return p + 8;
}

static unsigned char *put_f8(unsigned char *p, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return put64(p, u);
}

#define FLOAT8_OID 701 /* pg_type.oid of float8: fixed in PostgreSQL's catalog */

/*
 * The run's values: metric names resolved to ids (new names registered
 * first), then one COPY of a row per metric with every replicate and their
 * mean (sql/0006: the sum in iteration order over the count, what
 * PostgreSQL's avg(float8) gives). COPY's binary format: the doubles go as
 * their 8 bytes, neither printed here nor parsed by PostgreSQL. Layout
 * (PostgreSQL docs, "COPY", Binary Format; array_send()): signature, flags,
 * header extension length; per row a field count and per field a length
 * and the bytes (-1 = NULL); an int16 -1 at the end. A float8[] field is
 * ndim, has-null flag, element type, then per dimension size and lower
 * bound, then each element as a length and its bytes.
 */
static int insert_values(PGconn *c, long long run, json_t *metrics, size_t *nr_values,
			 struct err *e)
{
	static const unsigned char sig[11] = "PGCOPY\n\377\r\n";
	size_t n = json_object_size(metrics), i = 0, missing, size;
	struct name_id *v = xcalloc(n ? n : 1, sizeof(*v));
	unsigned char *rows = NULL, *p;
	const char *key;
	json_t *arr;
	long long stored;

	*nr_values = 0;
	json_object_foreach (metrics, key, arr)
		v[i++].name = key;
	qsort(v, n, sizeof(*v), cmp_name_id);
	if (lookup_ids(c, v, n, &missing, e))
		goto fail;
	if (missing && (insert_metrics(c, v, n, e) || lookup_ids(c, v, n, &missing, e)))
		goto fail;
	if (missing) {
		err_setc(e, ERR_DB, "metrics", "%zu metric names could not be registered", missing);
		goto fail;
	}
	/* header + trailer, then per row: count, run, metric, array header, mean */
	size = sizeof(sig) + 8 + 2;
	json_object_foreach (metrics, key, arr)
		size += 2 + 12 + 8 + 24 + 12 + 12 * json_array_size(arr);
	rows = xmalloc(size);
	p = rows;
	memcpy(p, sig, sizeof(sig));
	p = put32(p + sizeof(sig), 0); /* flags: no OIDs */
	p = put32(p, 0);	       /* no header extension */
	json_object_foreach (metrics, key, arr) {
		struct name_id k = { key, 0 };
		const struct name_id *hit = bsearch(&k, v, n, sizeof(*v), cmp_name_id);
		size_t j, nv = json_array_size(arr);
		double sum = 0;
		json_t *x;

		p = put16(p, 4);
		p = put64(put32(p, 8), (uint64_t)run);
		p = put32(put32(p, 4), (uint32_t)hit->id);
		if (nv) {
			p = put32(p, (uint32_t)(20 + 12 * nv));
			p = put32(put32(put32(p, 1), 0), FLOAT8_OID);
			p = put32(put32(p, (uint32_t)nv), 1);
			json_array_foreach (arr, j, x) {
				double d = json_number_value(x);

				p = put_f8(put32(p, 8), d);
				sum += d;
			}
			p = put_f8(put32(p, 8), sum / (double)nv);
		} else {
			/* '{}' and a NULL mean */
			p = put32(p, 12);
			p = put32(put32(put32(p, 0), 0), FLOAT8_OID);
			p = put32(p, 0xffffffffu);
		}
		*nr_values += nv;
	}
	p = put16(p, 0xffffu);
	if ((size_t)(p - rows) > size)
		abort(); /* the size above is wrong */
	stored = db_copy_in(c,
			    "COPY run_values (run_id, metric_id, vals, mean) FROM STDIN "
			    "(FORMAT binary)",
			    (const char *)rows, (size_t)(p - rows), e);
	if (stored < 0)
		goto fail;
	if ((size_t)stored != n) {
		err_setc(e, ERR_DB, "metrics", "stored %lld of %zu metrics", stored, n);
		goto fail;
	}
	free(v);
	free(rows);
	return 0;
fail:
	free(v);
	free(rows);
	return -1;
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
 * "abc…" are one run). legacy: the text before that normalisation
 * (json_dumps of the document as parsed), which runs stored earlier carry.
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

static void canonical_hash(json_t *doc, int legacy, char hash[65])
{
	json_t *c = legacy ? json_incref(doc) : json_deep_copy(doc);
	json_t *rid = json_object_get(c, "run_id");
	char *text;

	if (!c)
		abort();
	if (!legacy) {
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

static void undo(PGconn *c, int nested)
{
	if (!nested)
		db_rollback(c);
	else if (PQtransactionStatus(c) != PQTRANS_IDLE)
		PQclear(PQexec(c, "ROLLBACK TO SAVEPOINT ingest"));
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
static int check_job(PGconn *c, const struct resultdoc *d, long long poster_token, struct err *e)
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

static long long find_or_create(PGconn *c, const struct resultdoc *d, const char *params_key,
				long long *tree_id, long long *commit_id, long long *machine_id,
				struct err *e)
{
	char tidbuf[24] = "", tcbuf[24];
	const char *tbox = d->tbox_group ? d->tbox_group : d->hostname ? d->hostname : "unknown";
	long long tc;

	*tree_id = 0;
	if (d->tree) {
		const char *p[1] = { d->tree };
		*tree_id = db_upsert_id(c, ST_TREE_INSERT, 1, ST_TREE_ID, 1, p, e);
		if (*tree_id < 0)
			return -1;
		snprintf(tidbuf, sizeof(tidbuf), "%lld", *tree_id);
	}
	{
		const char *p[4] = { d->commit, d->commit_time, d->commit_subject,
				     d->tree ? tidbuf : NULL };
		char cid[24];
		const char *f[4] = { cid, p[1], p[2], p[3] };

		*commit_id = db_upsert_id(c, ST_COMMIT_INSERT, 4, ST_COMMIT_ID, 1, p, e);
		if (*commit_id < 0)
			return -1;
		/* fill in what an earlier document of this commit did not say */
		if (d->commit_time || d->commit_subject || d->tree) {
			snprintf(cid, sizeof(cid), "%lld", *commit_id);
			if (db_runs_do(c, ST_COMMIT_FILL, 4, f, e))
				return -1;
		}
	}
	{
		const char *p[1] = { d->testcase };
		tc = db_upsert_id(c, ST_TESTCASE_INSERT, 1, ST_TESTCASE_ID, 1, p, e);
		if (tc < 0)
			return -1;
		snprintf(tcbuf, sizeof(tcbuf), "%lld", tc);
	}
	*machine_id = 0;
	if (d->machine && d->hostname && d->arch) {
		char cpus[24], mem[24];
		const char *p[6] = { d->hostname, d->arch, tbox, cpus, mem, d->cpu_model };
		snprintf(cpus, sizeof(cpus), "%lld", d->nr_cpus);
		snprintf(mem, sizeof(mem), "%lld", d->memory_mb);
		if (d->nr_cpus < 0)
			p[3] = NULL;
		if (d->memory_mb < 0)
			p[4] = NULL;
		*machine_id = db_upsert_id(c, ST_MACHINE_INSERT, 6, ST_MACHINE_ID, 3, p, e);
		if (*machine_id < 0)
			return -1;
	}
	{
		const char *p[7] = { tcbuf,
				     params_key,
				     d->kconfig ? d->kconfig : "unknown",
				     d->compiler ? d->compiler : "unknown",
				     tbox,
				     d->mode,
				     d->monitors };
		return db_upsert_id(c, ST_SETUP_INSERT, 7, ST_SETUP_ID, 7, p, e);
	}
}

int ingest_result(PGconn *c, json_t *doc, const struct resultdoc *d, int nested,
		  long long poster_token, struct ingest_outcome *out, struct err *e)
{
	/* nested: inside the caller's transaction, fenced by a savepoint */
	const char *begin = nested ? "SAVEPOINT ingest" : "BEGIN";
	const char *commit = nested ? "RELEASE SAVEPOINT ingest" : "COMMIT";
	char *params_key = NULL, *extra_text = NULL;
	char hash[65], idb[5][24], dur[32];
	long long tree_id, commit_id, machine_id, setup_id;
	json_t *extra = NULL, *empty = NULL;
	int ret = -1, stored;

	memset(out, 0, sizeof(*out));
	canonical_hash(doc, 0, hash);
	if (!d->params)
		empty = json_object();
	params_key = json_dumps(d->params ? d->params : empty, JSON_COMPACT | JSON_SORT_KEYS);
	extra = extra_fields(doc);
	extra_text = json_dumps(extra, JSON_COMPACT);
	if (!params_key || !extra_text)
		abort();

	if (db_cmd(c, begin, e))
		goto out;
	if (d->job_id && check_job(c, d, poster_token, e))
		goto rollback;
	setup_id = find_or_create(c, d, params_key, &tree_id, &commit_id, &machine_id, e);
	if (setup_id < 0)
		goto rollback;

	snprintf(idb[0], 24, "%lld", d->job_id);
	snprintf(idb[1], 24, "%lld", commit_id);
	snprintf(idb[2], 24, "%lld", setup_id);
	snprintf(idb[3], 24, "%lld", machine_id);
	snprintf(idb[4], 24, "%lld", tree_id);
	snprintf(dur, sizeof(dur), "%.17g", d->duration_s);
	{
		const char *p[12] = { d->run_id,
				      d->job_id ? idb[0] : NULL,
				      idb[1],
				      idb[2],
				      machine_id ? idb[3] : NULL,
				      tree_id ? idb[4] : NULL,
				      d->branch,
				      d->status,
				      d->started_at,
				      isnan(d->duration_s) ? NULL : dur,
				      hash,
				      extra_text };
		stored = db_first_id(c, ST_RUN_INSERT, 12, p, &out->id, e);
	}
	if (stored < 0)
		goto rollback;
	if (!stored) {
		char have[65];
		int found;

		undo(c, nested);
		found = db_run_sha(c, d->run_id, have, e);
		if (found < 0)
			goto out;
		/* a run stored before the numbers were normalised carries the legacy hash */
		if (found && strcmp(have, hash))
			canonical_hash(doc, 1, hash);
		if (found && !strcmp(have, hash)) {
			out->created = 0;
			out->nr_metrics = d->nr_metrics;
			out->nr_values = d->nr_values;
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
		if (insert_values(c, out->id, d->metrics, &out->nr_values, e))
			goto rollback;
		/* change detection (detect.h): queue the setup, last so the
		 * pending row is held for the shortest time */
		{
			const char *p[1] = { idb[2] };
			if (db_runs_do(c, ST_DETECT_ENQUEUE, 1, p, e))
				goto rollback;
		}
	}
	if (db_cmd(c, commit, e))
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
	json_decref(empty);
	return ret;
}
