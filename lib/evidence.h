#ifndef REGTRACK_EVIDENCE_H
#define REGTRACK_EVIDENCE_H

#include <stddef.h>

#include "buf.h"

/*
 * A regression record's evidence in words, one sentence
 * for its page, its API record ("evidence") and its mail, shown next to
 * its p value:
 *
 *   the 12 tested commits after moved by -20.1 % [-20.5, -19.7], 48.3 × the
 *   series' own spread
 *
 * Every number is the record's own, from the comparison its size and
 * direction come from (server/detect/regressions.h): the runs of the commits
 * before the change against the runs of the commits after it.
 *  - commits_after: the tested commits on the after side (the record's
 *    commits_after);
 *  - shift_pct: the record's size, the Hodges-Lehmann shift of the two
 *    sides as % (hl_pct; stats/compare.h), and [ci_lo_pct, ci_hi_pct] its
 *    95 % distribution-free interval (Bauer's, the record's ci_pct);
 *  - spread ratio: |shift| / noise_sigma, the same shift in the metric's
 *    units over the detector's noise sigma of the series (the robust
 *    standard deviation of one commit's median before the change,
 *    change_point.noise_sigma of stats/detect.h; for a change found at the
 *    tip, the recent window's robust sigma): how many of the series' own
 *    typical commit-to-commit wobbles the step is. Where that sigma is
 *    the series' net of a cycle in its history (change_point.noise_cycle,
 *    detect.h 2c: the change's p came from that reading) the words say so:
 *    "2.3 × the series' own spread net of its 12-commit cycle".
 *  - before, after: the two sides' means, in the metric's units (the
 *    record's mean_before, mean_after). Used only for a change from a base
 *    of zero, whose size as % is infinite (and LKP's %change, with its
 *    1e-100 base, a hundred digits): that sentence says the levels instead,
 *
 *      the 15 tested commits after moved from 0 to 5 (the base is 0: no
 *      %change)
 *
 *    the levels with up to 4 significant digits (evidence_level()).
 *
 * Numbers: signed, 1 decimal (2 when |shift_pct| < 1, so a small change
 * keeps its digits), never "-0.0"; the ratio with 1 decimal (none from
 * 100 on). A part whose numbers are unknown is left out: no interval
 * without both ends, no ratio without a positive noise sigma and a finite
 * shift. Pure, no allocation but out's.
 */
struct evidence {
	size_t commits_after;	     /* tested commits after the change; 0: unknown */
	double shift_pct;	     /* the record's size (HL shift, %); NAN: unknown */
	double ci_lo_pct, ci_hi_pct; /* its 95 % interval; NAN: unknown */
	double shift;		     /* the shift in the metric's units; NAN: unknown */
	double noise_sigma;	     /* the detector's noise sigma, same units; NAN: unknown */
	size_t noise_cycle;	     /* P > 0: that sigma is net of a cycle of P commits; 0: not */
	double before, after;	     /* the two sides' means, same units; NAN: unknown */
};

/* Every number unknown (NAN), commits_after 0. */
void evidence_init(struct evidence *ev);

/* |shift| / noise_sigma, or NAN when either is unknown or noise_sigma is not > 0. */
double evidence_spread_ratio(const struct evidence *ev);

/*
 * 1 when ev is a change from a base of zero: shift_pct is not finite (the
 * comparison's % of a base of zeros is infinite, stored as unknown),
 * before is 0 and after is known and not 0: say the levels instead.
 */
int evidence_base_zero(const struct evidence *ev);

/* x as a person reads a level: up to 4 significant digits ("5", "0.125", "1.235e+06") */
void evidence_level(double x, char out[32]);

/*
 * Appends the sentence (UTF-8, no newline, no final period) to out.
 * Appends nothing and returns 0 when there is nothing to say: commits_after
 * 0, or shift_pct not finite (a record older than its size, sql/0015)
 * unless the base is zero (evidence_base_zero(): the levels are said).
 * 0, or -1 when out is full (out keeps what fit).
 */
int evidence_text(const struct evidence *ev, struct buf *out) __attribute__((warn_unused_result));

#endif
