#include "detect.h"
#include "detect_noise.h"
#include "compare.h"
#include "ranktest.h"
#include "xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

void detect_opts_init(struct detect_opts *o)
{
	o->window = 64;
	o->min_seg = 3;
	o->p_max = 1e-3;
	o->min_change_pct = 0;
	o->cusum_k = 1;
	o->cusum_h = 6;
	o->cusum_clip = 3.5;
	o->min_effect = 0;
	o->noise_lookback = 4;
	o->rho_min = 0.2;
	o->epidemic = 1;
	o->explain = 0;
}

const char *detect_reason_text(enum detect_reason r)
{
	switch (r) {
	case DETECT_REPORTED:
		return "kept";
	case DETECT_WEAK:
		return "p above p_max";
	case DETECT_SAME_LEVEL:
		return "the medians either side are equal";
	case DETECT_SMALL:
		return "|%change| below min_change_pct";
	case DETECT_IN_NOISE:
		return "the move is below min_effect noise sigmas";
	case DETECT_GRADUAL:
		return "gradual: the commits either side differ by less than half the move";
	case DETECT_EDGE:
		return "the commits either side of it are not on its two levels";
	}
	return "unknown";
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
	free(s->raw);
	free(s->trace);
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

/*
 * Whether moving from level `before` to `after` is a change worth
 * reporting: |%change| >= min_change_pct (a base of 0: any nonzero change,
 * as compare_pct_change's 1e-100 base) and |after - before| >= min_effect *
 * the local noise sigma (when known).
 */
static enum detect_reason big_enough(const struct detect_opts *o, const struct noise *nz,
				     double before, double after)
{
	if (before == after)
		return DETECT_SAME_LEVEL;
	if (o->min_change_pct > 0 &&
	    !(fabs(compare_pct_change(before, after)) >= o->min_change_pct))
		return DETECT_SMALL;
	if (o->min_effect > 0 && isfinite(nz->sigma) &&
	    fabs(after - before) < o->min_effect * nz->sigma)
		return DETECT_IN_NOISE;
	return DETECT_REPORTED;
}

/*
 * Appends one candidate to s->trace when opts.explain is set: the window
 * [c, e), the split k (absolute), the levels either side within the window,
 * p and the rule that decided.
 */
static void note(struct detect_series *s, const struct noise *nz, size_t c, size_t e, size_t k,
		 double before, double after, double p, int stage, int excursion,
		 enum detect_reason reason)
{
	struct detect_candidate *d;

	if (!s->opts.explain)
		return;
	ALLOC_GROW(s->trace, s->ntrace + 1, s->trace_alloc);
	d = &s->trace[s->ntrace++];
	d->start = c;
	d->end = e;
	d->index = k;
	d->id = s->ids && k < s->n ? s->ids[k] : k;
	d->stage = stage;
	d->excursion = excursion;
	d->before = before;
	d->after = after;
	d->change_pct = compare_pct_change(before, after);
	d->p_value = p > 1 ? 1 : p;
	d->noise_sigma = nz->sigma;
	d->noise_rho = nz->rho;
	d->noise_raised = nz->raised > 1 ? nz->raised : 1;
	d->effect = nz->sigma > 0 ? fabs(after - before) / nz->sigma : NAN;
	d->cycle = nz->net ? nz->period : 0;
	d->reason = reason;
}

/*
 * The epidemic alternative (a level that changes and comes back: a short
 * excursion; Levin & Kline 1985, the two-split form of circular binary
 * segmentation, Olshen et al., Biostatistics 5 (2004) 557-572): the
 * standardized rank sum of every segment [a, b) of the window with a >=
 * min_seg, b <= n - min_seg, min_seg <= b - a <= n / 2 against the rest
 * (a longer segment leaves two short edges, which single splits find),
 * from prefix sums of the ranks in O(n^2). Bonferroni over the segments tried. Returns 1
 * and sets *k (the segment's first commit, absolute) and *p when it passes
 * p_max and the effect rules.
 */
static int best_segment(struct detect_series *s, struct scratch *w, size_t c, size_t n,
			double tiesum, const struct noise *nz, size_t *k, double *p)
{
	const struct detect_opts *o = &s->opts;
	size_t m = o->min_seg, ba = 0, bb = 0, nseg = 0;
	double nn = (double)n, best = 0, *pre = w->tmp, *inv = w->tmp + n + 1, half = (nn + 1) / 2,
	       pv;

	if (n < 3 * m)
		return 0;
	pre[0] = 0;
	for (size_t i = 0; i < n; i++)
		pre[i + 1] = pre[i] + w->rank[i];
	/* 1 / sd of a segment's rank sum, by length (w->tmp + n + 1, n entries) */
	for (size_t len = m; len + 2 * m <= n; len++) {
		double mn = (double)len * (nn - (double)len);
		double var = mn / 12 * ((nn + 1) - tiesum / (nn * (nn - 1)));

		inv[len] = var > 0 ? 1 / sqrt(var) : 0;
	}
	for (size_t a = m; a + 2 * m <= n; a++)
		for (size_t b = a + m; b + m <= n && b - a <= n / 2; b++) {
			size_t len = b - a;
			double z = (pre[b] - pre[a] - (double)len * half) * inv[len];

			nseg++;
			if (fabs(z) > fabs(best)) {
				best = z;
				ba = a;
				bb = b;
			}
		}
	if (!nseg || !bb)
		return 0;
	pv = (double)(nseg * w->readings) * detect_z_pvalue(best, nz);
	{
		double out_lo = detect_window_median(s->med, c, c + ba, w->tmp + n + 1);
		double in = detect_window_median(s->med, c + ba, c + bb, w->tmp + n + 1);
		enum detect_reason why = pv > o->p_max ? DETECT_WEAK :
							 big_enough(o, nz, out_lo, in);

		note(s, nz, c, c + n, c + ba, out_lo, in, pv, 0, 1, why);
		if (why != DETECT_REPORTED)
			return 0;
	}
	*k = c + ba;
	*p = pv > 1 ? 1 : pv;
	return 1;
}

/*
 * Where the step of an accepted split of med[c..c+n) lies: the rank
 * statistic says that the window changed, but its standardized form
 * favours balanced splits (20 commits at 100 then 8 at 92: z peaks at 13,
 * where the first 13 happen to be the highest of the 100s). The location is
 * the split t in [min_seg, n - min_seg] with the least L1 cost of two
 * levels, sum |x - median(before)| + sum |x - median(after)| (the least
 * absolute deviations fit of one step, robust to single outliers); among
 * splits of equal cost the one with the larger |after - before|, then the
 * one nearer the rank statistic's peak t0.
 */
static size_t relocate(const struct detect_series *s, struct scratch *w, size_t c, size_t n,
		       size_t t0, size_t tlo, size_t thi)
{
	size_t best = t0;
	double best_cost = INFINITY, best_gap = 0;
	const double *v = s->med + c;

	for (size_t t = tlo; t <= thi; t++) {
		double lo = detect_window_median(s->med, c, c + t, w->tmp);
		double hi = detect_window_median(s->med, c + t, c + n, w->tmp);
		double cost = 0, gap = fabs(hi - lo);
		double tol = 1e-12 * (fabs(lo) + fabs(hi) + 1);

		for (size_t i = 0; i < n; i++)
			cost += fabs(v[i] - (i < t ? lo : hi));
		if (cost < best_cost - tol * (double)n ||
		    (cost <= best_cost + tol * (double)n &&
		     (gap > best_gap + tol ||
		      (gap >= best_gap - tol &&
		       (t > t0 ? t - t0 : t0 - t) < (best > t0 ? best - t0 : t0 - best))))) {
			best_cost = cost;
			best_gap = gap;
			best = t;
		}
	}
	return best;
}

/*
 * Whether the move at split t of med[c..c+n) is a step, not a slope: the
 * medians of the h commits either side of it (h = max(min_seg, 5), fewer
 * where a side is shorter) differ, beyond what the sides' own drift gives
 * over h commits, in the direction of after - before by at least half of
 * it. The drift of a side: the difference of the medians of its first and
 * last h commits over their distance (sides shorter than 2 h: none), the
 * mean of the two sides'. A linear drift that moves the window's halves
 * by D moves commits h apart by about 2 h D / n (0.16 D in a window of 64);
 * a step moves them by all of D. A drift is not what a bisect can find.
 */
static int abrupt(const struct detect_series *s, struct scratch *w, size_t c, size_t n, size_t t,
		  double before, double after)
{
	size_t h = s->opts.min_seg > 5 ? s->opts.min_seg : 5, hb = h < t ? h : t,
	       ha = h < n - t ? h : n - t, nslope = 0;
	const double *v = s->med + c;
	double jump, slope = 0;

	if (!hb || !ha)
		return 0;
	jump = detect_window_median(v, t, t + ha, w->tmp) -
	       detect_window_median(v, t - hb, t, w->tmp);
	if (t >= 2 * h) {
		slope += (detect_window_median(v, t - h, t, w->tmp) -
			  detect_window_median(v, 0, h, w->tmp)) /
			 (double)(t - h);
		nslope++;
	}
	if (n - t >= 2 * h) {
		slope += (detect_window_median(v, n - h, n, w->tmp) -
			  detect_window_median(v, t, t + h, w->tmp)) /
			 (double)(n - t - h);
		nslope++;
	}
	if (nslope)
		jump -= slope / (double)nslope * (double)(hb + ha) / 2;
	return (after - before) * jump > 0 && fabs(jump) >= 0.5 * fabs(after - before);
}

/*
 * Best split of med[c..e) by the standardized Mann-Whitney statistic.
 * Returns 1 and fills *k (absolute index of the first commit after the
 * split) and *p when it passes p_max and the effect rules; else, with
 * opts.epidemic, the first edge of the best segment (best_segment).
 */
static int best_split(struct detect_series *s, struct scratch *w, size_t c, size_t e, size_t *k,
		      double *p)
{
	const struct detect_opts *o = &s->opts;
	size_t n = e - c, m = o->min_seg, best_t = 0, nsplits, t;
	double tiesum, best_z = 0, prefix = 0, nn = (double)n, pv;
	struct noise nz = *w->nz;

	if (n < 2 * m || n < 2)
		return 0;
	tiesum = detect_midranks(s->med + c, n, w->perm, w->rank);
	for (t = 1; t + m <= n; t++) {
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
	 * Where the p is exact (detect.h 2), a split with a side of at most 2 min_seg
	 * commits is taken when its p is less: the normal approximation that ranks by z
	 * understates a short side (the 3 lowest of 40: z 2.85, 2 Q(z) 0.0044, exact
	 * 2 / C(40, 3) = 2.0e-4), so a 20-sigma step in the window's last 3 commits lost
	 * to a -0.3 % split, which --explain then named as the strongest candidate.
	 * Longer sides keep z's order: the exact p of every split doubled the time of a
	 * 10^4-commit series (make bench) for the same figures on every corpus.
	 */
	if (n <= RANKTEST_EXACT_MAX && !(nz.vif > 1)) {
		double best_p = detect_split_p(s, w, &nz, c, n, best_t, best_z);

		for (t = m; t + m <= n; t++) {
			double pt;

			if (t > 2 * m && n - t > 2 * m)
				continue;
			pt = t == best_t ? best_p : detect_split_p(s, w, &nz, c, n, t, NAN);

			if (pt < best_p) {
				best_p = pt;
				best_t = t;
			}
		}
	}
	detect_window_rho(s, w, c, n, best_t, &nz);
	nsplits = n - 2 * m + 1;
	pv = (double)(nsplits * w->readings) * detect_split_p(s, w, &nz, c, n, best_t, best_z);
	t = best_t;
	/*
	 * Bonferroni bounds the chance that any of the nsplits splits has p <= p_max /
	 * nsplits, so the split may be chosen by any rule: the step's location (relocate)
	 * is tested too when the peak is near the bar (p within 10 p_max), and the smaller p taken
	 */
	if (pv <= 10 * o->p_max) {
		size_t q = n / 4 > m ? n / 4 : m;

		t = relocate(s, w, c, n, best_t, best_t > m + q ? best_t - q : m,
			     best_t + q + m < n ? best_t + q : n - m);
		if (t != best_t)
			pv = fmin(pv, (double)(nsplits * w->readings) *
					      detect_split_p(s, w, &nz, c, n, t, NAN));
	}
	{
		double before = detect_window_median(s->med, c, c + t, w->tmp);
		double after = detect_window_median(s->med, c + t, e, w->tmp);
		enum detect_reason why = pv > o->p_max ? DETECT_WEAK :
							 big_enough(o, &nz, before, after);

		if (why == DETECT_REPORTED && !abrupt(s, w, c, n, t, before, after))
			why = DETECT_GRADUAL;
		note(s, &nz, c, e, c + t, before, after, pv, 0, 0, why);
		if (why == DETECT_REPORTED) {
			*k = c + t;
			*p = pv > 1 ? 1 : pv;
			return 1;
		}
	}
	return o->epidemic && best_segment(s, w, c, n, tiesum, &nz, k, p);
}

/* The earliest accepted split in [c, e): binary segmentation leftwards. */
static int earliest_split(struct detect_series *s, struct scratch *w, size_t c, size_t e, size_t *k,
			  double *p, size_t *we)
{
	size_t k1;
	double p1;

	if (!best_split(s, w, c, e, &k1, &p1))
		return 0;
	if (!earliest_split(s, w, c, k1, k, p, we)) {
		*k = k1;
		*p = p1;
		*we = e;
	}
	return 1;
}

/*
 * Whether the commits either side of cp are on its two levels: the last
 * good one (index - 1) nearer before than after, the first bad one nearer
 * after (so the range the server records, and a bisect searches, holds the
 * step). When not, the split moves within min_seg commits to the least L1
 * cost of two levels over [from, to) (relocate) and is estimated again
 * there, keeping min_seg commits from `to` (the next accepted split) and
 * from the later of `from` and prev (the change point reported before it,
 * 0 for none), as the scan's splits keep them: two splits moved towards
 * each other must not leave a level of one or two commits between them. A
 * split that still fails is dropped (DETECT_EDGE). cp is a copy of an
 * accepted split: the scan's own splits stay where they are, and the
 * report is rebuilt from them on every run, so an incremental run and a
 * full one agree.
 */
static int at_edge(struct detect_series *s, struct scratch *w, struct change_point *cp, size_t prev)
{
	size_t m = s->opts.min_seg, k = cp->index, lo = cp->from, n = cp->to - cp->from;
	size_t floor_t = prev > lo ? prev - lo + m : m;
	double mid;
	int down;

	for (int pass = 0; pass < 2; pass++) {
		mid = (cp->before + cp->after) / 2;
		down = cp->after < cp->before;
		if (cp->index == 0 || cp->before == cp->after ||
		    ((s->med[cp->index - 1] < mid) != down && (s->med[cp->index] < mid) == down))
			return 1;
		if (pass)
			break;
		{
			size_t t0 = k - lo, tlo = t0 > floor_t + m ? t0 - m : floor_t,
			       thi = t0 + 2 * m < n ? t0 + m :
				     n > m	    ? n - m :
						      0;
			size_t t = relocate(s, w, lo, n, t0, tlo, thi);

			if (t == t0)
				break;
			cp->index = lo + t;
			detect_estimate(s, w, cp, cp->from, cp->to);
			cp->id = s->ids ? s->ids[cp->index] : cp->index;
		}
	}
	{
		struct noise nz = { .sigma = cp->noise_sigma,
				    .rho = cp->noise_rho,
				    .vif = 1,
				    .raised = cp->noise_raised,
				    .period = cp->noise_cycle,
				    .net = cp->noise_cycle > 0 };

		note(s, &nz, cp->from, cp->to, cp->index, cp->before, cp->after, cp->p_value, 1, 0,
		     DETECT_EDGE);
	}
	return 0;
}

/*
 * Whether a change point, after the final re-estimate of its fields, is
 * reported: p_value <= p_max, the levels differ, |change_pct| >=
 * min_change_pct (a 0 -> x change always passes: compare_pct_change) and
 * the step is >= min_effect noise sigmas.
 */
static int reported(struct detect_series *s, const struct change_point *cp)
{
	struct noise nz = { .sigma = cp->noise_sigma,
			    .rho = cp->noise_rho,
			    .vif = 1,
			    .history = 1,
			    .raised = cp->noise_raised,
			    .period = cp->noise_cycle,
			    .net = cp->noise_cycle > 0 };
	enum detect_reason why = cp->p_value > s->opts.p_max ?
					 DETECT_WEAK :
					 big_enough(&s->opts, &nz, cp->before, cp->after);

	note(s, &nz, cp->from, cp->to, cp->index, cp->before, cp->after, cp->p_value, 1, 0, why);
	return why == DETECT_REPORTED;
}

/*
 * The earliest split accepted in the scan's window [c, e) (earliest_split) under
 * the noise model *w->nz. Where the history holds a cycle (detect.h 2c) the window
 * is read twice, as it is and net of the cycle (s->med points at the values net of
 * it for that reading: what every test of the window reads), the first reading
 * that accepts a split taken, each p doubled (Bonferroni over the two readings).
 */
static int window_split(struct detect_series *s, struct scratch *w, size_t c, size_t e, size_t *k,
			double *p, size_t *we)
{
	double *med = s->med;
	int found;

	if (!w->nz->period)
		return earliest_split(s, w, c, e, k, p, we);
	w->readings = 2;
	found = earliest_split(s, w, c, e, k, p, we);
	if (!found) {
		detect_noise_of(s, w, c, e, 1, 1, w->nz);
		s->med = detect_net_of_cycle(s, w, w->nz, c, e);
		found = earliest_split(s, w, c, e, k, p, we);
		s->med = med;
	}
	w->readings = 1;
	return found;
}

size_t detect_series_run(struct detect_series *s)
{
	size_t T = s->n, W = s->opts.window, m = s->opts.min_seg;
	size_t c = s->resume, nfinal_before = s->nfinal;
	size_t new_resume = 0, new_nfinal = 0, frozen = s->frozen_end;
	size_t L = s->opts.noise_lookback ? s->opts.noise_lookback : 1;
	int resume_set = 0;
	struct scratch w;
	struct noise nz;

	w.perm = xmalloc(W * sizeof(*w.perm));
	w.rank = xmalloc(W * sizeof(*w.rank));
	w.tmp = xmalloc((2 * W + 2) * sizeof(*w.tmp));
	w.diff = xmalloc(((L > 3 ? L : 3) * W + 1) * sizeof(*w.diff));
	w.res = xmalloc(((L > 3 ? L : 3) * W + 1) * sizeof(*w.res));
	w.tmp2 = xmalloc(((L > 3 ? L : 3) * W + 1) * sizeof(*w.tmp2));
	w.hperm = xmalloc(((L > 3 ? L : 3) * W + 1) * sizeof(*w.hperm));
	w.hrank = xmalloc(((L > 3 ? L : 3) * W + 1) * sizeof(*w.hrank));
	w.nz = &nz;
	w.cache_end = SIZE_MAX;
	w.period_end = SIZE_MAX;
	w.adj = NULL;
	w.prof = xmalloc(W * sizeof(*w.prof));
	w.readings = 1;
	s->nraw = s->nfinal;
	s->examined = 0;
	s->ntrace = 0;
	while (c <= T && T - c >= 2 * m) {
		size_t e = c + W < T ? c + W : T, k, we;
		double p;

		if (!resume_set && e == T) {
			new_resume = c;
			new_nfinal = s->nraw;
			resume_set = 1;
		}
		if (!resume_set && e > frozen)
			frozen = e;
		s->examined += e - c;
		/* one noise model per window, for its splits and their recursion */
		detect_noise_of(s, &w, c, e, 1, 0, &nz);
		if (window_split(s, &w, c, e, &k, &p, &we)) {
			ALLOC_GROW(s->raw, s->nraw + 1, s->raw_alloc);
			memset(&s->raw[s->nraw], 0, sizeof(s->raw[s->nraw]));
			s->raw[s->nraw].index = k;
			s->raw[s->nraw].window_from = c;
			s->raw[s->nraw].window_to = we;
			s->raw[s->nraw].window_p = p;
			s->nraw++;
			c = k;
			continue;
		}
		if (e == T)
			break;
		c += W / 2;
	}
	if (!resume_set) {
		new_resume = c;
		new_nfinal = s->nraw;
	}
	/* before/after/mw_p of change points whose neighbourhood changed */
	for (size_t j = 0; j < s->nraw; j++)
		if (j + 1 >= nfinal_before || s->raw[j].index + W > s->dirty_from)
			detect_fill_fields(s, j, &w);
	/* the filter runs on the final estimates (so no "p 1.0" and no change below the floor) */
	s->ncp = 0;
	for (size_t j = 0; j < s->nraw; j++) {
		struct change_point cp = s->raw[j];

		if (at_edge(s, &w, &cp, s->ncp ? s->cp[s->ncp - 1].index : 0) && reported(s, &cp)) {
			ALLOC_GROW(s->cp, s->ncp + 1, s->cp_alloc);
			s->cp[s->ncp++] = cp;
		}
	}
	s->resume = new_resume;
	s->nfinal = new_nfinal;
	s->frozen_end = frozen;
	s->dirty_from = SIZE_MAX;
	free(w.perm);
	free(w.rank);
	free(w.tmp);
	free(w.diff);
	free(w.res);
	free(w.tmp2);
	free(w.hperm);
	free(w.hrank);
	free(w.adj);
	free(w.prof);
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
			return err_setc(e, ERR_INVALID_FIELD, "group", "group number %zu too large",
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
