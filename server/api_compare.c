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
 */
#include "server/api.h"
#include "server/query.h"
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
		if (strcmp(json_string_value(json_object_get(s, "mode")), "wallclock") &&
		    nr_axes < ARRAY_SIZE(axes))
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

enum MHD_Result api_compare_get(struct request *rq)
{
	struct setup_filter f;
	struct err e;
	const char *base_id, *base_sha, *base_subj, *head_id, *head_sha, *head_subj;
	const char *prefix = rq_arg(rq, "metric"), *format = rq_arg(rq, "format");
	int changed_only = rq_arg(rq, "changed") && strcmp(rq_arg(rq, "changed"), "0");
	double alpha;
	PGconn *c;
	PGresult *r;
	struct cmp_row *rows = NULL;
	size_t nr = 0, ntup, nvals;
	double *pool, *p, *q;
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
		const char *params[9] = { base_id, head_id, f.testcase, f.tbox_group, f.kconfig,
					  f.compiler, f.params_key, f.mode, prefix };
		r = db_exec(c, ST_COMPARE, 9, params, &e);
	}
	if (!r)
		return reply_err(rq, &e);

	/* one row per (setup, metric), ordered by setup and metric name */
	ntup = (size_t)PQntuples(r);
	nvals = 0;
	for (size_t i = 0; i < ntup; i++)
		nvals += pg_float8_array_len(PQgetvalue(r, (int)i, 2)) +
			 pg_float8_array_len(PQgetvalue(r, (int)i, 3));
	pool = xmalloc((nvals ? nvals : 1) * sizeof(double));
	p = pool;
	rows = xcalloc(ntup ? ntup : 1, sizeof(*rows));
	for (size_t i = 0; i < ntup; i++) {
		struct cmp_row *w = &rows[nr++];
		const char *hib = PQgetvalue(r, (int)i, 4);

		w->setup_id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		w->metric = PQgetvalue(r, (int)i, 1);
		w->higher_is_better = !*hib ? -1 : hib[0] == 't';
		w->unit = PQgetvalue(r, (int)i, 5);
		w->is_monitor = PQgetvalue(r, (int)i, 6)[0] == 't';
		w->a = p;
		/* sorted: the SQL aggregates in no particular order */
		w->na = pg_float8_array_sorted(PQgetvalue(r, (int)i, 2), w->a);
		w->b = w->a + w->na;
		w->nb = pg_float8_array_sorted(PQgetvalue(r, (int)i, 3), w->b);
		p = w->b + w->nb;
	}
	compare_opts_init(&opts);
	opts.alpha = alpha;
	q = xcalloc(nr ? nr : 1, sizeof(double));
	for (size_t i = 0; i < nr; i++) {
		struct compare_opts o = opts;
		o.floor_pct = compare_opts_floor(&opts, rows[i].metric);
		compare_samples(rows[i].a, rows[i].na, rows[i].b, rows[i].nb, &o, &rows[i].res);
		q[i] = rows[i].res.p_value;
	}
	bh_adjust(q, nr, q);
	for (size_t i = 0; i < nr; i++) {
		rows[i].q = q[i];
		if (rows[i].res.verdict == VERDICT_DIFFERENT && !(q[i] <= alpha))
			rows[i].res.verdict = VERDICT_NEED_MORE_RUNS;
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
	PQclear(r);
	return ret;
}
