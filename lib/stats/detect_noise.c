/* The detector's noise model and level statistics (detect_noise.h; detect.h 2a). */
#include "detect_noise.h"
#include "ranktest.h"
#include "xalloc.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort_double.h>

/*
 * Midranks (1-based, ties share their mean rank) of v[0..n) into rank[], perm
 * scratch of n; returns the ties' sum of t^3 - t (Lehmann 1975 eq. 1.33).
 * gsl_sort_index is a heapsort: not stable, which midranks do not need.
 */
double detect_midranks(const double *v, size_t n, size_t *perm, double *rank)
{
	double tiesum = 0;

	gsl_sort_index(perm, v, 1, n);
	for (size_t i = 0; i < n;) {
		size_t g = 1;

		while (i + g < n && v[perm[i + g]] == v[perm[i]])
			g++;
		for (size_t j = 0; j < g; j++)
			rank[perm[i + j]] = (double)i + ((double)g + 1) / 2;
		tiesum += (double)g * g * g - (double)g;
		i += g;
	}
	return tiesum;
}

/* E|Z| over the lowest 90 % of |Z|, Z ~ N(0, 1): 0.7979 (1 - exp(-1.6449^2 / 2)) / 0.9 */
#define TRIM_MEAN_HALFNORMAL 0.65741

/* mean of the lowest 90 % of v[0..n) (v reordered) */
static double trimmed_mean(double *v, size_t n)
{
	size_t k = n * 9 / 10;
	double sum = 0;

	if (!k)
		return NAN;
	ranktest_select_inplace(v, n, k);
	for (size_t i = 0; i < k; i++)
		sum += v[i];
	return sum / (double)k;
}

double detect_window_median(const double *v, size_t from, size_t to, double *tmp)
{
	memcpy(tmp, v + from, (to - from) * sizeof(*tmp));
	return ranktest_median_inplace(tmp, to - from);
}

/*
 * Lag-1 autocorrelation of r[0..n) on ranks (midranks; Spearman's r_s of
 * the pairs (r[t-1], r[t])), on the Pearson scale of Gaussian noise:
 * rho = 2 sin(pi r_s / 6) (Pearson 1907; Kendall & Gibbons, "Rank
 * Correlation Methods", 1990, 9.11). Ranks make one spike move it by at
 * most 2/n and leave a two-mode mixture of independent runs at 0, where
 * the moments of differences read both as dependence. NAN when n < 8.
 */
static double rank_autocorr(struct scratch *w, const double *r, size_t n)
{
	double mean = ((double)n + 1) / 2, num = 0, den = 0, rs;

	if (n < 8)
		return NAN;
	detect_midranks(r, n, w->hperm, w->hrank);
	for (size_t i = 0; i < n; i++) {
		double d = w->hrank[i] - mean;

		den += d * d;
		if (i)
			num += d * (w->hrank[i - 1] - mean);
	}
	if (!(den > 0))
		return NAN;
	rs = num / den;
	return 2 * sin(M_PI * rs / 6);
}

/*
 * rho of the residuals res[0..n): counted when it is above both rho_min and
 * 2 / sqrt(n) (about two standard errors of r_s under independence, so
 * independent noise reads as 0 in 97.7 % of regions), capped at 0.95.
 */
static double rho_of(const struct detect_series *s, struct scratch *w, const double *res, size_t n)
{
	double rho = rank_autocorr(w, res, n);

	if (!(rho >= s->opts.rho_min) || !(rho >= 2 / sqrt((double)n)))
		return 0;
	return rho > 0.95 ? 0.95 : rho;
}

/* sigma from the trimmed mean of lag-2 differences, given rho (see above) */
static double sigma_of(double m2, double rho)
{
	return m2 / TRIM_MEAN_HALFNORMAL / sqrt(2 * (1 - rho * rho));
}

/*
 * Var(mean(x[0..na)) - mean(x[na..na+nb))) / sigma^2 for AR(1) noise of lag-1
 * autocorrelation rho (0 <= rho < 1) and marginal variance sigma^2: with
 * S(n) = sum_{i,j<n} rho^|i-j| = n (1+rho)/(1-rho) - 2 rho (1-rho^n)/(1-rho)^2
 * and the cross sum C = sum_{i<na<=j} rho^(j-i) = rho (1-rho^na)(1-rho^nb)/(1-rho)^2,
 *	S(na)/na^2 + S(nb)/nb^2 - 2 C/(na nb)
 * (from the autocovariances rho^k sigma^2 of AR(1); Brockwell & Davis, "Time
 * Series: Theory and Methods", 3.1 and 7.1). It is 1/na + 1/nb at rho = 0,
 * and below the asymptotic vif (1/na + 1/nb) for sides of finite length: a
 * short side's mean is not yet inflated by vif, and two neighbouring sides
 * share part of their noise, which their difference cancels.
 */
#define TRIM20_VAR 1.064 /* the variance of a 20 % trimmed mean over the mean's (trimmed20) */
static double ar1_diff_var(double rho, size_t na, size_t nb)
{
	double a = (double)na, b = (double)nb, q = 1 - rho, ra, rb;

	if (!(rho > 0))
		return 1 / a + 1 / b;
	ra = pow(rho, a);
	rb = pow(rho, b);
	return (a * (1 + rho) / q - 2 * rho * (1 - ra) / (q * q)) / (a * a) +
	       (b * (1 + rho) / q - 2 * rho * (1 - rb) / (q * q)) / (b * b) -
	       2 * rho * (1 - ra) * (1 - rb) / (q * q * a * b);
}

/*
 * The model checked against the history v[0..n) (detect.h 2a): for each b in
 * [min_seg, W / 8] the differences of neighbouring means of b commits,
 * D_b(t) = mean(v[t..t+b)) - mean(v[t-b..t)) at every t with b commits either
 * side, have the scale m_b / 0.65741 (m_b the mean of the lowest 90 % of
 * |D_b|, as sigma's) where the model predicts sigma sqrt(V(rho, b, b))
 * (ar1_diff_var). Returns the smallest ratio of the two over b: above 1 the
 * history moves more at every length a split's side can have than the model
 * allows. Lengths whose 4 b exceed n are not read; 1 when none is.
 */
static double model_shortfall(const struct detect_series *s, struct scratch *w, const double *v,
			      size_t n, const struct noise *nz)
{
	size_t bmin = s->opts.min_seg > 1 ? s->opts.min_seg : 1, bmax = s->opts.window / 8;
	double ratio = INFINITY;

	for (size_t b = bmin; b <= bmax && 4 * b <= n; b++) {
		double sum = 0, m;
		size_t nd = 0;

		for (size_t i = 0; i < b; i++)
			sum += v[b + i] - v[i];
		for (size_t t = b;; t++) {
			w->tmp2[nd++] = fabs(sum) / (double)b;
			if (t + b >= n)
				break;
			sum += v[t + b] - 2 * v[t] + v[t - b];
		}
		m = trimmed_mean(w->tmp2, nd) / TRIM_MEAN_HALFNORMAL /
		    (nz->sigma * sqrt(ar1_diff_var(nz->rho, b, b)));
		if (m < ratio)
			ratio = m;
	}
	return ratio > 1 && isfinite(ratio) ? ratio : 1;
}

/* residuals of v[rfrom..e) into w->res[0..e - rfrom), each around the median of its segment
 * (between the splits already accepted) */
static void residuals(const struct detect_series *s, struct scratch *w, const double *v,
		      size_t rfrom, size_t e)
{
	size_t j = 0, seg = rfrom;

	while (j < s->nraw && s->raw[j].index <= rfrom)
		j++;
	while (seg < e) {
		size_t end = j < s->nraw && s->raw[j].index < e ? s->raw[j].index : e;
		double med = detect_window_median(v, seg, end, w->tmp2);

		for (size_t t = seg; t < end; t++)
			w->res[t - rfrom] = v[t] - med;
		seg = end;
		j++;
	}
}

#define CYCLE_DIP 0.6	 /* d(P): at most this share of the largest d before it */
#define CYCLE_REPEATS 5	 /* cycles the history must hold */
#define CYCLE_SCREEN 0.8 /* the same on plain means, looser, read first */

/*
 * The period of a cycle in the residuals r[0..n) (detect.h 2c), 0 for none: d(k)
 * the trimmed mean (lowest 90 %) of |r[t] - r[t-k]|, the smallest k in [NOISE_LAG
 * + 1, min(n / CYCLE_REPEATS, W / 4)] where d has a local minimum at most
 * CYCLE_DIP times the largest d(j), j < k. For AR(1) noise d(k) grows with k
 * (Var(x_t - x_t-k) = 2 sigma^2 (1 - rho^k)); a cycle of period P cancels at
 * lag P and adds most near P / 2. The plain means of |r[t] - r[t-k]| are read
 * first, at CYCLE_SCREEN: without a dip there the trimmed means (a selection
 * per lag, which doubled the time of a 10^4-commit series) are not computed.
 */
static size_t period_of(const struct detect_series *s, struct scratch *w, const double *r, size_t n)
{
	size_t kmax = n / CYCLE_REPEATS < s->opts.window / 4 ? n / CYCLE_REPEATS :
							       s->opts.window / 4;
	double *d = w->tmp2, peak = 0;
	int dip = 0;

	/* the plain means first (no selection: cheap), looser: a series with no dip there has none */
	for (size_t k = 1; k <= kmax + 1 && k < n; k++) {
		double sum[4] = { 0 };
		size_t t = k;

		for (; t + 3 < n; t += 4) /* four sums: the additions need not wait on each other */
			for (size_t i = 0; i < 4; i++)
				sum[i] += fabs(r[t + i] - r[t + i - k]);
		for (; t < n; t++)
			sum[0] += fabs(r[t] - r[t - k]);
		d[k] = (sum[0] + sum[1] + sum[2] + sum[3]) / (double)(n - k);
	}
	for (size_t k = 1; k <= kmax && k + 1 < n; k++) {
		if (k > NOISE_LAG && d[k] <= CYCLE_SCREEN * peak && d[k] <= d[k - 1] &&
		    d[k] <= d[k + 1])
			dip = 1;
		if (d[k] > peak)
			peak = d[k];
	}
	if (!dip)
		return 0;
	peak = 0;
	for (size_t k = 1; k <= kmax + 1 && k < n; k++) {
		size_t nd = 0;

		for (size_t t = k; t < n; t++)
			w->diff[nd++] = fabs(r[t] - r[t - k]);
		d[k] = trimmed_mean(w->diff, nd);
	}
	for (size_t k = 1; k <= kmax && k + 1 < n; k++) {
		if (k > NOISE_LAG && d[k] <= CYCLE_DIP * peak && d[k] <= d[k - 1] &&
		    d[k] <= d[k + 1])
			return k;
		if (d[k] > peak)
			peak = d[k];
	}
	return 0;
}

/*
 * The cycle of period nz->period in the history's residuals res[0..e - from): the
 * median residual of each phase t mod P, less the median of the P of them, into
 * w->prof; then w->adj[from..e) = med net of it (allocated here, s->n doubles, on
 * the first cycle read)
 */
static void read_cycle(const struct detect_series *s, struct scratch *w, const struct noise *nz,
		       size_t from, size_t e)
{
	double *ph = w->diff, cen;
	size_t P = nz->period;

	if (!w->adj)
		w->adj = xmalloc(s->n * sizeof(*w->adj));
	for (size_t q = 0; q < P; q++) {
		size_t cnt = 0;

		for (size_t t = from + (q + P - from % P) % P; t < e; t += P)
			ph[cnt++] = w->res[t - from];
		w->prof[q] = ranktest_median_inplace(ph, cnt);
	}
	memcpy(ph, w->prof, P * sizeof(*ph));
	cen = ranktest_median_inplace(ph, P);
	for (size_t q = 0; q < P; q++)
		w->prof[q] -= cen;
	detect_net_of_cycle(s, w, nz, from, e);
}

void detect_noise_of(const struct detect_series *s, struct scratch *w, size_t c, size_t e,
		     int local, int net, struct noise *nz)
{
	size_t L = s->opts.noise_lookback ? s->opts.noise_lookback : 1, W = s->opts.window;
	size_t a = c / W * W, from = a > L * W ? a - L * W : 0, nk = 0;
	int history = 1;
	double mk;
	const double *v = s->med;

	/*
	 * the history before the window, so that a change inside it cannot pass for noise,
	 * ending at a multiple of W (the two windows that start in [a, a + W) share it:
	 * computed once); near the start of the series (less than a window of history)
	 * sigma up to the window's end, and rho later from the window's residuals
	 */
	if (a - from >= W) {
		if (w->cache_end == a && w->cache_local == local && w->cache_net == net) {
			*nz = w->cache;
			return;
		}
		e = a;
	} else {
		from = 0;
		history = 0;
	}

	nz->sigma = NAN;
	nz->rho = 0;
	nz->vif = 1;
	nz->history = 0;
	nz->raised = 1;
	nz->period = 0;
	nz->net = 0;
	if (e - from < 4 * NOISE_LAG)
		return;
	if (history) {
		/*
		 * a cycle in the whole history (2c; searched once per history: both
		 * readings and both local flags share it); the net reading reads the
		 * history net of it
		 */
		int res_read = 0; /* w->res holds this history's residuals */

		if (w->period_end != a) {
			residuals(s, w, s->med, from, e);
			res_read = 1;
			w->period = period_of(s, w, w->res, e - from);
			w->period_end = a;
		}
		nz->period = w->period;
		if (nz->period && net) {
			if (!res_read)
				residuals(s, w, s->med, from, e);
			read_cycle(s, w, nz, from, e);
			v = w->adj;
			nz->net = 1;
		}
	}
	for (size_t t = from + NOISE_LAG; t < e; t++)
		w->diff[nk++] = fabs(v[t] - v[t - NOISE_LAG]);
	mk = trimmed_mean(w->diff, nk);
	if (!(mk > 0))
		return;
	nz->df = nk;
	nz->history = history;
	if (history) {
		/*
		 * rho from the residuals of the last window of history [e - W, e) around
		 * the medians of its segments (between the change points already
		 * accepted), so that a step there is not read as dependence. Only the
		 * last window: a step or a slope the scan did not split, anywhere in the
		 * longer history, leaves residuals that read as dependence for every
		 * window after it (sigma, from differences, is not moved by it and keeps
		 * the longer history)
		 */
		size_t rfrom = local ? e - W : from;

		residuals(s, w, v, rfrom, e);
		nz->rho = rho_of(s, w, w->res, e - rfrom);
	}
	nz->sigma = sigma_of(mk, nz->rho);
	if (history && nz->rho > 0)
		nz->raised = model_shortfall(s, w, v + from, e - from, nz);
	nz->sigma *= nz->raised;
	nz->vif = (1 + nz->rho) / (1 - nz->rho);
	if (history) {
		w->cache_end = a;
		w->cache_local = local;
		w->cache_net = net;
		w->cache = *nz;
	}
}

double *detect_net_of_cycle(const struct detect_series *s, struct scratch *w,
			    const struct noise *nz, size_t from, size_t to)
{
	for (size_t t = from; t < to; t++)
		w->adj[t] = s->med[t] - w->prof[t % nz->period];
	return w->adj;
}

/*
 * rho of a window without history before it (the start of a series): the
 * same estimate as noise_of on the residuals of the W commits that end where
 * the window ends, each around the median of its level (so the step itself is
 * not taken for dependence). Fewer than W give rho >= rho_min by chance; a
 * window shorter than W (the end of a short series) that read nothing tested
 * AR(1) phi 0.8 noise as independent and split it (9.4 false change points
 * per 1000 commits of 80-commit series, against 1.9 now).
 */
static void window_rho(const struct detect_series *s, struct scratch *w, size_t c, size_t n,
		       size_t t, struct noise *nz)
{
	double *d = w->diff, m2;
	size_t nd = 0, W = s->opts.window, e = c + n, a, seg, j = 0;

	if (e < W)
		return; /* too few residuals to tell dependence from chance */
	/*
	 * a window shorter than W (the end of a short series) reads the W commits
	 * that end where it ends, each around the median of its level: between the
	 * splits already accepted, the window's start and the split at t
	 */
	a = n < W ? e - W : c;
	while (j < s->nraw && s->raw[j].index <= a)
		j++;
	for (seg = a; seg < e;) {
		size_t end = e;
		double med;

		if (j < s->nraw && s->raw[j].index < c)
			end = s->raw[j++].index;
		else if (seg < c)
			end = c;
		else if (seg < c + t)
			end = c + t;
		med = detect_window_median(s->med, seg, end, w->tmp);
		for (size_t i = seg; i < end; i++)
			w->res[i - a] = s->med[i] - med;
		seg = end;
	}
	n = e - a;
	nz->rho = rho_of(s, w, w->res, n);
	if (!(nz->rho > 0))
		return;
	for (size_t i = NOISE_LAG; i < n; i++)
		d[nd++] = fabs(w->res[i] - w->res[i - NOISE_LAG]);
	m2 = trimmed_mean(d, nd);
	if (!(m2 > 0))
		return;
	nz->vif = (1 + nz->rho) / (1 - nz->rho);
	nz->sigma = sigma_of(m2, nz->rho);
	nz->raised = model_shortfall(s, w, w->res, n, nz);
	nz->sigma *= nz->raised;
}

void detect_window_rho(const struct detect_series *s, struct scratch *w, size_t c, size_t n,
		       size_t t, struct noise *nz)
{
	if (nz->history)
		return;
	window_rho(s, w, c, n, t, nz);
	/*
	 * the parts of the window that its recursion tests are the same noise: they
	 * keep this model (read again on a shorter part, no rho was estimated and
	 * the part was tested as if independent: 4 false splits on TCPD's bank)
	 */
	nz->history = 1;
	*w->nz = *nz;
}

/*
 * Under dependent noise (vif > 1) the rank statistic saturates (a perfect
 * split of 64 commits gives |z| 5.4 at most, 1.8 after dividing by
 * sqrt(vif) = 3), so that a 10 sigma step would never pass: the p then
 * comes from the levels instead, the difference of the 20 % trimmed means
 * of the two sides in units of its standard error under the noise model,
 *	z = (after - before) / (sigma sqrt(1.064 V(rho, na, nb)))
 * (1.064: trimmed20 below; V: ar1_diff_var above, the exact variance of
 * the difference of two neighbouring means of AR(1) noise).
 */
double detect_level_z(double before, double after, size_t na, size_t nb, const struct noise *nz)
{
	return (after - before) / (nz->sigma * sqrt(TRIM20_VAR * ar1_diff_var(nz->rho, na, nb)));
}

/*
 * The 20 % trimmed mean of v[from..to) (a fifth of the values dropped at
 * each end): as robust to a few outliers as needed here, and with a
 * variance 1.064 times the mean's for Gaussian values where the median's
 * is pi/2 = 1.571 (Wilcox, "Introduction to Robust Estimation", 3.2), so
 * the level test needs 22 % less of a step to pass.
 */
double detect_trimmed20(const double *v, size_t from, size_t to, double *tmp)
{
	size_t n = to - from, g = n / 5;
	double sum = 0;

	memcpy(tmp, v + from, n * sizeof(*tmp));
	if (g) {
		ranktest_select_inplace(tmp, n, g);
		ranktest_select_inplace(tmp + g, n - g, n - 2 * g);
	}
	for (size_t i = g; i < n - g; i++)
		sum += tmp[i];
	return sum / (double)(n - 2 * g);
}

/*
 * In a short range (n <= SHORT_LEVELS commits: the start of a series) the
 * rank test cannot reach p_max however clean the step (7 | 5 commits: 2 /
 * C(12, 5) = 0.0025 before the correction for 7 splits), so the levels
 * decide too: the level z of level_z with the noise model's sigma, its p
 * from Student's t with the differences behind sigma less one as degrees
 * of freedom (sigma is itself an estimate from few commits). 1 when the
 * range is longer, sigma is unknown or the noise is dependent.
 */
#define SHORT_LEVELS 24
double detect_short_level_p(const struct detect_series *s, struct scratch *w,
			    const struct noise *nz, size_t c, size_t t, size_t n)
{
	double z;

	if (n > SHORT_LEVELS || !(nz->sigma > 0) || nz->vif > 1 || nz->df < 4)
		return 1;
	z = detect_level_z(detect_trimmed20(s->med, c, c + t, w->tmp),
			   detect_trimmed20(s->med, c + t, c + n, w->tmp), t, n - t, nz);
	return 2 * gsl_cdf_tdist_Q(fabs(z), (double)(nz->df - 1));
}

/* two-sided p of a standardized rank statistic z under the noise model */
double detect_z_pvalue(double z, const struct noise *nz)
{
	return 2 * gsl_cdf_ugaussian_Q(fabs(z) / sqrt(nz->vif));
}

double detect_split_p(const struct detect_series *s, struct scratch *w, const struct noise *nz,
		      size_t c, size_t n, size_t t, double z)
{
	if (nz->vif > 1 && nz->sigma > 0)
		return 2 * gsl_cdf_ugaussian_Q(fabs(
				   detect_level_z(detect_trimmed20(s->med, c, c + t, w->tmp),
						  detect_trimmed20(s->med, c + t, c + n, w->tmp), t,
						  n - t, nz)));
	if (n <= RANKTEST_EXACT_MAX || nz->vif > 1 || !isfinite(z)) {
		double p = ranktest_mann_whitney(s->med + c, t, s->med + c + t, n - t, NULL);

		if (nz->vif > 1 && p > 0 && p < 1)
			return detect_z_pvalue(gsl_cdf_ugaussian_Qinv(p / 2), nz);
		return fmin(p, detect_short_level_p(s, w, nz, c, t, n));
	}
	return 2 * gsl_cdf_ugaussian_Q(fabs(z));
}
