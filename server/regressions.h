#ifndef REGTRACK_SERVER_REGRESSIONS_H
#define REGTRACK_SERVER_REGRESSIONS_H

#include <jansson.h>
#include <libpq-fe.h>

#include "err.h"

/*
 * Regression records (sql/0003_regressions.sql): what a detected change
 * of one series becomes, and the rules that govern it.
 *
 * Series: one metric of one setup (testcase, params, kconfig, compiler,
 * tbox_group, mode), commits in series order, each run's mean over its
 * iterations one sample (detect.h runs the detector).
 *
 * Record: one per (setup, metric, last good commit, first bad commit); a
 * re-detection of the same range updates its figures (upsert), never adds
 * a second record.
 *  - kind: by the metric's direction (metrics.higher_is_better) and the
 *    sign of change_pct: a drop of a higher-is-better metric (or a rise
 *    of a lower-is-better one) is `regression`, the opposite
 *    `improvement`; unknown direction (NULL) or no finite change_pct:
 *    `change`.
 *  - sizes: compare_samples() (stats/compare.h) of the run means on the
 *    two sides of the change: before = the commits from the previous
 *    change point (or `detect_window` commits back) to the last good
 *    commit, after = the first bad commit up to the next change point (or
 *    `detect_window` commits on). change_pct (of means, as LKP), its
 *    Hodges-Lehmann CI (ci_pct) and the Mann-Whitney p_value come from
 *    there; `pair` is the same comparison of the last good commit's runs
 *    against the first bad commit's runs alone; `detector` holds the
 *    detector's own figures (medians of per-commit medians, search-
 *    corrected p).
 *  - group: every record with the same range (good, bad), whatever the
 *    setup or metric; the group's id is the smallest record id in it (the
 *    first record of that range), computed when read, so it stays right
 *    when records come and go.
 *
 * States: new, confirmed, bisecting, bisected, reported, fixed, invalid,
 * wontfix. Each change is a regression_history row (who: "detector" or
 * "token:NAME", when, from, to, note), written in the same transaction.
 *
 * When `new` becomes `confirmed` (the detector does this, and only this):
 *   (a) the pair comparison (last good vs first bad commit) is `different`
 *       (p <= 0.01 and |%change| above the floor: 1 %, 5 % for monitor
 *       metrics) — which needs enough runs: at least 5 a side, or 4 vs 6,
 *       3 vs 8, ... (3 vs 3 can never get there); or
 *   (b) the step persists: the comparison of the two sides is
 *       `different`, at least `detect_confirm_commits` (default 5) commits
 *       lie on the after side (before the next change point), each of the
 *       first that many has its per-commit median nearer the detector's
 *       `after` level than its `before` level, and the last good commit's
 *       median is nearer `before` (so the step sits at this commit and not
 *       one next to it: a change point placed a commit or two early by a
 *       chance split stays `new`).
 * Otherwise the record stays `new`. The detector never moves a record out
 * of any other state, and never back to `new`.
 *
 * When a re-detection no longer finds a range: a record still `new` (no
 * one looked at it, not confirmed) is withdrawn (deleted with its
 * history); any other record stays, with detected = false and a history
 * note. Change points shown by the series API are the records with
 * detected = true.
 */

/* NULL-terminated list of the states above, in lifecycle order (static). */
extern const char *const regression_states[];

/* 1 when s is one of regression_states, else 0. */
int regression_state_valid(const char *s);
/* 1 when s is "regression", "improvement" or "change", else 0. */
int regression_kind_valid(const char *s);

/*
 * Sets the state of record `id` (state NULL keeps it: a note only) and
 * writes its history row (who NULL = "token:NAME" of token_id; token_id 0
 * = none). Must run inside the caller's transaction: both writes commit
 * or neither. from / to (may be NULL) receive the states before and
 * after (static strings from regression_states, or "" when unknown).
 * Errors (-1, e): 404 "not_found" (no such record), 400 "invalid_field"
 * detail "state" (not a known state), db errors as db_exec().
 */
int regression_transition(PGconn *c, long long id, const char *state, const char *who,
			  long long token_id, const char *note, const char **from, const char **to,
			  struct err *e) __attribute__((warn_unused_result));

/*
 * The change points of one series for GET /api/v1/series: the records of
 * (setup_id, metric) with detected = true, as a new array of
 * {index, commit, good_commit, before, after, change_pct, p_value,
 * regression_id, kind, state}, where index is the position of the first
 * bad commit in shas[0..nr_shas) (the series' commits' shas in order,
 * borrowed; a plain array, not 20,000 json objects built per request); a
 * record whose commit is not among them is left out. before / after /
 * change_pct / p_value are the detector's figures. NULL with e on a db
 * error.
 */
json_t *regression_change_points(PGconn *c, long long setup_id, const char *metric,
				 const char *const *shas, size_t nr_shas, struct err *e);

#endif
