#ifndef REGTRACK_SERVER_REGRESSIONS_H
#define REGTRACK_SERVER_REGRESSIONS_H

#include <jansson.h>

#include "err.h"

struct db_conn;

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
 *  - direction: +1 the values rose, -1 they fell: the sign of the two
 *    sides' Hodges-Lehmann shift when their comparison (below) is
 *    `different` (the test that decided), else the detector's step
 *    (change_point.direction). Never the sign of a %change: one failed run
 *    moves the means the other way, and LKP's %change of a negative base
 *    has the opposite sign.
 *  - kind: change_kind_of(direction, metrics.higher_is_better): a fall of
 *    a higher-is-better metric (or a rise of a lower-is-better one) is
 *    `regression`, the opposite `improvement`; unknown direction (NULL):
 *    `change`.
 *  - sizes: compare_samples() (stats/compare.h) of the run means on the
 *    two sides of the change: before = the commits from the previous
 *    change point (or `detect_window` commits back) to the last good
 *    commit, after = the first bad commit up to the next change point (or
 *    `detect_window` commits on). hl_pct (the record's size: the HL shift
 *    as %, shift the same in the metric's units), its CI (ci_pct), the
 *    Mann-Whitney p_value and the outlier runs of each side come from
 *    there; change_pct is LKP's %change of the means, kept for the table;
 *    `pair` is the same comparison of the last good commit's runs
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
 *       in the record's direction (p <= 0.01 and |HL shift| above the
 *       floor: 1 %, 5 % for monitor metrics) — which needs enough runs: at
 *       least 5 a side, or 4 vs 6, 3 vs 8, ... (3 vs 3 can never get
 *       there); or
 *   (b) the step persists: the comparison of the two sides is
 *       `different`, the detector's step points its way, at least
 *       `detect_confirm_commits` (default 5) commits lie on the after side
 *       (before the next change point), each of the first that many has its
 *       per-commit median nearer the detector's `after` level than its
 *       `before` level, and the last good commit's median is nearer
 *       `before` (so the step sits at this commit and not one next to it: a
 *       change point placed a commit or two early by a chance split stays
 *       `new`).
 * Otherwise the record stays `new`. The detector never moves a record out
 * of any other state, and never back to `new`.
 *
 * Reports at the tip (detect_tip.c check_tip, detect_series_tip of
 * stats/detect.h): the detector needs min_seg commits after a step, and
 * rule (b) detect_confirm_commits, so with one tested commit per push a
 * step would wait days. When the newest commit of a series was tested by
 * a plan (a job a push queued) and its median lies detect_tip_z (3) or
 * more robust sigmas from the commits before it (since the last change
 * point, at most detect_window; at least 4) and at least
 * detect_min_change_pct away, the detector queues one job more of that
 * setup with detect_tip_runs (5) runs for the tip and for the commit
 * before it in the series: the plan's job, its priority, track_key
 * KEY + " tip", so the unique index makes each exactly once (two servers,
 * many metrics, every later pass). When their runs are in and the pair
 * (the commit before vs the tip) is `different` in the tip's direction,
 * the range (commit before, tip) is recorded, confirmed by rule (a), with
 * commits_after 1, the sides the window vs the tip, the detector's figures
 * the window's median and the tip's, and a history note "detected at the
 * tip"; the auto-bisect then takes it. A pair that stays `same` or
 * `need-more-runs` records nothing (the extra runs were spent). A record
 * whose first bad commit is the tip stays detected while that commit is
 * the tip (bisect runs inside its range do not move it). The pair's runs
 * may land after a later push made another commit the tip: then
 * (detect_tip.c check_tip_pairs) every two neighbouring commits of the
 * series that both got extra tip runs are compared on their own runs, and
 * a `different` pair is recorded as above, in the pair's direction, with
 * commits_after the commits from its first bad one to the end.
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
/*
 * What a record's state says about the detector's alert, for the alert-quality
 * ledger and backtests: +1 a true change (someone confirmed it or
 * acted on it: confirmed, bisecting, bisected, reported, fixed, wontfix),
 * -1 a false alarm (invalid), 0 not judged yet (new) or unknown s (NULL too).
 * `confirmed` counts although the detector itself sets it: rule (a)/(b) above
 * is a repeated measurement of the pair, which a person would do first.
 */
int regression_state_label(const char *s);

/* 1 when s is "regression", "improvement" or "change", else 0. */
int regression_kind_valid(const char *s);

/*
 * The evidence of a record in words (lib/evidence.h), from rec, the record
 * as the API has it (borrowed; its commits_after, hl_pct, ci_pct, shift,
 * noise_sigma, noise_cycle, mean_before and mean_after): a new object
 * {commits_after, shift_pct, ci_pct [lo, hi], shift, noise_sigma,
 * spread_ratio, noise_cycle (P > 0: that sigma net of a cycle of P commits
 * in the series' history; 0: as it is or unknown), text},
 * every number the record's own (null when unknown), text the sentence
 * (null when there is nothing to say: a record without a size; a change
 * from a base of zero says its levels). The page and the mail show the
 * same words.
 */
json_t *regression_evidence_json(const json_t *rec);

/*
 * Sets the state of record `id` (state NULL keeps it: a note only) and
 * writes its history row (who NULL = "token:NAME" of token_id; token_id 0
 * = none). Must run inside the caller's transaction: both writes commit
 * or neither. from / to (may be NULL) receive the states before and
 * after (static strings from regression_states, or "" when unknown).
 * Errors (-1, e): 404 "not_found" (no such record), 400 "invalid_field"
 * detail "state" (not a known state), the store's errors (db.h).
 */
int regression_transition(struct db_conn *c, long long id, const char *state, const char *who,
			  long long token_id, const char *note, const char **from, const char **to,
			  struct err *e) __attribute__((warn_unused_result));

/*
 * A person's triage of record `id` (PATCH /api/v1/regressions/{id}, POST
 * .../invalid), inside the caller's transaction: regression_transition()
 * by token_id, except that a state the record already has is no change.
 * Then nothing is written when the note is NULL or blank, or when it equals
 * that of the record's newest history row into this state (the reason it
 * carries: a second click, the mail's command run twice); another note is
 * kept as a note alone (from = to, as a note without state), never as a
 * move from the state to itself. state NULL: a note alone. *written: 1
 * when a history row was written, else 0 (the caller may roll back: the
 * record was locked, not changed). Errors: as regression_transition().
 */
int regression_triage(struct db_conn *c, long long id, const char *state, long long token_id,
		      const char *note, int *written, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The change points of one series for GET /api/v1/series: the records of
 * (setup_id, metric) with detected = true, as a new array of
 * {index, commit, good_commit, before, after, change_pct, p_value,
 * hl_pct, direction, regression_id, kind, state}, where index is the position of the first
 * bad commit in shas[0..nr_shas) (the series' commits' shas in order,
 * borrowed; a plain array, not 20,000 json objects built per request); a
 * record whose commit is not among them is left out. before / after /
 * change_pct / p_value are the detector's figures; hl_pct and direction
 * the record's size and direction (null for records from before
 * sql/0015), which its kind follows. NULL with e on a db
 * error.
 */
json_t *regression_change_points(struct db_conn *c, long long setup_id, const char *metric,
				 const char *const *shas, size_t nr_shas, struct err *e);

#endif
