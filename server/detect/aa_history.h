#ifndef REGTRACK_SERVER_AA_HISTORY_H
#define REGTRACK_SERVER_AA_HISTORY_H

/*
 * Deterministic measurement from a setup's stored history: the A/A spread
 * of one metric in an icount setup, for compare_deterministic()
 * (lib/stats/compare.h: its model and assumption).
 * The groups are the setup's kernels: the ok runs of one commit, or the
 * pooled runs of commits built to one image (sql/0022 image_sha256); the
 * spread is struct aa_spread's (the bisect planner's definition), usable
 * from AA_SPREAD_MIN_RUNS (6) runs. The runs of the commits a comparison
 * judges are left out, so the evidence is independent of its sides.
 * Wall-clock setups have no history here (db_compare_aa() reads icount
 * setups only: mode icount or params.measure icount): their comparisons
 * stay with the rank test.
 *
 * Used by the compare API (api/compare.c), detection's confirmation
 * (detect.c) and the A/B verdict (abtest.c).
 */
#include <stddef.h>

#include "err.h"
#include "server/db/series.h"
#include "stats/compare.h"

struct db_conn;

struct aa_history {
	struct db_compare_runs runs; /* db_compare_aa()'s rows: by setup, then kernel */
};

/*
 * Reads the history of the icount setups among setup_ids[0..n) (borrowed),
 * without the runs of commits skip_a and skip_b (commits.id; 0 = none).
 * 0 and h (release with aa_history_release()), or -1 with e
 * (db_compare_aa()'s errors).
 */
int aa_history_load(struct db_conn *c, const long long *setup_ids, size_t n, long long skip_a,
		    long long skip_b, struct aa_history *h, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The A/A spread of metric metric_id (metrics.id) in setup setup_id from
 * h, without the runs of commits skip_a and skip_b (0 = none; for a
 * history loaded once and used for several comparisons). Fills *out
 * (aa_spread_init() first: nothing measured when the setup has no
 * history); aa_spread_usable(out) is what to pass to compare_deterministic().
 */
void aa_history_spread(const struct aa_history *h, long long setup_id, long long metric_id,
		       long long skip_a, long long skip_b, struct aa_spread *out);

void aa_history_release(struct aa_history *h);

#endif
