#ifndef REGTRACK_SERVER_PLAN_DETECT_H
#define REGTRACK_SERVER_PLAN_DETECT_H

#include <jansson.h>

#include "err.h"
#include "server/config.h"
#include "stats/detect.h"

/*
 * A plan's detector settings: the plan's optional object
 *
 *   "detect": {"p_max": 0.001, "window": 64, "min_seg": 3,
 *              "min_change_pct": 1, "min_effect": 1.3}
 *
 * whose keys are fields of struct detect_opts (stats/detect.h says what
 * each does). One declarative table (lib/stats/detect_keys.h, which
 * `regtrack detect`'s options share) names each key, its type (a real, or
 * an integer for a size_t field), its field and its bounds; adding a field
 * of detect_opts is one line there. A key left out
 * is the server's default (plan_detect_defaults()), which follows the
 * server's config when that changes; the plan stores only the keys given.
 *
 * The same keys are what a backtest changes (`--set k=v`, the API's
 * "set" object): server/detect/backtest.h.
 */

/*
 * Checks object `in` (borrowed; NULL or JSON null: absent) against the
 * table and sets *out to a new object of the keys given, integers for
 * size keys and reals for the others (so 1 and 1.0 store alike), or to
 * NULL when in is absent or empty. prefix names the object in errors
 * ("detect." -> detail "detect.p_max").
 * Errors (-1, e filled, *out NULL): ERR_INVALID_FIELD with detail
 * prefix + key: not an object (detail prefix without its dot), an unknown
 * key, a value of the wrong type or outside the key's bounds, min_seg
 * more than half of window when both are given.
 */
int plan_detect_check(const json_t *in, const char *prefix, json_t **out, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The server's defaults, what a plan without "detect" gets:
 * detect_opts_init() with cfg's detect_window, detect_p_max and
 * detect_min_change_pct.
 */
void plan_detect_defaults(const struct config *cfg, struct detect_opts *o);

/* Sets the fields of o that checked object `settings` (borrowed; NULL: none) names. */
void plan_detect_apply(const json_t *settings, struct detect_opts *o);

/*
 * The settings one metric's series is detected with: base, with
 * min_change_pct raised to PLAN_DETECT_MONITOR_MIN_PCT (5) for a
 * monitor's metric (perf-stat.*, perf-profile.*: noisier, and not what
 * a plan is tuned for).
 */
#define PLAN_DETECT_MONITOR_MIN_PCT 5.0
void plan_detect_metric(const struct detect_opts *base, int is_monitor, struct detect_opts *out);

/* Every key of the table with o's value, as a new object (the backtest's "current" / "new"). */
json_t *plan_detect_json(const struct detect_opts *o);

/*
 * One `--set KEY=VALUE` argument into obj (borrowed): VALUE as an integer
 * when it reads as a decimal one, else a real when it is a finite decimal
 * number (digits, sign, point, exponent: no nan, inf or hex), else kept as
 * a string (which plan_detect_check() then refuses naming the key). Errors
 * (-1, e): ERR_INVALID_FIELD (detail "set") when arg has no '=', an
 * empty key, or a key obj already holds (given twice).
 */
int plan_detect_set_arg(json_t *obj, const char *arg, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Once checked object `given` (borrowed; NULL: none) was applied over
 * other settings into o: 0 when given names neither min_seg nor window,
 * or o's min_seg is at most half its window; else -1 with e
 * (ERR_INVALID_FIELD, detail prefix + "min_seg" when given names it, else
 * prefix + "window"). plan_detect_check() sees only the keys given; this
 * sees what they make with the keys they are applied over (a backtest's
 * `set.min_seg` 40 over a window of 64).
 */
int plan_detect_check_fit(const struct detect_opts *o, const json_t *given, const char *prefix,
			  struct err *e) __attribute__((warn_unused_result));

#endif
