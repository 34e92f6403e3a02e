#ifndef REGTRACK_SERVER_DETECT_EXPLAIN_H
#define REGTRACK_SERVER_DETECT_EXPLAIN_H

/*
 * "Why was this (not) flagged?": the server keeps the reasons
 * of the last detection of each series, a compact form of the detector's
 * trace (lib/stats/detect.h, struct detect_candidate), in detect_explain
 * (sql/0023), replaced by each detection of the setup (server/detect/detect.c),
 * and GET /api/v1/series sends them as "detection".
 */
#include <jansson.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "stats/detect.h"

struct db_conn;

/* the most candidates kept per series */
#define DETECT_EXPLAIN_MAX 50

/*
 * The candidates of ds->trace worth keeping: every accepted split's final
 * estimate (stage 1) and each test window's strongest split (stage 0, the
 * least p, then the larger effect); of those at most max, the final
 * estimates first, then by p. Fills idx (room for ds->ntrace) with their
 * trace positions ordered by split, then stage, then window; returns how
 * many.
 */
size_t detect_explain_pick(const struct detect_series *ds, size_t max, size_t *idx);

/*
 * Adds the reasons of the series ds (run with opts.explain; commit[i] the
 * commits.id of its position i, borrowed) as those of metric_id to *rows,
 * the JSON array detect_explain_flush() stores (start it with
 * BUF_INIT(0)): the settings {window, min_seg, p_max, min_change_pct,
 * min_effect} and the candidates detect_explain_pick() keeps, each
 * {commit_id, good_commit_id (the commit before; null at 0), stage
 * ("window" | "final"), excursion, cycle (P > 0: read net of a cycle of P
 * commits in its history, lib/stats/detect.h 2c: a window's levels and
 * noise, a final estimate's p and noise; 0: as it is),
 * n_before, n_after (the commits of its
 * window either side of the split), before, after, change_pct, p_value,
 * noise_sigma, noise_raised (>= 1: the factor noise_sigma was raised by
 * because the series' history moved more than the noise model allowed; 1:
 * not raised), effect (|after - before| in noise sigmas; null when
 * unknown), kept, reason (detect_reason_text())}. Each metric once.
 */
void detect_explain_add(struct buf *rows, long long metric_id, const long long *commit,
			const struct detect_series *ds);

/*
 * Stores the reasons added to *rows as those of setup_id's series,
 * replacing the last detection's, in one statement (nothing when none were
 * added), and releases *rows. 0 or -1 with e.
 */
int detect_explain_flush(struct db_conn *c, long long setup_id, struct buf *rows, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The reasons of the last detection of (setup_id, metric) for the series
 * API: {at, n_commits, settings, candidates: [{index, commit, good_commit,
 * ...the stored fields}]}, index the position of commit among shas[0..n)
 * (the API's commits; null when not among them). A new value (caller
 * json_decref()s): JSON null when the series was never detected; NULL
 * with e on a db error.
 */
json_t *detect_explain_json(struct db_conn *c, long long setup_id, const char *metric,
			    const char *const *shas, size_t n, struct err *e);

#endif
