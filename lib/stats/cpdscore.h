#ifndef REGTRACK_STATS_CPDSCORE_H
#define REGTRACK_STATS_CPDSCORE_H

#include <stddef.h>

#include "err.h"
#include "stats/detect.h"

/*
 * Scoring change points against human labels (`regtrack detect --score`,
 * tests/unit/test_cpdscore.c, `make bench` step realcpd). Pure functions:
 * label files in, figures out. Positions are 0-based commit positions; a
 * change point at i means commit i is the first of a new level (as
 * struct change_point.index).
 *
 * F1 and covering are those of TCPDBench (G.J.J. van den Burg and C.K.I.
 * Williams, "An Evaluation of Change Point Detection Algorithms", 2020,
 * arXiv:2003.06222, section 4.2; the code is TCPDBench's
 * analysis/scripts/metrics.py), written again here from that definition:
 *
 *  true_positives(T, X, M): for each tau of the set T in increasing order,
 *    the closest x of X with |tau - x| <= M that no earlier tau took (on a
 *    tie the smaller x) is matched and removed; the count of matched tau.
 *  F1 (margin M = 5): 0 is added to every annotator's set T_k and to the
 *    predictions X (all sets, duplicates dropped). Precision P =
 *    |TP(T*, X)| / |X| with T* the union of the T_k; recall R = mean over
 *    the K annotators of |TP(T_k, X)| / |T_k|; F = 2PR / (P + R) (their
 *    P R / (alpha R + (1 - alpha) P) with alpha 0.5), 0 when P + R = 0.
 *  Covering (Arbelaez et al., IEEE TPAMI 33 (2011) 898-916, eq. 8): a set
 *    of change points cuts [0, n) into segments (a point c with 0 < c < n
 *    starts a segment at c; others are ignored). C(S', S) = (1/n) sum over
 *    the segments R of an annotator's S of |R| * max over the predicted
 *    segments R' of |R n R'| / |R u R'|, averaged over the annotators.
 *
 * Checked: reporting nothing scores F1 .647 / cover .557 on the 25 TCPD
 * datasets of tests/fixtures/realcpd/tcpd that are in the paper's averages,
 * its published "zero" figures (tests/unit/test_cpdscore.c).
 *
 * Alert labels (the Perfherder form, `value label`; see the README of
 * tests/fixtures/realcpd): rows labelled TP or FN are true changes, rows
 * labelled TP, FN, SP or FP are alerts. Measured, with the true changes as
 * the one annotator of F1 and covering:
 *  found at margin M  true_positives(changes, predictions, M) (a detection
 *                     is matched to one change at most), for M = 5 and 20
 *  far                predictions more than CPDSCORE_FAR (5) positions from
 *                     every alert row (no alert at all: every prediction)
 *  far_early          of those, the ones at most CPDSCORE_MARGIN_WIDE (20)
 *                     positions before an alert: a step found before the
 *                     alert that named it (below), not a false alarm
 * Perfherder puts an alert where backfilled data confirmed it, sometimes
 * 8-16 rows after the visible step: the margin is symmetric, so a detection
 * at the visible step (before the alert) counts within +-20 but not +-5;
 * both are reported, and F1 keeps TCPDBench's 5.
 */

#define CPDSCORE_MARGIN 5	/* TCPDBench's F1 margin, and the narrow recall margin */
#define CPDSCORE_MARGIN_WIDE 20 /* the wide recall margin (alerts after the step) */
#define CPDSCORE_FAR 5		/* a prediction farther than this from every alert is "far" */

/* A set of positions: sorted, distinct. */
struct cpdscore_points {
	size_t *at; /* n of them; owned by the series */
	size_t n;
};

/*
 * One labelled series. The three forms cpdscore_series_parse reads:
 *  - TCPD JSON: {"name", "values": [..], "annotations": {"ID": [i, ..], ..}}
 *    values numbers or null (missing); one annotator per key (an empty list:
 *    that annotator saw no change).
 *  - ours, JSON: {"values": [..], "changes": [i, ..], "alerts": [i, ..],
 *    "groups": [..], "name": ".."}: "changes" the true changes (one
 *    annotator), "alerts" (optional) where an alert was raised (true or
 *    not; the changes count as alerts too; with it, the alert measures are
 *    given). "groups" (optional, integers >= 0, one per value) names the
 *    commit of each value: values of one group are runs of one commit,
 *    commits are ordered by group number, and the label indices are then
 *    group numbers. "annotations" may stand for "changes".
 *  - text: one `value label` a line (blank and `#` lines skipped), label TP,
 *    FN, SP, FP or TN, value a number or nan (missing); alert labels given.
 * Values that are null (JSON) or nan (text) are missing: the detector skips
 * them, their positions still count in n. Any other value must be a finite
 * number within +-2^63 (NUMLIST_MAX_ABS, the API's bound): inf, 1e400 or
 * 1e300 is refused, naming its line or values[i].
 */
struct cpdscore_series {
	char *name;	/* "name", else the file name without directory and extension */
	double *values; /* nvalues, NAN where missing */
	size_t nvalues;
	size_t *groups;		       /* nvalues group numbers, or NULL: one value per commit */
	size_t *commit_group;	       /* with groups: the group number of each commit, n of them */
	size_t n;		       /* commits (scored positions): nvalues, or distinct groups */
	struct cpdscore_points *annot; /* nannot >= 1 annotators' change points */
	size_t nannot;
	struct cpdscore_points alerts; /* with has_alerts: every alert position */
	int has_alerts;
};

/*
 * Parses text (len bytes, borrowed) in one of the forms above: JSON when
 * its first character after blank and `#` lines is '{', else text. name
 * (borrowed) is the name when the JSON gives none. Fills s (caller releases
 * with cpdscore_series_release, also after a failure). Returns 0, or -1
 * with e filled: ERR_INVALID_JSON (also a key given twice), or
 * ERR_INVALID_FIELD naming the line or the field (an unknown label, a JSON
 * key none of the forms has: a misspelt "alert" would drop the alert
 * measures silently, a value out of range, a label index with no commit,
 * values and groups of different lengths, no values (an empty file) or every
 * value missing, no labels).
 */
int cpdscore_series_parse(const char *text, size_t len, const char *name, struct cpdscore_series *s,
			  struct err *e) __attribute__((warn_unused_result));

/*
 * Reads the file at path (at most 256 MiB) and parses it as above, named by
 * the file name without directory and extension unless the JSON names it.
 * Errors as cpdscore_series_parse, plus numlist_read_file's (ERR_NOT_FOUND,
 * ERR_TOO_LARGE, ERR_IO); every message names the path.
 */
int cpdscore_series_load(const char *path, struct cpdscore_series *s, struct err *e)
	__attribute__((warn_unused_result));

/* Frees what s holds; s is then zeroed. */
void cpdscore_series_release(struct cpdscore_series *s);

/*
 * Runs detect_values() with o (NULL: the defaults) on the series' finite
 * values and gives the change points as positions of s: *pred (new, caller
 * frees with free(); never NULL), *npred, increasing. Returns 0, or -1 with
 * e filled by detect_values.
 */
int cpdscore_detect(const struct cpdscore_series *s, const struct detect_opts *o, size_t **pred,
		    size_t *npred, struct err *e) __attribute__((warn_unused_result));

/*
 * |TP(truth, pred)| of metrics.py's true_positives (above) at margin; both
 * arrays are sets (any order, duplicates counted once; borrowed).
 */
size_t cpdscore_true_positives(const size_t *truth, size_t ntruth, const size_t *pred, size_t npred,
			       size_t margin);

/*
 * TCPDBench's F1 of pred[0..npred) against the nannot (>= 1) annotators at
 * margin (TCPDBench: 5), 0 added to every set as above. *precision and
 * *recall (each may be NULL) get P and R. Returns F in [0, 1].
 */
double cpdscore_f1(const struct cpdscore_points *annot, size_t nannot, const size_t *pred,
		   size_t npred, size_t margin, double *precision, double *recall);

/*
 * TCPDBench's covering of [0, n) by pred's segmentation, averaged over the
 * nannot (>= 1) annotators. In [0, 1]; NAN when n is 0.
 */
double cpdscore_cover(const struct cpdscore_points *annot, size_t nannot, const size_t *pred,
		      size_t npred, size_t n);

/* How many of pred lie more than dist positions from every alert (all when nalerts is 0). */
size_t cpdscore_far(const size_t *alerts, size_t nalerts, const size_t *pred, size_t npred,
		    size_t dist);

/*
 * How many of pred lie more than dist positions from every alert and at
 * most before positions before one of them (alert - pred in (dist,
 * before]); 0 when nalerts is 0.
 */
size_t cpdscore_far_early(const size_t *alerts, size_t nalerts, const size_t *pred, size_t npred,
			  size_t dist, size_t before);

/* Every figure of one series for one set of predictions. */
struct cpdscore_result {
	size_t n, npred;
	double f1, precision, recall, cover; /* margin CPDSCORE_MARGIN */
	double zero_f1, zero_cover;	     /* the same for no prediction at all */
	/* with alert labels (has_alerts), else 0: */
	size_t nchanges;   /* true changes (the one annotator's points) */
	size_t found;	   /* of them matched within CPDSCORE_MARGIN */
	size_t found_wide; /* ... within CPDSCORE_MARGIN_WIDE */
	size_t far;	   /* predictions > CPDSCORE_FAR from every alert */
	size_t far_early;  /* of them, <= CPDSCORE_MARGIN_WIDE before an alert */
};

/* Scores pred[0..npred) (positions of s, borrowed) into r. */
void cpdscore_series_score(const struct cpdscore_series *s, const size_t *pred, size_t npred,
			   struct cpdscore_result *r);

/*
 * 1 when TCPDBench's averages leave the dataset named name out: the five
 * quality_control_* sets and uk_coal_employ (missing values); else 0.
 */
int cpdscore_paper_excluded(const char *name);

/*
 * Sums over series. F1 and cover (and the no-prediction ones) are averaged
 * over the series not left out by cpdscore_paper_excluded (naveraged), the
 * alert figures summed over the series with alert labels.
 */
struct cpdscore_total {
	size_t nseries, naveraged;
	double f1, cover, zero_f1, zero_cover; /* sums over the averaged series */
	size_t alert_series, alert_points, alert_npred;
	size_t nchanges, found, found_wide, far, far_early;
};

/* Zeroes t. */
void cpdscore_total_init(struct cpdscore_total *t);

/* Adds one scored series (s only for its name and has_alerts, borrowed). */
void cpdscore_total_add(struct cpdscore_total *t, const struct cpdscore_series *s,
			const struct cpdscore_result *r);

#endif
