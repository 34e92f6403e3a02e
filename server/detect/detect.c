#include "server/detect/detect.h"
#include "server/detect/detect_int.h"
#include "server/detect/detect_explain.h"
#include "server/detect/aa_history.h"
#include "clock.h"
#include "server/bgthread.h"
#include "server/db/db.h"
#include "server/db/plans.h"
#include "server/db/regressions.h"
#include "server/jobs/lease.h"
#include "server/db/series.h"
#include "hostfp.h"
#include "server/log.h"
#include "server/detect/plan_detect.h"
#include "server/server.h"
#include "stats/compare.h"
#include "stats/detect.h"
#include "xalloc.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STALE_CHECK_S 60

struct detect_thread {
	struct server *srv;
	struct bgthread *bg;
	atomic_int stopping; /* set before bgthread_stop: drain_queue gives up between setups */
	double last_stale;   /* mono_s() of the last stale re-queue (thread only) */
};

/* the host fingerprints of the setup's commits, read at its first change point */
struct setup_fps {
	struct db_commit_fps f;
	int read;
};

/* the JSON array of commit's fingerprints in f (a new value; [] when none) */
static json_t *fps_of(const struct db_commit_fps *f, long long commit)
{
	size_t lo = 0, hi = f->n;
	json_t *j = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->commit[mid] < commit)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->n && f->commit[lo] == commit)
		j = json_loads(f->fps[lo], 0, NULL);
	return j ? j : json_array();
}

/*
 * A step between commits before and after is a change of environment when
 * their runs in this setup ran on hosts of different fingerprints (the
 * fields lib/hostfp.h names): recorded on the record (sql/0022), which is
 * then shown as such and not bisected. The setup's fingerprints are read
 * once (sf), not per change point. 0 or -1 with e.
 */
static int note_environment(struct db_conn *c, struct setup_fps *sf, long long setup_id,
			    long long before, long long after, long long id, struct err *e)
{
	char *text = NULL;
	json_t *fb, *fa, *fields;
	int bad;

	if (!sf->read) {
		if (db_setup_fingerprints(c, setup_id, &sf->f, e))
			return -1;
		sf->read = 1;
	}
	fb = fps_of(&sf->f, before);
	fa = fps_of(&sf->f, after);
	fields = hostfp_diff(fb, fa);
	if (json_array_size(fields)) {
		json_t *env = json_pack("{s:O,s:O,s:O}", "fields", fields, "before", fb, "after",
					fa);

		text = json_dumps(env, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(env);
	}
	bad = db_regr_set_environment(c, id, text, e);
	free(text);
	json_decref(fields);
	json_decref(fb);
	json_decref(fa);
	return bad;
}

/*
 * The direction of a change: the sides' own verdict when it is `different`
 * (the HL shift of the runs, which decided it), else the detector's step
 * (medians of per-commit medians). Never a %change: its sign flips with
 * a negative base, and one failed run moves the means the wrong way.
 */
static int direction_of(const struct compare_result *seg, const struct change_point *cp)
{
	if (seg->verdict == VERDICT_DIFFERENT && seg->direction)
		return seg->direction;
	return cp->direction;
}

/*
 * Rule (b) of regressions.h: at least `need` commits on the after side,
 * the median of each of the first `need` of them nearer the after level
 * than the before level, and the last good commit's median nearer the
 * before level (so the step is at this commit, not one next to it).
 */
static int step_holds(const struct detect_series *ds, size_t idx, size_t hi, size_t need,
		      const struct change_point *cp)
{
	double mid = (cp->before + cp->after) / 2;
	int down = cp->after < cp->before;

	if (!isfinite(mid) || cp->after == cp->before || hi - idx < need || idx == 0)
		return 0;
	if ((ds->med[idx - 1] < mid) == down)
		return 0;
	for (size_t i = idx; i < idx + need; i++)
		if ((ds->med[i] < mid) != down)
			return 0;
	return 1;
}

/* the history notes of a new or newly confirmed record */
static int note_upsert(struct db_conn *c, const struct db_regr_upserted *up, const char *name,
		       const struct db_regr_upsert *u, const struct compare_result *seg,
		       const struct compare_result *pair, struct detect_setup_stats *st,
		       struct err *e)
{
	char note[512], pct[128];

	if (up->created) {
		st->created++;
		if (detect_pct_readable(seg->hl_pct) && detect_pct_readable(seg->change_pct))
			snprintf(note, sizeof(note),
				 "detected %s of '%s': %+.2f%% (CI %+.2f%% .. %+.2f%%; means "
				 "%+.2f%%), p %.3g, %zu vs %zu runs, %s",
				 u->kind, name, seg->hl_pct, seg->ci_lo_pct, seg->ci_hi_pct,
				 seg->change_pct, seg->p_value, seg->a.n, seg->b.n,
				 verdict_name(seg->verdict));
		else /* a base of zero: the levels, not an infinite or hundred-digit % */
			snprintf(note, sizeof(note),
				 "detected %s of '%s': moved %s, p %.3g, %zu vs %zu runs, %s",
				 u->kind, name,
				 detect_pct_words(NAN, seg->a.mean, seg->b.mean, pct), seg->p_value,
				 seg->a.n, seg->b.n, verdict_name(seg->verdict));
		if (detect_history(c, up->id, NULL, "new", note, e))
			return -1;
	}
	if ((up->created || !strcmp(up->old_state, "new")) && !strcmp(up->new_state, "confirmed")) {
		st->confirmed++;
		if (pair->verdict == VERDICT_DIFFERENT && pair->by_spread)
			snprintf(note, sizeof(note),
				 "confirmed: last good vs first bad commit is different "
				 "(%s, %zu vs %zu runs, by the setup's A/A spread)",
				 detect_pct_words(pair->hl_pct, pair->a.mean, pair->b.mean, pct),
				 pair->a.n, pair->b.n);
		else if (pair->verdict == VERDICT_DIFFERENT)
			snprintf(note, sizeof(note),
				 "confirmed: last good vs first bad commit is different "
				 "(%s, p %.3g, %zu vs %zu runs)",
				 detect_pct_words(pair->hl_pct, pair->a.mean, pair->b.mean, pct),
				 pair->p_value, pair->a.n, pair->b.n);
		else
			snprintf(note, sizeof(note),
				 "confirmed: the step holds over %zu commits after it and the "
				 "two sides are different (p %.3g)",
				 u->commits_after, seg->p_value);
		if (detect_history(c, up->id, "new", "confirmed", note, e))
			return -1;
	}
	return 0;
}

/* Stores the change points of one detected series; appends the record ids to *kept. */
static int store_series(struct db_conn *c, long long setup_id, const struct db_detect_point *m,
			const struct series *s, const struct detect_series *ds,
			const struct aa_history *aa, const struct config *cfg,
			const struct triaged *tr, struct setup_fps *sf, struct kept *kept,
			struct detect_setup_stats *st, struct err *e)
{
	size_t w = ds->opts.window;

	for (size_t k = 0; k < ds->ncp; k++) {
		const struct change_point *cp = &ds->cp[k];
		size_t idx = cp->index;
		size_t prev = k ? ds->cp[k - 1].index : 0;
		size_t next = k + 1 < ds->ncp ? ds->cp[k + 1].index : s->n;
		size_t lo = idx > w && idx - w > prev ? idx - w : prev;
		size_t hi = idx + w < next ? idx + w : next;
		struct compare_opts co;
		struct compare_result seg, pair;
		struct db_regr_upsert u;
		struct db_regr_upserted up;
		const double *a, *b;
		size_t na, nb;
		long long covering;
		int got, dir;

		if (idx == 0 || idx >= s->n)
			continue;
		compare_opts_init(&co);
		if (m->is_monitor)
			co.floor_pct = co.monitor_floor_pct;
		a = detect_side(s, lo, idx, &na);
		b = detect_side(s, idx, hi, &nb);
		detect_compare_sides(aa, setup_id, m->metric_id, s->commit[idx - 1], s->commit[idx],
				     a, na, b, nb, &co, &seg);
		a = detect_side(s, idx - 1, idx, &na);
		b = detect_side(s, idx, idx + 1, &nb);
		detect_compare_sides(aa, setup_id, m->metric_id, s->commit[idx - 1], s->commit[idx],
				     a, na, b, nb, &co, &pair);

		got = detect_covering(c, tr, setup_id, m->metric_id, s->commit[idx - 1],
				      s->commit[idx], &covering, e);
		if (got < 0)
			return -1;
		if (got) {
			/* already being bisected (or settled) under a wider range: keep that one */
			detect_kept_add(kept, covering);
			continue;
		}
		memset(&u, 0, sizeof(u));
		u.setup_id = setup_id;
		u.metric_id = m->metric_id;
		u.good_commit = s->commit[idx - 1];
		u.bad_commit = s->commit[idx];
		dir = direction_of(&seg, cp);
		u.kind = detect_kind_of(dir, m->higher_is_better);
		u.direction = dir;
		detect_upsert_from(&u, &seg, &pair);
		u.commits_after = hi - idx;
		u.det_before = cp->before;
		u.det_after = cp->after;
		u.det_change_pct = cp->change_pct;
		u.det_p_value = cp->p_value;
		u.noise_sigma = cp->noise_sigma;
		u.noise_cycle = (long)cp->noise_cycle;
		/* confirmed only in the record's own direction: a pair or a step the
		 * other way is not evidence for it */
		u.confirm = (pair.verdict == VERDICT_DIFFERENT && pair.direction == dir) ||
			    (seg.verdict == VERDICT_DIFFERENT && cp->direction == dir &&
			     step_holds(ds, idx, hi, (size_t)cfg->detect_confirm_commits, cp));
		if (db_regr_upsert(c, &u, &up, e) ||
		    note_environment(c, sf, setup_id, s->commit[idx - 1], s->commit[idx], up.id, e))
			return -1;
		detect_kept_add(kept, up.id);
		st->changes++;
		if (note_upsert(c, &up, m->metric, &u, &seg, &pair, st, e))
			return -1;
	}
	return 0;
}

/*
 * Pushes the rows of one metric, from rows[i], into the detector, grouped
 * by commit (consecutive in series order); returns the index after them.
 */
static size_t push_metric(const struct db_detect_series *rows, size_t i, struct series *s,
			  struct detect_series *ds)
{
	long long metric = rows->p[i].metric_id;
	size_t j = i;

	s->n = s->nvals = 0;
	while (j < rows->n && rows->p[j].metric_id == metric) {
		long long cid = rows->p[j].commit_id;
		size_t start = s->nvals;

		while (j < rows->n && rows->p[j].metric_id == metric && rows->p[j].commit_id == cid)
			s->vals[s->nvals++] = rows->p[j++].value;
		/* a commit without a finite value is not part of the series */
		if (detect_series_push(ds, s->vals + start, s->nvals - start) == 0) {
			s->commit[s->n] = cid;
			s->first[s->n] = start;
			s->count[s->n] = s->nvals - start;
			s->n++;
		} else {
			s->nvals = start;
		}
	}
	return j;
}

/*
 * examines every metric of the rows read with the settings base (a
 * monitor's metric: its floor, plan_detect_metric); the record ids found
 * go to *kept
 */
static int detect_rows(struct db_conn *c, long long setup_id, const struct db_detect_series *rows,
		       const struct aa_history *aa, const struct config *cfg,
		       const struct detect_opts *base, struct kept *kept,
		       struct detect_setup_stats *st, struct err *e)
{
	struct series s;
	struct tip_job tj = { 0 };
	struct buf explain = BUF_INIT(0);
	/* read once: a record that moves past triage during this pass is seen by the next */
	struct triaged tr = { NULL, 0 };
	struct setup_fps sf = { 0 };
	int ret = db_regr_triaged_metrics(c, setup_id, &tr.metric, &tr.n, e);

	s.commit = xcalloc(rows->n + 1, sizeof(*s.commit));
	s.first = xcalloc(rows->n + 1, sizeof(*s.first));
	s.count = xcalloc(rows->n + 1, sizeof(*s.count));
	s.vals = xcalloc(rows->n + 1, sizeof(*s.vals));
	for (size_t i = 0; i < rows->n && !ret;) {
		const struct db_detect_point *m = &rows->p[i];
		struct detect_series ds;
		struct detect_opts o;

		plan_detect_metric(base, m->is_monitor, &o);
		o.explain = 1; /* the reasons are kept (detect_explain.h) */
		detect_series_init(&ds, &o);
		i = push_metric(rows, i, &s, &ds);
		detect_series_run(&ds);
		st->series++;
		st->points += s.n;
		detect_explain_add(&explain, m->metric_id, s.commit, &ds);
		ret = store_series(c, setup_id, m, &s, &ds, aa, cfg, &tr, &sf, kept, st, e);
		if (!ret)
			ret = check_tip(c, setup_id, m, &s, &ds, aa, cfg, &tr, &tj, kept, st, e);
		if (ret >= 0 && cfg->detect_tip_z > 0)
			ret = check_tip_pairs(c, setup_id, m, &s, &ds, aa, ret == 1, &tr, &tj, kept,
					      st, e);
		else if (ret > 0)
			ret = 0;
		detect_series_release(&ds);
	}
	/* the reasons of every series in one statement: one round trip, not one per metric */
	if (!ret)
		ret = detect_explain_flush(c, setup_id, &explain, e);
	buf_release(&explain);
	free(tr.metric);
	db_setup_fingerprints_free(&sf.f);
	free(tj.rec_metric);
	free(tj.rec_id);
	free(tj.tipc);
	free(s.commit);
	free(s.first);
	free(s.count);
	free(s.vals);
	return ret;
}

/*
 * The settings of setup_id's detection: the server's defaults with the
 * "detect" keys of the plan that governs it (db_setup_plan_detect). 0 or -1.
 */
static int setup_opts(struct db_conn *c, long long setup_id, const struct config *cfg,
		      struct detect_opts *o, struct err *e)
{
	char *plan, *text;
	json_t *in, *d = NULL;
	int got = db_setup_plan_detect(c, setup_id, &plan, &text, e);

	plan_detect_defaults(cfg, o);
	if (got <= 0)
		return got;
	/* stored by plan_normalize(): checked again, so a bad row cannot set nonsense */
	in = json_loads(text, 0, NULL);
	if (in && plan_detect_check(in, "detect.", &d, e) == 0)
		plan_detect_apply(d, o);
	else
		slog_warn("detect: plan '%s': unreadable detector settings; the defaults apply",
			  plan);
	json_decref(in);
	json_decref(d);
	free(plan);
	free(text);
	return 0;
}

int detect_setup(struct db_conn *c, long long setup_id, const struct config *cfg,
		 struct detect_setup_stats *st, struct err *e)
{
	struct db_detect_series rows;
	struct kept kept = { NULL, 0, 0 };
	struct aa_history aa;
	struct detect_opts base;
	int ret;

	memset(st, 0, sizeof(*st));
	if (db_begin(c, e))
		return -1;
	/* inside the transaction: the series read and the records written agree */
	if (setup_opts(c, setup_id, cfg, &base, e) || db_detect_series(c, setup_id, &rows, e)) {
		db_rollback(c);
		return -1;
	}
	/* the setup's A/A history (icount setups only; none in wall-clock) */
	if (aa_history_load(c, &setup_id, 1, 0, 0, &aa, e)) {
		db_detect_series_free(&rows);
		db_rollback(c);
		return -1;
	}
	ret = detect_rows(c, setup_id, &rows, &aa, cfg, &base, &kept, st, e);
	if (!ret)
		ret = db_regr_undetect(c, setup_id, kept.ids, kept.n, &st->withdrawn,
				       &st->undetected, e);
	if (!ret)
		ret = db_commit(c, e);
	if (ret)
		db_rollback(c);
	db_detect_series_free(&rows);
	aa_history_release(&aa);
	free(kept.ids);
	return ret;
}

/* --- the thread ------------------------------------------------------------- */

/* Claims and examines queued setups until none is left; -1 on a db error. */
static int drain_queue(struct detect_thread *t, struct db_conn *c)
{
	struct err e;

	while (!atomic_load(&t->stopping)) {
		struct detect_setup_stats st;
		long long qid, setup;
		int got = db_detect_claim(c, &qid, &setup, &e);

		if (got < 0)
			goto fail;
		if (!got)
			return 0;
		if (detect_setup(c, setup, t->srv->cfg, &st, &e)) {
			slog_warn("detect: setup %lld: %s", setup, e.message);
			/* give the claim back; it is retried on the next round */
			if (db_detect_release(c, qid, &e))
				slog_warn("detect: %s", e.message);
			return -1;
		}
		if (db_detect_done(c, qid, &e))
			goto fail;
		if (st.tip_jobs) {
			slog_info("detect: setup %lld: the tip moved, %zu extra job(s) queued",
				  setup, st.tip_jobs);
			lease_queue_kick(t->srv->leases);
		}
		if (st.tip_records)
			slog_info("detect: setup %lld: %zu regression(s) recorded at the tip",
				  setup, st.tip_records);
	}
	return 0;
fail:
	slog_warn("detect: %s", e.message);
	return -1;
}

/*
 * One pass (bgthread step): LISTEN, re-queue stale claims every
 * STALE_CHECK_S, drain the queue; then wait detect_poll_ms or until a
 * notification arrives on the LISTEN connection (*fd), when it is idle.
 */
static long detect_step(void *arg, int *fd)
{
	struct detect_thread *t = arg;
	struct err e;
	struct db_conn *c = db_conn(t->srv->db, &e);

	if (c && db_detect_listen(c, &e))
		c = NULL;
	if (!c)
		return t->srv->cfg->detect_poll_ms;
	/* notifications so far are covered by the pass below */
	db_notifications_drain(c);
	if (mono_s() - t->last_stale >= STALE_CHECK_S && !db_detect_requeue_stale(c, &e))
		t->last_stale = mono_s();
	/* after a failure, wait the full poll time before retrying */
	if (drain_queue(t, c) == 0)
		*fd = db_idle_socket(c);
	return t->srv->cfg->detect_poll_ms;
}

struct detect_thread *detect_thread_start(struct server *srv)
{
	struct detect_thread *t = xcalloc(1, sizeof(*t));
	struct err e;

	t->srv = srv;
	t->bg = bgthread_start("detect", detect_step, t, &e);
	if (!t->bg) {
		slog_error("detect: %s", e.message);
		free(t);
		return NULL;
	}
	return t;
}

void detect_thread_stop(struct detect_thread *t)
{
	if (!t)
		return;
	atomic_store(&t->stopping, 1);
	bgthread_stop(t->bg);
	free(t);
}
