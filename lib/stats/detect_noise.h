#ifndef REGTRACK_STATS_DETECT_NOISE_H
#define REGTRACK_STATS_DETECT_NOISE_H

/*
 * The detector's noise model and the level statistics that use it (detect.h,
 * 2a) and the final estimates, shared by lib/stats/detect.c, detect_noise.c and
 * detect_final.c only: not an API. Positions are commit indexes into s->med; "the window" is
 * med[c..c+n) or med[c..e).
 */

#include <stddef.h>

#include "detect.h"

#define NOISE_LAG 2 /* sigma from lag-2 differences: a step touches two, as an outlier */

/* The noise model of a window (detect.h 2a). */
struct noise {
	double sigma, rho,
		vif;   /* sd of one per-commit median, lag-1 autocorrelation, (1+rho)/(1-rho) */
	size_t df;     /* differences behind sigma */
	int history;   /* 1: from the commits before the window; 0: rho still to estimate */
	double raised; /* the factor the check against the history (model_shortfall)
			* multiplied sigma by: > 1 when the history moved more than the
			* model allowed, else 1 */
	size_t period; /* the period of a cycle in the history (2c), 0: none */
	int net;       /* 1: the model of the history net of that cycle */
};

/* Scratch of one detect_series_run, W = opts.window, L = max(noise_lookback, 3). */
struct scratch {
	size_t *perm; /* W: midranks' permutation */
	double *rank; /* W */
	double *tmp;  /* 2 W + 2 doubles */
	double *diff; /* L W + 1 doubles: a final estimate near the start reads up to 3 W commits */
	double *res;  /* as many: residuals of the noise model's region */
	double *tmp2; /* as many: medians of its segments */
	size_t *hperm;	  /* as many: its ranks (rank_autocorr) */
	double *hrank;	  /* as many */
	struct noise *nz; /* the noise model of the window being examined */
	size_t cache_end; /* noise_of's last history region ended here (SIZE_MAX: none) */
	int cache_local;  /* ... and was of that local flag */
	int cache_net;	  /* ... and reading (net of the cycle or not) */
	struct noise cache;
	size_t period_end; /* the last history searched for a cycle ended here (SIZE_MAX: none) */
	size_t period;	   /* ... and held one of this period (0: none) */
	double *adj;  /* s->n: med net of the cycle (detect_net_of_cycle); NULL until one is read */
	double *prof; /* W: the cycle's value by phase t mod period (the last net reading's) */
	size_t readings; /* 2 while a window is read both as it is and net of a cycle, else 1 */
};

/*
 * Midranks (1-based, ties share their mean rank) of v[0..n) into rank[0..n),
 * perm scratch of n; returns the ties' sum of t^3 - t (Lehmann 1975 eq. 1.33).
 */
double detect_midranks(const double *v, size_t n, size_t *perm, double *rank);

/* Median of v[from..to) (tmp: scratch of to - from). */
double detect_window_median(const double *v, size_t from, size_t to, double *tmp);

/*
 * The noise model of the series before the window [c, e) into *nz (detect.h
 * 2a): from the history [a - L W, a), a = c rounded down to a multiple of W,
 * L = noise_lookback (windows starting in [a, a + W) share it: cached in w),
 * so that a change inside the window cannot pass for noise. sigma =
 * m_2 / 0.65741 / sqrt(2 (1 - rho^2)), m_2 the mean of the lowest 90 % of
 * the lag-2 |differences| (0.65741 sd for Gaussian differences; Var(d_2) =
 * 2 sigma^2 (1 - rho^2) for AR(1) noise); rho Spearman's lag-1 autocorrelation
 * of the residuals around the medians of the history's segments (between the
 * splits already accepted) on the Pearson scale, counted above rho_min and
 * 2 / sqrt(n), capped at 0.95, over the whole history when local is 0 and
 * over its last W commits when local is 1 (the scan's windows: a slope or a
 * step the scan did not split, anywhere in the longer history, reads as
 * dependence for every window after it; the final estimates keep the longer,
 * more cautious history). With rho > 0, sigma is then raised by the
 * smallest ratio, over side lengths b from min_seg to W / 8, of the history's
 * scale of neighbouring means' differences to the model's (detect.h 2a),
 * when every ratio is above 1 (nz->raised: that factor, else 1). With less
 * than W commits of history: sigma from [0, e), rho 0 and nz->history 0
 * (detect_window_rho then estimates it). sigma NAN when fewer than 4
 * NOISE_LAG commits. With a history, nz->period is the period of a cycle in
 * its residuals (detect.h 2c; 0: none); with net 1 and a period, the model is
 * that of the history net of the cycle, whose value by phase w->prof keeps
 * (for detect_net_of_cycle) until the next net reading.
 */
void detect_noise_of(const struct detect_series *s, struct scratch *w, size_t c, size_t e,
		     int local, int net, struct noise *nz);

/*
 * rho (and sigma with it) of a window without history (the start of a
 * series): as detect_noise_of on the residuals of the W commits that end
 * where the window ends, med[c + n - W..c + n) (the window itself when n =
 * W), each around the median of its level: between the splits already
 * accepted, the window's start c and the split at c + t (with fewer than W
 * commits up to the window's end rho stays 0), sigma checked against those
 * residuals as detect_noise_of checks it against the history (nz->raised).
 * Nothing when nz->history is set; else sets it and copies *nz to *w->nz,
 * the model of the window that the parts its binary segmentation tests then
 * keep.
 */
void detect_window_rho(const struct detect_series *s, struct scratch *w, size_t c, size_t n,
		       size_t t, struct noise *nz);

/*
 * (after - before) in units of its standard error under nz for sides of na and
 * nb commits: sigma sqrt(1.064 V), V the exact variance of the difference of
 * two neighbouring means of AR(1) noise over sigma^2 (Brockwell & Davis 3.1),
 * 1.064 a 20 % trimmed mean's variance over the mean's.
 */
double detect_level_z(double before, double after, size_t na, size_t nb, const struct noise *nz);

/* The 20 % trimmed mean of v[from..to) (tmp: scratch of to - from). */
double detect_trimmed20(const double *v, size_t from, size_t to, double *tmp);

/*
 * p of the levels of the split at t of med[c..c+n) in a short range (n <= 24
 * commits, independent noise, sigma known from >= 4 differences): Student's t
 * of detect_level_z with df - 1 degrees of freedom; else 1.
 */
double detect_short_level_p(const struct detect_series *s, struct scratch *w,
			    const struct noise *nz, size_t c, size_t t, size_t n);

/*
 * p of the split of med[c..c+n) at t before the correction for the search:
 * under dependent noise (nz->vif > 1) the levels' (detect_level_z), else the
 * exact Mann-Whitney p (n <= RANKTEST_EXACT_MAX; in short ranges the levels'
 * too, detect_short_level_p) or the normal one of the rank statistic z (NAN:
 * computed here).
 */
double detect_split_p(const struct detect_series *s, struct scratch *w, const struct noise *nz,
		      size_t c, size_t n, size_t t, double z);

/* Two-sided p of a standardized rank statistic z under nz (z / sqrt(vif)). */
double detect_z_pvalue(double z, const struct noise *nz);

/*
 * cp's before, after, %change, direction, noise model, mw_p and p_value over
 * [lo, hi) (lo < cp->index < hi; hi - lo <= 2 W): the medians of [lo, index)
 * and [index, hi), the Mann-Whitney p of the two (under dependent noise the
 * levels' p, 2a; in short ranges the smaller of that and the levels' p), the
 * noise model before the change (detect_noise_of over [lo, hi), the whole
 * history), p_value = min(1, nsplits * mw_p) with nsplits the positions a split
 * of hi - lo commits keeping min_seg a side could take (Bonferroni).
 */
void detect_estimate(struct detect_series *s, struct scratch *w, struct change_point *cp, size_t lo,
		     size_t hi);

/*
 * The final estimate of accepted split s->raw[j] (detect.h): detect_estimate
 * over the commits between its neighbours in raw, at most W either side; when
 * that p fails p_max (a neighbouring level that no split separated), over the
 * window that accepted it, within the neighbours, provided the step persists:
 * where W, not a split, ended that window, the same before side against the
 * commits up to the next accepted split (at most index + W) passes p_max too.
 */
void detect_fill_fields(struct detect_series *s, size_t j, struct scratch *w);

/*
 * med[from..to) net of the cycle that the last detect_noise_of with net 1 and
 * nz->period > 0 read (nz: that model) into w->adj[from..to), returned: w->adj,
 * s->n doubles indexed as s->med, valid in that range only.
 */
double *detect_net_of_cycle(const struct detect_series *s, struct scratch *w,
			    const struct noise *nz, size_t from, size_t to);

#endif
