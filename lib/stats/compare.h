#ifndef REGTRACK_STATS_COMPARE_H
#define REGTRACK_STATS_COMPARE_H

#include <stddef.h>

#include "stats/metric.h"

/*
 * Comparison of two sample sets of one metric: base (a) and head (b),
 * each a set of runs. Pure functions, thread-safe; arrays are borrowed
 * for the call and only read. Non-finite values (NaN, inf) are ignored.
 *
 * Formulas and their sources (details in ranktest.h):
 *  - %stddev: population standard deviation / mean * 100, as LKP's
 *    `lkp compare` prints it (lkp-tests lib/stats.rb).
 *  - %change: 100 * (mean_b - mean_a) / |mean_a|, as LKP.
 *  - p_value: exact two-sided Mann-Whitney U (conditional on ties) up to
 *    RANKTEST_EXACT_MAX values in all, normal approximation above.
 *    Ranks do not change under log, so this is also the test on logs.
 *  - CI of %change: Hodges-Lehmann shift of log values with Bauer's
 *    distribution-free interval, mapped back by 100 * (exp(x) - 1).
 *    When any value is <= 0 (logs undefined) the shift is taken on raw
 *    values instead and mapped by 100 * x / |mean_a| (NAN when mean_a is 0);
 *    result.log_scale tells which was used.
 *  - welch_p: Welch's t on log values (raw values in the fallback above).
 *
 * Small-n limits: with n_a and n_b runs and no ties no data can give a
 * Mann-Whitney p below 2 / C(n_a+n_b, n_a): 3 vs 3 -> 0.1, 4 vs 4 ->
 * 0.029, 5 vs 5 -> 0.0079, 6 vs 6 -> 0.0022. At alpha 0.01 a `different`
 * verdict needs at least 5 runs a side (or 4 vs 6, 3 vs 8, ...); smaller
 * sets end in `need-more-runs` (result.min_p tells the reachable floor).
 * The 95 % HL interval needs at least 4 vs 4 (3 vs 3 cannot reach 95 %
 * coverage), so `same` also needs 4 runs a side.
 */

struct sample_stats {
	size_t n;
	double mean, median;
	double stddev_pct; /* population stddev / mean * 100, as LKP; NAN when mean is 0 */
	double min, max;
};

/*
 * Statistics of v[0..n). n may be 0: then every field but n is NAN.
 * Non-finite values are skipped (n counts the finite ones).
 */
void sample_stats_compute(const double *v, size_t n, struct sample_stats *out);

enum verdict { VERDICT_NEED_MORE_RUNS, VERDICT_SAME, VERDICT_DIFFERENT };

/* "need-more-runs", "same", "different" (static strings). */
const char *verdict_name(enum verdict v);

struct compare_opts {
	double alpha;		  /* significance level for `different`, default 0.01 */
	double floor_pct;	  /* minimum |%change| for `different` and the `same` band, default 1.0 */
	double ci_level;	  /* confidence level of the %change interval, default 0.95 */
	double monitor_floor_pct; /* floor for monitor metrics (compare_opts_floor), default 5.0 */
};

/* Defaults above. */
void compare_opts_init(struct compare_opts *o);

/*
 * The floor that applies to metric `name`: monitor_floor_pct when
 * metric_is_monitor(name), floor_pct otherwise. Callers comparing a named
 * metric copy the options and set floor_pct to this.
 */
double compare_opts_floor(const struct compare_opts *o, const char *name);

struct compare_result {
	struct sample_stats a, b;    /* a = base, b = head */
	double change_pct;	     /* 100*(mean_b-mean_a)/|mean_a|; NAN when mean_a == 0 */
	double ci_lo_pct, ci_hi_pct; /* CI of %change from Hodges-Lehmann; NAN when not computable */
	double hl_pct;		     /* the Hodges-Lehmann point estimate as %change */
	double p_value;		     /* two-sided Mann-Whitney (see above); 1 when a side is empty */
	double welch_p;		     /* Welch's t on log values; NAN when not computable */
	double min_p;		     /* smallest p the sample sizes allow (ranktest_min_p) */
	int exact;		     /* 1 when p_value is exact, 0 for the normal approximation */
	int log_scale;		     /* 1 when CI and welch_p used logs, 0 for the raw fallback */
	enum verdict verdict;
};

/*
 * Compares base a[0..na) with head b[0..nb). Verdict:
 *   different       p_value <= alpha and |change_pct| > floor_pct
 *   same            otherwise, when [ci_lo_pct, ci_hi_pct] lies inside
 *                   [-floor_pct, +floor_pct]
 *   need-more-runs  otherwise (including any side with fewer than the
 *                   runs the test needs, e.g. one sample a side)
 * o may be NULL for the defaults. Never fails; r is fully written.
 */
void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     const struct compare_opts *o, struct compare_result *r);

enum change_kind { CHANGE_NONE, CHANGE_IMPROVEMENT, CHANGE_REGRESSION, CHANGE_UNKNOWN };

/*
 * What a result means for a metric whose direction is higher_is_better
 * (1, 0, or -1 unknown as from metric_higher_is_better()): CHANGE_NONE
 * unless the verdict is `different`; CHANGE_UNKNOWN when the direction is
 * unknown.
 */
enum change_kind compare_change_kind(const struct compare_result *r, int higher_is_better);
/* "none", "improvement", "regression", "unknown" (static strings). */
const char *change_kind_name(enum change_kind k);

/*
 * Benjamini-Hochberg adjusted p-values (Benjamini & Hochberg, JRSS B 57
 * (1995) 289-300; the step-up "q-values" of R's p.adjust(method="BH")):
 * q_(i) = min_{j >= i} min(1, m * p_(j) / j) over the m non-NAN inputs
 * sorted ascending. NAN inputs stay NAN and do not count in m. p and
 * q_out may be the same array. O(n log n), allocates temporarily.
 */
void bh_adjust(const double *p, size_t n, double *q_out);

/*
 * The false discovery rate over one family of comparisons (one compare
 * response, one report's table): q_out[i] is r[i]'s Benjamini-Hochberg
 * q (bh_adjust) among the rows that can be significant at all, and a row
 * whose verdict is VERDICT_DIFFERENT without q <= alpha becomes
 * VERDICT_NEED_MORE_RUNS. A row whose smallest attainable p (min_p: 1 when
 * a side has no runs, 2/C(na+nb, na) for the exact rank test) is above
 * alpha can never be rejected and does not count in BH's m: its q is NAN.
 * That is Tarone's rule for discrete tests (Tarone, Biometrics 46 (1990)
 * 515-522; for the FDR, Gilbert, JRSS C 54 (2005) 143-158): without it a
 * run carrying new metric names (n = [0, 1]) turned a real regression of
 * the same response into need-more-runs. r: n pointers (borrowed, results
 * updated in place); q_out: n doubles.
 */
void compare_fdr(struct compare_result *const *r, size_t n, double alpha, double *q_out);

#endif
