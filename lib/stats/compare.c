#include "compare.h"
#include "ranktest.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* samples up to this size live on the stack (a compare of thousands of
 * metrics of a few runs each allocated four arrays per metric) */
#define SMALL_N 32

void sample_stats_compute(const double *v, size_t n, struct sample_stats *out)
{
	double sum = 0, ss = 0, mean;
	double buf[SMALL_N], *tmp;
	size_t m = 0;

	out->n = 0;
	out->mean = out->median = out->stddev_pct = out->min = out->max = NAN;
	if (!n)
		return;
	tmp = n <= SMALL_N ? buf : xmalloc(n * sizeof(*tmp));
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			tmp[m++] = v[i];
	out->n = m;
	if (!m) {
		if (tmp != buf)
			free(tmp);
		return;
	}
	/* shifted sum: identical values give an exact mean and a zero stddev */
	for (size_t i = 0; i < m; i++)
		sum += tmp[i] - tmp[0];
	mean = tmp[0] + sum / (double)m;
	out->min = out->max = tmp[0];
	for (size_t i = 0; i < m; i++) {
		ss += (tmp[i] - mean) * (tmp[i] - mean);
		if (tmp[i] < out->min)
			out->min = tmp[i];
		if (tmp[i] > out->max)
			out->max = tmp[i];
	}
	out->mean = mean;
	out->stddev_pct = mean != 0 ? 100 * sqrt(ss / (double)m) / fabs(mean) : NAN;
	out->median = ranktest_median_inplace(tmp, m);
	if (tmp != buf)
		free(tmp);
}

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_SAME:
		return "same";
	case VERDICT_DIFFERENT:
		return "different";
	case VERDICT_NEED_MORE_RUNS:
		break;
	}
	return "need-more-runs";
}

void compare_opts_init(struct compare_opts *o)
{
	o->alpha = 0.01;
	o->floor_pct = 1.0;
	o->ci_level = 0.95;
	o->monitor_floor_pct = 5.0;
}

double compare_opts_floor(const struct compare_opts *o, const char *name)
{
	return metric_is_monitor(name) ? o->monitor_floor_pct : o->floor_pct;
}

/* Finite values of v in buf (when n <= SMALL_N) or a new array (caller frees
 * when not buf); *m gets their count. */
static double *finite_copy(const double *v, size_t n, size_t *m, double *buf)
{
	double *out = n <= SMALL_N ? buf : xmalloc((n ? n : 1) * sizeof(*out));

	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			out[(*m)++] = v[i];
	return out;
}

void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     const struct compare_opts *o, struct compare_result *r)
{
	struct compare_opts def;
	size_t ma, mb;
	double *fa, *fb, est, lo, hi, abuf[SMALL_N], bbuf[SMALL_N];
	int positive = 1;

	if (!o) {
		compare_opts_init(&def);
		o = &def;
	}
	memset(r, 0, sizeof(*r));
	fa = finite_copy(a, na, &ma, abuf);
	fb = finite_copy(b, nb, &mb, bbuf);
	sample_stats_compute(fa, ma, &r->a);
	sample_stats_compute(fb, mb, &r->b);
	r->change_pct = ma && mb && r->a.mean != 0
				? 100 * (r->b.mean - r->a.mean) / fabs(r->a.mean)
				: NAN;
	r->p_value = ranktest_mann_whitney(fa, ma, fb, mb, NULL);
	r->min_p = ranktest_min_p(ma, mb);
	r->exact = ma + mb <= RANKTEST_EXACT_MAX;

	for (size_t i = 0; i < ma; i++)
		positive &= fa[i] > 0;
	for (size_t i = 0; i < mb; i++)
		positive &= fb[i] > 0;
	r->log_scale = positive && ma && mb;
	r->ci_lo_pct = r->ci_hi_pct = r->hl_pct = NAN;
	if (r->log_scale) {
		for (size_t i = 0; i < ma; i++)
			fa[i] = log(fa[i]);
		for (size_t i = 0; i < mb; i++)
			fb[i] = log(fb[i]);
		if (!ranktest_hodges_lehmann(fa, ma, fb, mb, o->ci_level, &est, &lo, &hi)) {
			r->ci_lo_pct = 100 * expm1(lo);
			r->ci_hi_pct = 100 * expm1(hi);
		}
		r->hl_pct = isfinite(est) ? 100 * expm1(est) : NAN;
	} else if (ma && mb && r->a.mean != 0) {
		double scale = 100 / fabs(r->a.mean);

		if (!ranktest_hodges_lehmann(fa, ma, fb, mb, o->ci_level, &est, &lo, &hi)) {
			r->ci_lo_pct = scale * lo;
			r->ci_hi_pct = scale * hi;
		}
		r->hl_pct = isfinite(est) ? scale * est : NAN;
	}
	r->welch_p = ranktest_welch(fa, ma, fb, mb, NULL, NULL);

	if (r->p_value <= o->alpha && isfinite(r->change_pct) &&
	    fabs(r->change_pct) > o->floor_pct)
		r->verdict = VERDICT_DIFFERENT;
	else if (isfinite(r->ci_lo_pct) && isfinite(r->ci_hi_pct) &&
		 r->ci_lo_pct >= -o->floor_pct && r->ci_hi_pct <= o->floor_pct)
		r->verdict = VERDICT_SAME;
	else
		r->verdict = VERDICT_NEED_MORE_RUNS;
	if (fa != abuf)
		free(fa);
	if (fb != bbuf)
		free(fb);
}

enum change_kind compare_change_kind(const struct compare_result *r, int higher_is_better)
{
	if (r->verdict != VERDICT_DIFFERENT)
		return CHANGE_NONE;
	if (higher_is_better < 0)
		return CHANGE_UNKNOWN;
	if ((r->change_pct > 0) == (higher_is_better == 1))
		return CHANGE_IMPROVEMENT;
	return CHANGE_REGRESSION;
}

const char *change_kind_name(enum change_kind k)
{
	switch (k) {
	case CHANGE_IMPROVEMENT:
		return "improvement";
	case CHANGE_REGRESSION:
		return "regression";
	case CHANGE_UNKNOWN:
		return "unknown";
	case CHANGE_NONE:
		break;
	}
	return "none";
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *x, const void *y)
{
	const struct pidx *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

void bh_adjust(const double *p, size_t n, double *q_out)
{
	struct pidx *s = xmalloc((n ? n : 1) * sizeof(*s));
	size_t m = 0;
	double run = 1;

	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[m++] = (struct pidx){ p[i], i };
	qsort(s, m, sizeof(*s), cmp_pidx);
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			q_out[i] = NAN;
	for (size_t j = m; j-- > 0;) {
		double q = (double)m * s[j].p / (double)(j + 1);

		if (q < run)
			run = q;
		q_out[s[j].i] = run;
	}
	free(s);
}

void compare_fdr(struct compare_result *const *r, size_t n, double alpha, double *q_out)
{
	for (size_t i = 0; i < n; i++)
		q_out[i] = r[i]->min_p <= alpha ? r[i]->p_value : NAN;
	bh_adjust(q_out, n, q_out);
	for (size_t i = 0; i < n; i++)
		if (r[i]->verdict == VERDICT_DIFFERENT && !(q_out[i] <= alpha))
			r[i]->verdict = VERDICT_NEED_MORE_RUNS;
}
