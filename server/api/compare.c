/*
 * GET /api/v1/compare?base=SHA&head=SHA[&testcase=&tbox_group=&kconfig=
 *     &compiler=&params=&mode=&metric=PREFIX&alpha=&format=text&changed=1]
 *
 * Per (setup, metric): the base and head samples are the runs' values (each
 * run's mean over its iterations: runs are the independent unit, one boot
 * each), compared by lib/stats/compare.h. Across all rows of one response
 * the p-values are adjusted for the false discovery rate (Benjamini-
 * Hochberg); a row is `different` only when its adjusted q <= alpha too.
 * format=text renders the LKP layout (lib/lkptext.h) per setup.
 *
 * The samples come from run_means (sql/0011: one row per run, its metric
 * ids ascending and their means), read in binary and merged per setup
 * here (compare_rows); the metrics' names and properties from one more
 * query in name order, which is the rows' order.
 */
#include "server/api/api.h"
#include "server/db/pgval.h"
#include "server/api/args.h"
#include "server/jsonout.h"
#include "lkptext.h"
#include "stats/compare.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

struct cmp_row {
	long long setup_id;
	const char *metric;       /* borrowed from the PGresult */
	int higher_is_better;     /* 1, 0, -1 unknown */
	const char *unit;
	int is_monitor;
	double *a, *b;            /* into one shared pool */
	size_t na, nb;
	struct compare_result res;
	double q;
	size_t rank;              /* the metric's place in name order */
};

static double parse_alpha(const char *s, struct err *e)
{
	char *end;
	double a;

	if (!s)
		return 0.01;
	a = strtod(s, &end);
	if (*end || !(a > 0 && a < 1)) {
		err_set(e, 400, "invalid_field", "alpha", "alpha must be a number in (0, 1)");
		return NAN;
	}
	return a;
}

static int pair(struct buf *b, const char *key, double x, double y)
{
	return buf_addstr(b, key) | buf_addch(b, '[') | jsonout_real(b, x) | buf_addch(b, ',') |
	       jsonout_real(b, y) | buf_addch(b, ']');
}

/* one row as JSON text (server/jsonout.h: the bytes jansson would write) */
static int row_text(struct buf *b, const struct cmp_row *w)
{
	const struct compare_result *r = &w->res;

	return buf_addf(b, "{\"setup_id\":%lld,\"metric\":", w->setup_id) |
	       jsonout_str(b, w->metric) | buf_addstr(b, ",\"unit\":") | jsonout_str(b, w->unit) |
	       buf_addstr(b, ",\"higher_is_better\":") |
	       buf_addstr(b, w->higher_is_better < 0 ? "null" : w->higher_is_better ? "true" : "false") |
	       buf_addf(b, ",\"n\":[%zu,%zu]", r->a.n, r->b.n) |
	       pair(b, ",\"mean\":", r->a.mean, r->b.mean) |
	       pair(b, ",\"median\":", r->a.median, r->b.median) |
	       pair(b, ",\"stddev_pct\":", r->a.stddev_pct, r->b.stddev_pct) |
	       pair(b, ",\"min\":", r->a.min, r->b.min) |
	       pair(b, ",\"max\":", r->a.max, r->b.max) |
	       buf_addstr(b, ",\"change_pct\":") | jsonout_real(b, r->change_pct) |
	       pair(b, ",\"ci_pct\":", r->ci_lo_pct, r->ci_hi_pct) |
	       buf_addstr(b, ",\"p_value\":") | jsonout_real(b, r->p_value) |
	       buf_addstr(b, ",\"q_value\":") | jsonout_real(b, w->q) |
	       buf_addstr(b, ",\"welch_p\":") | jsonout_real(b, r->welch_p) |
	       buf_addstr(b, ",\"verdict\":") | jsonout_str(b, verdict_name(r->verdict)) |
	       buf_addstr(b, ",\"change\":") |
	       jsonout_str(b, change_kind_name(compare_change_kind(r, w->higher_is_better))) |
	       buf_addch(b, '}');
}

static int render_text(PGconn *c, struct buf *out, struct cmp_row *rows,
		       size_t n, int changed_only, const char *base, const char *base_subj,
		       const char *head, const char *head_subj, struct err *e)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i, k = 0;
		struct lkp_row *lr;
		struct lkp_axis axes[64];
		size_t nr_axes = 0;
		json_t *s = setup_json(c, rows[i].setup_id, e), *params;
		const char *key;
		json_t *v;
		char *owned[64];
		size_t nr_owned = 0;
		int full;

		if (!s)
			return -1;
		while (j < n && rows[j].setup_id == rows[i].setup_id)
			j++;
		lr = xcalloc(j - i, sizeof(*lr));
		for (size_t x = i; x < j; x++) {
			if (changed_only && rows[x].res.verdict != VERDICT_DIFFERENT)
				continue;
			lr[k].metric = rows[x].metric;
			lr[k].base_mean = rows[x].res.a.mean;
			lr[k].base_stddev_pct = rows[x].res.a.stddev_pct;
			lr[k].head_mean = rows[x].res.b.mean;
			lr[k].head_stddev_pct = rows[x].res.b.stddev_pct;
			lr[k].change_pct = rows[x].res.change_pct;
			k++;
		}
		axes[nr_axes++] = (struct lkp_axis){ "compiler", json_string_value(json_object_get(s, "compiler")) };
		axes[nr_axes++] = (struct lkp_axis){ "kconfig", json_string_value(json_object_get(s, "kconfig")) };
		axes[nr_axes++] = (struct lkp_axis){ "tbox_group", json_string_value(json_object_get(s, "tbox_group")) };
		axes[nr_axes++] = (struct lkp_axis){ "testcase", json_string_value(json_object_get(s, "testcase")) };
		params = json_object_get(s, "params");
		json_object_foreach(params, key, v) {
			if (nr_axes + 1 >= ARRAY_SIZE(axes))
				break;
			owned[nr_owned] = json_is_string(v) ? xstrdup(json_string_value(v))
					  : json_dumps(v, JSON_ENCODE_ANY);
			axes[nr_axes++] = (struct lkp_axis){ key, owned[nr_owned++] };
		}
		/* the mode as an axis, unless the params name it already (a "measure" param) */
		if (strcmp(json_string_value(json_object_get(s, "mode")), "wallclock") &&
		    !json_object_get(params, "measure") && nr_axes < ARRAY_SIZE(axes))
			axes[nr_axes++] = (struct lkp_axis){ "measure", json_string_value(json_object_get(s, "mode")) };
		full = (i && buf_addch(out, '\n')) ||
		       lkp_render(out, axes, nr_axes, base, base_subj, head, head_subj, lr, k);
		/* lkp_render sorted axes[]: free through owned[] */
		for (size_t x = 0; x < nr_owned; x++)
			free(owned[x]);
		free(lr);
		json_decref(s);
		if (full)
			return err_set(e, 413, "too_large", "format", "the text table is too large");
		i = j;
	}
	return 0;
}

/* one run of ST_COMPARE: its metric ids (ascending) and means */
struct cmp_run {
	long long setup_id;
	int base;
	int *ids;
	double *means;
	long n, at;               /* count; merge position */
};

struct cmp_metric {
	int id;
	size_t rank;              /* place in name order */
	const char *name, *unit;  /* borrowed from ST_COMPARE_METRICS' result */
	int higher_is_better, is_monitor;
};

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

static int cmp_metric_id(const void *x, const void *y)
{
	return cmp_int(&((const struct cmp_metric *)x)->id, &((const struct cmp_metric *)y)->id);
}

/*
 * The rows of a compare from ST_COMPARE's runs (r, binary) and the metrics
 * they name (ST_COMPARE_METRICS, *mr on return, binary; prefix filters by
 * name): per setup, the runs' ascending id lists merged into one row per
 * metric with the base runs' means in a[] and the head runs' in b[], each
 * sorted (NaN last); rows in (setup, metric name) order. *pool holds every
 * value (caller frees it, the rows and *mr). Returns the rows (*nr of them)
 * or NULL with e: 500 on a malformed array, db_exec()'s errors.
 */
static struct cmp_row *compare_rows(PGconn *c, PGresult *r, const char *prefix, PGresult **mr,
				    double **pool, size_t *nr, struct err *e)
{
	size_t nrun = (size_t)PQntuples(r), nvals = 0, nm, k = 0, nids = 0, nsetups = 0;
	struct cmp_run *runs = xcalloc(nrun ? nrun : 1, sizeof(*runs));
	struct cmp_row *rows = NULL, *out;
	struct cmp_metric *ms = NULL;
	int *ids = NULL, *ip, *mid;
	double *vp, *p;
	size_t *at;
	struct buf arr = BUF_INIT(0);
	const char *params[2];
	int bad = 0;

	*mr = NULL;
	*pool = NULL;
	*nr = 0;
	for (size_t i = 0; i < nrun; i++) {
		long a = pg_bin_array_len(PQgetvalue(r, (int)i, 2), (size_t)PQgetlength(r, (int)i, 2), 23);
		long b = pg_bin_array_len(PQgetvalue(r, (int)i, 3), (size_t)PQgetlength(r, (int)i, 3), 701);

		if (a < 0 || a != b) {
			err_set(e, 500, "db_error", "compare", "run_means: malformed arrays");
			goto fail;
		}
		runs[i].n = a;
		nvals += (size_t)a;
	}
	/* the runs' ids and means, then (pool) the same values again as the rows' samples */
	ip = ids = xmalloc((nvals ? nvals : 1) * sizeof(*ids));
	vp = *pool = xmalloc((nvals ? 2 * nvals : 1) * sizeof(*vp));
	for (size_t i = 0; i < nrun; i++) {
		struct cmp_run *u = &runs[i];

		u->setup_id = pg_bin_int8(PQgetvalue(r, (int)i, 0));
		u->base = PQgetvalue(r, (int)i, 1)[0] != 0;
		u->ids = ip;
		u->means = vp;
		bad |= pg_bin_array_int4(PQgetvalue(r, (int)i, 2), (size_t)PQgetlength(r, (int)i, 2), ip);
		bad |= pg_bin_array_float8(PQgetvalue(r, (int)i, 3), (size_t)PQgetlength(r, (int)i, 3), vp);
		ip += u->n;
		vp += u->n;
		nsetups += !i || u->setup_id != runs[i - 1].setup_id;
	}
	if (bad) {
		err_set(e, 500, "db_error", "compare", "run_means: malformed arrays");
		goto fail;
	}

	/* per setup (ST_COMPARE orders by it): merge the runs' ascending ids */
	p = vp;
	rows = xmalloc((nvals ? nvals : 1) * sizeof(*rows));  /* a row has >= 1 value */
	mid = xmalloc((nvals ? nvals : 1) * sizeof(*mid));    /* each row's metric id */
	for (size_t i = 0; i < nrun;) {
		size_t j = i;

		while (j < nrun && runs[j].setup_id == runs[i].setup_id)
			j++;
		for (;;) {
			int id = 0, any = 0;
			struct cmp_row *w = &rows[k];

			for (size_t x = i; x < j; x++)
				if (runs[x].at < runs[x].n && (!any || runs[x].ids[runs[x].at] < id)) {
					id = runs[x].ids[runs[x].at];
					any = 1;
				}
			if (!any)
				break;
			memset(w, 0, sizeof(*w));
			w->setup_id = runs[i].setup_id;
			mid[k++] = id;
			/* a: the base runs' means, b: the head runs' */
			w->a = p;
			for (size_t x = i; x < j; x++)
				if (runs[x].base && runs[x].at < runs[x].n && runs[x].ids[runs[x].at] == id)
					*p++ = runs[x].means[runs[x].at];
			w->na = (size_t)(p - w->a);
			w->b = p;
			for (size_t x = i; x < j; x++)
				if (!runs[x].base && runs[x].at < runs[x].n && runs[x].ids[runs[x].at] == id)
					*p++ = runs[x].means[runs[x].at];
			w->nb = (size_t)(p - w->b);
			pg_sort_doubles(w->a, w->na);
			pg_sort_doubles(w->b, w->nb);
			for (size_t x = i; x < j; x++)
				if (runs[x].at < runs[x].n && runs[x].ids[runs[x].at] == id)
					runs[x].at++;
		}
		i = j;
	}

	/* the metrics named, as an int4[] literal of the distinct ids (ascending) */
	memcpy(ids, mid, k * sizeof(*ids));
	nids = k;
	if (nsetups > 1)
		qsort(ids, nids, sizeof(*ids), cmp_int);
	{
		size_t u = 0;

		for (size_t i = 0; i < nids; i++)
			if (!u || ids[u - 1] != ids[i])
				ids[u++] = ids[i];
		nids = u;
	}
	bad |= buf_addch(&arr, '{');
	for (size_t i = 0; i < nids; i++)
		bad |= buf_addf(&arr, i ? ",%d" : "%d", ids[i]);
	bad |= buf_addch(&arr, '}');
	(void)bad;                      /* no cap on arr: appends cannot fail */
	params[0] = arr.data;
	params[1] = prefix;
	*mr = db_exec_binary(c, ST_COMPARE_METRICS, 2, params, e);
	buf_release(&arr);
	if (!*mr) {
		free(mid);
		goto fail;
	}
	nm = (size_t)PQntuples(*mr);
	ms = xcalloc(nm ? nm : 1, sizeof(*ms));
	for (size_t i = 0; i < nm; i++) {
		ms[i].id = pg_bin_int4(PQgetvalue(*mr, (int)i, 0));
		ms[i].rank = i;
		ms[i].name = PQgetvalue(*mr, (int)i, 1);
		ms[i].unit = PQgetvalue(*mr, (int)i, 2);
		ms[i].higher_is_better = PQgetisnull(*mr, (int)i, 3) ? -1
					 : PQgetvalue(*mr, (int)i, 3)[0] != 0;
		ms[i].is_monitor = PQgetvalue(*mr, (int)i, 4)[0] != 0;
	}
	qsort(ms, nm, sizeof(*ms), cmp_metric_id);

	/*
	 * Into (setup, name) order without sorting the rows: within a setup
	 * each metric has one row, so a row's place is the count of that
	 * setup's metrics before it in name order (at[rank], a prefix count).
	 * Rows of metrics the prefix left out are dropped.
	 */
	out = xmalloc((k ? k : 1) * sizeof(*out));
	at = xmalloc((nm + 1) * sizeof(*at));
	*nr = 0;
	for (size_t i = 0; i < k;) {
		size_t j = i, base = *nr;

		while (j < k && rows[j].setup_id == rows[i].setup_id)
			j++;
		memset(at, 0, (nm + 1) * sizeof(*at));
		for (size_t x = i; x < j; x++) {
			struct cmp_metric key = { .id = mid[x] }, *m;

			m = bsearch(&key, ms, nm, sizeof(*ms), cmp_metric_id);
			rows[x].rank = m ? m->rank : SIZE_MAX;
			if (m) {
				rows[x].metric = m->name;
				rows[x].unit = m->unit;
				rows[x].higher_is_better = m->higher_is_better;
				rows[x].is_monitor = m->is_monitor;
				at[m->rank + 1] = 1;
			}
		}
		for (size_t x = 1; x <= nm; x++)
			at[x] += at[x - 1];
		for (size_t x = i; x < j; x++)
			if (rows[x].rank != SIZE_MAX) {
				out[base + at[rows[x].rank]] = rows[x];
				(*nr)++;
			}
		i = j;
	}
	free(at);
	free(mid);
	free(ms);
	free(rows);
	free(ids);
	free(runs);
	return out;
fail:
	free(rows);
	free(ids);
	free(runs);
	free(*pool);
	*pool = NULL;
	PQclear(*mr);
	*mr = NULL;
	return NULL;
}

enum MHD_Result api_compare_get(struct request *rq)
{
	struct setup_filter f;
	struct err e;
	const char *base_id, *base_sha, *base_subj, *head_id, *head_sha, *head_subj;
	const char *prefix = rq_arg(rq, "metric"), *format = rq_arg(rq, "format");
	int changed_only = rq_arg(rq, "changed") && strcmp(rq_arg(rq, "changed"), "0");
	double alpha;
	PGconn *c;
	PGresult *r, *mr = NULL;
	struct cmp_row *rows = NULL;
	size_t nr = 0;
	double *pool = NULL, *q;
	struct compare_opts opts;
	enum MHD_Result ret;

	alpha = parse_alpha(rq_arg(rq, "alpha"), &e);
	if (isnan(alpha))
		return reply_err(rq, &e);
	if (format && strcmp(format, "text") && strcmp(format, "json"))
		return reply_errf(rq, 400, "invalid_field", "format", "format must be json or text");
	if (setup_filter_from_query(rq, &f, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	if (commit_resolve(rq, c, rq_arg(rq, "base"), "base", &base_id, &base_sha, &base_subj, &e) ||
	    commit_resolve(rq, c, rq_arg(rq, "head"), "head", &head_id, &head_sha, &head_subj, &e))
		return reply_err(rq, &e);
	{
		const char *params[8] = { base_id, head_id, f.testcase, f.tbox_group, f.kconfig,
					  f.compiler, f.params_key, f.mode };
		r = db_exec_binary(c, ST_COMPARE, 8, params, &e);
	}
	if (!r)
		return reply_err(rq, &e);
	/* one row per (setup, metric), ordered by setup and metric name */
	rows = compare_rows(c, r, prefix, &mr, &pool, &nr, &e);
	if (!rows) {
		PQclear(r);
		return reply_err(rq, &e);
	}
	compare_opts_init(&opts);
	opts.alpha = alpha;
	q = xcalloc(nr ? nr : 1, sizeof(double));
	{
		struct compare_result **res = xcalloc(nr ? nr : 1, sizeof(*res));

		for (size_t i = 0; i < nr; i++) {
			struct compare_opts o = opts;
			o.floor_pct = compare_opts_floor(&opts, rows[i].metric);
			compare_samples(rows[i].a, rows[i].na, rows[i].b, rows[i].nb, &o,
					&rows[i].res);
			res[i] = &rows[i].res;
		}
		compare_fdr(res, nr, alpha, q);
		for (size_t i = 0; i < nr; i++)
			rows[i].q = q[i];
		free(res);
	}

	if (format && !strcmp(format, "text")) {
		struct buf text = BUF_INIT(64u << 20);
		err_clear(&e);
		if (render_text(c, &text, rows, nr, changed_only, base_sha, base_subj, head_sha,
				head_subj, &e))
			ret = reply_err(rq, &e);
		else if (!nr)
			ret = reply_errf(rq, 404, "not_found", "base",
					 "no runs of both commits match these filters");
		else
			ret = reply_text(rq, 200, "text/plain; charset=utf-8", text.data, text.len);
		buf_release(&text);
		goto out;
	}

	/* written as text: 5,000 rows of jansson objects cost more than the query */
	{
		struct buf sb = BUF_INIT(0), rb = BUF_INIT(0), all = BUF_INIT(0);
		int full = 0;

		for (size_t i = 0, listed = 0; i < nr; i++) {
			if (changed_only && rows[i].res.verdict != VERDICT_DIFFERENT)
				continue;
			/* each setup once, also when changed=1 skipped its first rows */
			if (!listed || rows[i].setup_id != rows[listed - 1].setup_id) {
				json_t *s = setup_json(c, rows[i].setup_id, &e);

				if (!s) {
					buf_release(&sb);
					buf_release(&rb);
					ret = reply_err(rq, &e);
					goto out;
				}
				full |= (sb.len && buf_addch(&sb, ',')) || jsonout_json(&sb, s);
				json_decref(s);
			}
			full |= (rb.len && buf_addch(&rb, ',')) || row_text(&rb, &rows[i]);
			listed = i + 1;
		}
		full |= buf_addstr(&all, "{\"base\":{\"sha\":") || jsonout_str(&all, base_sha) ||
			buf_addstr(&all, ",\"subject\":") || jsonout_str_or_null(&all, base_subj) ||
			buf_addstr(&all, "},\"head\":{\"sha\":") || jsonout_str(&all, head_sha) ||
			buf_addstr(&all, ",\"subject\":") || jsonout_str_or_null(&all, head_subj) ||
			buf_addstr(&all, "},\"alpha\":") || jsonout_real(&all, alpha) ||
			buf_addstr(&all, ",\"sample\":\"per-run mean of iterations\",\"setups\":[") ||
			buf_add(&all, sb.data, sb.len) || buf_addstr(&all, "],\"rows\":[") ||
			buf_add(&all, rb.data, rb.len) || buf_addstr(&all, "]}\n");
		buf_release(&sb);
		buf_release(&rb);
		if (full)
			ret = reply_errf(rq, 500, "internal", "", "the reply could not be written");
		else
			ret = reply_text(rq, 200, "application/json", all.data, all.len);
		buf_release(&all);
	}
out:
	free(q);
	free(pool);
	free(rows);
	PQclear(mr);
	PQclear(r);
	return ret;
}
