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
 *  - %change (change_pct, the table's column): 100 * (mean_b - mean_a) /
 *    mean_a, exactly as LKP prints it (lkp-tests lib/compare.rb,
 *    calc_perf_change): the base keeps its sign, so with a negative base
 *    (e.g. -60742 -> -50000: -17.7 %) the sign of %change is the opposite of
 *    the sign of mean_b - mean_a; a base mean of 0 is replaced by 1e-100 as
 *    LKP does (0 -> 5 gives 5e102 %), but equal means are 0 % (0 -> 0 too,
 *    where LKP's formula gives -100 %). It is never the verdict's direction.
 *  - The verdict's size and direction come from the test that decided it:
 *    hl_pct, the Hodges-Lehmann shift of head vs base (below) as %, and
 *    direction = its sign (+1: head values are higher). One failed run
 *    moves the means (10 runs near 1000 vs 9 near 1010 and one at 10: mean
 *    %change -8.97) but not the rank test nor the HL shift (+1.0 %).
 *  - p_value: exact two-sided Mann-Whitney U (conditional on ties) up to
 *    RANKTEST_EXACT_MAX values in all, normal approximation above.
 *    Ranks do not change under log, so this is also the test on logs.
 *  - hl_pct and its CI: Hodges-Lehmann shift of log values with Bauer's
 *    distribution-free interval, mapped back by 100 * (exp(x) - 1).
 *    When any value is <= 0 (logs undefined) the shift is taken on raw
 *    values instead and mapped by 100 * x / |median_a| (|mean_a| when the
 *    median is 0; +-inf for a nonzero shift from a base of zeros, where
 *    any change is infinitely large: 0 -> x can be `different`);
 *    result.log_scale tells which was used.
 *  - Outlier runs (outliers_a, outliers_b): a run is flagged when it lies
 *    beyond median +- COMPARE_OUTLIER_K (5) * 1.4826 * MAD of its own side
 *    (MAD = median absolute deviation from the median; when it is 0, i.e.
 *    more than half the runs equal the median, 1.2533 * the mean absolute
 *    deviation from the median instead; nothing is flagged below 3 runs or
 *    when both scales are 0). 1.4826 * MAD estimates the standard deviation
 *    of Gaussian runs, so 5 of them is far outside the noise. Flags are
 *    information for the reader (a failed or disturbed run); the verdict
 *    does not drop them, being rank-based it needs no cleaning. But when
 *    the two sides' shares of them differ (outliers_differ: Fisher's exact
 *    test of the 2 x 2 table side x flagged, two-sided, p <= alpha), part
 *    of the runs moved, a second mode (40 % of 3000 runs 50 % slower): the
 *    Hodges-Lehmann shift of the whole sample stays near 0 there, with a
 *    narrow interval, so such a comparison is never `same`.
 *  - min_p (Tarone's rule, compare_fdr): the smallest p the sample sizes
 *    and the tie pattern allow (ranktest_min_p_ties): 1 for a constant
 *    metric, whose p is always 1.
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
	double alpha;	  /* significance level for `different`, default 0.01 */
	double floor_pct; /* minimum |%change| for `different` and the `same` band, default 1.0 */
	double ci_level;  /* confidence level of the %change interval, default 0.95 */
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

/* Runs beyond median +- this many robust standard deviations are flagged. */
#define COMPARE_OUTLIER_K 5.0

struct compare_result {
	struct sample_stats a, b;    /* a = base, b = head */
	double change_pct;	     /* LKP's %change of means: 100*(mean_b-mean_a)/mean_a (signed
				      * base, 1e-100 for 0); NAN when a side is empty */
	double ci_lo_pct, ci_hi_pct; /* CI of hl_pct (Bauer); NAN when not computable */
	double hl_pct;		     /* the verdict's size: Hodges-Lehmann shift as %; may be +-inf
				      * (base of zeros), NAN when a side is empty */
	double shift;		     /* the HL shift in input units (b - a; from the log shift:
				      * median_a * (exp(x) - 1)); NAN when a side is empty */
	int direction;		     /* the verdict's direction: sign of hl_pct, +1 head higher */
	size_t outliers_a, outliers_b; /* runs flagged far outside their side (see above) */
	int outliers_differ; /* 1: the sides' shares of outlier runs differ (Fisher's exact
			      * test, p <= alpha): part of the runs moved, which no one shift
			      * describes; the verdict is then never `same` */
	double p_value;	     /* two-sided Mann-Whitney (see above); 1 when a side is empty */
	double welch_p;	     /* Welch's t on log values; NAN when not computable */
	double min_p;	     /* smallest p sizes and ties allow (ranktest_min_p_ties) */
	int exact;	     /* 1 when p_value is exact, 0 for the normal approximation */
	int log_scale;	     /* 1 when CI and welch_p used logs, 0 for the raw fallback */
	enum verdict verdict;
	int by_spread; /* 1: the verdict is compare_deterministic()'s, not the rank test's */
	int constant;  /* 1: both sides have runs and every one is the same number (0 -> 0,
			* 7 -> 7): the verdict is `same`, but the row carries no evidence of
			* a change or of none (a counter that never moved, a config echo);
			* a gate or a request's verdict leaves it out */
};

/*
 * Compares base a[0..na) with head b[0..nb). Verdict:
 *   different       p_value <= alpha and |hl_pct| > floor_pct (direction != 0)
 *   same            otherwise, when [ci_lo_pct, ci_hi_pct] lies inside
 *                   [-floor_pct, +floor_pct] and the outlier shares do not
 *                   differ (outliers_differ 0)
 *   need-more-runs  otherwise (including any side with fewer than the
 *                   runs the test needs, e.g. one sample a side)
 * o may be NULL for the defaults. Never fails; r is fully written.
 */
void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     const struct compare_opts *o, struct compare_result *r);

/*
 * Deterministic measurement: a comparison that may
 * decide with fewer runs than the rank test needs, in a setup whose A/A
 * spread was measured tiny. aa_spread_pct is that spread: the largest
 * relative range 100 * (max - min) / |median| over groups of runs of one
 * kernel in the setup (repeated runs at one commit, runs of commits built
 * to one image), floored at 0.01 %; NAN = not measured.
 *
 * Model and assumption: every run of one kernel in the setup is
 * median * (1 + e) with |e| <= s = aa_spread_pct / 100 / 2 around its own
 * level, the same s for every kernel (the noise is the measurement's, as
 * with qemu -icount, where guest time counts instructions; not the
 * kernel's). Under it two kernels whose run ranges are disjoint and whose
 * Hodges-Lehmann shift is at least max(floor_pct, 4 * aa_spread_pct)
 * differ, with no rank test needed; two whose |shift| is at most
 * floor_pct - 2 * aa_spread_pct are the same. A side whose own relative
 * range exceeds 2 * aa_spread_pct breaks the assumption: the rank test's
 * verdict stands. Never for wall-clock runs (their spread is not
 * bounded): the callers pass NAN there unless measured.
 *
 * Fills r as compare_samples(a, na, b, nb, o) (o NULL: defaults), then,
 * with aa_spread_pct finite and at least 2 runs a side, the verdict from
 * the rule above when it applies (r->by_spread = 1).
 */
void compare_deterministic(const double *a, size_t na, const double *b, size_t nb,
			   const struct compare_opts *o, double aa_spread_pct,
			   struct compare_result *r);

/*
 * The relative range of v[0..n): 100 * (max - min) / |median| (finite values;
 * NAN below 2 of them or with a median of 0). The A/A spread of one group.
 */
double sample_range_pct(const double *v, size_t n);

/*
 * The A/A spread of a setup (the aa_spread_pct of compare_deterministic()),
 * measured group by group: one definition for the bisect planner
 * (lib/bisect/plan.h) and the server's comparisons. A group is the runs of
 * one kernel (the runs of one commit, or the pooled runs of commits built
 * to one image). pct: the largest sample_range_pct() of a group with at
 * least 2 finite runs, NAN before one; runs: how many runs those groups
 * hold (the evidence it rests on); groups: how many.
 */
struct aa_spread {
	double pct;
	size_t runs, groups;
};

/* Runs the spread must rest on before a comparison may use it. */
#define AA_SPREAD_MIN_RUNS 6
/* The least spread a comparison uses (measurement resolution, compare_deterministic()). */
#define AA_SPREAD_FLOOR_PCT 0.01

/* No group yet: pct NAN, runs and groups 0. */
void aa_spread_init(struct aa_spread *s);

/*
 * Adds one group, v[0..n) (borrowed; non-finite values skipped). A group
 * with fewer than 2 finite runs or a median of 0 adds nothing.
 */
void aa_spread_add(struct aa_spread *s, const double *v, size_t n);

/*
 * The spread a comparison may decide by: max(pct, AA_SPREAD_FLOOR_PCT)
 * when runs >= AA_SPREAD_MIN_RUNS, NAN otherwise (then the rank test
 * decides alone). Pass it to compare_deterministic().
 */
double aa_spread_usable(const struct aa_spread *s);

/*
 * LKP's %change from a to b: 100 * (b - a) / a, a = 1e-100 when 0 (lkp-tests
 * lib/compare.rb calc_perf_change), and exactly 0 when a == b (0 -> 0 is no
 * change, where LKP's formula gives -100). Finite for finite inputs; its
 * sign is that of b - a only when a > 0.
 */
double compare_pct_change(double a, double b);

/*
 * Flags the runs of one side far outside it (the rule above, with k robust
 * standard deviations, COMPARE_OUTLIER_K in compare_samples). v: n values,
 * borrowed; non-finite ones are never flagged. flag: NULL or n bytes, set
 * to 1 for a flagged run, 0 otherwise. Returns the number flagged.
 */
size_t sample_outliers(const double *v, size_t n, double k, unsigned char *flag);

enum change_kind { CHANGE_NONE, CHANGE_IMPROVEMENT, CHANGE_REGRESSION, CHANGE_UNKNOWN };

/*
 * What a result means for a metric whose direction is higher_is_better
 * (1, 0, or -1 unknown as from metric_higher_is_better()): CHANGE_NONE
 * unless the verdict is `different`; CHANGE_UNKNOWN when the direction is
 * unknown. The sign is r->direction (the HL shift), never change_pct.
 */
enum change_kind compare_change_kind(const struct compare_result *r, int higher_is_better);
/*
 * What a change in `direction` (+1 the values rose, -1 fell, 0 none: the
 * sign of an HL shift, compare_result.direction, or of a detected step,
 * change_point.direction) means for a metric with higher_is_better (1, 0,
 * -1 unknown): CHANGE_NONE for direction 0, CHANGE_UNKNOWN for an unknown
 * metric direction. Never derive direction from a %change: LKP's %change
 * has the opposite sign for a negative base.
 */
enum change_kind change_kind_of(int direction, int higher_is_better);

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
 * alpha can never be rejected and does not count in BH's m: its q is NAN;
 * with min_p from the tie pattern (ranktest_min_p_ties) a constant metric
 * (every value equal, p always 1) is one of them.
 * That is Tarone's rule for discrete tests (Tarone, Biometrics 46 (1990)
 * 515-522; for the FDR, Gilbert, JRSS C 54 (2005) 143-158): without it a
 * run carrying new metric names (n = [0, 1]) turned a real regression of
 * the same response into need-more-runs. r: n pointers (borrowed, results
 * updated in place); q_out: n doubles.
 */
void compare_fdr(struct compare_result *const *r, size_t n, double alpha, double *q_out);

#endif
