/*
 * GET /api/v1/compare?base=SHA&head=SHA[&testcase=&tbox_group=&kconfig=
 *     &compiler=&params=&mode=&metric=PREFIX&alpha=&format=text&changed=1]
 *
 * Per (setup, metric): the base and head samples are the runs' values (each
 * run's mean over its iterations: runs are the independent unit, one boot
 * each), compared by lib/stats/compare.h. Across all rows of one response
 * the p-values are adjusted for the false discovery rate (Benjamini-
 * Hochberg); a row is `different` only when its adjusted q <= alpha too.
 * A row's size and direction are the verdict's (hl_pct, shift, direction:
 * the Hodges-Lehmann shift, which `change` follows); change_pct is LKP's
 * %change of the means (0 for equal means, 0 -> 0 too), outliers the runs
 * of each side far outside it (outliers_differ: their shares differ, part
 * of the runs moved: never `same`); constant = every run of both sides is one
 * value (the row carries no evidence: compare --gate leaves it out),
 * monitor = a monitor's metric (perf-stat.*, time.*, ...), not the test's.
 * format=text renders the LKP layout (lib/lkptext.h) per setup.
 *
 * The samples come from run_means (sql/0011: one row per run, its metric
 * ids ascending and their means; db_compare_runs()), merged per setup
 * here (compare_rows); the metrics' names and properties from one more
 * query in name order, which is the rows' order (db_compare_metrics()).
 *
 * Deterministic measurement (lib/stats/compare.h
 * compare_deterministic(), its model and assumption). In an icount setup
 * (mode icount or params.measure icount; never wall-clock) each row's A/A
 * spread is measured from the setup's own history (server/detect/aa_history.h): the
 * runs of each kernel with two runs or more (one commit, or the commits of
 * one image_sha256 pooled), the runs of the two compared commits left out,
 * so the evidence is independent of the sides it judges; struct aa_spread
 * (lib/stats) is the definition the bisect planner uses too. With at least
 * AA_SPREAD_MIN_RUNS (6) such runs the row is compared by
 * compare_deterministic() with that spread, which may decide 3 vs 3; a row
 * it decides (by_spread) is not in the FDR family (no p-value decided it:
 * q_value null). aa_spread_pct (floored at 0.01 %, null when not measured)
 * and aa_runs say what the spread rests on.
 *
 * "host_fingerprints": {"differ", "fields", "base", "head"}:
 * the distinct host fingerprints of each side's runs in the listed setups
 * and the fields whose values differ (lib/hostfp.h); differ = a side ran
 * on a host the other did not (CPU model, microcode, governor, host
 * kernel, cmdline), so a change may be the machine's.
 */
#include "server/api/api.h"
#include "server/db/pgval.h"
#include "server/db/series.h"
#include "server/api/args.h"
#include "server/detect/aa_history.h"
#include "server/jsonout.h"
#include "hostfp.h"
#include "lkptext.h"
#include "stats/compare.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cmp_row {
	long long setup_id;
	int metric_id;
	const char *metric;   /* borrowed from the db_compare_metrics */
	int higher_is_better; /* 1, 0, -1 unknown */
	const char *unit;
	int is_monitor;
	double *a, *b; /* into one shared pool */
	size_t na, nb;
	struct compare_result res;
	struct aa_spread aa; /* the setup's A/A spread of this metric (icount setups; see the top) */
	double q;
	size_t rank; /* the metric's place in name order */
};

static double parse_alpha(const char *s, struct err *e)
{
	char *end;
	double a;

	if (!s)
		return 0.01;
	a = strtod(s, &end);
	if (*end || !(a > 0 && a < 1)) {
		err_setc(e, ERR_INVALID_FIELD, "alpha", "alpha must be a number in (0, 1)");
		return NAN;
	}
	return a;
}

/*
 * A row's text is put together in a stack buffer and appended once: per
 * piece, buf_add()'s checks and a memcpy() call of a few bytes were 6 % of
 * a compare's instructions (callgrind), printf's integers and strlen() of
 * the keys more. The numbers are written straight into it (jsonout_put_real() and
 * the others, server/jsonout.h). ROW_STAGE holds the longest row but for its
 * metric and unit names, which jsonout_str() escapes into the reply:
 * ~330 bytes of keys, 17 reals of at most DTOA_BUFSZ, 6 integers of at
 * most 20 digits, the verdict's and change's names.
 */
#define ROW_STAGE 2048
#define PUT_LIT(p, s) put((p), "" s, sizeof(s) - 1) /* a constant size: memcpy inlined */

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static char *put_pair(char *p, double x, double y)
{
	*p++ = '[';
	p = jsonout_put_real(p, x);
	*p++ = ',';
	p = jsonout_put_real(p, y);
	*p++ = ']';
	return p;
}

static char *put_upair(char *p, size_t x, size_t y)
{
	*p++ = '[';
	p = jsonout_put_uint(p, x);
	*p++ = ',';
	p = jsonout_put_uint(p, y);
	*p++ = ']';
	return p;
}

/* a name of verdict_name() or change_kind_name() (a-z and '-': nothing to escape) */
static char *put_name(char *p, const char *s)
{
	*p++ = '"';
	p = put(p, s, strlen(s));
	*p++ = '"';
	return p;
}

/* one row as JSON text (server/jsonout.h: the bytes jansson would write) */
static int row_text(struct buf *b, const struct cmp_row *w)
{
	const struct compare_result *r = &w->res;
	char st[ROW_STAGE], *p = st;
	int full;

	p = PUT_LIT(p, "{\"setup_id\":");
	p = jsonout_put_int(p, w->setup_id);
	p = PUT_LIT(p, ",\"metric\":");
	full = buf_add(b, st, (size_t)(p - st)) | jsonout_str(b, w->metric) |
	       buf_add(b, ",\"unit\":", 8) | jsonout_str(b, w->unit);
	p = PUT_LIT(st, ",\"higher_is_better\":");
	p = w->higher_is_better < 0 ? PUT_LIT(p, "null") :
	    w->higher_is_better	    ? PUT_LIT(p, "true") :
				      PUT_LIT(p, "false");
	p = PUT_LIT(p, ",\"n\":");
	p = put_upair(p, r->a.n, r->b.n);
	p = PUT_LIT(p, ",\"mean\":");
	p = put_pair(p, r->a.mean, r->b.mean);
	p = PUT_LIT(p, ",\"median\":");
	p = put_pair(p, r->a.median, r->b.median);
	p = PUT_LIT(p, ",\"stddev_pct\":");
	p = put_pair(p, r->a.stddev_pct, r->b.stddev_pct);
	p = PUT_LIT(p, ",\"min\":");
	p = put_pair(p, r->a.min, r->b.min);
	p = PUT_LIT(p, ",\"max\":");
	p = put_pair(p, r->a.max, r->b.max);
	p = PUT_LIT(p, ",\"outliers\":");
	p = put_upair(p, r->outliers_a, r->outliers_b);
	p = PUT_LIT(p, ",\"change_pct\":");
	p = jsonout_put_real(p, r->change_pct);
	p = PUT_LIT(p, ",\"hl_pct\":");
	p = jsonout_put_real(p, r->hl_pct);
	p = PUT_LIT(p, ",\"shift\":");
	p = jsonout_put_real(p, r->shift);
	p = PUT_LIT(p, ",\"direction\":");
	p = jsonout_put_int(p, r->direction);
	p = PUT_LIT(p, ",\"ci_pct\":");
	p = put_pair(p, r->ci_lo_pct, r->ci_hi_pct);
	p = PUT_LIT(p, ",\"p_value\":");
	p = jsonout_put_real(p, r->p_value);
	p = PUT_LIT(p, ",\"q_value\":");
	p = jsonout_put_real(p, w->q);
	p = PUT_LIT(p, ",\"welch_p\":");
	p = jsonout_put_real(p, r->welch_p);
	p = PUT_LIT(p, ",\"verdict\":");
	p = put_name(p, verdict_name(r->verdict));
	p = r->by_spread ? PUT_LIT(p, ",\"by_spread\":true") : PUT_LIT(p, ",\"by_spread\":false");
	p = PUT_LIT(p, ",\"aa_spread_pct\":");
	p = jsonout_put_real(p, isfinite(w->aa.pct) && w->aa.pct < AA_SPREAD_FLOOR_PCT ?
					AA_SPREAD_FLOOR_PCT :
					w->aa.pct);
	p = PUT_LIT(p, ",\"aa_runs\":");
	p = jsonout_put_uint(p, w->aa.runs);
	p = r->constant ? PUT_LIT(p, ",\"constant\":true") : PUT_LIT(p, ",\"constant\":false");
	p = r->outliers_differ ? PUT_LIT(p, ",\"outliers_differ\":true") :
				 PUT_LIT(p, ",\"outliers_differ\":false");
	p = w->is_monitor ? PUT_LIT(p, ",\"monitor\":true") : PUT_LIT(p, ",\"monitor\":false");
	p = PUT_LIT(p, ",\"change\":");
	p = put_name(p, change_kind_name(compare_change_kind(r, w->higher_is_better)));
	*p++ = '}';
	return full | buf_add(b, st, (size_t)(p - st));
}

static int render_text(struct db_conn *c, struct buf *out, struct cmp_row *rows, size_t n,
		       int changed_only, const char *base, const char *base_subj, const char *head,
		       const char *head_subj, struct err *e)
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
		axes[nr_axes++] = (struct lkp_axis){
			"compiler", json_string_value(json_object_get(s, "compiler"))
		};
		axes[nr_axes++] = (struct lkp_axis){
			"kconfig", json_string_value(json_object_get(s, "kconfig"))
		};
		axes[nr_axes++] = (struct lkp_axis){
			"tbox_group", json_string_value(json_object_get(s, "tbox_group"))
		};
		axes[nr_axes++] = (struct lkp_axis){
			"testcase", json_string_value(json_object_get(s, "testcase"))
		};
		params = json_object_get(s, "params");
		json_object_foreach (params, key, v) {
			if (nr_axes + 1 >= ARRAY_SIZE(axes))
				break;
			owned[nr_owned] = json_is_string(v) ? xstrdup(json_string_value(v)) :
							      json_dumps(v, JSON_ENCODE_ANY);
			axes[nr_axes++] = (struct lkp_axis){ key, owned[nr_owned++] };
		}
		/* the mode as an axis, unless the params name it already (a "measure" param) */
		if (strcmp(json_string_value(json_object_get(s, "mode")), "wallclock") &&
		    !json_object_get(params, "measure") && nr_axes < ARRAY_SIZE(axes))
			axes[nr_axes++] = (struct lkp_axis){
				"measure", json_string_value(json_object_get(s, "mode"))
			};
		full = (i && buf_addch(out, '\n')) ||
		       lkp_render(out, axes, nr_axes, base, base_subj, head, head_subj, lr, k);
		/* lkp_render sorted axes[]: free through owned[] */
		for (size_t x = 0; x < nr_owned; x++)
			free(owned[x]);
		free(lr);
		json_decref(s);
		if (full)
			return err_setc(e, ERR_TOO_LARGE, "format", "the text table is too large");
		i = j;
	}
	return 0;
}

/*
 * A row while the runs are merged: the few fields the merge knows. The
 * full struct cmp_row (with its compare_result, ~300 bytes) is written once,
 * in its final place: zeroing and then copying them (5,000 in make bench's
 * compare) was a sixth of its CPU, most of it first-touch page faults.
 */
struct cmp_merged {
	long long setup_id;
	int metric_id;
	double *a, *b; /* into the shared pool */
	size_t na, nb;
};

/* a metric of the compare, with its place in name order */
struct cmp_metric {
	int id;
	size_t rank; /* place in name order: its row in mr->rows */
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
 * The rows of a compare from its runs (db_compare_runs()) and the metrics
 * they name (db_compare_metrics(), *mr on return; prefix filters by name):
 * per setup, the runs' ascending id lists merged into one row per metric
 * with the base runs' means in a[] and the head runs' in b[], each sorted
 * (NaN last); rows in (setup, metric name) order. *pool holds every value
 * (caller frees it, the rows and *mr). Returns the rows (*nr of them) or
 * NULL with e (db_compare_metrics()'s errors).
 */
static struct cmp_row *compare_rows(struct db_conn *c, const struct db_compare_runs *cr,
				    const char *prefix, struct db_compare_metrics *mr,
				    double **pool, size_t *nr, struct err *e)
{
	size_t nrun = cr->nr, nvals = cr->nr_values, nm, k = 0, nids = 0, nsetups = 0;
	const struct db_compare_run *runs = cr->runs;
	long *at_run = xcalloc(nrun ? nrun : 1, sizeof(*at_run)); /* merge positions */
	struct cmp_merged *rows = NULL;
	struct cmp_row *out;
	struct cmp_metric *ms = NULL;
	int *ids = NULL;
	double *p;
	size_t *at, *rank;

	memset(mr, 0, sizeof(*mr));
	*nr = 0;
	for (size_t i = 0; i < nrun; i++)
		nsetups += !i || runs[i].setup_id != runs[i - 1].setup_id;
	ids = xmalloc((nvals ? nvals : 1) * sizeof(*ids));
	p = *pool = xmalloc((nvals ? nvals : 1) * sizeof(*p));

	/* per setup (db_compare_runs() orders by it): merge the runs' ascending ids */
	rows = xmalloc((nvals ? nvals : 1) * sizeof(*rows)); /* a row has >= 1 value */
	for (size_t i = 0; i < nrun;) {
		size_t j = i;

		while (j < nrun && runs[j].setup_id == runs[i].setup_id)
			j++;
		for (;;) {
			int id = 0, any = 0;
			struct cmp_merged *w = &rows[k];

			for (size_t x = i; x < j; x++)
				if (at_run[x] < runs[x].n &&
				    (!any || runs[x].metric_ids[at_run[x]] < id)) {
					id = runs[x].metric_ids[at_run[x]];
					any = 1;
				}
			if (!any)
				break; /* the setup's ids are all merged: no row */
			k++;
			w->setup_id = runs[i].setup_id;
			w->metric_id = id;
			/* a: the base runs' means, b: the head runs' */
			w->a = p;
			for (size_t x = i; x < j; x++)
				if (runs[x].is_base && at_run[x] < runs[x].n &&
				    runs[x].metric_ids[at_run[x]] == id)
					*p++ = runs[x].means[at_run[x]];
			w->na = (size_t)(p - w->a);
			w->b = p;
			for (size_t x = i; x < j; x++)
				if (!runs[x].is_base && at_run[x] < runs[x].n &&
				    runs[x].metric_ids[at_run[x]] == id)
					*p++ = runs[x].means[at_run[x]];
			w->nb = (size_t)(p - w->b);
			pg_sort_doubles(w->a, w->na);
			pg_sort_doubles(w->b, w->nb);
			for (size_t x = i; x < j; x++)
				if (at_run[x] < runs[x].n && runs[x].metric_ids[at_run[x]] == id)
					at_run[x]++;
		}
		i = j;
	}
	free(at_run);

	/* the metrics named: the distinct ids (ascending) */
	for (size_t i = 0; i < k; i++)
		ids[i] = rows[i].metric_id;
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
	if (db_compare_metrics(c, ids, nids, prefix, mr, e))
		goto fail;
	nm = mr->nr;
	ms = xcalloc(nm ? nm : 1, sizeof(*ms));
	for (size_t i = 0; i < nm; i++) {
		ms[i].id = mr->rows[i].id;
		ms[i].rank = i;
	}
	qsort(ms, nm, sizeof(*ms), cmp_metric_id);

	/*
	 * Into (setup, name) order without sorting the rows: within a setup
	 * each metric has one row, so a row's place is the count of that
	 * setup's metrics before it in name order (at[rank], a prefix count).
	 * Rows of metrics the prefix left out are dropped.
	 */
	out = xmalloc((k ? k : 1) * sizeof(*out));
	xprefault(out, k * sizeof(*out)); /* 5,000 rows: 1.6 MB of fresh pages (xalloc.h) */
	at = xmalloc((nm + 1) * sizeof(*at));
	rank = xmalloc((k ? k : 1) * sizeof(*rank));
	*nr = 0;
	for (size_t i = 0; i < k;) {
		size_t j = i, base = *nr;

		while (j < k && rows[j].setup_id == rows[i].setup_id)
			j++;
		memset(at, 0, (nm + 1) * sizeof(*at));
		for (size_t x = i; x < j; x++) {
			struct cmp_metric key = { .id = rows[x].metric_id }, *m;

			m = bsearch(&key, ms, nm, sizeof(*ms), cmp_metric_id);
			rank[x] = m ? m->rank : SIZE_MAX;
			if (m)
				at[m->rank + 1] = 1;
		}
		for (size_t x = 1; x <= nm; x++)
			at[x] += at[x - 1];
		for (size_t x = i; x < j; x++) {
			const struct db_compare_metric *m;

			if (rank[x] == SIZE_MAX)
				continue;
			m = &mr->rows[rank[x]];
			out[base + at[rank[x]]] = (struct cmp_row){
				.setup_id = rows[x].setup_id,
				.metric_id = rows[x].metric_id,
				.metric = m->name,
				.higher_is_better = m->higher_is_better,
				.unit = m->unit,
				.is_monitor = m->is_monitor,
				.a = rows[x].a,
				.b = rows[x].b,
				.na = rows[x].na,
				.nb = rows[x].nb,
				.rank = rank[x],
			};
			(*nr)++;
		}
		i = j;
	}
	free(at);
	free(rank);
	free(ms);
	free(rows);
	free(ids);
	return out;
fail:
	free(rows);
	free(ids);
	free(*pool);
	*pool = NULL;
	db_compare_metrics_free(mr);
	return NULL;
}

/*
 * Fills each row's aa from the A/A history of its setup (see the top,
 * server/detect/aa_history.h). 0, or -1 with e (aa_history_load()'s errors).
 */
static int rows_aa(struct db_conn *c, long long base_id, long long head_id, struct cmp_row *rows,
		   size_t nr, struct err *e)
{
	long long *ids = xcalloc(nr ? nr : 1, sizeof(*ids));
	struct aa_history h;
	size_t n = 0;

	for (size_t i = 0; i < nr; i++)
		if (!n || ids[n - 1] != rows[i].setup_id)
			ids[n++] = rows[i].setup_id;
	if (aa_history_load(c, ids, n, base_id, head_id, &h, e)) {
		free(ids);
		return -1;
	}
	free(ids);
	for (size_t i = 0; i < nr; i++)
		aa_history_spread(&h, rows[i].setup_id, rows[i].metric_id, 0, 0, &rows[i].aa);
	aa_history_release(&h);
	return 0;
}

/* the "host_fingerprints" object of the reply (see the top); new, or NULL with e */
static json_t *fingerprints(struct db_conn *c, long long base_id, long long head_id,
			    const struct cmp_row *rows, size_t nr, struct err *e)
{
	long long *ids = xcalloc(nr ? nr : 1, sizeof(*ids));
	size_t n = 0;
	json_t *base, *head, *fields;

	for (size_t i = 0; i < nr; i++)
		if (!n || ids[n - 1] != rows[i].setup_id)
			ids[n++] = rows[i].setup_id;
	if (db_compare_fingerprints(c, base_id, head_id, ids, n, &base, &head, e)) {
		free(ids);
		return NULL;
	}
	free(ids);
	fields = hostfp_diff(base, head);
	return json_pack("{s:b,s:o,s:o,s:o}", "differ", json_array_size(fields) > 0, "fields",
			 fields, "base", base, "head", head);
}

enum MHD_Result api_compare_get(struct request *rq)
{
	struct db_setup_filter f;
	struct err e;
	const char *base_id, *base_sha, *base_subj, *head_id, *head_sha, *head_subj;
	long long base, head;
	const char *prefix = rq_arg(rq, "metric"), *format = rq_arg(rq, "format");
	int changed_only = rq_arg(rq, "changed") && strcmp(rq_arg(rq, "changed"), "0");
	double alpha;
	struct db_conn *c;
	struct db_compare_runs runs;
	struct db_compare_metrics mr = { 0 };
	struct cmp_row *rows = NULL;
	size_t nr = 0;
	double *pool = NULL, *q;
	struct compare_opts opts;
	enum MHD_Result ret;

	alpha = parse_alpha(rq_arg(rq, "alpha"), &e);
	if (isnan(alpha))
		return reply_err(rq, &e);
	if (format && strcmp(format, "text") && strcmp(format, "json")) {
		err_setc(&e, ERR_INVALID_FIELD, "format", "format must be json or text");
		return reply_err(rq, &e);
	}
	if (setup_filter_from_query(rq, &f, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	if (commit_resolve(rq, c, rq_arg(rq, "base"), "base", &base_id, &base_sha, &base_subj,
			   &e) ||
	    commit_resolve(rq, c, rq_arg(rq, "head"), "head", &head_id, &head_sha, &head_subj, &e))
		return reply_err(rq, &e);
	base = strtoll(base_id, NULL, 10);
	head = strtoll(head_id, NULL, 10);
	if (db_compare_runs(c, base, head, &f, &runs, &e))
		return reply_err(rq, &e);
	/* one row per (setup, metric), ordered by setup and metric name */
	rows = compare_rows(c, &runs, prefix, &mr, &pool, &nr, &e);
	db_compare_runs_free(&runs);
	if (!rows)
		return reply_err(rq, &e);
	if (rows_aa(c, base, head, rows, nr, &e)) {
		ret = reply_err(rq, &e);
		q = NULL;
		goto out;
	}
	compare_opts_init(&opts);
	opts.alpha = alpha;
	q = xcalloc(nr ? nr : 1, sizeof(double));
	{
		struct compare_result **res = xcalloc(nr ? nr : 1, sizeof(*res));
		size_t *at = xcalloc(nr ? nr : 1, sizeof(*at)), nf = 0;
		/* a metric's floor depends on its name alone: once per metric, not per row */
		double *floor_of = xmalloc((mr.nr ? mr.nr : 1) * sizeof(*floor_of));

		for (size_t i = 0; i < mr.nr; i++)
			floor_of[i] = NAN;
		for (size_t i = 0; i < nr; i++) {
			struct compare_opts o = opts;

			if (isnan(floor_of[rows[i].rank]))
				floor_of[rows[i].rank] = compare_opts_floor(&opts, rows[i].metric);
			o.floor_pct = floor_of[rows[i].rank];
			compare_deterministic(rows[i].a, rows[i].na, rows[i].b, rows[i].nb, &o,
					      aa_spread_usable(&rows[i].aa), &rows[i].res);
			rows[i].q = NAN;
			/* the FDR family: the rows a p-value decides */
			if (!rows[i].res.by_spread) {
				at[nf] = i;
				res[nf++] = &rows[i].res;
			}
		}
		free(floor_of);
		compare_fdr(res, nf, alpha, q);
		for (size_t i = 0; i < nf; i++)
			rows[at[i]].q = q[i];
		free(at);
		free(res);
	}

	if (format && !strcmp(format, "text")) {
		struct buf text = BUF_INIT(64u << 20);
		err_clear(&e);
		if (render_text(c, &text, rows, nr, changed_only, base_sha, base_subj, head_sha,
				head_subj, &e))
			ret = reply_err(rq, &e);
		else if (!nr) {
			err_setc(&e, ERR_NOT_FOUND, "base",
				 "no runs of both commits match these filters");
			ret = reply_err(rq, &e);
		} else
			ret = reply_text(rq, 200, "text/plain; charset=utf-8", text.data, text.len);
		buf_release(&text);
		goto out;
	}

	/*
	 * written as text: a jansson object per row cost more than the query;
	 * into the one buffer that MHD sends (reply_text_buf, no copy): the
	 * rows in a buffer of their own, copied behind the setups and copied
	 * again by MHD, were 3 x 3.4 MB of fresh memory, a quarter of the CPU
	 */
	{
		struct buf sb = BUF_INIT(0), all = BUF_INIT(0);
		int full = 0;
		json_t *hfp = fingerprints(c, base, head, rows, nr, &e);

		if (!hfp) {
			ret = reply_err(rq, &e);
			goto out;
		}
		/* without a token, whether and where the hosts differ, not their facts (README) */
		if (!rq->scope) {
			json_object_del(hfp, "base");
			json_object_del(hfp, "head");
		}

		for (size_t i = 0, listed = 0; i < nr; i++) {
			json_t *s;

			if (changed_only && rows[i].res.verdict != VERDICT_DIFFERENT)
				continue;
			/* each setup once, also when changed=1 skipped its first rows */
			if (listed && rows[i].setup_id == rows[listed - 1].setup_id) {
				listed = i + 1;
				continue;
			}
			listed = i + 1;
			s = setup_json(c, rows[i].setup_id, &e);
			if (!s) {
				buf_release(&sb);
				json_decref(hfp);
				ret = reply_err(rq, &e);
				goto out;
			}
			full |= (sb.len && buf_addch(&sb, ',')) || jsonout_json(&sb, s);
			json_decref(s);
		}
		full |= buf_addstr(&all, "{\"base\":{\"sha\":") || jsonout_str(&all, base_sha) ||
			buf_addstr(&all, ",\"subject\":") || jsonout_str_or_null(&all, base_subj) ||
			buf_addstr(&all, "},\"head\":{\"sha\":") || jsonout_str(&all, head_sha) ||
			buf_addstr(&all, ",\"subject\":") || jsonout_str_or_null(&all, head_subj) ||
			buf_addstr(&all, "},\"alpha\":") || jsonout_real(&all, alpha) ||
			buf_addstr(&all, ",\"host_fingerprints\":") || jsonout_json(&all, hfp) ||
			buf_addstr(&all,
				   ",\"sample\":\"per-run mean of iterations\",\"setups\":[") ||
			buf_add(&all, sb.data, sb.len) || buf_addstr(&all, "],\"rows\":[");
		json_decref(hfp);
		buf_release(&sb);
		/*
		 * the rows' room at once, made present (xalloc.h: 3.4 MB faulted page by
		 * page cost more than writing it): a row is ~670 bytes besides its names
		 * (bench's data), 768 leaves room for longer numbers; growing by doubling
		 * copied, or faulted in, the text written so far at every step
		 */
		for (size_t i = 0, room = 0; i < nr && !full; i++) {
			room += 768 + strlen(rows[i].metric) + strlen(rows[i].unit);
			if (i + 1 == nr && !(full |= buf_reserve(&all, room)))
				xprefault(all.data + all.len, room);
		}
		for (size_t i = 0, listed = 0; i < nr; i++) {
			if (changed_only && rows[i].res.verdict != VERDICT_DIFFERENT)
				continue;
			full |= (listed++ && buf_addch(&all, ',')) || row_text(&all, &rows[i]);
		}
		full |= buf_addstr(&all, "]}\n");
		if (full) {
			err_setc(&e, ERR_INTERNAL, "", "the reply could not be written");
			ret = reply_err(rq, &e);
		} else
			ret = reply_text_buf(rq, 200, "application/json", &all);
		buf_release(&all);
	}
out:
	free(q);
	free(pool);
	free(rows);
	db_compare_metrics_free(&mr);
	return ret;
}
