/*
 * The final estimate of the detector's accepted splits (detect.h, "The final
 * estimate of each accepted split"; detect_noise.h declares these).
 */
#include "detect_noise.h"
#include "compare.h"
#include "ranktest.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

/*
 * p of the split at k of med[lo..hi) under the noise model nz: Mann-Whitney's (in
 * short ranges the smaller of it and the levels'), under dependent noise the levels' (2a)
 */
static double split_p(struct detect_series *s, struct scratch *w, const struct noise *nz, size_t lo,
		      size_t k, size_t hi)
{
	double p = ranktest_mann_whitney(s->med + lo, k - lo, s->med + k, hi - k, NULL);

	p = fmin(p, detect_short_level_p(s, w, nz, lo, k - lo, hi - lo));
	if (nz->vif > 1 && nz->sigma > 0)
		p = 2 *
		    gsl_cdf_ugaussian_Q(fabs(detect_level_z(detect_trimmed20(s->med, lo, k, w->tmp),
							    detect_trimmed20(s->med, k, hi, w->tmp),
							    k - lo, hi - k, nz)));
	else if (nz->vif > 1 && p > 0 && p < 1)
		p = detect_z_pvalue(gsl_cdf_ugaussian_Qinv(p / 2), nz);
	return p;
}

void detect_estimate(struct detect_series *s, struct scratch *w, struct change_point *cp, size_t lo,
		     size_t hi)
{
	size_t m = s->opts.min_seg, k = cp->index, nsplits, readings = 1;
	double *tmp = w->tmp;
	struct noise nz;

	cp->from = lo;
	cp->to = hi;
	cp->before = detect_window_median(s->med, lo, k, tmp);
	cp->after = detect_window_median(s->med, k, hi, tmp);
	cp->change_pct = compare_pct_change(cp->before, cp->after);
	cp->direction = cp->after > cp->before ? 1 : cp->after < cp->before ? -1 : 0;
	/*
	 * the noise model before the change (what the accepting window saw, at most; at
	 * the start of a series, from the range itself: its lag-2 differences' trimmed
	 * mean is not moved by the one step)
	 */
	detect_noise_of(s, w, lo, hi, 0, 0, &nz);
	cp->mw_p = split_p(s, w, &nz, lo, k, hi);
	if (nz.period) {
		/* a cycle in the history: the range net of it too, the smaller p doubled (2c) */
		double *med = s->med, pn;
		struct noise net;

		detect_noise_of(s, w, lo, hi, 0, 1, &net);
		s->med = detect_net_of_cycle(s, w, &net, lo, hi);
		pn = split_p(s, w, &net, lo, k, hi);
		s->med = med;
		readings = 2;
		if (pn < cp->mw_p) {
			cp->mw_p = pn;
			nz = net;
		}
	}
	cp->noise_cycle = nz.net ? nz.period : 0;
	cp->noise_sigma = nz.sigma;
	cp->noise_rho = nz.rho;
	cp->noise_raised = nz.raised;
	nsplits = hi - lo >= 2 * m ? hi - lo - 2 * m + 1 : 1;
	cp->p_value = fmin(1, (double)(nsplits * readings) * cp->mw_p);
}

/*
 * Whether the step of alt, the estimate over the window that accepted it
 * ([alt->from, alt->to)), persists: where that window ended because W cut it
 * (alt->to is the scan window's end, min(window_from + W, n), or beyond the
 * next accepted split's hi), the same before side against the commits up to hi
 * (the next accepted split, at most index + W) must pass p_max too, in the same
 * direction. Where binary segmentation cut the window at a split it accepted
 * after this one (window_to below the scan window's end), that split is a
 * second change the scan saw, which the rescan from this one may then find
 * gradual: the after level ends there, as alt's does.
 */
static int persists(struct detect_series *s, struct scratch *w, const struct change_point *alt,
		    size_t hi)
{
	size_t W = s->opts.window, n = s->n;
	size_t scan_end = alt->window_from + W < n ? alt->window_from + W : n;
	struct change_point far = *alt;

	if (alt->to >= hi || alt->window_to < scan_end)
		return 1;
	detect_estimate(s, w, &far, alt->from, hi);
	return far.p_value <= s->opts.p_max && far.direction == alt->direction;
}

void detect_fill_fields(struct detect_series *s, size_t j, struct scratch *w)
{
	struct change_point *cp = &s->raw[j];
	size_t W = s->opts.window, k = cp->index;
	size_t lo = j ? s->raw[j - 1].index : 0, hi = j + 1 < s->nraw ? s->raw[j + 1].index : s->n;
	size_t wlo = cp->window_from > lo ? cp->window_from : lo;
	size_t whi = cp->window_to < hi ? cp->window_to : hi;

	if (k > W && k - W > lo)
		lo = k - W;
	if (k + W < hi)
		hi = k + W;
	detect_estimate(s, w, cp, lo, hi);
	if (cp->p_value > s->opts.p_max && (wlo != lo || whi != hi) && wlo < k && k < whi) {
		struct change_point alt = *cp;

		detect_estimate(s, w, &alt, wlo, whi);
		if (alt.p_value <= s->opts.p_max && alt.direction == cp->direction &&
		    persists(s, w, &alt, hi))
			*cp = alt;
	}
	cp->id = s->ids ? s->ids[k] : k;
}
