#include "detect.h"
#include "ranktest.h"
#include "xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "banned.h"

void detect_opts_init(struct detect_opts *o)
{
	o->window = 64;
	o->min_seg = 3;
	o->p_max = 1e-3;
	o->min_change_pct = 0;
	o->cusum_k = 1;
	o->cusum_h = 6;
	o->cusum_clip = 3.5;
}

void detect_series_init(struct detect_series *s, const struct detect_opts *o)
{
	memset(s, 0, sizeof(*s));
	if (o)
		s->opts = *o;
	else
		detect_opts_init(&s->opts);
	if (s->opts.window < 8)
		s->opts.window = 8;
	if (s->opts.min_seg < 1)
		s->opts.min_seg = 1;
	if (2 * s->opts.min_seg > s->opts.window)
		s->opts.min_seg = s->opts.window / 2;
}

void detect_series_release(struct detect_series *s)
{
	free(s->med);
	free(s->nruns);
	free(s->ids);
	free(s->cp);
	memset(s, 0, sizeof(*s));
}

/* Median of the finite values of v; *m gets their count. */
static double finite_median(const double *v, size_t n, size_t *m)
{
	double *tmp = xmalloc((n ? n : 1) * sizeof(*tmp)), med;

	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			tmp[(*m)++] = v[i];
	med = ranktest_median_inplace(tmp, *m);
	free(tmp);
	return med;
}

int detect_series_push(struct detect_series *s, const double *v, size_t n)
{
	size_t m, alloc = s->alloc;
	double med = finite_median(v, n, &m);

	if (!m)
		return -1;
	ALLOC_GROW(s->med, s->n + 1, s->alloc);
	ALLOC_GROW(s->nruns, s->n + 1, alloc);
	if (s->n < s->dirty_from)
		s->dirty_from = s->n;
	s->med[s->n] = med;
	s->nruns[s->n] = m;
	s->n++;
	return 0;
}

int detect_series_set(struct detect_series *s, size_t i, const double *v, size_t n)
{
	size_t m;
	double med;

	if (i >= s->n)
		return -1;
	med = finite_median(v, n, &m);
	if (!m)
		return -1;
	s->med[i] = med;
	s->nruns[i] = m;
	if (i < s->frozen_end) {
		/* a final decision read this commit: start over */
		s->resume = s->nfinal = s->frozen_end = 0;
		s->dirty_from = 0;
	} else if (i < s->dirty_from) {
		s->dirty_from = i;
	}
	return 0;
}

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

struct scratch {
	struct ranked *r;
	double *rank;
	double *tmp;
};

static double window_median(const double *v, size_t from, size_t to, double *tmp)
{
	memcpy(tmp, v + from, (to - from) * sizeof(*tmp));
	return ranktest_median_inplace(tmp, to - from);
}

static double pct_change(double before, double after)
{
	return before != 0 ? 100 * (after - before) / fabs(before) : NAN;
}

/*
 * How far apart the two sides of the split of v[0..n) at t are, in the
 * direction of the step: sign > 0 (the values fall): min(before) -
 * max(after); sign < 0: min(after) - max(before). Negative when they overlap.
 */
static double split_gap(const double *v, size_t n, size_t t, double sign)
{
	double lo_before = INFINITY, hi_before = -INFINITY, lo_after = INFINITY, hi_after = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		if (i < t) {
			lo_before = fmin(lo_before, v[i]);
			hi_before = fmax(hi_before, v[i]);
		} else {
			lo_after = fmin(lo_after, v[i]);
			hi_after = fmax(hi_after, v[i]);
		}
	}
	return sign > 0 ? lo_before - hi_after : lo_after - hi_before;
}

/*
 * Best split of med[c..e) by the standardized Mann-Whitney statistic.
 * Returns 1 and fills *k (absolute index of the first commit after the
 * split) and *p when it passes p_max and min_change_pct.
 */
static int best_split(const struct detect_series *s, struct scratch *w, size_t c, size_t e,
		      size_t *k, double *p)
{
	const struct detect_opts *o = &s->opts;
	size_t n = e - c, m = o->min_seg, best_t = 0, nsplits;
	double tiesum = 0, best_z = 0, prefix = 0, nn = (double)n, pv;

	if (n < 2 * m || n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		w->r[i] = (struct ranked){ s->med[c + i], i };
	qsort(w->r, n, sizeof(*w->r), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t t = 1;

		while (i + t < n && w->r[i + t].v == w->r[i].v)
			t++;
		for (size_t j = 0; j < t; j++)
			w->rank[w->r[i + j].i] = (double)i + ((double)t + 1) / 2;
		tiesum += (double)t * t * t - (double)t;
		i += t;
	}
	for (size_t t = 1; t + m <= n; t++) {
		double tt = (double)t, mn, var, z;

		prefix += w->rank[t - 1];
		if (t < m)
			continue;
		mn = tt * (nn - tt);
		var = mn / 12 * ((nn + 1) - tiesum / (nn * (nn - 1)));
		if (var <= 0)
			continue;
		z = (prefix - tt * (tt + 1) / 2 - mn / 2) / sqrt(var);
		if (fabs(z) > fabs(best_z)) {
			best_z = z;
			best_t = t;
		}
	}
	if (!best_t)
		return 0;
	/*
	 * Localization: the standardized z favours balanced splits, so next to
	 * a clean step it can peak a commit or two off (an almost-perfect
	 * 13 | 17 split beats the perfect 12 | 18 one). Within min_seg of the
	 * z peak take the split with the largest effect size |U / (t (n - t))
	 * - 1/2| in the direction of the peak (first one on ties).
	 */
	{
		size_t lo = best_t > 2 * m ? best_t - m : m;
		size_t hi = best_t + m + m <= n ? best_t + m : n - m;
		double sum = 0, best_eff = -1, sign = best_z < 0 ? -1 : 1;
		size_t loc = best_t;

		for (size_t t = 1; t <= hi; t++) {
			double tt = (double)t, eff;

			sum += w->rank[t - 1];
			if (t < lo)
				continue;
			eff = sign * ((sum - tt * (tt + 1) / 2) / (tt * (nn - tt)) - 0.5);
			if (eff > best_eff + 1e-12) {
				best_eff = eff;
				loc = t;
			} else if (eff > best_eff - 1e-12 &&
				   split_gap(s->med + c, n, t, sign) > split_gap(s->med + c, n, loc, sign)) {
				/*
				 * Equal effect (e.g. two perfect splits when the commit
				 * between them sits at the edge of its level): the split
				 * with the wider gap between the two sides is the step.
				 */
				loc = t;
			}
		}
		best_t = loc;
	}
	nsplits = n - 2 * m + 1;
	if (n <= RANKTEST_EXACT_MAX)
		pv = (double)nsplits * ranktest_mann_whitney(s->med + c, best_t, s->med + c + best_t,
							     n - best_t, NULL);
	else
		pv = (double)nsplits * 2 * gsl_cdf_ugaussian_Q(fabs(best_z));
	if (pv > o->p_max)
		return 0;
	if (o->min_change_pct > 0) {
		double before = window_median(s->med, c, c + best_t, w->tmp);
		double after = window_median(s->med, c + best_t, e, w->tmp);
		double ch = pct_change(before, after);

		if (!(fabs(ch) >= o->min_change_pct))
			return 0;
	}
	*k = c + best_t;
	*p = pv > 1 ? 1 : pv;
	return 1;
}

/* The earliest accepted split in [c, e): binary segmentation leftwards. */
static int earliest_split(const struct detect_series *s, struct scratch *w, size_t c, size_t e,
			  size_t *k, double *p)
{
	size_t k1;
	double p1;

	if (!best_split(s, w, c, e, &k1, &p1))
		return 0;
	if (!earliest_split(s, w, c, k1, k, p)) {
		*k = k1;
		*p = p1;
	}
	return 1;
}

static void fill_fields(struct detect_series *s, size_t j, double *tmp)
{
	struct change_point *cp = &s->cp[j];
	size_t W = s->opts.window, m = s->opts.min_seg, k = cp->index, nsplits;
	size_t lo = j ? s->cp[j - 1].index : 0, hi = j + 1 < s->ncp ? s->cp[j + 1].index : s->n;

	if (k > W && k - W > lo)
		lo = k - W;
	if (k + W < hi)
		hi = k + W;
	cp->before = window_median(s->med, lo, k, tmp);
	cp->after = window_median(s->med, k, hi, tmp);
	cp->change_pct = pct_change(cp->before, cp->after);
	cp->mw_p = ranktest_mann_whitney(s->med + lo, k - lo, s->med + k, hi - k, NULL);
	nsplits = hi - lo >= 2 * m ? hi - lo - 2 * m + 1 : 1;
	cp->p_value = fmin(1, (double)nsplits * cp->mw_p);
	cp->id = s->ids ? s->ids[k] : k;
}

size_t detect_series_run(struct detect_series *s)
{
	size_t T = s->n, W = s->opts.window, m = s->opts.min_seg;
	size_t c = s->resume, ncp = s->nfinal, nfinal_before = s->nfinal;
	size_t new_resume = 0, new_nfinal = 0, frozen = s->frozen_end;
	int resume_set = 0;
	struct scratch w;

	w.r = xmalloc(W * sizeof(*w.r));
	w.rank = xmalloc(W * sizeof(*w.rank));
	w.tmp = xmalloc(2 * W * sizeof(*w.tmp));
	s->ncp = ncp;
	s->examined = 0;
	while (c <= T && T - c >= 2 * m) {
		size_t e = c + W < T ? c + W : T, k;
		double p;

		if (!resume_set && e == T) {
			new_resume = c;
			new_nfinal = s->ncp;
			resume_set = 1;
		}
		if (!resume_set && e > frozen)
			frozen = e;
		s->examined += e - c;
		if (earliest_split(s, &w, c, e, &k, &p)) {
			ALLOC_GROW(s->cp, s->ncp + 1, s->cp_alloc);
			memset(&s->cp[s->ncp], 0, sizeof(s->cp[s->ncp]));
			s->cp[s->ncp].index = k;
			s->cp[s->ncp].window_p = p;
			s->ncp++;
			c = k;
			continue;
		}
		if (e == T)
			break;
		c += W / 2;
	}
	if (!resume_set) {
		new_resume = c;
		new_nfinal = s->ncp;
	}
	/* before/after/mw_p of change points whose neighbourhood changed */
	for (size_t j = 0; j < s->ncp; j++)
		if (j + 1 >= nfinal_before || s->cp[j].index + W > s->dirty_from)
			fill_fields(s, j, w.tmp);
	s->resume = new_resume;
	s->nfinal = new_nfinal;
	s->frozen_end = frozen;
	s->dirty_from = SIZE_MAX;
	free(w.r);
	free(w.rank);
	free(w.tmp);
	return s->ncp;
}

int detect_values(const double *v, const size_t *group, size_t n, const struct detect_opts *o,
		  struct detect_series *s, struct err *e)
{
	size_t G = 0, limit = 10 * n + 1000000, *count, *start, *order, nids = 0;

	detect_series_init(s, o);
	for (size_t i = 0; i < n; i++) {
		size_t g = group ? group[i] : i;

		if (g >= limit)
			return err_set(e, 400, "invalid_input", "group", "group number %zu too large",
				       g);
		if (g + 1 > G)
			G = g + 1;
	}
	count = xcalloc(G + 1, sizeof(*count));
	start = xcalloc(G + 1, sizeof(*start));
	order = xmalloc((n ? n : 1) * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		count[group ? group[i] : i]++;
	for (size_t g = 0; g < G; g++)
		start[g + 1] = start[g] + count[g];
	memset(count, 0, (G + 1) * sizeof(*count));
	for (size_t i = 0; i < n; i++) {
		size_t g = group ? group[i] : i;

		order[start[g] + count[g]++] = i;
	}
	s->ids = xmalloc((G ? G : 1) * sizeof(*s->ids));
	for (size_t g = 0; g < G; g++) {
		double *vals;

		if (!count[g])
			continue;
		vals = xmalloc(count[g] * sizeof(*vals));
		for (size_t j = 0; j < count[g]; j++)
			vals[j] = v[order[start[g] + j]];
		if (!detect_series_push(s, vals, count[g]))
			s->ids[nids++] = g;
		free(vals);
	}
	free(count);
	free(start);
	free(order);
	detect_series_run(s);
	return 0;
}

void detect_online_check(const double *ref, size_t nref, const double *tail, size_t ntail,
			 const struct detect_opts *o, struct detect_online *out)
{
	struct detect_opts def;
	double *tmp, center, scale;

	if (!o) {
		detect_opts_init(&def);
		o = &def;
	}
	memset(out, 0, sizeof(*out));
	out->center = out->scale = out->change_pct = NAN;
	if (nref < 4 || !ntail)
		return;
	tmp = xmalloc((nref > ntail ? nref : ntail) * sizeof(*tmp));
	memcpy(tmp, ref, nref * sizeof(*tmp));
	center = ranktest_median_inplace(tmp, nref);
	for (size_t i = 0; i < nref; i++)
		tmp[i] = fabs(ref[i] - center);
	scale = 1.4826 * ranktest_median_inplace(tmp, nref);
	if (!(scale > 0)) {
		/* more than half the window is one value: mean absolute deviation */
		double sum = 0;

		for (size_t i = 0; i < nref; i++)
			sum += fabs(ref[i] - center);
		scale = 1.2533 * sum / (double)nref;
	}
	if (!(scale > 0))
		scale = fabs(center) > 0 ? 1e-9 * fabs(center) : 1e-300;
	out->center = center;
	out->scale = scale;
	for (size_t i = 0; i < ntail; i++) {
		double z = (tail[i] - center) / scale;

		if (z > o->cusum_clip)
			z = o->cusum_clip;
		if (z < -o->cusum_clip)
			z = -o->cusum_clip;
		out->s_hi = fmax(0, out->s_hi + z - o->cusum_k);
		out->s_lo = fmax(0, out->s_lo - z - o->cusum_k);
		if (!out->alarm && (out->s_hi > o->cusum_h || out->s_lo > o->cusum_h)) {
			out->alarm = out->s_hi > o->cusum_h ? 1 : -1;
			out->alarm_at = i;
		}
	}
	memcpy(tmp, tail, ntail * sizeof(*tmp));
	out->change_pct = pct_change(center, ranktest_median_inplace(tmp, ntail));
	free(tmp);
}

void detect_series_check_tail(const struct detect_series *s, size_t ntail,
			      struct detect_online *out)
{
	size_t end, from = 0;

	if (ntail > s->n)
		ntail = s->n;
	end = s->n - ntail;
	if (s->ncp && s->cp[s->ncp - 1].index <= end)
		from = s->cp[s->ncp - 1].index;
	if (end > s->opts.window && end - s->opts.window > from)
		from = end - s->opts.window;
	detect_online_check(s->med + from, end - from, s->med + end, ntail, &s->opts, out);
}
