#ifndef REGTRACK_SERVER_QUALITY_H
#define REGTRACK_SERVER_QUALITY_H

#include <jansson.h>
#include <stddef.h>

#include "server/db/quality.h"

/*
 * The alert-quality ledger (README "Alert quality"): what people
 * made of the detector's alerts, from the states of its regression records.
 *
 * Each record first detected in the window [since, until) is one alert;
 * its current state's regression_state_label() (server/detect/regressions.h, the
 * one definition) says what it was: +1 a true change, -1 a false alarm,
 * 0 not judged yet. Records of every kind count (a regression, an
 * improvement, a change of unknown direction are all alerts); a `new`
 * record the detector withdrew is gone and counts nowhere.
 *
 *   precision = true / (true + false), null when no record was judged
 *   false alarms per week of a plan = its false alarms / (window length
 *       in seconds / 604800): the window's length, not the weeks that had
 *       records; `weekly` counts them per 7-day step from since (the last
 *       step may be shorter), by each record's detection time
 */

/*
 * The GET /api/v1/quality reply for rows (db_quality_read()'s, in its
 * order; borrowed) of the window [since, until) (unix seconds, until >
 * since): a new object
 *   {window: {since, until (RFC 3339, UTC, whole seconds), days, weeks
 *             (the length in days and in weeks, reals), week_starts: [RFC
 *             3339 …] (one per 7-day step from since)},
 *    labels: {true_change: [state…], false_alarm: […], unjudged: […]},
 *    overall: COUNTS,
 *    by_plan: [{plan (null = none), COUNTS…}], by_testcase: [{testcase, …}],
 *    by_metric: [{metric, …}], by_tbox_group: [{tbox_group, …}]
 *       (each sorted by name in byte order, no plan first),
 *    groups: [{plan, testcase, metric, tbox_group, COUNTS…}] (rows' order),
 *    false_alarms_per_week: [{plan, false_alarms, alerts, per_week (real),
 *       weekly: [count per week_starts entry]}] (by_plan's order)}
 * where COUNTS = true_changes, false_alarms, unjudged, alerts (their sum)
 * and precision (real, or null when true_changes + false_alarms is 0).
 * A row of an unknown state counts as unjudged (label 0); a week outside
 * the window's steps counts in the nearest one.
 */
json_t *quality_json(const struct db_quality_row *rows, size_t n, double since, double until);

/*
 * {true_change: [...], false_alarm: [...], unjudged: [...]}: the states of
 * regression_states by their regression_state_label(), in lifecycle order.
 * New object.
 */
json_t *quality_labels_json(void);

#endif
