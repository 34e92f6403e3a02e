/*
 * The records detection writes (detect_int.h): a record's kind and
 * comparison fields, its history, the kept ids, the sides of a series and
 * their comparison by the setup's A/A spread. Used by detect.c (the step
 * detector's records) and detect_tip.c (the reports at the tip).
 */
#include "server/detect/detect_int.h"
#include "server/db/db.h"
#include "evidence.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* the record's kind: a direction (+1 rose, -1 fell) for a metric with hib (1, 0, -1 unknown) */
const char *detect_kind_of(int direction, int hib)
{
	switch (change_kind_of(direction, hib)) {
	case CHANGE_REGRESSION:
		return "regression";
	case CHANGE_IMPROVEMENT:
		return "improvement";
	default:
		return "change";
	}
}

/* samples of series positions [lo, hi) as one borrowed range of vals */
const double *detect_side(const struct series *s, size_t lo, size_t hi, size_t *n)
{
	*n = hi > lo ? s->first[hi - 1] + s->count[hi - 1] - s->first[lo] : 0;
	return s->vals + (hi > lo ? s->first[lo] : 0);
}

int detect_pct_readable(double pct)
{
	return isfinite(pct) && fabs(pct) < 1e9;
}

const char *detect_pct_words(double pct, double before, double after, char out[128])
{
	char lo[32], hi[32];

	if (detect_pct_readable(pct)) {
		snprintf(out, 128, "%+.2f%%", pct);
		return out;
	}
	evidence_level(before, lo);
	evidence_level(after, hi);
	snprintf(out, 128, "from %s to %s%s", lo, hi,
		 before == 0 ? " (the base is 0: no %change)" : "");
	return out;
}

int detect_history(struct db_conn *c, long long id, const char *from, const char *to,
		   const char *note, struct err *e)
{
	return db_regr_history_add(c, id, "detector", 0, from, to, note, e);
}

int detect_covering(struct db_conn *c, const struct triaged *t, long long setup_id,
		    long long metric_id, long long good, long long bad, long long *id,
		    struct err *e)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->metric[mid] < metric_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->n || t->metric[lo] != metric_id)
		return 0;
	return db_regr_covering(c, setup_id, metric_id, good, bad, id, e);
}

void detect_kept_add(struct kept *k, long long id)
{
	ALLOC_GROW(k->ids, k->n + 1, k->alloc);
	k->ids[k->n++] = id;
}

/*
 * The fields of a record that come from its comparisons: seg, the runs of
 * the segments either side (the record's size and verdict), and pair, the
 * last good commit's runs against the first bad one's (shown beside it).
 */
void detect_upsert_from(struct db_regr_upsert *u, const struct compare_result *seg,
			const struct compare_result *pair)
{
	u->change_pct = seg->change_pct;
	u->hl_pct = seg->hl_pct;
	u->shift = seg->shift;
	u->ci_lo_pct = seg->ci_lo_pct;
	u->ci_hi_pct = seg->ci_hi_pct;
	u->p_value = seg->p_value;
	u->verdict = verdict_name(seg->verdict);
	u->mean_before = seg->a.mean;
	u->mean_after = seg->b.mean;
	u->n_before = seg->a.n;
	u->n_after = seg->b.n;
	u->outliers_before = seg->outliers_a;
	u->outliers_after = seg->outliers_b;
	u->pair_change_pct = pair->change_pct;
	u->pair_hl_pct = pair->hl_pct;
	u->pair_direction = pair->direction;
	u->pair_p_value = pair->p_value;
	u->pair_verdict = verdict_name(pair->verdict);
}

/*
 * Compares a with b as compare_deterministic() with the setup's A/A spread
 * of the metric from aa (server/detect/aa_history.h; none measured in wall-clock
 * setups: the rank test), the runs of commits before and after (the pair
 * either side of the step) left out of the spread.
 */
void detect_compare_sides(const struct aa_history *aa, long long setup_id, long long metric_id,
			  long long before, long long after, const double *a, size_t na,
			  const double *b, size_t nb, const struct compare_opts *co,
			  struct compare_result *r)
{
	struct aa_spread sp;

	aa_history_spread(aa, setup_id, metric_id, before, after, &sp);
	compare_deterministic(a, na, b, nb, co, aa_spread_usable(&sp), r);
}
