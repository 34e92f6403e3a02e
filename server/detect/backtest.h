#ifndef REGTRACK_SERVER_BACKTEST_H
#define REGTRACK_SERVER_BACKTEST_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"
#include "server/config.h"
#include "server/db/backtest.h"
#include "server/db/regressions.h"
#include "stats/detect.h"

struct db_conn;

/*
 * Backtests: before a lab changes a plan's detector settings,
 * what would the change have alerted on its stored history, and were
 * those alerts right?
 *
 * The detector runs over every metric series of every setup the plan's
 * jobs put runs into (the series detection reads, db_detect_series), once
 * with the plan's current settings (the server's defaults with its
 * "detect" keys, plan_detect.h) and once with those changed by `set`. Its
 * change points are the alerts of each side, a change point at series
 * position i being the range (commit i-1, commit i) as detection records
 * it. An alert of one side is "the same" as one of the other when its
 * series and range are the same; a change point the new settings move by
 * a commit is one removed and one added.
 *
 * Each alert is matched to the stored records of its series: the record
 * of its exact range, else the narrowest record whose range holds it
 * (good at or before i-1, bad at or after i; a bisected record's range is
 * its detected range); and labelled by the record's state through
 * regression_state_label(): true (a change people confirmed or acted on),
 * false (invalid: a false alarm), unjudged (new), or unlabelled (no
 * record: never alerted, or withdrawn).
 *
 * Tallies: `before` and `after` count every alert of each side, `added`
 * the alerts of the new settings only, `removed` those of the current
 * settings only; precision = true / (true + false), none when nothing is
 * judged. With `since`, only the alerts whose first bad commit is dated
 * on or after it count (the detector still reads the whole series).
 *
 * Nothing is written: the reads run in one read-only transaction.
 */

enum backtest_label {
	BACKTEST_TRUE,	     /* regression_state_label() +1 */
	BACKTEST_FALSE,	     /* -1: invalid */
	BACKTEST_UNJUDGED,   /* 0: new */
	BACKTEST_UNLABELLED, /* no record */
	BACKTEST_NR_LABELS
};

/* "true", "false", "unjudged", "unlabelled" (static) */
const char *backtest_label_name(enum backtest_label l);

/* One alert of one side. */
struct backtest_alert {
	long long setup_id, metric_id;
	char *metric;				   /* new; backtest_release() */
	long long good_commit, bad_commit;	   /* commits.id: last good, first bad */
	double before, after, change_pct, p_value; /* the detector's figures (change_point) */
	long long record_id;			   /* the matched record, 0 when none */
	char state[16];				   /* its state, "" when none */
	enum backtest_label label;
};

struct backtest_tally {
	size_t alerts;
	size_t n[BACKTEST_NR_LABELS];
};

/* true / (true + false); NAN when neither */
double backtest_precision(const struct backtest_tally *t);

struct backtest {
	struct detect_opts cur, next; /* the two settings (monitor metrics: plan_detect_metric) */
	struct backtest_alert *added, *removed;
	size_t nadded, nremoved, added_alloc, removed_alloc;
	struct backtest_tally before, after, add, rem;
	size_t series;	       /* metric series examined */
	size_t points;	       /* their commits summed over the series: a commit once per series */
	size_t commits;	       /* distinct commits among them (commits.id), whatever their series */
	long long *commit_ids; /* those commits, ascending (backtest_add()) */
	size_t ncommit_ids, commit_ids_alloc;
};

/* Starts a backtest of settings cur against next (both copied). */
void backtest_init(struct backtest *b, const struct detect_opts *cur,
		   const struct detect_opts *next);
/* Frees the alerts and commit ids; b can be initialized again. */
void backtest_release(struct backtest *b);

/* One setup's stored history, all borrowed for the call. */
struct backtest_input {
	long long setup_id;
	const struct db_detect_point *p; /* db_detect_series() rows: by metric, in series order */
	size_t n;
	const struct db_backtest_record *rec; /* the setup's records */
	size_t nrec;
	int since;		    /* 1: only alerts whose first bad commit is in since_ids */
	const long long *since_ids; /* ascending */
	size_t nsince;
};

/*
 * Runs both settings over every metric series of in and adds its alerts
 * and tallies to b, and its series, points and distinct commits (a commit
 * already counted from another series or setup is not counted again).
 * Pure: no I/O.
 */
void backtest_add(struct backtest *b, const struct backtest_input *in);

/*
 * POST /api/v1/plans/{name}/backtest and `regtrack-server backtest`: the
 * backtest of plan `name` with cfg's defaults, since (NULL: the whole
 * history; "YYYY-MM-DD" or RFC 3339) and set (borrowed, NULL: nothing
 * changed; the keys of plan_detect.h) on connection c, which must be
 * idle; nothing is written (a read-only transaction, rolled back).
 * *out, a new object:
 *   {"plan", "since" (RFC 3339 or null), "set" (the keys changed),
 *    "current", "new" (every setting of each side),
 *    "series" (metric series examined), "commits" (distinct commits
 *    among them), "points" (commits summed over the series),
 *    "before", "after": {"alerts", "true", "false", "unjudged",
 *                        "unlabelled", "precision" (null: none judged)},
 *    "added", "removed": {"alerts", "true", "false", "unjudged",
 *                         "unlabelled", "list": [alert]}}
 * an alert {"testcase", "params", "kconfig", "compiler", "tbox_group",
 * "mode", "monitors", "metric", "good", "bad" (shas), "before", "after",
 * "change_pct", "p_value", "regression_id" (null: none), "state" (null:
 * none), "label"}; lists by testcase, setup, metric, then series order.
 * Errors (-1, e): ERR_INVALID_FIELD naming "since" or "set.KEY" (also
 * set.min_seg or set.window when min_seg would be more than half the
 * window once set is applied over the plan's settings),
 * ERR_NOT_FOUND (detail "name") when there is no such plan, db errors.
 */
int backtest_plan(struct db_conn *c, const struct config *cfg, const char *name, const char *since,
		  const json_t *set, json_t **out, struct err *e)
	__attribute__((warn_unused_result));

/*
 * `regtrack-server backtest --plan P [--since DATE] [--set KEY=VALUE]...
 * [--json]`: prints the backtest as text (one line per changed alert,
 * then the tallies and precision before and after), or with --json the
 * API's reply. Returns the exit status: 0, 1 (database), 2 (usage, no
 * such plan, a bad date or setting: the message names it).
 */
int backtest_cli(const struct config *cfg, int argc, char **argv);

#endif
