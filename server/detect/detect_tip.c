/* Reports at the tip of a tracked branch (see server/detect/detect_int.h, regressions.h). */
#include "server/detect/detect_int.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Records the pair (good, bad) of metric m as a confirmed change (rule (a):
 * the pair is different in the record's direction): seg and pair as the
 * record's comparisons, the detector's figures before / after / change_pct
 * and noise sigma (NAN: none), commits_after; keeps its id and counts it.
 * *up says what the upsert did.
 */
static int record_pair(struct db_conn *c, long long setup_id, const struct db_detect_point *m,
		       long long good, long long bad, const struct compare_result *seg,
		       const struct compare_result *pair, size_t commits_after, double before,
		       double after, double change_pct, double noise_sigma, struct kept *kept,
		       struct detect_setup_stats *st, struct db_regr_upserted *up, struct err *e)
{
	struct db_regr_upsert u;

	memset(&u, 0, sizeof(u));
	u.setup_id = setup_id;
	u.metric_id = m->metric_id;
	u.good_commit = good;
	u.bad_commit = bad;
	u.direction = pair->direction;
	u.kind = detect_kind_of(pair->direction, m->higher_is_better);
	detect_upsert_from(&u, seg, pair);
	u.commits_after = commits_after;
	u.det_before = before;
	u.det_after = after;
	u.det_change_pct = change_pct;
	u.det_p_value = NAN;
	u.noise_sigma = noise_sigma;
	u.noise_cycle = -1; /* the recent window's robust sigma: no cycle read */
	u.confirm = 1;
	if (db_regr_upsert(c, &u, up, e))
		return -1;
	detect_kept_add(kept, up->id);
	st->changes++;
	st->tip_records++;
	if (up->created)
		st->created++;
	return 0;
}

/*
 * The step right after the baseline: the series' first commit (a plan's
 * baseline) is the only one before the second, so neither the windowed
 * detector (min_seg commits a side) nor the tip check (a window of 4
 * commits) can see a step between them, however many commits follow. When
 * the second commit's runs are shifted from the first's (by
 * detect_min_change_pct or more, the pair's HL shift past the compare
 * floor, the pair not `same`), ask once for more runs of both, as at a tip
 * (tj's job the template); when the pair then differs in that direction,
 * record the range as a confirmed change. 1 when it kept or made the
 * record of the tip's pair (the series is those two commits), 0 when not,
 * -1 with e.
 */
static int check_first_step(struct db_conn *c, long long setup_id, const struct db_detect_point *m,
			    const struct series *s, const struct detect_series *ds,
			    const struct aa_history *aa, const struct config *cfg,
			    const struct triaged *tr, struct tip_job *tj, struct kept *kept,
			    struct detect_setup_stats *st, struct err *e)
{
	struct compare_opts co;
	struct compare_result pair;
	struct db_regr_upserted up;
	const double *a, *b;
	size_t na, nb;
	double change;
	long long covering;
	long made;
	int got, direction;

	compare_opts_init(&co);
	if (m->is_monitor)
		co.floor_pct = co.monitor_floor_pct;
	a = detect_side(s, 0, 1, &na);
	b = detect_side(s, 1, 2, &nb);
	detect_compare_sides(aa, setup_id, m->metric_id, s->commit[0], s->commit[1], a, na, b, nb,
			     &co, &pair);
	change = ds->med[0] != 0 ? 100.0 * (ds->med[1] - ds->med[0]) / fabs(ds->med[0]) : NAN;
	if (pair.verdict == VERDICT_SAME || !isfinite(change) ||
	    fabs(change) < ds->opts.min_change_pct || !(fabs(pair.hl_pct) > co.floor_pct))
		return 0;
	direction = change > 0 ? 1 : -1;
	got = detect_covering(c, tr, setup_id, m->metric_id, s->commit[0], s->commit[1], &covering,
			      e);
	if (got < 0)
		return -1;
	if (got) {
		detect_kept_add(kept, covering);
		return s->n == 2;
	}
	made = db_tip_request(c, tj->job, s->commit[0], s->commit[1], cfg->detect_tip_runs, e);
	if (made < 0)
		return -1;
	st->tip_jobs += (size_t)made;
	if (pair.verdict != VERDICT_DIFFERENT || pair.direction != direction)
		return 0; /* not (yet) enough runs, or noise: nothing recorded */
	if (record_pair(c, setup_id, m, s->commit[0], s->commit[1], &pair, &pair, s->n - 1,
			ds->med[0], ds->med[1], change, NAN, kept, st, &up, e))
		return -1;
	if (up.created) {
		char note[512];

		snprintf(note, sizeof(note),
			 "detected after the baseline: the first tested commit after it is "
			 "%+.2f%% from it; %ld extra run(s) each of it and of the baseline",
			 change, cfg->detect_tip_runs); /* change is finite: checked above */
		if (detect_history(c, up.id, NULL, "new", note, e))
			return -1;
	}
	if ((up.created || !strcmp(up.old_state, "new")) && !strcmp(up.new_state, "confirmed")) {
		char note[512], pct[128];

		st->confirmed++;
		snprintf(note, sizeof(note),
			 "confirmed after the baseline: the baseline vs the first tested commit "
			 "is different (%s, %zu vs %zu runs)",
			 detect_pct_words(pair.hl_pct, pair.a.mean, pair.b.mean, pct), pair.a.n,
			 pair.b.n);
		if (detect_history(c, up.id, "new", "confirmed", note, e))
			return -1;
	}
	return s->n == 2;
}

/*
 * 1 when the windowed detector reported a change point at commit i of the
 * series: store_series() has recorded (or kept) that range with the
 * detector's evidence, the segments either side and its noise model, which
 * a pair of two commits must not replace.
 */
static int detector_reported(const struct detect_series *ds, size_t i)
{
	for (size_t k = 0; k < ds->ncp; k++)
		if (ds->cp[k].index == i)
			return 1;
	return 0;
}

/*
 * Reports at the tip (regressions.h): when the newest commit of a plan's
 * branch moved away from the recent window (detect_series_tip), ask once
 * for more runs of it and of the commit before it; when the two then
 * differ (the pair's HL-shift verdict, in the tip's direction), record the
 * range as a confirmed regression, which the auto-bisect takes.
 */
int check_tip(struct db_conn *c, long long setup_id, const struct db_detect_point *m,
	      const struct series *s, const struct detect_series *ds, const struct aa_history *aa,
	      const struct config *cfg, const struct triaged *tr, struct tip_job *tj,
	      struct kept *kept, struct detect_setup_stats *st, struct err *e)
{
	struct detect_tip tip;
	struct compare_opts co;
	struct compare_result seg, pair;
	struct db_regr_upserted up;
	const double *a, *b;
	size_t na, nb, t = s->n - 1;
	long long covering;
	long made;
	int got;

	if (cfg->detect_tip_z <= 0 || s->n < 2)
		return 0;
	if (tj->commit != s->commit[t]) {
		free(tj->rec_metric);
		free(tj->rec_id);
		tj->rec_metric = tj->rec_id = NULL;
		tj->nrec = 0;
		tj->commit = s->commit[t];
		tj->got = db_tip_job(c, setup_id, s->commit[t], &tj->job, tj->branch,
				     sizeof(tj->branch), e);
		if (tj->got < 0 ||
		    (tj->got && db_tip_records(c, setup_id, s->commit[t], &tj->rec_metric,
					       &tj->rec_id, &tj->nrec, e))) {
			tj->commit = 0;
			return -1;
		}
	}
	if (!tj->got)
		return 0; /* not a tracked commit: the detector alone decides */
	/* reported already (then bisect runs fill the range before it): keep that record */
	for (size_t i = 0; i < tj->nrec; i++)
		if (tj->rec_metric[i] == m->metric_id) {
			detect_kept_add(kept, tj->rec_id[i]);
			return 1;
		}
	detect_series_tip(ds, cfg->detect_tip_z, &tip);
	if (!tip.moved)
		return check_first_step(c, setup_id, m, s, ds, aa, cfg, tr, tj, kept, st, e);
	got = detect_covering(c, tr, setup_id, m->metric_id, s->commit[t - 1], s->commit[t],
			      &covering, e);
	if (got < 0)
		return -1;
	if (got) {
		detect_kept_add(kept, covering);
		return 1;
	}
	/* created exactly once, however many metrics and passes see the same tip */
	made = db_tip_request(c, tj->job, s->commit[t - 1], s->commit[t], cfg->detect_tip_runs, e);
	if (made < 0)
		return -1;
	st->tip_jobs += (size_t)made;
	compare_opts_init(&co);
	if (m->is_monitor)
		co.floor_pct = co.monitor_floor_pct;
	if (detector_reported(ds, t))
		return 1; /* recorded with the detector's evidence (store_series) */
	a = detect_side(s, t - 1, t, &na);
	b = detect_side(s, t, t + 1, &nb);
	detect_compare_sides(aa, setup_id, m->metric_id, s->commit[t - 1], s->commit[t], a, na, b,
			     nb, &co, &pair);
	if (pair.verdict != VERDICT_DIFFERENT || pair.direction != tip.moved)
		return 0; /* not (yet) enough runs, or noise: nothing recorded */
	a = detect_side(s, t - tip.nref, t, &na);
	detect_compare_sides(aa, setup_id, m->metric_id, s->commit[t - 1], s->commit[t], a, na, b,
			     nb, &co, &seg);
	if (record_pair(c, setup_id, m, s->commit[t - 1], s->commit[t], &seg, &pair, 1, tip.center,
			tip.tip, tip.change_pct, tip.scale, kept, st, &up, e))
		return -1;
	if (up.created) {
		char note[512], pct[128];

		snprintf(note, sizeof(note),
			 "detected at the tip of '%s': the newest tested commit is %+.1f robust "
			 "sigmas (%s) from the %zu commits before it; %ld extra run(s) each "
			 "of it and of the commit before",
			 tj->branch, tip.z,
			 detect_pct_words(tip.change_pct, tip.center, tip.tip, pct), tip.nref,
			 cfg->detect_tip_runs);
		if (detect_history(c, up.id, NULL, "new", note, e))
			return -1;
	}
	if ((up.created || !strcmp(up.old_state, "new")) && !strcmp(up.new_state, "confirmed")) {
		char note[512], pct[128];

		st->confirmed++;
		if (pair.by_spread)
			snprintf(note, sizeof(note),
				 "confirmed at the tip: last good vs first bad commit is different "
				 "(%s, %zu vs %zu runs, by the setup's A/A spread)",
				 detect_pct_words(pair.hl_pct, pair.a.mean, pair.b.mean, pct),
				 pair.a.n, pair.b.n);
		else
			snprintf(note, sizeof(note),
				 "confirmed at the tip: last good vs first bad commit is different "
				 "(%s, p %.3g, %zu vs %zu runs)",
				 detect_pct_words(pair.hl_pct, pair.a.mean, pair.b.mean, pct),
				 pair.p_value, pair.a.n, pair.b.n);
		if (detect_history(c, up.id, "new", "confirmed", note, e))
			return -1;
	}
	return 1;
}

/* bsearch order of commit ids */
static int cmp_id(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* 1 when commit id is one of the ascending ids[0..n) */
static int has_id(const long long *ids, size_t n, long long id)
{
	return n && bsearch(&id, ids, n, sizeof(*ids), cmp_id) != NULL;
}

/*
 * The pairs asked for at the tip, once their runs are in. check_tip asks
 * for more runs of a tip and of the commit before it when the tip moved;
 * by the time those runs land, a later push (or the plan's next result)
 * may have made another commit the tip, and the step is then inside the
 * series, where the windowed detector needs more commits on each side than
 * a short tracked series has. So every two neighbouring commits of the
 * series that both got extra tip runs are compared on their own runs, and
 * a pair that differs (the HL-shift verdict of compare_samples, the same
 * evidence check_tip records on) is recorded as a confirmed change of
 * that range, in the pair's direction: not when its medians moved by less
 * than the plan's min_change_pct (what it alerts), nor where the detector
 * reported the same step (its record, kept by store_series, holds the
 * better evidence).
 */
int check_tip_pairs(struct db_conn *c, long long setup_id, const struct db_detect_point *m,
		    const struct series *s, const struct detect_series *ds,
		    const struct aa_history *aa, int tip_done, const struct triaged *tr,
		    struct tip_job *tj, struct kept *kept, struct detect_setup_stats *st,
		    struct err *e)
{
	struct compare_opts co;

	if (!tj->tipc_read) {
		if (db_tip_commits(c, setup_id, &tj->tipc, &tj->ntipc, e))
			return -1;
		tj->tipc_read = 1;
	}
	if (tj->ntipc < 2 || s->n < 3)
		return 0;
	compare_opts_init(&co);
	if (m->is_monitor)
		co.floor_pct = co.monitor_floor_pct;
	/* the tip's own pair, when check_tip kept or made its record, is done */
	for (size_t i = 1; i < (tip_done ? s->n - 1 : s->n); i++) {
		struct compare_result pair;
		double before, after, change;
		struct db_regr_upserted up;
		const double *a, *b;
		size_t na, nb;
		long long covering;
		int got;

		if (!has_id(tj->tipc, tj->ntipc, s->commit[i - 1]) ||
		    !has_id(tj->tipc, tj->ntipc, s->commit[i]) || detector_reported(ds, i))
			continue;
		before = ds->med[i - 1];
		after = ds->med[i];
		change = before != 0 ? 100.0 * (after - before) / fabs(before) : NAN;
		/* the plan's smallest alerted %change holds here as at the tip (check_tip) */
		if (ds->opts.min_change_pct > 0 && !(fabs(change) >= ds->opts.min_change_pct))
			continue;
		a = detect_side(s, i - 1, i, &na);
		b = detect_side(s, i, i + 1, &nb);
		detect_compare_sides(aa, setup_id, m->metric_id, s->commit[i - 1], s->commit[i], a,
				     na, b, nb, &co, &pair);
		if (pair.verdict != VERDICT_DIFFERENT || !pair.direction)
			continue;
		got = detect_covering(c, tr, setup_id, m->metric_id, s->commit[i - 1], s->commit[i],
				      &covering, e);
		if (got < 0)
			return -1;
		if (got) {
			detect_kept_add(kept, covering);
			continue;
		}
		if (record_pair(c, setup_id, m, s->commit[i - 1], s->commit[i], &pair, &pair,
				s->n - i, before, after, change, NAN, kept, st, &up, e))
			return -1;
		if (up.created) {
			char note[512], pct[128];

			snprintf(note, sizeof(note),
				 "detected from the extra runs asked at the tip: last good vs first "
				 "bad commit is different (%s, p %.3g, %zu vs %zu runs)",
				 detect_pct_words(pair.hl_pct, pair.a.mean, pair.b.mean, pct),
				 pair.p_value, pair.a.n, pair.b.n);
			if (detect_history(c, up.id, NULL, "new", note, e))
				return -1;
		}
		if ((up.created || !strcmp(up.old_state, "new")) &&
		    !strcmp(up.new_state, "confirmed")) {
			st->confirmed++;
			if (detect_history(c, up.id, "new", "confirmed",
					   "confirmed by the extra runs asked at the tip", e))
				return -1;
		}
	}
	return 0;
}
