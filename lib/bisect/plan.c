/* The bisect planner (see plan.h for the model and its sources). */
#include "bisect/plan.h"
#include "bisect/plan_int.h"
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

/* see plan_int.h */
long plan_stand_in(const struct bisect_input *in, long idx)
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
const double *plan_samples_of(const struct bisect_input *in, long idx, size_t *n)
{
	return own_samples(in, plan_stand_in(in, idx), n);
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
		 * noisy and hard to separate: the noise asks for more reference runs,
		 * doubling up to max_runs
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

/* 0 when the plan_posterior is sure commit j is good, 1 when bad, -1 otherwise */
static int sure_side(const struct bisect_plan *p, long j)
{
	if (j == BISECT_GOOD)
		return 0;
	if (j == (long)p->in->n - 1)
		return 1;
	return p->cdf[j] <= 0.001 ? 0 : p->cdf[j] >= 0.999 ? 1 : -1;
}

/*
 * Refits mu_g, mu_b and s on every commit the plan_posterior is sure about
 * (P(bad) <= 0.001 pooled with the good endpoint, >= 0.999 with the bad
 * one): the references alone leave the midpoint off by a fraction of s,
 * enough to mislead probes of a few runs. Hard-assignment EM, one step.
 */
void plan_refit(struct bisect_plan *p)
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
void plan_posterior(struct bisect_plan *p)
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
			/* everything ruled out: a flat plan_posterior over the range */
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
int plan_det_mode(const struct bisect_plan *p)
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
	plan_posterior(p);
	if (p->model.ready) {
		plan_refit(p);
		plan_posterior(p);
	}
}

double plan_decisive_llr(const struct bisect_opts *o)
{
	return log(1 / o->epsilon - 1);
}

void bisect_plan_verdict(const struct bisect_plan *p, long idx, struct bisect_evidence *ev)
{
	const struct bisect_input *in = p->in;
	const double *v;
	size_t n;
	double a = plan_decisive_llr(&p->opts);

	memset(ev, 0, sizeof(*ev));
	if (plan_stand_in(in, idx) != idx) {
		long s = plan_stand_in(in, idx);

		bisect_plan_verdict(p, s, ev);
		ev->has_stand_in = 1;
		ev->stand_in = s;
		ev->llr = idx == BISECT_GOOD ? 0 : p->llr[idx];
		ev->p_bad = idx == BISECT_GOOD ? 0 : p->cdf[idx];
		return;
	}
	v = plan_samples_of(in, idx, &n);
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
