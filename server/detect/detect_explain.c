/* The reasons of the last detection of each series (see server/detect/detect_explain.h). */
#include "server/detect/detect_explain.h"
#include "server/db/detect_explain.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* one candidate of the trace with its position, for the sorts below */
struct pick {
	const struct detect_candidate *d;
	size_t i;
};

/* the stronger first: a final estimate, then the least p, then the larger effect */
static int stronger(const struct detect_candidate *a, const struct detect_candidate *b)
{
	double ea = isfinite(a->effect) ? a->effect : -1, eb = isfinite(b->effect) ? b->effect : -1;

	if (a->stage != b->stage)
		return a->stage > b->stage ? -1 : 1;
	if (a->p_value != b->p_value)
		return a->p_value < b->p_value ? -1 : 1;
	if (ea != eb)
		return ea > eb ? -1 : 1;
	return 0;
}

static int cmp_pos(size_t a, size_t b)
{
	return (a > b) - (a < b);
}

/* by window, then the stronger first */
static int cmp_window(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;
	int c = cmp_pos(a->d->start, b->d->start);

	if (!c)
		c = cmp_pos(a->d->end, b->d->end);
	if (!c)
		c = stronger(a->d, b->d);
	return c ? c : cmp_pos(a->i, b->i);
}

static int cmp_strength(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;
	int c = stronger(a->d, b->d);

	return c ? c : cmp_pos(a->i, b->i);
}

/* by split, then stage, then window */
static int cmp_split(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;
	int c = cmp_pos(a->d->index, b->d->index);

	if (!c)
		c = a->d->stage - b->d->stage;
	if (!c)
		c = cmp_pos(a->d->start, b->d->start);
	if (!c)
		c = cmp_pos(a->d->end, b->d->end);
	return c ? c : cmp_pos(a->i, b->i);
}

size_t detect_explain_pick(const struct detect_series *ds, size_t max, size_t *idx)
{
	struct pick *p = xcalloc(ds->ntrace + 1, sizeof(*p));
	size_t n = 0;

	for (size_t i = 0; i < ds->ntrace; i++) {
		p[i].d = &ds->trace[i];
		p[i].i = i;
	}
	qsort(p, ds->ntrace, sizeof(*p), cmp_window);
	/* every final estimate; of a window's scan, its strongest split (the first) */
	for (size_t i = 0, taken = 0; i < ds->ntrace; i++) {
		const struct detect_candidate *d = p[i].d;

		if (i && (p[i - 1].d->start != d->start || p[i - 1].d->end != d->end))
			taken = 0;
		if (d->stage || !taken)
			p[n++] = p[i];
		taken |= !d->stage;
	}
	qsort(p, n, sizeof(*p), cmp_strength);
	if (n > max)
		n = max;
	qsort(p, n, sizeof(*p), cmp_split);
	for (size_t i = 0; i < n; i++)
		idx[i] = p[i].i;
	free(p);
	return n;
}

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

void detect_explain_add(struct buf *rows, long long metric_id, const long long *commit,
			const struct detect_series *ds)
{
	const struct detect_opts *o = &ds->opts;
	size_t *idx = xcalloc(ds->ntrace + 1, sizeof(*idx)), n;
	json_t *settings, *cands = json_array();
	char *st, *ct;
	int bad;

	n = detect_explain_pick(ds, DETECT_EXPLAIN_MAX, idx);
	for (size_t i = 0; i < n; i++) {
		const struct detect_candidate *d = &ds->trace[idx[i]];
		json_t *j = json_object();

		json_object_set_new(j, "commit_id", json_integer(commit[d->index]));
		json_object_set_new(j, "good_commit_id",
				    d->index ? json_integer(commit[d->index - 1]) : json_null());
		json_object_set_new(j, "stage", json_string(d->stage ? "final" : "window"));
		json_object_set_new(j, "excursion", json_boolean(d->excursion));
		json_object_set_new(j, "cycle", json_integer((json_int_t)d->cycle));
		json_object_set_new(j, "n_before", json_integer((json_int_t)(d->index - d->start)));
		json_object_set_new(j, "n_after", json_integer((json_int_t)(d->end - d->index)));
		json_object_set_new(j, "before", num(d->before));
		json_object_set_new(j, "after", num(d->after));
		json_object_set_new(j, "change_pct", num(d->change_pct));
		json_object_set_new(j, "p_value", num(d->p_value));
		json_object_set_new(j, "noise_sigma", num(d->noise_sigma));
		json_object_set_new(j, "noise_raised", num(d->noise_raised));
		json_object_set_new(j, "effect", num(d->effect));
		json_object_set_new(j, "kept", json_boolean(d->reason == DETECT_REPORTED));
		json_object_set_new(j, "reason", json_string(detect_reason_text(d->reason)));
		json_array_append_new(cands, j);
	}
	free(idx);
	settings = json_pack("{s:I, s:I, s:o, s:o, s:o}", "window", (json_int_t)o->window,
			     "min_seg", (json_int_t)o->min_seg, "p_max", num(o->p_max),
			     "min_change_pct", num(o->min_change_pct), "min_effect",
			     num(o->min_effect));
	st = json_dumps(settings, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	ct = json_dumps(cands, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(settings);
	json_decref(cands);
	if (!st || !ct)
		abort(); /* out of memory */
	bad = buf_addstr(rows, rows->len ? "," : "[");
	bad |= buf_addf(rows, "{\"m\":%lld,\"n\":%zu,\"s\":%s,\"c\":%s}", metric_id, ds->n, st, ct);
	if (bad)
		abort(); /* an uncapped buffer cannot fail */
	free(st);
	free(ct);
}

int detect_explain_flush(struct db_conn *c, long long setup_id, struct buf *rows, struct err *e)
{
	int ret = 0;

	if (rows->len) {
		if (buf_addch(rows, ']'))
			abort();
		ret = db_detect_explain_set(c, setup_id, rows->data, e);
	}
	buf_release(rows);
	return ret;
}

json_t *detect_explain_json(struct db_conn *c, long long setup_id, const char *metric,
			    const char *const *shas, size_t n, struct err *e)
{
	json_t *out, *cands, *x;
	size_t i;

	if (db_detect_explain_json(c, setup_id, metric, &out, e))
		return NULL;
	if (!out)
		return json_null();
	cands = json_object_get(out, "candidates");
	json_array_foreach (cands, i, x) {
		const char *sha = json_string_value(json_object_get(x, "commit"));
		json_t *y = json_object();
		size_t k = 0;

		while (sha && k < n && !(shas[k] && !strcmp(shas[k], sha)))
			k++;
		json_object_set_new(y, "index",
				    sha && k < n ? json_integer((json_int_t)k) : json_null());
		json_object_update(y, x);
		json_array_set_new(cands, i, y);
	}
	return out;
}
