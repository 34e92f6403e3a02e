#ifndef REGTRACK_STATS_DETECT_KEYS_H
#define REGTRACK_STATS_DETECT_KEYS_H

#include <stddef.h>

#include "stats/detect.h"

/*
 * The detector settings a user may set, and their bounds: one table read by
 * a plan's "detect" object and a backtest's "set" (server/detect/plan_detect.h)
 * and by `regtrack detect`'s options (cli/cmd_detect.c), so the command line
 * refuses what the API refuses. Each key is a field of struct detect_opts
 * (stats/detect.h says what each does):
 *
 *   p_max           real     0..1       the window p a split needs
 *   window          integer  8..100000  commits per test window
 *   min_seg         integer  1..1000    fewest commits either side of a split,
 *                                       and at most half the window
 *   min_change_pct  real     0..1000    smallest |%change| reported
 *   min_effect      real     0..100     smallest step in noise sigmas
 *
 * Bounds are inclusive. Adding a field of detect_opts is one line of the table.
 */

enum detect_key_type {
	DETECT_KEY_REAL, /* a double field */
	DETECT_KEY_SIZE, /* a size_t field: an integer */
};

struct detect_key {
	const char *name; /* "p_max", ... */
	enum detect_key_type type;
	size_t offset;	 /* of the field in struct detect_opts */
	double min, max; /* inclusive */
};

/* The table, detect_nkeys entries, in the order above (static). */
extern const struct detect_key detect_keys[];
extern const size_t detect_nkeys;

/* The key named name, or NULL (name borrowed). */
const struct detect_key *detect_key_find(const char *name);

/* 1 when x is finite and within k's bounds (an integer for a size key), else 0. */
int detect_key_in_bounds(const struct detect_key *k, double x);

/* k's field of o, as a double (a size key's value converted). */
double detect_key_get(const struct detect_opts *o, const struct detect_key *k);

/* Sets k's field of o to x (a size key's to (size_t)x; x checked by the caller). */
void detect_key_set(struct detect_opts *o, const struct detect_key *k, double x);

/*
 * 1 when o's min_seg is at most half its window (a split needs min_seg
 * commits on each side of one test window), else 0.
 */
int detect_keys_seg_fits(const struct detect_opts *o);

#endif
