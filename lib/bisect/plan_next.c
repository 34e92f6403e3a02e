/* The bisect planner's next step: which probes, when to verify, when to stop (see plan.h). */
#include "bisect/plan.h"
#include "bisect/plan_int.h"
#include "xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- choosing probes -------------------------------------------------------- */

struct picks {
	struct bisect_probe *v;
	size_t nr, alloc;
};

static int picked(const struct picks *pk, long idx)
{
	for (size_t i = 0; i < pk->nr; i++)
		if (pk->v[i].idx == idx)
			return 1;
	return 0;
}

/* a probe of idx goes to the commit whose runs stand for it (never a same-image commit) */
static void pick_in(const struct bisect_input *in, struct picks *pk, long idx, int runs,
		    enum bisect_role role)
{
	idx = plan_stand_in(in, idx);
	if (runs < 1 || picked(pk, idx))
		return;
	ALLOC_GROW(pk->v, pk->nr + 1, pk->alloc);
	pk->v[pk->nr++] = (struct bisect_probe){ idx, runs, role };
}
#define pick(pk, idx, runs, role) pick_in(in, pk, idx, runs, role)

static size_t n_of(const struct bisect_input *in, long idx)
{
	size_t n;

	plan_samples_of(in, idx, &n);
	return n;
}

/* runs for a first probe of a commit */
static int new_probe_runs(const struct bisect_plan *p)
{
	const struct bisect_opts *o = &p->opts;
	const struct bisect_model *m = &p->model;
	double r;

	/* noise unknown yet: as many runs as a reference (icount: the deterministic count) */
	if (!m->ready)
		return o->expect_deterministic	      ? o->runs_deterministic :
		       o->ref_runs > o->runs_per_step ? o->ref_runs :
							o->runs_per_step;
	if (m->deterministic)
		return o->runs_deterministic;
	r = 2 * o->probe_z / m->separation;
	r = ceil(r * r);
	if (r < o->runs_per_step)
		r = o->runs_per_step;
	if (r > o->max_runs)
		r = o->max_runs;
	return (int)r;
}

/* runs to add to a commit probed again: as many as it has (doubling), up to max_runs */
static int more_runs(const struct bisect_plan *p, long idx)
{
	size_t n = n_of(p->in, idx);
	int cap = p->opts.max_runs - (int)n;

	if (!n)
		return new_probe_runs(p);
	if (cap <= 0)
		return 0;
	return (int)n < cap ? (int)n : cap;
}

static int probeable(const struct bisect_plan *p, const struct picks *pk, long j)
{
	return j >= 0 && j < (long)p->in->n - 1 && !p->in->c[j].skipped && !picked(pk, j) &&
	       plan_stand_in(p->in, j) == j && (int)n_of(p->in, j) < p->opts.max_runs;
}

/* the k split points of the plan_posterior, each moved off skipped or exhausted commits */
static void pick_splits(const struct bisect_plan *p, struct picks *pk)
{
	const struct bisect_input *in = p->in;
	long last = (long)in->n - 2, from = p->lo > 0 ? p->lo - 1 : 0,
	     to = p->hi < last ? p->hi : last;

	if (last < 0)
		return;
	for (int i = 1; i <= p->opts.k; i++) {
		double q = (double)i / (p->opts.k + 1);
		long j = 0, best = -1;

		while (j < last && p->cdf[j] < q)
			j++;
		if (j < from)
			j = from;
		if (j > to)
			j = to;
		for (long d = 0; d <= to - from + 1 && best < 0; d++) {
			/* the neighbour whose P(f <= j) is closer to q first */
			long a = j - d, b = j + d;
			int a_ok = a >= from && probeable(p, pk, a);
			int b_ok = d && b <= to && probeable(p, pk, b);
			if (a_ok && b_ok)
				best = fabs(p->cdf[a] - q) <= fabs(p->cdf[b] - q) ? a : b;
			else if (a_ok)
				best = a;
			else if (b_ok)
				best = b;
		}
		if (best >= 0)
			pick(pk, best, more_runs(p, best),
			     n_of(in, best) ? ROLE_VERIFY : ROLE_PROBE);
	}
}

/*
 * Whether the references differ, from their own comparison (m->refs, the
 * rank test and its HL shift) and their own separation, never from the
 * refitted levels: a plan_refit on probed commits that sit halfway (a change
 * spread over commits) or on outliers must not abort a valid bisect.
 */
static int refs_differ(const struct bisect_plan *p)
{
	const struct bisect_model *m = &p->model;

	if (!(fabs(m->refs.hl_pct) > p->opts.min_change_pct))
		return 0;
	if (m->deterministic)
		return m->refs_separation >= 6;
	return m->refs.verdict == VERDICT_DIFFERENT;
}

static void end(struct bisect_decision *d, enum bisect_action a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void end(struct bisect_decision *d, enum bisect_action a, const char *fmt, ...)
{
	va_list ap;

	d->action = a;
	d->phase = "end";
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
}

/* the verification of first bad f against its parent; 1 = shown, 0 = more runs, -1 = refuted */
static int verify(const struct bisect_plan *p, long f, struct compare_result *r, char *why,
		  size_t n)
{
	const struct bisect_input *in = p->in;
	const struct bisect_model *m = &p->model;
	size_t na, nb;
	const double *a = plan_samples_of(in, f - 1 < 0 ? BISECT_GOOD : f - 1, &na);
	const double *b = plan_samples_of(in, f, &nb);
	/* half of the references' own change (good vs bad endpoint), not of the refitted
	 * levels: a change spread over several commits pulls the plan_refit toward the middle */
	double ref = isfinite(m->refs.hl_pct) ? m->refs.hl_pct : m->change_pct;
	double half = ref / 2;
	int up = m->refs.direction ? m->refs.direction > 0 : m->mu_bad > m->mu_good;

	if (plan_det_mode(p))
		compare_deterministic(a, na, b, nb, NULL, m->aa_spread_pct, r);
	else
		compare_samples(a, na, b, nb, NULL, r);
	why[0] = '\0';
	/* sizes and directions from the rank test's HL shift (compare.h), not from means */
	if (r->verdict == VERDICT_DIFFERENT && (r->direction > 0) == up) {
		/* confidently less than half of the change: the regression is spread out */
		double hi = r->by_spread ? r->hl_pct + m->aa_spread_pct : r->ci_hi_pct;
		double lo = r->by_spread ? r->hl_pct - m->aa_spread_pct : r->ci_lo_pct;

		if ((half > 0 && hi < half) || (half < 0 && lo > half)) {
			snprintf(why, n,
				 "the first bad commit shows only %.2f%% of the %.2f%% change "
				 "(interval %.2f%%..%.2f%%): the change is spread over several commits",
				 r->hl_pct, ref, r->ci_lo_pct, r->ci_hi_pct);
			return -1;
		}
		return 1;
	}
	snprintf(why, n,
		 "the first bad commit vs its parent is '%s' (%.2f%%, p %.3g) where the "
		 "references differ by %.2f%%",
		 verdict_name(r->verdict), r->hl_pct, r->p_value, ref);
	return 0;
}

void bisect_plan_next(struct bisect_plan *p, struct bisect_decision *d)
{
	const struct bisect_input *in = p->in;
	const struct bisect_opts *o = &p->opts;
	const struct bisect_model *m = &p->model;
	struct picks pk = { NULL, 0, 0 };
	long n = (long)in->n, f = p->map, par;
	int refs_short, final, vr;
	double a = plan_decisive_llr(o);

	memset(d, 0, sizeof(*d));
	vr = plan_det_mode(p) ? o->verify_runs_deterministic : o->verify_runs;
	d->first_bad = f;
	d->lo = p->lo;
	d->hi = p->hi;
	d->phase = "search";
	if (in->good_skipped || in->bad_skipped) {
		end(d, BISECT_FAILED,
		    "the %s commit failed to build or boot: nothing to compare with",
		    in->good_skipped ? "good" : "bad");
		return;
	}
	if (in->round >= o->max_rounds) {
		end(d, BISECT_FAILED,
		    "no decision after %d rounds (best guess: candidate %ld with "
		    "plan_posterior %.3f)",
		    in->round, f, p->post[f]);
		return;
	}

	/* the change lies between identical kernels: no commit can be named */
	{
		long lo = p->umap, hi = p->umap, all = 1;

		for (long j = 0; j < n && all; j++)
			all = p->excl[j];
		if (all || (m->ready && p->excl[p->umap] && p->excluded_mass >= 1 - o->epsilon)) {
			if (all) {
				lo = 0;
				hi = n - 1;
			}
			while (lo > 0 && p->excl[lo - 1])
				lo--;
			while (hi < n - 1 && p->excl[hi + 1])
				hi++;
			d->lo = lo;
			d->hi = hi;
			d->confidence = all ? 1 : p->excluded_mass;
			end(d, BISECT_ENVIRONMENT,
			    "the change lies between identical kernel images (%s%ld..%ld, one image "
			    "built from each): a change of the machine or its environment, not of a "
			    "commit",
			    lo == 0 ? "the good commit, candidates " : "candidates ",
			    lo == 0 ? 0 : lo - 1, hi);
			return;
		}
	}

	/* references first; search probes go out beside them */
	refs_short = (int)in->n_good < m->refs_target || (int)in->c[n - 1].n < m->refs_target;
	if (refs_short) {
		d->phase = "refs";
		pick(&pk, BISECT_GOOD, m->refs_target - (int)in->n_good, ROLE_REF);
		pick(&pk, n - 1, m->refs_target - (int)in->c[n - 1].n, ROLE_REF);
	} else if (!refs_differ(p)) {
		end(d, BISECT_FAILED,
		    "the good and bad commits do not differ in this metric: %.2f%% "
		    "(p %.3g, %.1f standard deviations) with %zu and %zu runs",
		    m->refs.hl_pct, m->refs.p_value, m->refs_separation, in->n_good,
		    in->c[n - 1].n);
		return;
	}

	if (!refs_short && p->post[f] >= 1 - o->epsilon) {
		par = f - 1 < 0 ? BISECT_GOOD : f - 1;
		if ((int)n_of(in, f) >= vr && (int)n_of(in, par) >= vr) {
			char why[sizeof(d->reason)];
			int v = verify(p, f, &d->verify, why, sizeof(why));
			if (v > 0) {
				d->action = BISECT_DONE;
				d->phase = "end";
				d->confidence = p->post[f];
				return;
			}
			if (v < 0) {
				end(d, BISECT_FAILED, "%s", why);
				return;
			}
			/* not shown yet: double the runs of both */
			d->phase = "verify";
			pick(&pk, par, more_runs(p, par),
			     par == BISECT_GOOD ? ROLE_REF : ROLE_VERIFY);
			pick(&pk, f, more_runs(p, f), f == n - 1 ? ROLE_REF : ROLE_VERIFY);
			if (!pk.nr) {
				end(d, BISECT_FAILED, "%s, after %d runs each", why, o->max_runs);
				return;
			}
		} else {
			d->phase = "verify";
			pick(&pk, par, vr - (int)n_of(in, par),
			     par == BISECT_GOOD ? ROLE_REF : ROLE_VERIFY);
			pick(&pk, f, vr - (int)n_of(in, f), f == n - 1 ? ROLE_REF : ROLE_VERIFY);
		}
		goto out;
	}

	if (m->ready && p->hi > p->lo) {
		/* nothing left that can split [lo, hi]: every commit in lo..hi-1 failed to build */
		int stuck = 1;
		for (long j = p->lo; j < p->hi && stuck; j++)
			stuck = in->c[j].skipped;
		if (stuck && p->llr[p->hi] >= a && (p->lo == 0 ? 1 : p->llr[p->lo - 1] <= -a) &&
		    !refs_short) {
			d->action = BISECT_AMBIGUOUS;
			d->phase = "end";
			d->confidence = p->cdf[p->hi] - (p->lo ? p->cdf[p->lo - 1] : 0);
			snprintf(d->reason, sizeof(d->reason),
				 "candidates %ld..%ld failed to build or boot: the first bad commit is one "
				 "of candidates %ld..%ld",
				 p->lo, p->hi - 1, p->lo, p->hi);
			return;
		}
	}

	final = m->ready && !refs_short && p->hi - p->lo + 1 <= o->k;
	if (final) {
		/* the last split: every commit left and the one before it, with verification runs */
		d->phase = "verify";
		for (long j = p->lo - 1; j <= p->hi; j++) {
			long idx = j < 0 ? BISECT_GOOD : j;
			if (idx != BISECT_GOOD && in->c[idx].skipped)
				continue;
			pick(&pk, idx, vr - (int)n_of(in, idx),
			     idx == BISECT_GOOD || idx == n - 1 ? ROLE_REF :
			     n_of(in, idx)			? ROLE_VERIFY :
								  ROLE_PROBE);
		}
	}
	if (!final || !pk.nr)
		pick_splits(p, &pk);
	if (!pk.nr) {
		long j;
		for (j = p->lo; j < p->hi && in->c[j].skipped; j++)
			;
		end(d, BISECT_FAILED,
		    "cannot decide between candidates %ld..%ld: candidate %ld stays "
		    "undecided after %d runs",
		    p->lo, p->hi, j, o->max_runs);
		return;
	}
out:
	d->action = BISECT_PROBE;
	d->probes = pk.v;
	d->nr_probes = pk.nr;
}
