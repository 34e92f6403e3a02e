#ifndef REGTRACK_STATS_RANKTEST_H
#define REGTRACK_STATS_RANKTEST_H

#include <stddef.h>

/*
 * Rank statistics shared by the two-sample comparison (compare.h) and the
 * change-point detector (detect.h): the Mann-Whitney U test, the
 * Hodges-Lehmann shift with its distribution-free confidence interval,
 * and Welch's t test. Pure functions: no state, no allocation visible to
 * the caller, thread-safe. Every array argument is borrowed for the call
 * and only read. Values must be finite (callers drop NaN/inf first).
 *
 * Sources
 *  - Mann-Whitney U: H. B. Mann and D. R. Whitney, Ann. Math. Statist. 18
 *    (1947) 50-60. U counts the pairs (a_i, b_j) with a_i > b_j, a tie
 *    counting 1/2; U = R_a - na(na+1)/2 with R_a the midrank sum of a.
 *  - Exact null distribution without ties: the counts of U are the
 *    coefficients of the Gaussian binomial [na+nb choose na]_q, i.e. of
 *    prod_{i=1..na} (1 - q^(nb+i)) / (1 - q^i) (Mann-Whitney 1947, eq. 1;
 *    see also Andrews, "The Theory of Partitions", ch. 3).
 *  - Exact null distribution with ties: the permutation distribution of
 *    the midrank sum given the observed tie pattern (the conditional exact
 *    test of Lehmann, "Nonparametrics", 1975, sec. 1.4), computed by a
 *    dynamic programme over tie groups: choosing j of the t members of a
 *    group with doubled midrank r adds j*r to the doubled rank sum in
 *    C(t, j) ways.
 *  - Two-sided exact p: P(|S - E S| >= |s_obs - E S|) over that
 *    distribution (S = doubled rank sum of a). Without ties this equals
 *    2 * min(P(U <= u), P(U >= u)), as R's wilcox.test reports it.
 *  - Normal approximation (used when na + nb > RANKTEST_EXACT_MAX): mean
 *    na*nb/2, variance na*nb/12 * ((N+1) - sum(t^3 - t) / (N(N-1))) with
 *    t the tie-group sizes (Lehmann 1975, eq. 1.33), continuity
 *    correction 1/2.
 *  - Hodges-Lehmann shift: J. L. Hodges and E. L. Lehmann, Ann. Math.
 *    Statist. 34 (1963) 598-611: the median of the na*nb differences
 *    b_j - a_i. Its confidence interval: D. F. Bauer, JASA 67 (1972)
 *    687-690, also Hollander & Wolfe, "Nonparametric Statistical Methods",
 *    2nd ed., sec. 4.3: [D_(k), D_(na*nb+1-k)] of the sorted differences,
 *    with k the largest integer such that P(U <= k-1) <= (1-level)/2 under
 *    the null distribution without ties (normal approximation
 *    k = floor(na*nb/2 - z * sqrt(na*nb*(N+1)/12)) above the exact size).
 *    With ties the coverage is approximate.
 *  - Welch's t: B. L. Welch, Biometrika 34 (1947) 28-35, with the
 *    Welch-Satterthwaite degrees of freedom; the t tail comes from GSL
 *    (gsl_cdf_tdist_Q).
 */

/* Largest na + nb for which p-values and HL intervals are exact. */
#define RANKTEST_EXACT_MAX 50

/*
 * Two-sided Mann-Whitney p-value for samples a (na values) and b (nb).
 * Exact (ties handled, see above) when na + nb <= RANKTEST_EXACT_MAX,
 * normal approximation otherwise. Returns 1 when either sample is empty
 * or every value is tied. If u_out is not NULL it receives U of a
 * (pairs a > b, ties 1/2). Memory: O(na * (na+nb)^2) doubles temporarily
 * for the exact test with ties, O(na*nb) without.
 */
double ranktest_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u_out);

/*
 * The smallest two-sided p any data without ties can reach with sample
 * sizes na and nb: 2 / C(na+nb, na), capped at 1 (e.g. 3 vs 3: 0.1,
 * 4 vs 4: 0.0286, 6 vs 6: 0.00216). 1 when a size is 0.
 */
double ranktest_min_p(size_t na, size_t nb);

/*
 * The smallest two-sided p the data's own tie pattern allows: that of the
 * most extreme arrangement of the pooled values (a takes the na lowest, or
 * the na highest), by ranktest_mann_whitney. Equals ranktest_min_p() without
 * ties; 1 when every value is equal (a constant metric can never be
 * significant) or a side is empty. Borrowed arrays, finite values; allocates
 * temporarily (N > 64).
 */
double ranktest_min_p_ties(const double *a, size_t na, const double *b, size_t nb);

/*
 * Null distribution of U without ties: cdf_out[u] = P(U <= u) for
 * u = 0 .. na*nb (the caller provides na*nb+1 doubles). Exact; meant for
 * na + nb <= RANKTEST_EXACT_MAX (beyond that counts lose precision).
 */
void ranktest_u_cdf(size_t na, size_t nb, double *cdf_out);

/*
 * Hodges-Lehmann estimate of the shift b - a and its confidence interval
 * at `level` (e.g. 0.95). Returns 0 and fills *est, *lo, *hi; returns -1
 * (outputs set to NAN, *est still filled when na, nb > 0) when the
 * interval is not computable: a sample is empty or the sizes are too small
 * for the level (e.g. 3 vs 3 at 0.95, whose widest interval only reaches
 * 0.90). Uses O(na*nb) temporary memory.
 */
int ranktest_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double level,
			    double *est, double *lo, double *hi)
	__attribute__((warn_unused_result));

/*
 * Welch's two-sample t test of mean(b) - mean(a). Fills *t and *df when
 * not NULL; returns the two-sided p, or NAN when na < 2 or nb < 2. With
 * both variances 0 it returns 0 when the means differ and 1 when equal.
 */
double ranktest_welch(const double *a, size_t na, const double *b, size_t nb, double *t,
		      double *df);

/*
 * The k-th smallest (0-based) of v[0..n) by Hoare's FIND; v is reordered so
 * that v[0..k) <= v[k] <= v[k+1..n). NAN when k >= n. O(n) expected.
 */
double ranktest_select_inplace(double *v, size_t n, size_t k);

/* Median of v (n values, n > 0); v is reordered. NAN when n == 0. */
double ranktest_median_inplace(double *v, size_t n);

#endif
