#include "compare.h"
#include "ranktest.h"
#include "xalloc.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* samples up to this size live on the stack (a compare of thousands of
 * metrics of a few runs each allocated four arrays per metric) */
#define SMALL_N 32

void sample_stats_compute(const double *v, size_t n, struct sample_stats *out)
{
	double sum = 0, ss = 0, mean;
	double buf[SMALL_N], *tmp;
	size_t m = 0;

	out->n = 0;
	out->mean = out->median = out->stddev_pct = out->min = out->max = NAN;
	if (!n)
		return;
	tmp = n <= SMALL_N ? buf : xmalloc(n * sizeof(*tmp));
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			tmp[m++] = v[i];
	out->n = m;
	if (!m) {
		if (tmp != buf)
			free(tmp);
		return;
	}
	/* shifted sum: identical values give an exact mean and a zero stddev */
	for (size_t i = 0; i < m; i++)
		sum += tmp[i] - tmp[0];
	mean = tmp[0] + sum / (double)m;
	out->min = out->max = tmp[0];
	for (size_t i = 0; i < m; i++) {
		ss += (tmp[i] - mean) * (tmp[i] - mean);
		if (tmp[i] < out->min)
			out->min = tmp[i];
		if (tmp[i] > out->max)
			out->max = tmp[i];
	}
	out->mean = mean;
	out->stddev_pct = mean != 0 ? 100 * sqrt(ss / (double)m) / fabs(mean) : NAN;
	out->median = ranktest_median_inplace(tmp, m);
	if (tmp != buf)
		free(tmp);
}

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_SAME:
		return "same";
	case VERDICT_DIFFERENT:
		return "different";
	case VERDICT_NEED_MORE_RUNS:
		break;
	}
	return "need-more-runs";
}

void compare_opts_init(struct compare_opts *o)
{
	o->alpha = 0.01;
	o->floor_pct = 1.0;
	o->ci_level = 0.95;
	o->monitor_floor_pct = 5.0;
}

double compare_opts_floor(const struct compare_opts *o, const char *name)
{
	return metric_is_monitor(name) ? o->monitor_floor_pct : o->floor_pct;
}

/* Finite values of v in buf (when n <= SMALL_N) or a new array (caller frees
 * when not buf); *m gets their count. */
static double *finite_copy(const double *v, size_t n, size_t *m, double *buf)
{
	double *out = n <= SMALL_N ? buf : xmalloc((n ? n : 1) * sizeof(*out));

	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			out[(*m)++] = v[i];
	return out;
}

double compare_pct_change(double a, double b)
{
	/* equal means did not move: 0 (LKP's 1e-100 base would make 0 -> 0 -100 %) */
	if (a == b)
		return 0;
	/* lkp-tests lib/compare.rb, calc_perf_change: avg0 = 1e-100 if avg0.zero? */
	if (a == 0)
		a = 1e-100;
	return 100 * (b - a) / a;
}

/*
 * x (a shift or an end of its interval, in input units) as % of the base's
 * typical size ref (> 0), or +-inf when ref is 0 (a base of zeros: any
 * change is infinitely large relative to it); 0 stays 0.
 */
static double shift_pct(double x, double ref)
{
	if (x == 0 || isnan(x))
		return x;
	return ref > 0 ? 100 * x / ref : copysign(INFINITY, x);
}

size_t sample_outliers(const double *v, size_t n, double k, unsigned char *flag)
{
	double buf[SMALL_N], *tmp, med, scale, sum = 0;
	size_t m = 0, cnt = 0;

	if (flag)
		memset(flag, 0, n);
	if (n < 3)
		return 0;
	tmp = n <= SMALL_N ? buf : xmalloc(n * sizeof(*tmp));
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			tmp[m++] = v[i];
	if (m < 3)
		goto out;
	med = ranktest_median_inplace(tmp, m);
	for (size_t i = 0; i < m; i++) {
		tmp[i] = fabs(tmp[i] - med);
		sum += tmp[i];
	}
	scale = 1.4826 * ranktest_median_inplace(tmp, m);
	if (!(scale > 0))
		scale = 1.2533 * sum / (double)m; /* more than half the runs equal the median */
	if (!(scale > 0))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && fabs(v[i] - med) > k * scale) {
			cnt++;
			if (flag)
				flag[i] = 1;
		}
out:
	if (tmp != buf)
		free(tmp);
	return cnt;
}

/*
 * Fisher's exact test, two-sided, of the 2 x 2 table (ka of na, kb of nb):
 * the probability under the hypergeometric law of the ka + kb marked
 * among na + nb of a table at most as likely as this one (Fisher,
 * "Statistical Methods for Research Workers", 1934, sec. 21.02; the
 * two-sided p as R's fisher.test sums it, with its relative tolerance
 * 1e-7 for ties in probability)
 */
static double fisher_exact_p(size_t ka, size_t na, size_t kb, size_t nb)
{
	unsigned int k = (unsigned int)(ka + kb), lo = k > nb ? (unsigned int)(k - nb) : 0,
		     hi = k < na ? k : (unsigned int)na;
	double obs = gsl_ran_hypergeometric_pdf((unsigned int)ka, (unsigned int)na,
						(unsigned int)nb, k),
	       p = 0;

	for (unsigned int x = lo; x <= hi; x++) {
		double px = gsl_ran_hypergeometric_pdf(x, (unsigned int)na, (unsigned int)nb, k);

		if (px <= obs * (1 + 1e-7))
			p += px;
	}
	return p < 1 ? p : 1;
}

void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     const struct compare_opts *o, struct compare_result *r)
{
	struct compare_opts def;
	size_t ma, mb;
	double *fa, *fb, est, lo, hi, abuf[SMALL_N], bbuf[SMALL_N];
	int positive = 1;

	if (!o) {
		compare_opts_init(&def);
		o = &def;
	}
	memset(r, 0, sizeof(*r));
	fa = finite_copy(a, na, &ma, abuf);
	fb = finite_copy(b, nb, &mb, bbuf);
	sample_stats_compute(fa, ma, &r->a);
	sample_stats_compute(fb, mb, &r->b);
	r->change_pct = ma && mb ? compare_pct_change(r->a.mean, r->b.mean) : NAN;
	r->constant = ma && mb && r->a.min == r->a.max && r->b.min == r->b.max &&
		      r->a.min == r->b.min;
	r->p_value = ranktest_mann_whitney(fa, ma, fb, mb, NULL);
	r->min_p = ranktest_min_p_ties(fa, ma, fb, mb);
	r->exact = ma + mb <= RANKTEST_EXACT_MAX;
	r->outliers_a = sample_outliers(fa, ma, COMPARE_OUTLIER_K, NULL);
	r->outliers_b = sample_outliers(fb, mb, COMPARE_OUTLIER_K, NULL);
	r->outliers_differ = (r->outliers_a || r->outliers_b) &&
			     fisher_exact_p(r->outliers_a, ma, r->outliers_b, mb) <= o->alpha;

	for (size_t i = 0; i < ma; i++)
		positive &= fa[i] > 0;
	for (size_t i = 0; i < mb; i++)
		positive &= fb[i] > 0;
	r->log_scale = positive && ma && mb;
	r->ci_lo_pct = r->ci_hi_pct = r->hl_pct = r->shift = NAN;
	if (r->log_scale) {
		for (size_t i = 0; i < ma; i++)
			fa[i] = log(fa[i]);
		for (size_t i = 0; i < mb; i++)
			fb[i] = log(fb[i]);
		if (!ranktest_hodges_lehmann(fa, ma, fb, mb, o->ci_level, &est, &lo, &hi)) {
			r->ci_lo_pct = 100 * expm1(lo);
			r->ci_hi_pct = 100 * expm1(hi);
		}
		r->hl_pct = isfinite(est) ? 100 * expm1(est) : NAN;
		/* the shift in input units: the base median moved by the ratio */
		r->shift = isfinite(est) ? r->a.median * expm1(est) : NAN;
	} else if (ma && mb) {
		/* relative to the base's median, its mean when the median is 0 */
		double ref = fabs(r->a.median) > 0 ? fabs(r->a.median) : fabs(r->a.mean);

		if (!ranktest_hodges_lehmann(fa, ma, fb, mb, o->ci_level, &est, &lo, &hi)) {
			r->ci_lo_pct = shift_pct(lo, ref);
			r->ci_hi_pct = shift_pct(hi, ref);
		}
		r->hl_pct = shift_pct(est, ref);
		r->shift = est;
	}
	r->direction = r->hl_pct > 0 ? 1 : r->hl_pct < 0 ? -1 : 0;
	r->welch_p = ranktest_welch(fa, ma, fb, mb, NULL, NULL);

	if (r->p_value <= o->alpha && r->direction && fabs(r->hl_pct) > o->floor_pct)
		r->verdict = VERDICT_DIFFERENT;
	else if (isfinite(r->ci_lo_pct) && isfinite(r->ci_hi_pct) &&
		 r->ci_lo_pct >= -o->floor_pct && r->ci_hi_pct <= o->floor_pct &&
		 !r->outliers_differ)
		r->verdict = VERDICT_SAME;
	else
		r->verdict = VERDICT_NEED_MORE_RUNS;
	if (fa != abuf)
		free(fa);
	if (fb != bbuf)
		free(fb);
}

enum change_kind change_kind_of(int direction, int higher_is_better)
{
	if (!direction)
		return CHANGE_NONE;
	if (higher_is_better < 0)
		return CHANGE_UNKNOWN;
	if ((direction > 0) == (higher_is_better == 1))
		return CHANGE_IMPROVEMENT;
	return CHANGE_REGRESSION;
}

enum change_kind compare_change_kind(const struct compare_result *r, int higher_is_better)
{
	if (r->verdict != VERDICT_DIFFERENT)
		return CHANGE_NONE;
	return change_kind_of(r->direction, higher_is_better);
}

const char *change_kind_name(enum change_kind k)
{
	switch (k) {
	case CHANGE_IMPROVEMENT:
		return "improvement";
	case CHANGE_REGRESSION:
		return "regression";
	case CHANGE_UNKNOWN:
		return "unknown";
	case CHANGE_NONE:
		break;
	}
	return "none";
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *x, const void *y)
{
	const struct pidx *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

void bh_adjust(const double *p, size_t n, double *q_out)
{
	struct pidx *s = xmalloc((n ? n : 1) * sizeof(*s));
	size_t m = 0;
	double run = 1;

	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[m++] = (struct pidx){ p[i], i };
	qsort(s, m, sizeof(*s), cmp_pidx);
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			q_out[i] = NAN;
	for (size_t j = m; j-- > 0;) {
		double q = (double)m * s[j].p / (double)(j + 1);

		if (q < run)
			run = q;
		q_out[s[j].i] = run;
	}
	free(s);
}

void compare_fdr(struct compare_result *const *r, size_t n, double alpha, double *q_out)
{
	for (size_t i = 0; i < n; i++)
		q_out[i] = r[i]->min_p <= alpha ? r[i]->p_value : NAN;
	bh_adjust(q_out, n, q_out);
	for (size_t i = 0; i < n; i++)
		if (r[i]->verdict == VERDICT_DIFFERENT && !(q_out[i] <= alpha))
			r[i]->verdict = VERDICT_NEED_MORE_RUNS;
}

double sample_range_pct(const double *v, size_t n)
{
	struct sample_stats st;

	sample_stats_compute(v, n, &st);
	if (st.n < 2 || !(fabs(st.median) > 0))
		return NAN;
	return 100 * (st.max - st.min) / fabs(st.median);
}

void aa_spread_init(struct aa_spread *s)
{
	s->pct = NAN;
	s->runs = s->groups = 0;
}

void aa_spread_add(struct aa_spread *s, const double *v, size_t n)
{
	struct sample_stats st;
	double r;

	sample_stats_compute(v, n, &st);
	r = sample_range_pct(v, n);
	if (!isfinite(r))
		return;
	s->pct = isfinite(s->pct) && s->pct > r ? s->pct : r;
	s->runs += st.n;
	s->groups++;
}

double aa_spread_usable(const struct aa_spread *s)
{
	if (s->runs < AA_SPREAD_MIN_RUNS || !isfinite(s->pct))
		return NAN;
	return s->pct > AA_SPREAD_FLOOR_PCT ? s->pct : AA_SPREAD_FLOOR_PCT;
}

void compare_deterministic(const double *a, size_t na, const double *b, size_t nb,
			   const struct compare_opts *o, double aa_spread_pct,
			   struct compare_result *r)
{
	struct compare_opts def;
	double s, floor_pct, ra, rb;
	int disjoint;

	if (!o) {
		compare_opts_init(&def);
		o = &def;
	}
	compare_samples(a, na, b, nb, o, r);
	if (!isfinite(aa_spread_pct) || r->a.n < 2 || r->b.n < 2 || !isfinite(r->hl_pct))
		return;
	s = aa_spread_pct > AA_SPREAD_FLOOR_PCT ? aa_spread_pct : AA_SPREAD_FLOOR_PCT;
	floor_pct = o->floor_pct;
	ra = sample_range_pct(a, na);
	rb = sample_range_pct(b, nb);
	if (!(ra <= 2 * s) || !(rb <= 2 * s))
		return; /* noisier than the A/A runs: the model does not hold here */
	disjoint = r->a.max < r->b.min || r->b.max < r->a.min;
	if (disjoint && fabs(r->hl_pct) >= (floor_pct > 4 * s ? floor_pct : 4 * s)) {
		r->verdict = VERDICT_DIFFERENT;
		r->by_spread = 1;
	} else if (fabs(r->hl_pct) <= floor_pct - 2 * s) {
		r->verdict = VERDICT_SAME;
		r->by_spread = 1;
	}
}
