/* The bisect planner (see plan.h for the model and its sources). */
#include "bisect/plan.h"
#include "xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bisect_opts_init(struct bisect_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->k = 1;
	o->runs_per_step = 5;
	o->runs_deterministic = 2;
	o->ref_runs = 10;
	o->ref_runs_min = 3;
	o->verify_runs = 10;
	o->verify_runs_deterministic = 3;
	o->max_runs = 40;
	o->max_rounds = 30;
	o->epsilon = 0.005;
	o->llr_clip = 6.0;
	o->probe_z = 3.0;
	o->det_spread_pct = 0.2;
	o->noise_floor_pct = 0.1;
	o->min_change_pct = 1.0;
	o->outlier_density = 1e-3;
}

const char *bisect_role_name(enum bisect_role r)
{
	static const char *const n[] = { "ref", "probe", "verify" };
	return r <= ROLE_VERIFY ? n[r] : "?";
}

const char *bisect_action_name(enum bisect_action a)
{
	static const char *const n[] = { "probe", "done", "ambiguous", "failed", "environment" };
	return a <= BISECT_ENVIRONMENT ? n[a] : "?";
}

const char *step_verdict_name(enum step_verdict v)
{
	static const char *const n[] = { "untested", "good", "bad", "skip", "unknown" };
	return v <= STEP_UNKNOWN ? n[v] : "?";
}

void bisect_plan_init(struct bisect_plan *p, const struct bisect_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->opts = *o;
	if (p->opts.k < 1)
		p->opts.k = 1;
}

void bisect_plan_release(struct bisect_plan *p)
{
	free(p->llr);
	free(p->post);
	free(p->cdf);
	free(p->excl);
	p->excl = NULL;
	p->llr = p->post = p->cdf = NULL;
	p->in = NULL;
}

void bisect_decision_release(struct bisect_decision *d)
{
	free(d->probes);
	d->probes = NULL;
	d->nr_probes = 0;
}

/* the runs of candidate idx itself (BISECT_GOOD: the good endpoint) */
static const double *own_samples(const struct bisect_input *in, long idx, size_t *n)
{
	if (idx == BISECT_GOOD) {
		*n = in->n_good;
		return in->good;
	}
	*n = in->c[idx].n;
	return in->c[idx].samples;
}

static int image_of(const struct bisect_input *in, long idx)
{
	return idx == BISECT_GOOD ? in->good_image : in->c[idx].image;
}

/*
 * The commit whose runs stand for idx: idx itself when it has runs or no
 * known image, else the member of its image with the most runs (the
 * earliest of a tie), when one has runs.
 */
static long stand_in(const struct bisect_input *in, long idx)
{
	int img = image_of(in, idx);
	long best = idx;
	size_t bn = 0, n;

	own_samples(in, idx, &n);
	if (n || img <= 0)
		return idx;
	for (long j = BISECT_GOOD; j < (long)in->n; j++) {
		own_samples(in, j, &n);
		if (j != idx && image_of(in, j) == img && n > bn) {
			best = j;
			bn = n;
		}
	}
	return best;
}

/* the samples that stand for idx: its own, or its stand-in's (see plan.h) */
static const double *samples_of(const struct bisect_input *in, long idx, size_t *n)
{
	return own_samples(in, stand_in(in, idx), n);
}

static double mean_of(const double *v, size_t n)
{
	double s = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			s += v[i];
			m++;
		}
	return m ? s / (double)m : NAN;
}

/* growable array of doubles */
struct dvec {
	double *v;
	size_t n, alloc;
};

static void dvec_add_finite(struct dvec *d, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			ALLOC_GROW(d->v, d->n + 1, d->alloc);
			d->v[d->n++] = v[i];
		}
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* inliers lie within ROBUST_CUT robust standard deviations of their side's median */
#define ROBUST_MIN_RUNS 5 /* ... on a side of at least this many runs */
#define ROBUST_CUT 3.5
/* 1 / sqrt(variance of N(0,1) truncated to +-3.5): 1 - 7 phi(3.5) / (1 - 2 Q(3.5)) = 0.99389 */
#define ROBUST_CONSISTENCY 1.00307

/*
 * Robust levels and pooled noise of two groups of runs (side 0 good, 1 bad):
 * the median of each side, the pooled MAD of both around their medians
 * (1.4826 * MAD estimates sigma), then the mean of each side's inliers
 * (within ROBUST_CUT such sigmas of its median) and the pooled standard
 * deviation of the inliers, corrected for the truncation. Gaussian runs
 * lose almost nothing against mean and pooled SD (0.05 % of them are cut);
 * an outlier run (a failed or disturbed machine) moves neither. With a
 * MAD of 0 (more than half the runs tied), on a side of fewer than
 * ROBUST_MIN_RUNS runs, or when fewer than half a side's runs would be
 * inliers, every run of that side is an inlier. The arrays are reordered.
 * Returns -1 (nothing set) when a side has fewer than 2 runs.
 */
static int robust_fit(struct dvec side[2], double mu[2], double *sigma)
{
	double med[2], cut, ss = 0, *res;
	size_t nres = 0, cnt[2] = { 0, 0 };

	if (side[0].n < 2 || side[1].n < 2)
		return -1;
	res = xmalloc((side[0].n + side[1].n) * sizeof(*res));
	for (int k = 0; k < 2; k++) {
		qsort(side[k].v, side[k].n, sizeof(double), cmp_dbl);
		med[k] = median_sorted(side[k].v, side[k].n);
		for (size_t i = 0; i < side[k].n; i++)
			res[nres++] = fabs(side[k].v[i] - med[k]);
	}
	qsort(res, nres, sizeof(*res), cmp_dbl);
	cut = ROBUST_CUT * 1.4826 * median_sorted(res, nres);
	free(res);
	for (int k = 0; k < 2; k++) {
		double sum = 0, c = cut;
		size_t in = 0;

		for (size_t i = 0; i < side[k].n; i++)
			in += fabs(side[k].v[i] - med[k]) <= c;
		/* too few runs to tell an outlier (or a MAD of 0): every run counts */
		if (side[k].n < ROBUST_MIN_RUNS || !(c > 0) || 2 * in < side[k].n)
			c = INFINITY;
		for (size_t i = 0; i < side[k].n; i++)
			if (fabs(side[k].v[i] - med[k]) <= c) {
				sum += side[k].v[i];
				cnt[k]++;
			}
		mu[k] = sum / (double)cnt[k];
		for (size_t i = 0; i < side[k].n; i++)
			if (fabs(side[k].v[i] - med[k]) <= c)
				ss += (side[k].v[i] - mu[k]) * (side[k].v[i] - mu[k]);
	}
	*sigma = ROBUST_CONSISTENCY * sqrt(ss / (double)(cnt[0] + cnt[1] - 2));
	return 0;
}

/* sigma floored (noise_floor_pct of |mu_g|, never 0); separation and change_pct from mu, sigma */
static void model_derive(struct bisect_model *m, const struct bisect_opts *o)
{
	if (m->sigma < o->noise_floor_pct / 100 * fabs(m->mu_good))
		m->sigma = o->noise_floor_pct / 100 * fabs(m->mu_good);
	if (!(m->sigma > 0))
		m->sigma = 1e-9 * fmax(1.0, fabs(m->mu_bad));
	m->separation = fabs(m->mu_bad - m->mu_good) / m->sigma;
	m->change_pct = m->mu_good != 0 ? 100 * (m->mu_bad - m->mu_good) / fabs(m->mu_good) : NAN;
}

static void fit_model(struct bisect_plan *p)
{
	const struct bisect_input *in = p->in;
	const struct bisect_opts *o = &p->opts;
	struct bisect_model *m = &p->model;
	const struct bisect_commit *bad = &in->c[in->n - 1];
	struct dvec side[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	size_t ng, nb;
	double mu[2];

	memset(m, 0, sizeof(*m));
	dvec_add_finite(&side[0], in->good, in->n_good);
	dvec_add_finite(&side[1], bad->samples, bad->n);
	ng = side[0].n;
	nb = side[1].n;
	m->ready = !robust_fit(side, mu, &m->sigma);
	free(side[0].v);
	free(side[1].v);
	m->refs_target = o->expect_deterministic ? o->ref_runs_min : o->ref_runs;
	if (!m->ready) {
		m->mu_good = mean_of(in->good, in->n_good);
		m->mu_bad = mean_of(bad->samples, bad->n);
		m->sigma = m->separation = m->change_pct = m->refs_separation = NAN;
		return;
	}
	m->mu_good = mu[0];
	m->mu_bad = mu[1];
	model_derive(m, o);
	m->refs_separation = m->separation;
	compare_samples(in->good, in->n_good, bad->samples, bad->n, NULL, &m->refs);
	m->deterministic = m->refs.a.stddev_pct <= o->det_spread_pct &&
			   m->refs.b.stddev_pct <= o->det_spread_pct;
	if (m->deterministic) {
		m->refs_target = o->ref_runs_min;
	} else {
		size_t have = ng < nb ? ng : nb;
		m->refs_target = o->ref_runs;
		/*
		 * noisy and hard to separate: more reference runs (the "more
		 * when noise asks"), doubling up to max_runs
		 */
		if ((m->separation < 1.5 || m->refs.verdict != VERDICT_DIFFERENT) &&
		    (int)have >= m->refs_target)
			m->refs_target = 2 * (int)have;
		if (m->refs_target > o->max_runs)
			m->refs_target = o->max_runs;
	}
}

/*
 * log of the heavy-tailed run density at standardized distance z from a
 * level: a Gaussian plus a flat floor outlier_density (in units of 1/sigma),
 * the density of a contaminated normal (Tukey 1960; Huber, "Robust
 * Statistics", 1981, ch. 4) up to a constant
 */
static double log_density(double z, double floor)
{
	return log(exp(-z * z / 2) / sqrt(2 * M_PI) + floor);
}

static double sample_llr(const struct bisect_plan *p, double x)
{
	const struct bisect_model *m = &p->model;
	double l, zg = (x - m->mu_good) / m->sigma, zb = (x - m->mu_bad) / m->sigma;

	if (p->opts.outlier_density > 0)
		l = log_density(zb, p->opts.outlier_density) -
		    log_density(zg, p->opts.outlier_density);
	else
		l = (m->mu_bad - m->mu_good) / (m->sigma * m->sigma) *
		    (x - (m->mu_good + m->mu_bad) / 2);
	if (l > p->opts.llr_clip)
		l = p->opts.llr_clip;
	if (l < -p->opts.llr_clip)
		l = -p->opts.llr_clip;
	return l;
}

static double commit_llr(const struct bisect_plan *p, long idx)
{
	size_t n;
	const double *v = own_samples(p->in, idx, &n); /* a stand-in's runs count once */
	double s = 0;

	if (!p->model.ready)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			s += sample_llr(p, v[i]);
	return s;
}

/* 0 when the posterior is sure commit j is good, 1 when bad, -1 otherwise */
static int sure_side(const struct bisect_plan *p, long j)
{
	if (j == BISECT_GOOD)
		return 0;
	if (j == (long)p->in->n - 1)
		return 1;
	return p->cdf[j] <= 0.001 ? 0 : p->cdf[j] >= 0.999 ? 1 : -1;
}

/*
 * Refits mu_g, mu_b and s on every commit the posterior is sure about
 * (P(bad) <= 0.001 pooled with the good endpoint, >= 0.999 with the bad
 * one): the references alone leave the midpoint off by a fraction of s,
 * enough to mislead probes of a few runs. Hard-assignment EM, one step.
 */
static void refit(struct bisect_plan *p)
{
	const struct bisect_input *in = p->in;
	struct bisect_model *m = &p->model;
	struct dvec side[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	double mu[2], sigma;

	for (long j = BISECT_GOOD; j < (long)in->n; j++) {
		int k = sure_side(p, j);
		size_t n;
		const double *v = own_samples(in, j, &n);

		if (k >= 0)
			dvec_add_finite(&side[k], v, n);
	}
	if (!robust_fit(side, mu, &sigma)) {
		m->mu_good = mu[0];
		m->mu_bad = mu[1];
		m->sigma = sigma;
		model_derive(m, &p->opts);
	}
	free(side[0].v);
	free(side[1].v);
}

/* llr, post, cdf, map, lo, hi from the model */
static void posterior(struct bisect_plan *p)
{
	size_t n = p->in->n;
	double mx = -INFINITY, tot = 0, acc, suffix = 0;
	long lo, hi;

	for (size_t j = 0; j < n; j++)
		p->llr[j] = commit_llr(p, (long)j);
	/* log P(f) = sum_{j >= f} S_j, kept in post[] before normalizing */
	for (size_t j = n; j-- > 0;) {
		suffix += p->llr[j];
		p->post[j] = suffix;
		if (suffix > mx)
			mx = suffix;
	}
	/* identical images: f in (i, j] of two commits i < j of one image is impossible;
	 * in logs, so the mass left beside an excluded mode does not cancel to 0 */
	{
		double cmx = -INFINITY, utot = 0, uex = 0;

		p->umap = 0;
		for (size_t j = 0; j < n; j++) {
			double u = exp(p->post[j] - mx);

			utot += u;
			if (p->excl[j])
				uex += u;
			else if (p->post[j] > cmx)
				cmx = p->post[j];
			if (p->post[j] > p->post[p->umap])
				p->umap = (long)j;
		}
		p->excluded_mass = uex / utot;
		for (size_t j = 0; j < n; j++) {
			/* everything ruled out: a flat posterior over the range */
			p->post[j] = cmx == -INFINITY ? 1 : p->excl[j] ? 0 : exp(p->post[j] - cmx);
			tot += p->post[j];
		}
	}
	p->map = 0;
	acc = 0;
	for (size_t j = 0; j < n; j++) {
		p->post[j] /= tot;
		acc += p->post[j];
		p->cdf[j] = acc;
		if (p->post[j] > p->post[p->map])
			p->map = (long)j;
	}
	/* shortest credible interval, grown greedily from the mode */
	lo = hi = p->map;
	acc = p->post[p->map];
	while (acc < 1 - p->opts.epsilon && (lo > 0 || hi < (long)n - 1)) {
		if (hi == (long)n - 1 || (lo > 0 && p->post[lo - 1] >= p->post[hi + 1]))
			acc += p->post[--lo];
		else
			acc += p->post[++hi];
	}
	p->lo = lo;
	p->hi = hi;
}

/* excl[f] = 1 for f in (i, j] of any two commits i < j of one image (plan.h) */
static void exclusions(struct bisect_plan *p)
{
	const struct bisect_input *in = p->in;

	for (long i = BISECT_GOOD; i < (long)in->n; i++) {
		int img = image_of(in, i);
		long last = i;

		if (img <= 0)
			continue;
		for (long j = i + 1; j < (long)in->n; j++)
			if (image_of(in, j) == img)
				last = j;
		for (long f = i + 1; f <= last; f++)
			p->excl[f] = 1;
	}
}

/*
 * The A/A spread (plan.h, Deterministic measurement): the largest relative
 * range of a group of runs of one kernel, each reference's runs and the
 * pooled runs of every image with runs at two commits or more.
 */
static void aa_spread(struct bisect_plan *p)
{
	const struct bisect_input *in = p->in;
	struct bisect_model *m = &p->model;
	struct aa_spread sp;
	size_t n;
	const double *v;

	aa_spread_init(&sp);
	for (int ref = 0; ref < 2; ref++) {
		v = own_samples(in, ref ? (long)in->n - 1 : BISECT_GOOD, &n);
		aa_spread_add(&sp, v, n);
	}
	for (long i = BISECT_GOOD; i < (long)in->n; i++) {
		int img = image_of(in, i), commits = 0, first = 1;
		struct dvec pool = { NULL, 0, 0 };

		for (long j = BISECT_GOOD; j < (long)in->n && img > 0; j++) {
			if (image_of(in, j) != img)
				continue;
			if (j < i)
				first = 0; /* the group was pooled at its first member */
			v = own_samples(in, j, &n);
			if (n) {
				commits++;
				dvec_add_finite(&pool, v, n);
			}
		}
		if (first && commits >= 2)
			aa_spread_add(&sp, pool.v, pool.n);
		free(pool.v);
	}
	m->aa_spread_pct = sp.pct;
	m->aa_runs = sp.runs;
}

/* runs of one kernel repeat within a measured tiny spread: icount mode, with evidence */
static int det_mode(const struct bisect_plan *p)
{
	const struct bisect_model *m = &p->model;

	return p->opts.expect_deterministic && m->deterministic && isfinite(m->aa_spread_pct) &&
	       m->aa_runs >= AA_SPREAD_MIN_RUNS;
}

void bisect_plan_compute(struct bisect_plan *p, const struct bisect_input *in)
{
	size_t n = in->n;

	p->in = in;
	free(p->llr);
	free(p->post);
	free(p->cdf);
	p->llr = xcalloc(n, sizeof(double));
	p->post = xcalloc(n, sizeof(double));
	p->cdf = xcalloc(n, sizeof(double));
	free(p->excl);
	p->excl = xcalloc(n, 1);
	exclusions(p);
	fit_model(p);
	aa_spread(p);
	posterior(p);
	if (p->model.ready) {
		refit(p);
		posterior(p);
	}
}

static double decisive_llr(const struct bisect_opts *o)
{
	return log(1 / o->epsilon - 1);
}

void bisect_plan_verdict(const struct bisect_plan *p, long idx, struct bisect_evidence *ev)
{
	const struct bisect_input *in = p->in;
	const double *v;
	size_t n;
	double a = decisive_llr(&p->opts);

	memset(ev, 0, sizeof(*ev));
	if (stand_in(in, idx) != idx) {
		long s = stand_in(in, idx);

		bisect_plan_verdict(p, s, ev);
		ev->has_stand_in = 1;
		ev->stand_in = s;
		ev->llr = idx == BISECT_GOOD ? 0 : p->llr[idx];
		ev->p_bad = idx == BISECT_GOOD ? 0 : p->cdf[idx];
		return;
	}
	v = samples_of(in, idx, &n);
	ev->n = n;
	ev->mean = mean_of(v, n);
	ev->llr = idx == BISECT_GOOD ? commit_llr(p, idx) : p->llr[idx];
	ev->p_bad = idx == BISECT_GOOD ? 0 : p->cdf[idx];
	compare_samples(in->good, in->n_good, v, n, NULL, &ev->vs_good);
	compare_samples(in->c[in->n - 1].samples, in->c[in->n - 1].n, v, n, NULL, &ev->vs_bad);
	if (idx != BISECT_GOOD && in->c[idx].skipped)
		ev->verdict = STEP_SKIP;
	else if (!n)
		ev->verdict = STEP_UNTESTED;
	else if (!p->model.ready)
		ev->verdict = STEP_UNKNOWN;
	else if (ev->llr >= a)
		ev->verdict = STEP_BAD;
	else if (ev->llr <= -a)
		ev->verdict = STEP_GOOD;
	else
		ev->verdict = STEP_UNKNOWN;
}

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
	idx = stand_in(in, idx);
	if (runs < 1 || picked(pk, idx))
		return;
	ALLOC_GROW(pk->v, pk->nr + 1, pk->alloc);
	pk->v[pk->nr++] = (struct bisect_probe){ idx, runs, role };
}
#define pick(pk, idx, runs, role) pick_in(in, pk, idx, runs, role)

static size_t n_of(const struct bisect_input *in, long idx)
{
	size_t n;

	samples_of(in, idx, &n);
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
	       stand_in(p->in, j) == j && (int)n_of(p->in, j) < p->opts.max_runs;
}

/* the k split points of the posterior, each moved off skipped or exhausted commits */
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
 * refitted levels: a refit on probed commits that sit halfway (a change
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
	const double *a = samples_of(in, f - 1 < 0 ? BISECT_GOOD : f - 1, &na);
	const double *b = samples_of(in, f, &nb);
	/* half of the references' own change (good vs bad endpoint), not of the refitted
	 * levels: a change spread over several commits pulls the refit toward the middle */
	double ref = isfinite(m->refs.hl_pct) ? m->refs.hl_pct : m->change_pct;
	double half = ref / 2;
	int up = m->refs.direction ? m->refs.direction > 0 : m->mu_bad > m->mu_good;

	if (det_mode(p))
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
	double a = decisive_llr(o);

	memset(d, 0, sizeof(*d));
	vr = det_mode(p) ? o->verify_runs_deterministic : o->verify_runs;
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
		    "posterior %.3f)",
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

/* --- information bound ------------------------------------------------------ */

double bisect_info_bound(double n, double d)
{
	/* E_Z[log2(1 + exp(-d (d/2 + Z)))] by the trapezoid rule on [-10, 10] */
	const int steps = 4000;
	const double lo = -10, hi = 10, h = (hi - lo) / steps;
	double s = 0, c;

	if (n <= 1)
		return 0;
	for (int i = 0; i <= steps; i++) {
		double z = lo + i * h, t = -d * (d / 2 + z);
		double l2 = (t > 30 ? t : log1p(exp(t))) / log(2);
		double w = (i == 0 || i == steps) ? 0.5 : 1;
		s += w * exp(-z * z / 2) / sqrt(2 * M_PI) * l2;
	}
	c = 1 - s * h;
	return c > 0 ? log2(n) / c : INFINITY;
}
