/* Typed binary reads of compares and series (see series.h). */
#include "server/db/series.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/pgval.h"
#include "buf.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INT8_OID 20
#define TEXT_OID 25
#define INT4_OID 23
#define FLOAT8_OID 701
#define TIMESTAMPTZ_OID 1184
#define UUID_OID 2950

/* 0, or -1 with e when r's columns are not nc of these types in binary */
static int result_check(const PGresult *r, const Oid *types, int nc, const char *what,
			struct err *e)
{
	if (PQnfields(r) != nc)
		return err_setc(e, ERR_DB, what, "%s: %d columns", what, PQnfields(r));
	for (int k = 0; k < nc; k++)
		if (PQfformat(r, k) != 1 || PQftype(r, k) != types[k])
			return err_setc(e, ERR_DB, what,
					"%s: column %d is not of type %u in binary", what, k,
					(unsigned)types[k]);
	return 0;
}

/*
 * The rows of ST_COMPARE or ST_COMPARE_AA into *out: column 1 is the is_base
 * bool (aa 0) or the kernel number (aa 1). Takes r (cleared). 0 or -1 with e.
 */
static int read_runs(PGresult *r, int aa, struct db_compare_runs *out, struct err *e)
{
	size_t nrun, nvals = 0;
	int *ip;
	double *vp;
	int bad = 0;

	nrun = (size_t)PQntuples(r);
	out->runs = xcalloc(nrun ? nrun : 1, sizeof(*out->runs));
	out->nr = nrun;
	if (nrun && aa &&
	    (PQnfields(r) != 5 || PQftype(r, 1) != INT8_OID || PQftype(r, 4) != INT8_OID))
		bad = 1;
	for (size_t i = 0; i < nrun && !bad; i++) {
		long a = pg_bin_array_len(PQgetvalue(r, (int)i, 2),
					  (size_t)PQgetlength(r, (int)i, 2), INT4_OID);
		long b = pg_bin_array_len(PQgetvalue(r, (int)i, 3),
					  (size_t)PQgetlength(r, (int)i, 3), FLOAT8_OID);

		if (a < 0 || a != b) {
			bad = 1;
			break;
		}
		out->runs[i].n = a;
		nvals += (size_t)a;
	}
	if (!bad) {
		ip = out->id_pool_ = xmalloc((nvals ? nvals : 1) * sizeof(*ip));
		vp = out->mean_pool_ = xmalloc((nvals ? nvals : 1) * sizeof(*vp));
		out->nr_values = nvals;
		for (size_t i = 0; i < nrun; i++) {
			struct db_compare_run *u = &out->runs[i];

			u->setup_id = pg_bin_int8(PQgetvalue(r, (int)i, 0));
			if (aa) {
				u->kernel = pg_bin_int8(PQgetvalue(r, (int)i, 1));
				u->commit_id = pg_bin_int8(PQgetvalue(r, (int)i, 4));
			} else
				u->is_base = PQgetvalue(r, (int)i, 1)[0] != 0;
			u->metric_ids = ip;
			u->means = vp;
			bad |= pg_bin_array_int4(PQgetvalue(r, (int)i, 2),
						 (size_t)PQgetlength(r, (int)i, 2), ip);
			bad |= pg_bin_array_float8(PQgetvalue(r, (int)i, 3),
						   (size_t)PQgetlength(r, (int)i, 3), vp);
			ip += u->n;
			vp += u->n;
		}
	}
	PQclear(r);
	if (bad) {
		db_compare_runs_free(out);
		return err_setc(e, ERR_DB, "compare", "run_means: malformed arrays");
	}
	return 0;
}

int db_compare_runs(struct db_conn *c, long long base_id, long long head_id,
		    const struct db_setup_filter *f, struct db_compare_runs *out, struct err *e)
{
	struct db_param params[9] = { db_int8(base_id),	      db_int8(head_id),
				      db_text(f->testcase),   db_text(f->tbox_group),
				      db_text(f->kconfig),    db_text(f->compiler),
				      db_text(f->params_key), db_text(f->mode),
				      db_text(f->monitors) };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_execp(c, ST_COMPARE, 9, params, 1, e);
	if (!r)
		return -1;
	return read_runs(r, 0, out, e);
}

int db_compare_aa(struct db_conn *c, long long base_id, long long head_id,
		  const long long *setup_ids, size_t n, struct db_compare_runs *out, struct err *e)
{
	struct buf arr = BUF_INIT(0);
	struct db_param params[3];
	PGresult *r;
	int bad = buf_addch(&arr, '{');

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		bad |= buf_addf(&arr, i ? ",%lld" : "%lld", setup_ids[i]);
	bad |= buf_addch(&arr, '}');
	(void)bad; /* no cap on arr: appends cannot fail */
	params[0] = db_text(arr.data);
	params[1] = db_int8(base_id);
	params[2] = db_int8(head_id);
	r = db_execp(c, ST_COMPARE_AA, 3, params, 1, e);
	buf_release(&arr);
	if (!r)
		return -1;
	return read_runs(r, 1, out, e);
}

void db_compare_runs_free(struct db_compare_runs *r)
{
	free(r->runs);
	free(r->id_pool_);
	free(r->mean_pool_);
	memset(r, 0, sizeof(*r));
}

int db_compare_metrics(struct db_conn *c, const int *ids, size_t n, const char *prefix,
		       struct db_compare_metrics *out, struct err *e)
{
	struct buf arr = BUF_INIT(0);
	const char *params[2];
	PGresult *r;
	int bad = 0;

	memset(out, 0, sizeof(*out));
	/* the ids as an int4[] literal */
	bad |= buf_addch(&arr, '{');
	for (size_t i = 0; i < n; i++)
		bad |= buf_addf(&arr, i ? ",%d" : "%d", ids[i]);
	bad |= buf_addch(&arr, '}');
	(void)bad; /* no cap on arr: appends cannot fail */
	params[0] = arr.data;
	params[1] = prefix;
	r = db_exec_binary(c, ST_COMPARE_METRICS, 2, params, e);
	buf_release(&arr);
	if (!r)
		return -1;
	out->nr = (size_t)PQntuples(r);
	out->rows = xcalloc(out->nr ? out->nr : 1, sizeof(*out->rows));
	for (size_t i = 0; i < out->nr; i++) {
		struct db_compare_metric *m = &out->rows[i];

		m->id = pg_bin_int4(PQgetvalue(r, (int)i, 0));
		m->name = PQgetvalue(r, (int)i, 1);
		m->unit = PQgetvalue(r, (int)i, 2);
		m->higher_is_better = PQgetisnull(r, (int)i, 3) ? -1 :
								  PQgetvalue(r, (int)i, 3)[0] != 0;
		m->is_monitor = PQgetvalue(r, (int)i, 4)[0] != 0;
	}
	out->res_ = db_res_of(r);
	return 0;
}

void db_compare_metrics_free(struct db_compare_metrics *m)
{
	free(m->rows);
	PQclear(db_pgres(m->res_));
	memset(m, 0, sizeof(*m));
}

/* ST_SERIES' columns: setup id, commit id, runs.id, run_id, mean */
enum { COL_SETUP, COL_COMMIT, COL_RUN, COL_UUID, COL_MEAN, NR_COLS };
static const Oid col_type[NR_COLS] = { INT8_OID, INT8_OID, INT8_OID, UUID_OID, TEXT_OID };

int db_series_points(struct db_conn *c, const char *metric, const struct db_setup_filter *f,
		     struct db_series_points *out, struct err *e)
{
	const char *params[8] = { metric,      f->testcase,   f->tbox_group, f->kconfig,
				  f->compiler, f->params_key, f->mode,	     f->monitors };
	PGresult *r;
	size_t n;

	memset(out, 0, sizeof(*out));
	r = db_exec_binary(c, ST_SERIES, 8, params, e);
	if (!r)
		return -1;
	if (result_check(r, col_type, NR_COLS, "series", e))
		goto fail;
	n = (size_t)PQntuples(r);
	if (n > UINT32_MAX) {
		err_setc(e, ERR_TOO_LARGE, "metric", "the series is too large");
		goto fail;
	}
	out->rows = xcalloc(n ? n : 1, sizeof(*out->rows));
	for (size_t i = 0; i < n; i++) {
		int row = (int)i;
		struct db_series_point *p = &out->rows[i];

		if (PQgetisnull(r, row, COL_SETUP) || PQgetisnull(r, row, COL_COMMIT) ||
		    PQgetisnull(r, row, COL_RUN) || PQgetlength(r, row, COL_UUID) != 16) {
			free(out->rows);
			out->rows = NULL;
			err_setc(e, ERR_DB, "series", "series: row %d malformed", row);
			goto fail;
		}
		p->setup_id = pg_bin_int8(PQgetvalue(r, row, COL_SETUP));
		p->commit_id = pg_bin_int8(PQgetvalue(r, row, COL_COMMIT));
		p->run_id = pg_bin_int8(PQgetvalue(r, row, COL_RUN));
		p->uuid = (const unsigned char *)PQgetvalue(r, row, COL_UUID);
		p->mean = PQgetisnull(r, row, COL_MEAN) ? NULL : PQgetvalue(r, row, COL_MEAN);
	}
	out->nr = n;
	out->res_ = db_res_of(r);
	return 0;
fail:
	PQclear(r);
	return -1;
}

void db_series_points_free(struct db_series_points *p)
{
	free(p->rows);
	PQclear(db_pgres(p->res_));
	memset(p, 0, sizeof(*p));
}

/* ST_SERIES_COMMITS' columns: id, sha, subject, commit_time */
enum { CC_ID, CC_SHA, CC_SUBJECT, CC_TIME, NR_CCOLS };
static const Oid ccol_type[NR_CCOLS] = { INT8_OID, TEXT_OID, TEXT_OID, TIMESTAMPTZ_OID };

/* v in decimal into out (24 bytes); returns the length */
static size_t lltoa(long long v, char *out)
{
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	char t[24];
	size_t k = 0, o = 0;

	if (v < 0)
		out[o++] = '-';
	do {
		t[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (k)
		out[o++] = t[--k];
	return o;
}

int db_series_commits(struct db_conn *c, const long long *ids, size_t n,
		      struct db_series_commits *out, struct err *e)
{
	struct buf arr = BUF_INIT(0);
	const char *p[1];
	char num[32];
	PGresult *r;
	size_t k = 0;
	int bad = 0;

	memset(out, 0, sizeof(*out));
	/* the ids as a bigint[] literal */
	bad |= buf_addch(&arr, '{');
	for (size_t i = 0; i < n; i++) {
		size_t m = 0;

		if (i)
			num[m++] = ',';
		m += lltoa(ids[i], num + m);
		bad |= buf_add(&arr, num, m);
	}
	bad |= buf_addch(&arr, '}');
	(void)bad; /* no cap on arr: appends cannot fail */
	p[0] = arr.data;
	r = db_exec_binary(c, ST_SERIES_COMMITS, 1, p, e);
	buf_release(&arr);
	if (!r)
		return -1;
	if (result_check(r, ccol_type, NR_CCOLS, "series_commits", e)) {
		PQclear(r);
		return -1;
	}
	out->rows = xcalloc(PQntuples(r) ? (size_t)PQntuples(r) : 1, sizeof(*out->rows));
	for (int i = 0; i < PQntuples(r); i++) {
		struct db_series_commit *cm = &out->rows[k];

		if (PQgetisnull(r, i, CC_ID) || PQgetisnull(r, i, CC_SHA))
			continue;
		cm->id = pg_bin_int8(PQgetvalue(r, i, CC_ID));
		cm->sha = PQgetvalue(r, i, CC_SHA);
		cm->subject = PQgetisnull(r, i, CC_SUBJECT) ? NULL : PQgetvalue(r, i, CC_SUBJECT);
		cm->has_time = !PQgetisnull(r, i, CC_TIME) && PQgetlength(r, i, CC_TIME) == 8;
		cm->time_us = cm->has_time ? pg_bin_int8(PQgetvalue(r, i, CC_TIME)) : 0;
		k++;
	}
	out->nr = k;
	out->res_ = db_res_of(r);
	return 0;
}

void db_series_commits_free(struct db_series_commits *cm)
{
	free(cm->rows);
	PQclear(db_pgres(cm->res_));
	memset(cm, 0, sizeof(*cm));
}

int db_compare_fingerprints(struct db_conn *c, long long base_id, long long head_id,
			    const long long *setup_ids, size_t n, json_t **base, json_t **head,
			    struct err *e)
{
	struct buf arr = BUF_INIT(0);
	struct db_param params[3];
	PGresult *r;
	int bad = buf_addch(&arr, '{');

	for (size_t i = 0; i < n; i++)
		bad |= buf_addf(&arr, i ? ",%lld" : "%lld", setup_ids[i]);
	bad |= buf_addch(&arr, '}');
	(void)bad; /* no cap on arr: appends cannot fail */
	params[0] = db_int8(base_id);
	params[1] = db_int8(head_id);
	params[2] = db_text(arr.data);
	*base = *head = NULL;
	r = db_execp(c, ST_COMPARE_FINGERPRINTS, 3, params, 0, e);
	buf_release(&arr);
	if (!r)
		return -1;
	if (PQntuples(r) == 1) {
		*base = json_loads(PQgetvalue(r, 0, 0), 0, NULL);
		*head = json_loads(PQgetvalue(r, 0, 1), 0, NULL);
	}
	PQclear(r);
	if (!*base)
		*base = json_array();
	if (!*head)
		*head = json_array();
	return 0;
}

static int cmp_aa_metric(const void *x, const void *y)
{
	const struct db_request_aa_metric *a = x, *b = y;

	if (a->group != b->group)
		return (a->group > b->group) - (a->group < b->group);
	return strcmp(a->metric, b->metric);
}

long db_request_aa_metrics(struct db_conn *c, long long request_id,
			   struct db_request_aa_metric **out, struct err *e)
{
	struct db_param p[1] = { db_int8(request_id) };
	PGresult *r;
	long n;

	*out = NULL;
	r = db_execp(c, ST_REQUEST_AA_METRICS, 1, p, 0, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*out = xcalloc((size_t)n, sizeof(**out));
	for (long i = 0; i < n; i++) {
		struct db_request_aa_metric *m = &(*out)[i];

		m->group = (int)strtol(PQgetvalue(r, (int)i, 0), NULL, 10);
		m->metric = xstrdup(PQgetvalue(r, (int)i, 1));
		m->metric_id = strtoll(PQgetvalue(r, (int)i, 2), NULL, 10);
		m->setup_id = strtoll(PQgetvalue(r, (int)i, 3), NULL, 10);
		m->base_commit = strtoll(PQgetvalue(r, (int)i, 4), NULL, 10);
		m->head_commit = strtoll(PQgetvalue(r, (int)i, 5), NULL, 10);
	}
	PQclear(r);
	if (n > 1)
		qsort(*out, (size_t)n, sizeof(**out), cmp_aa_metric);
	return n;
}

void db_request_aa_metrics_free(struct db_request_aa_metric *m, long n)
{
	for (long i = 0; i < n; i++)
		free(m[i].metric);
	free(m);
}
