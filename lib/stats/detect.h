#ifndef REGTRACK_STATS_DETECT_H
#define REGTRACK_STATS_DETECT_H

#include <stddef.h>

#include "err.h"

/*
 * Change-point detection over one series (one metric of one testcase,
 * params, kconfig, compiler, tbox_group) in commit order. Each commit may
 * carry several runs; the detector works on the per-commit medians.
 *
 * Method: windowed binary segmentation with a rank statistic, a noise
 * model estimated from the series itself, and a report filter on the final
 * estimates. (It is not Pettitt's test: Pettitt's statistic is the rank
 * CUSUM's maximum with its own null distribution; this takes the maximum
 * of the standardized statistic over the splits of a window and bounds its
 * p by Bonferroni.)
 *
 *  1. Per commit, the median of its runs (robust to a single bad run).
 *  2. A sequential scan from the left. At the start c of the current
 *     segment it takes the window [c, min(c+W, T)) of per-commit medians
 *     (W = opts.window, default 64 commits) and, for every split
 *     t with min_seg <= t <= n - min_seg, the standardized Mann-Whitney
 *     statistic z_t of "window[0..t) vs window[t..n)" (midranks, tie-
 *     corrected variance, Lehmann 1975 eq. 1.33). This is the rank CUSUM
 *     of Pettitt (Appl. Statist. 28 (1979) 126-135) standardized per
 *     split, so that changes near a window edge keep their power.
 *     The best split: the largest |z_t|; in a window of <= RANKTEST_EXACT_MAX
 *     commits (exact p) under independent noise, a split with a side of at
 *     most 2 min_seg commits when its p_split is less, since z's normal
 *     approximation understates a short side (the 3 lowest of 40: 2 Q(2.85)
 *     = 0.0044 against the exact 2 / C(40, 3) = 2.0e-4).
 *     Significance of the best split: Bonferroni over the splits tried,
 *     p = min(1, nsplits * p_split), a conservative bound on the
 *     max-type null distribution, with p_split the exact Mann-Whitney p
 *     of that split (ranktest.h) for windows of <= RANKTEST_EXACT_MAX
 *     commits and 2 * Q(|z|max) above. In a range of <= 24 commits (the
 *     start of a series) the rank test cannot reach p_max however clean the
 *     step (7 | 5 commits: 2 / C(12, 5) = 0.0025 before the correction), so
 *     there p_split is the smaller of that and the levels' p (the
 *     difference of the two trimmed means over sigma * sqrt(1.064 (1/na +
 *     1/nb)), see 2a,
 *     Student's t with the noise model's differences less one as degrees
 *     of freedom).
 *  2'. Location. The standardized z favours balanced splits: 20 commits at
 *     100 then 8 at 92 peak at 13 when the first 13 happen to be the
 *     highest 100s. When the peak's p is within 10 p_max, the split within
 *     n/4 of the peak with the least L1 cost of two levels (sum |x -
 *     median| of each side: the least absolute deviations fit of one
 *     step; ties: the larger |after - before|, then the nearer the peak)
 *     is the step's location, and its own p is taken when smaller
 *     (Bonferroni bounds any rule that picks one of the nsplits splits).
 *     The split is accepted when p <= p_max (default 1e-3), the medians on
 *     both sides differ, |%change| >= min_change_pct (default 0; a base of
 *     0 passes, see below), |after - before| >= min_effect noise sigmas
 *     (default 0: off; the p of a window of <= 64 commits already needs
 *     about one sigma, and a sigma read off a history with level shifts
 *     vetoed p 1e-8 steps) and the move is abrupt: the medians of the
 *     h = max(min_seg, 5) commits either side of the split, less what the
 *     sides' own slope gives over that distance, differ by at least half of
 *     after - before in its direction (a linear drift moving the halves of
 *     a window of 64 by D moves commits 5 apart by about 0.16 D).
 *  2a. The noise model (detect.c, noise_of): sigma and the lag-1
 *     autocorrelation rho of the per-commit medians, from the
 *     noise_lookback * W commits before the window (fewer than W before
 *     it: sigma from the commits up to the window's end, rho from the
 *     residuals of the last W of them around their levels, between the
 *     splits accepted, the window's start and its best split, when there
 *     are W; the parts of the window that binary segmentation tests, 3,
 *     keep that model). In the scan rho
 *     reads only the last W commits of that history: a slope, an annual
 *     cycle or a step that no split separated stays in the residuals and,
 *     over four windows, read as dependence (rho 0.94 on TCPD's
 *     construction before its -35 % fall, whose p it pushed to 0.82); the
 *     final estimates keep the whole history's rho (more cautious: there
 *     the last window alone lets through 0.37 false alarms per 1000 commits
 *     of AR(1) phi 0.5 noise, against 0.10, bench/detect_noise.c).
 *     sigma: the trimmed mean (lowest 90 %) of |lag-2 differences|, which
 *     a step or an outlier moves in two places only, scaled for AR(1)
 *     noise. With rho > 0 the model is then checked against the history
 *     it came from: for every side length b from min_seg to W/8 the
 *     differences of neighbouring means of b commits across the history
 *     have a scale (trimmed as sigma's) that the model predicts as
 *     sigma sqrt(V(rho, b, b)) (V below); when the history moves more
 *     than that at every such b, sigma is raised by the smallest ratio.
 *     The trimming keeps a few steps in the history from counting as
 *     noise, but it also drops noise whose moves are rare and large:
 *     TCPD's bank balance, flat for days and moved by monthly deposits
 *     that drain away, gave sigma about half of what its own
 *     neighbouring means showed (ratios 1.9-2.3 at b = 3, 2.8-4.2 at
 *     b = 8), and 8 change points where no annotator saw one. The
 *     smallest ratio, not the largest: a slope or a missed step in the
 *     history grows the ratio with b (random walks, TCPD brent_spot and
 *     usd_isk: about 1 at b = 3, up to 3-4 at b = 16, whose crashes must
 *     stay), a yearly cycle shrinks it near its period (construction:
 *     0.6 at b = 8-12); only a shortfall at every length is the model's.
 *     rho: Spearman's lag-1 autocorrelation of the residuals around
 *     the medians of the history's segments (between the splits already
 *     accepted) on the Pearson scale, 2 sin(pi r_s / 6): ranks leave a
 *     spike or a second mode of independent runs at 0, where the moments
 *     of differences (the estimator this replaced) read 0.67 on independent
 *     page-load noise. rho counts when above rho_min (0.2) and 2/sqrt(n) of
 *     its n residuals, capped at 0.95. With rho > 0 (real noise can be
 *     autocorrelated: one slow machine state spans commits) the variance
 *     of a long level is inflated by vif = (1+rho)/(1-rho) (rank statistics'
 *     z are divided by sqrt(vif)), and the p of a split comes from the
 *     difference of the two sides' 20 % trimmed means over its standard
 *     error sigma * sqrt(1.064 * V), V = Var(mean_a - mean_b) / sigma^2 for
 *     AR(1) noise exactly, S(na)/na^2 + S(nb)/nb^2 - 2 C/(na nb) with
 *     S(n) = n (1+rho)/(1-rho) - 2 rho (1-rho^n)/(1-rho)^2 and C = rho
 *     (1-rho^na)(1-rho^nb)/(1-rho)^2 (Brockwell & Davis 3.1): short sides
 *     are not inflated by the whole vif, and neighbouring sides share noise
 *     that their difference cancels (1.064: the trimmed mean's variance
 *     over the mean's for Gaussian values; the median's would be pi/2),
 *     Bonferroni as above.
 *     What it assumes: per-commit medians are a level plus stationary noise
 *     that may be heavy-tailed, two-mode or AR(1)-like; levels move in
 *     steps (and excursions, 2b), not slopes. A step the scan misses stays
 *     in the history's residuals and raises rho for the next window.
 *  2c. Cycles. A cycle in the per-commit medians (a yearly one in monthly
 *     data; a weekly or daily one where a fixed commit is measured over
 *     time) is no level and no AR(1) noise, but 2a reads it as both: it
 *     raises sigma and, over runs of a phase, rho (TCPD's seat belts:
 *     sigma 244, rho 0.53, and the seat-belt law's -17 % at p 0.75). The
 *     history's residuals (around its segments' medians, as rho's) are
 *     searched for a period P: d(k), the mean of the lowest 90 % of
 *     |r_t - r_t-k|, grows with k for AR(1) noise (Var = 2 sigma^2 (1 -
 *     rho^k)), while a cycle cancels at lag P and adds most near P / 2. P
 *     is the smallest k in [3, min(n / 5, W / 4)] (n residuals: five cycles
 *     at least, so that slow AR(1) wander, 4.7 "cycles" of 27 in 128 commits
 *     of phi 0.8, is no period; four in a window) where d has a local
 *     minimum at most 0.6 times the largest d(j), j < k (plain means of
 *     |differences| are checked first at 0.8: a cheap screen). With a
 *     period the window is read twice, each reading at p doubled
 *     (Bonferroni over the two): as it is, with the model of 2a, and net of
 *     the cycle, every value less its phase's median residual in the
 *     history (t mod P, less the median of the P of them), with sigma and
 *     rho from the history net of the cycle (seat belts: sigma 118, the
 *     window's split p 2.3e-7). The first reading that accepts a split
 *     takes it; the final estimate takes the smaller p of its two readings,
 *     doubled. Both readings, not the net one alone: net of its cycle, a
 *     fall that came with the cycle's low season over a slope of years is
 *     the slope (TCPD's construction, whose 2008 fall the reading as it is
 *     finds and the net one calls gradual), and a cycle misread from the
 *     history costs the test only the factor 2. Stage-0 candidates of the
 *     net reading say so (struct detect_candidate.cycle); their before and
 *     after are medians net of the cycle, as the levels that reading
 *     compared. A change point whose final p came from the net reading
 *     says so too (noise_cycle; its before and after stay as they are).
 *  2b. Excursions (epidemic alternative): when no single split passes, the
 *     standardized rank sum of every segment [a, b) of the window (a, n - b,
 *     b - a >= min_seg, b - a <= n/2) against the rest, Bonferroni over the
 *     segments; a
 *     level that moves and comes back (a +5 % step reverted 12 commits
 *     later) is split at its first edge, and the scan from there finds the
 *     second. Levin & Kline 1985; the two-split form of circular binary
 *     segmentation (Olshen et al., Biostatistics 5 (2004) 557-572).
 *  3. Binary segmentation (Vostrikova, Soviet Math. Dokl. 24 (1981)
 *     55-59; Scott & Knott 1974) applied to the left part [c, k) of an
 *     accepted split, recursively, so the earliest change in the window
 *     is taken first. The scan then restarts at that change. A window
 *     without a change moves the scan by W/2, so every position lies in
 *     the central half of some window.
 *
 * Why this method (and not PELT, FPOP or E-Divisive):
 *  - Ranks make it immune to single outliers and to bimodal noise: an
 *    outlier moves a rank sum by at most n, never by its size; a mixture
 *    of two modes has the same rank distribution before and after when
 *    nothing changed. A non-robust L2 cost (PELT, E-Divisive means with a
 *    t-test) turns such noise into false change points, the failure mode
 *    that held windowed E-Divisive to a precision of 25 %.
 *  - Ranks do not change under log, so the test "works on log values"
 *    exactly, and non-positive values need no special case in detection.
 *  - Windows of W commits bound the effect of slow drift: a drift of d
 *    sigma over the whole series shows as d*W/T inside a window.
 *  - Every decision depends only on the data inside its window. That
 *    gives exact incremental updates (below) and a cost of
 *    O(T/W * W log W) = O(T log W) for a full pass.
 *  - PELT/FPOP with a robust (biweight) cost (Fearnhead & Rigaill, JASA
 *    2019) would also be robust, but its decisions are global: a new
 *    point can move an old change point, so an incremental run cannot
 *    promise the full-recompute answer without redoing the whole series.
 *
 * Incremental: decisions made from windows that end before the last
 * commit are final. The state remembers where the first window touching
 * the last commit started (`resume`); a run after new commits (or a new
 * run of the last commit) restarts there with the final change points
 * kept. Because the scan is deterministic and each window sees only its
 * own data, the answer equals a full recompute (tests/unit/test_detect.c
 * checks this on every prefix of long series).
 *
 * Reported per change point (index = first commit after the change):
 *  before / after  median of the per-commit medians in
 *                  [max(prev change, index - W), index) and
 *                  [index, min(next change, index + W)), in input units
 *  change_pct      LKP's %change, 100 * (after - before) / before (signed
 *                  base; a base of 0 counts as 1e-100: compare_pct_change)
 *  direction       +1 after > before, -1 below: the change's sign, whatever
 *                  the sign of before
 *  noise_sigma, noise_rho  the noise model before the change
 *  noise_raised    the factor (>= 1) the check against the history (2a)
 *                  multiplied that sigma by; 1: not raised
 *  mw_p            two-sided Mann-Whitney p (ranktest.h) of the per-commit
 *                  medians in the before range vs the after range
 *  p_value         mw_p corrected for the search of the split position:
 *                  min(1, nsplits * mw_p), nsplits the positions a split
 *                  could take in before+after (Bonferroni); with rho > 0
 *                  mw_p is the levels' p of 2a instead; where the history
 *                  holds a cycle (2c), mw_p is the smaller of the two
 *                  readings' and p_value min(1, 2 nsplits mw_p)
 *
 * The final estimate of each accepted split: before/after/p over the
 * commits between its neighbours (at most W either side); when a level no
 * split separated makes that p fail, over the window that accepted it
 * (within the neighbours), so the size comes from the evidence that made
 * it significant, provided the step persists: where that window ended
 * because W cut it, not at a split binary segmentation accepted in it, the
 * same before side against the commits up to the next accepted split (at
 * most index + W) must pass p_max too, in the same direction. A commit's
 * effect lasts until another commit changes it, which the scan sees as a
 * split (a short excursion's return is one, 2b); a level that comes back
 * after the window's end without one (a +4.5 % excursion of 37 commits, a
 * two-mode series' upper mode gone for about 40 commits: Perfherder 5098699
 * at 59, 5095386 at 123) is not a change that lasted. A window cut at a
 * later split keeps its own end: that split is a second change the scan
 * saw, which the rescan from this one may find gradual (TCPD brent_spot:
 * the 2008 crash at 225, -52 %, then a partial recovery from 240). The last
 * good commit (index - 1) must lie nearer before
 * and the first bad one nearer after, else the split moves by up to
 * min_seg commits to the least L1 cost over its range, keeping min_seg
 * commits from the change point reported before it and from the next
 * accepted split, else it is dropped (DETECT_EDGE): a reported range
 * always holds its step, and no two reported change points are closer than
 * min_seg commits. Reported are the
 * change points whose final estimates then pass p_value <= p_max,
 * before != after, |change_pct| >= min_change_pct and the min_effect rule.
 * The accepted splits behind them stay in raw/nraw, which the scan and the
 * incremental state use. opts.explain keeps every candidate and the rule
 * that kept or dropped it (struct detect_candidate).
 *  window_p        the p of the window that accepted the change (that
 *                  window may end a few commits after it, so this is
 *                  often much larger than p_value)
 *
 * Online check (detect_online_check): Page's CUSUM (Biometrika 41 (1954)
 * 100-115) on robust z-scores of the newest commits against the recent
 * window (median, 1.4826 * MAD), each z clipped at +-clip (Huber) so one
 * outlier cannot raise an alarm: S+ = max(0, S+ + z - k), S- likewise,
 * alarm when either exceeds h. Defaults k = 1, h = 6, clip = 3.5: a 3
 * sigma step alarms on its 3rd commit, a single outlier never does.
 */

struct detect_opts {
	size_t window;	       /* commits per test window, default 64 (>= 8) */
	size_t min_seg;	       /* fewest commits on either side of a split, default 3 */
	double p_max;	       /* window p needed to accept and to report, default 1e-3 */
	double min_change_pct; /* smallest |%change| reported, default 0 */
	double cusum_k, cusum_h, cusum_clip; /* online check, defaults 1, 6, 3.5 */
	double min_effect;     /* smallest |after - before| in noise sigmas, default 0 (off) */
	size_t noise_lookback; /* windows of history behind the noise model, default 4 (2a) */
	double rho_min;	       /* lag-1 autocorrelation below this counts as 0, default 0.2 */
	int epidemic;	       /* 1: also test segments that come back (excursions), default 1 */
	int explain; /* 1: detect_series_run keeps every candidate in s->trace, default 0 */
};

/* Fills the defaults above. */
void detect_opts_init(struct detect_opts *o);

struct change_point {
	size_t index;	 /* first commit (position in the series) after the change */
	size_t id;	 /* the group number of that commit (detect_values), else index */
	size_t from, to; /* before is the median of [from, index), after of [index, to) */
	size_t window_from, window_to; /* the test window that accepted the split */
	double before, after, change_pct, p_value, mw_p, window_p;
	int direction;	     /* +1 after > before, -1 after < before: the change's sign */
	double noise_sigma;  /* the noise model before index (see above); NAN when unknown */
	double noise_rho;    /* ... its lag-1 autocorrelation, 0 when below rho_min */
	double noise_raised; /* ... the factor (>= 1) its sigma was raised by because the
			      * history moved more than the model allowed (2a); 1: not raised */
	size_t noise_cycle;  /* P > 0: p_value and the noise model are those of the range
			      * net of a cycle of P commits in its history (2c, the smaller p of
			      * the two readings); 0: of the values as they are */
};

/*
 * Why a candidate split was kept or dropped (detect_reason_text gives the
 * words). Each test window's best split (and, when that fails, its best
 * excursion) is a candidate at stage 0; each split accepted there is a
 * candidate again at stage 1, with its final estimate (its levels from the
 * neighbouring change points, p corrected for the positions it could take).
 */
enum detect_reason {
	DETECT_REPORTED,   /* passed every rule (stage 0: accepted; 1: reported) */
	DETECT_WEAK,	   /* p above opts.p_max */
	DETECT_SAME_LEVEL, /* the medians either side are equal */
	DETECT_SMALL,	   /* |change_pct| below opts.min_change_pct */
	DETECT_IN_NOISE,   /* |after - before| below opts.min_effect noise sigmas */
	DETECT_GRADUAL,	   /* the h = max(min_seg, 5) commits either side of the split
			    * differ by less than half of after - before: a drift, not a step */
	DETECT_EDGE,	   /* stage 1: the last good commit is not nearer the before level or
			    * the first bad one not nearer the after level, also when moved
			    * by up to min_seg commits: the range would not hold the step */
};

/* A static string: the rule in words ("p above p_max", ...). */
const char *detect_reason_text(enum detect_reason r);

/*
 * One candidate (opts.explain): the window [start, end) it was tested in
 * (commit positions), the split (index: first commit after it, id its
 * group as in struct change_point), the medians before and after it in
 * that window (stage 1: the final estimate's), LKP's %change, p (Bonferroni
 * over the splits or segments tried), the noise model (NAN sigma when
 * unknown) and effect = |after - before| / noise_sigma.
 */
struct detect_candidate {
	size_t start, end, index, id;
	int stage;     /* 0 the window scan, 1 the final estimate of an accepted split */
	int excursion; /* 1: the first edge of a segment that came back (epidemic test) */
	double before, after, change_pct, p_value, noise_sigma, noise_rho, effect;
	/*
	 * >= 1: the factor noise_sigma was raised by because the history moved more
	 * than the noise model allowed (2a, the model checked against the history),
	 * so a split "p above p_max" may be one the series' own moves explain;
	 * 1 when not raised or unknown
	 */
	double noise_raised;
	/*
	 * stage 0: 0 where the window was read as it is; P where it was read net of a
	 * cycle of period P commits that its history holds (2c: before, after and the
	 * noise model are then those of the values net of the cycle); stage 1: the
	 * change point's noise_cycle (its p and noise model net of the cycle; before
	 * and after the medians as they are)
	 */
	size_t cycle;
	enum detect_reason reason;
};

/*
 * A series and its detection state. Lifecycle: detect_series_init, then
 * detect_series_push per commit (in commit order) and detect_series_run
 * whenever a result is needed, then detect_series_release.
 * Fields are read-only for callers.
 */
struct detect_series {
	struct detect_opts opts;
	double *med;   /* per-commit medians, n of them */
	size_t *nruns; /* runs behind each median */
	size_t *ids;   /* group number per commit (detect_values only), else NULL */
	size_t n, alloc;
	struct change_point *cp; /* ncp reported change points after detect_series_run */
	size_t ncp, cp_alloc;
	struct change_point *raw; /* nraw accepted splits before the report filter (internal) */
	size_t nraw, raw_alloc;
	/* opts.explain: the candidates of the last detect_series_run, in the order
	 * tested (an incremental run: the windows from resume on, and every
	 * accepted split's final estimate) */
	struct detect_candidate *trace;
	size_t ntrace, trace_alloc;
	/* incremental state */
	size_t resume;	   /* commit where the next run restarts the scan */
	size_t nfinal;	   /* raw change points before resume (final) */
	size_t frozen_end; /* commits below this are read by final decisions */
	size_t dirty_from; /* lowest commit changed since the last run */
	size_t examined;   /* commits in the windows of the last run (cost figure) */
};

/* o may be NULL for the defaults; it is copied. */
void detect_series_init(struct detect_series *s, const struct detect_opts *o);
/* Frees all storage; s can be initialized again. */
void detect_series_release(struct detect_series *s);

/*
 * Appends one commit with its runs v[0..n) (borrowed for the call). Non-
 * finite values are ignored; a commit with no finite value is not added
 * and the call returns -1, else 0.
 */
int detect_series_push(struct detect_series *s, const double *v, size_t n);

/*
 * Replaces the runs of commit i (< s->n), e.g. after one more run of the
 * newest commit. Changing a commit that a final decision read resets the
 * state so the next run is a full recompute. Returns -1 (nothing changed)
 * when i is out of range or v has no finite value, else 0.
 */
int detect_series_set(struct detect_series *s, size_t i, const double *v, size_t n);

/*
 * Examines the series from s->resume to the end and updates s->cp /
 * s->ncp. Returns s->ncp. The result equals that of a fresh series with
 * the same commits (full recompute).
 */
size_t detect_series_run(struct detect_series *s);

/*
 * Offline convenience (regtrack detect): values v[0..n), group[i] the
 * commit of v[i] (group may be NULL: one value per commit). Groups need
 * not be sorted; commits are ordered by group number and groups without
 * values are skipped. Fills s (initialized here with o; caller releases)
 * and returns 0; change_point.index is then the group number of the first
 * commit after the change. Returns -1 with e filled (ERR_INVALID_FIELD)
 * when a group number is >= 10 * n + 1000000 (a guard against absurd ids).
 */
int detect_values(const double *v, const size_t *group, size_t n, const struct detect_opts *o,
		  struct detect_series *s, struct err *e) __attribute__((warn_unused_result));

struct detect_online {
	double center, scale; /* reference median and robust sigma */
	double s_hi, s_lo;    /* CUSUM sums after the last tail point */
	int alarm;	      /* +1 upward step, -1 downward, 0 none */
	size_t alarm_at;      /* tail index where the alarm fired */
	double change_pct;    /* 100 * (median(tail) - center) / |center| */
	size_t nref;	      /* reference commits compared against */
};

/*
 * Fast per-run check: the newest commits tail[0..ntail) against the
 * reference window ref[0..nref) (per-commit medians, borrowed). Needs
 * nref >= 4; with fewer, or ntail == 0, no alarm and the sums are 0.
 * O(nref log nref + ntail).
 */
void detect_online_check(const double *ref, size_t nref, const double *tail, size_t ntail,
			 const struct detect_opts *o, struct detect_online *out);

/*
 * The same check on a series: the last `ntail` commits against up to
 * opts.window commits before them (out->nref), starting at the last
 * change point found by detect_series_run before the tail. A change
 * point at the tail's first commit is the step into the tail: the
 * reference is then the segment before that step. With 1 to 3 reference
 * commits, center (their median) and change_pct are still given, with no
 * scale and no alarm; with none, all are NAN.
 */
void detect_series_check_tail(const struct detect_series *s, size_t ntail,
			      struct detect_online *out);

/*
 * Tip check (reports at the tip, server/detect/detect.c): has the newest commit
 * of s moved away from the recent window? The window is the commits
 * before it, from the last reported change point (or opts.window commits
 * back), the noise model that of detect_online_check: its median
 * (center) and robust sigma (1.4826 * MAD of the per-commit medians, the
 * mean absolute deviation when more than half are one value).
 *   z           (med[n-1] - center) / scale
 *   change_pct  LKP's %change from center to the tip's median
 *   moved       +1 (above) or -1 (below) when nref >= 4, |z| >= z_min and
 *               |change_pct| >= opts.min_change_pct; else 0
 * One commit cannot make the detector's step (it needs min_seg commits a
 * side) nor the CUSUM alarm (z is clipped at cusum_clip < cusum_h): this is
 * the signal to ask for more runs of the tip and the commit before it, the
 * comparison of which then decides (compare_samples). With Gaussian noise
 * |z| >= 3 happens at 0.27 % of quiet tips. z_min <= 0: never moved.
 */
struct detect_tip {
	size_t nref;	      /* window commits: [n - 1 - nref, n - 1), also when < 4 */
	double center, scale; /* the window's median and robust sigma; NAN when nref < 4 */
	double tip;	      /* the newest commit's median */
	double z, change_pct; /* NAN when nref < 4 */
	int moved;
};

void detect_series_tip(const struct detect_series *s, double z_min, struct detect_tip *out);

#endif
