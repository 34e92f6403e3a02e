#ifndef REGTRACK_STATS_SAMPLESIZE_H
#define REGTRACK_STATS_SAMPLESIZE_H

/*
 * How many runs a side an A/B comparison needs: pure functions, no allocation.
 *
 * The comparison (compare.h) is a two-sided Mann-Whitney test at level
 * alpha on per-run means. For a relative change delta (percent) between
 * two sides whose runs vary with coefficient of variation cv (percent,
 * stddev / mean), the runs a side for power 1 - beta are taken from the
 * two-sample t test and corrected for the rank test:
 *
 *   n_t = 2 (z_{1-alpha/2} + z_{1-beta})^2 (cv / delta)^2 + z_{1-alpha/2}^2 / 4
 *   n   = n_t / ARE,   ARE = 3 / pi (~0.955)
 *
 * Sources: the normal-approximation sample size with Guenther's correction
 * for the t distribution, W. C. Guenther, "Sample size formulas for normal
 * theory t tests", The American Statistician 35(4):243-244 (1981); the
 * asymptotic relative efficiency 3/pi of the Wilcoxon-Mann-Whitney test to
 * the t test under normal errors, G. E. Noether, "Sample size
 * determination for some common nonparametric tests", JASA 82(398):645-647
 * (1987), and E. L. Lehmann, Nonparametrics (1975), ch. 2. The relative
 * form (cv, delta in percent) holds because the comparison works on log
 * values (log(1 + x) ~ x for small changes). Check: cv = delta, alpha
 * 0.05, power 0.8 gives n_t = 16.7 (Lehr's rule of 16 a group, plus
 * Guenther's z^2/4).
 *
 * The verdict `different` also asks |HL shift| > floor: with a true change
 * of exactly the floor the estimate exceeds it about half the time, so
 * give delta a little below the change that matters; the `same` verdict
 * (CI inside +-floor) needs fewer runs than this.
 */

/* z with P(Z <= z) = p for a standard normal Z; p in (0, 1), else NAN. */
double samplesize_z(double p);

/*
 * Unrounded runs a side (n above) for cv_pct >= 0, delta_pct > 0, alpha
 * and power in (0, 1); NAN when an input is outside those ranges.
 */
double samplesize_runs(double cv_pct, double delta_pct, double alpha, double power);

/*
 * The fewest runs a side n for which the exact two-sided Mann-Whitney test
 * of n vs n (no ties) can reach alpha at all: the smallest n with
 * 2 / C(2n, n) <= alpha (alpha 0.01: 5; 0.05: 4). alpha in (0, 1]; at
 * most 30 (C(60,30) makes any alpha above 1e-17 reachable).
 */
int samplesize_rank_floor(double alpha);

/*
 * samplesize_runs() rounded up and clamped to [max(lo, rank floor), hi];
 * *raw gets the unrounded value (NAN when inputs are bad: then lo's bound
 * is returned). hi >= lo >= 1.
 */
int samplesize_choose(double cv_pct, double delta_pct, double alpha, double power, int lo, int hi,
		      double *raw);

#endif
