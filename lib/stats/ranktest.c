#include "ranktest.h"
#include "xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

struct labelled {
	double v;
	int from_a;
};

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static int cmp_labelled(const void *x, const void *y)
{
	const struct labelled *a = x, *b = y;
	return (a->v > b->v) - (a->v < b->v);
}

/*
 * Sorting the few values of a comparison (6 runs a side: 12 labelled values,
 * 36 differences) with qsort() cost more than the statistics themselves
 * (a call through a pointer per comparison, glibc's merge sort copies):
 * insertion sort below SMALL_SORT, qsort() above. Same order as qsort with
 * the comparators above (equal keys may come in another order, which no
 * caller depends on: ties are grouped by value).
 */
#define SMALL_SORT 64

static void sort_doubles(double *v, size_t n)
{
	if (n > SMALL_SORT) {
		qsort(v, n, sizeof(*v), cmp_double);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void sort_labelled(struct labelled *v, size_t n)
{
	if (n > SMALL_SORT) {
		qsort(v, n, sizeof(*v), cmp_labelled);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct labelled x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1].v > x.v; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* k-th smallest (0-based) of v[0..n), v reordered (Hoare's FIND). */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

double ranktest_select_inplace(double *v, size_t n, size_t k)
{
	return n && k < n ? select_kth(v, n, k) : NAN;
}

double ranktest_median_inplace(double *v, size_t n)
{
	double hi, lo;

	if (!n)
		return NAN;
	hi = select_kth(v, n, n / 2);
	if (n % 2)
		return hi;
	/* the lower middle is the largest of the left part */
	lo = v[0];
	for (size_t i = 1; i < n / 2; i++)
		if (v[i] > lo)
			lo = v[i];
	return (lo + hi) / 2;
}

static double binom(size_t n, size_t k)
{
	double r = 1;

	if (k > n)
		return 0;
	if (k > n - k)
		k = n - k;
	for (size_t i = 1; i <= k; i++)
		r = r * (double)(n - k + i) / (double)i;
	return round(r);
}

double ranktest_min_p(size_t na, size_t nb)
{
	double p;

	if (!na || !nb)
		return 1;
	p = 2 / binom(na + nb, na);
	return p > 1 ? 1 : p;
}

/* counts[u], u = 0..m*n, of U without ties: Gaussian binomial coefficients. */
static double *u_counts(size_t m, size_t n)
{
	size_t len = m * n + m + 1;
	double *p = xcalloc(len, sizeof(*p));

	p[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		size_t up = n + i;

		for (size_t d = len - 1; d >= up; d--)
			p[d] -= p[d - up];
		for (size_t d = i; d < len; d++)
			p[d] += p[d - i];
	}
	return p;
}

/*
 * Per-thread cache of the last null distribution (N <= RANKTEST_EXACT_MAX,
 * so na*nb <= 625): a comparison of thousands of metrics with the same
 * run counts computes it once.
 */
static _Thread_local struct {
	size_t na, nb;
	double cdf[(RANKTEST_EXACT_MAX / 2) * (RANKTEST_EXACT_MAX / 2) + 1];
} cdf_cache;

/* The cached cdf for (na, nb), filled on a miss; NULL when too large to cache. */
static const double *u_cdf_cached(size_t na, size_t nb)
{
	if (na + nb > RANKTEST_EXACT_MAX || !na || !nb)
		return NULL;
	if (cdf_cache.na != na || cdf_cache.nb != nb) {
		ranktest_u_cdf(na, nb, cdf_cache.cdf);
		cdf_cache.na = na;
		cdf_cache.nb = nb;
	}
	return cdf_cache.cdf;
}

void ranktest_u_cdf(size_t na, size_t nb, double *cdf_out)
{
	size_t mn = na * nb;
	double *c = u_counts(na, nb), total = 0, run = 0;

	for (size_t u = 0; u <= mn; u++)
		total += c[u];
	for (size_t u = 0; u <= mn; u++) {
		run += c[u];
		cdf_out[u] = run / total;
	}
	free(c);
}

/* Exact two-sided p conditional on the tie pattern; rank2[i] doubled midranks. */
static double exact_p_ties(const struct labelled *s, const size_t *rank2, size_t N, size_t na,
			   size_t s_obs)
{
	size_t smax = N * (N + 1), row = smax + 1, done = 0;
	double *cnt = xcalloc((na + 1) * row, sizeof(*cnt));
	double total = 0, hit = 0;
	size_t e = na * (N + 1), dobs = s_obs > e ? s_obs - e : e - s_obs;

	cnt[0] = 1;
	for (size_t i = 0; i < N;) {
		size_t t = 1, r = rank2[i];
		size_t kmax;

		while (i + t < N && s[i + t].v == s[i].v)
			t++;
		done += t;
		kmax = done < na ? done : na;
		for (size_t k = kmax; k >= 1; k--) {
			double *dst = cnt + k * row;

			for (size_t j = 1; j <= t && j <= k; j++) {
				double coef = binom(t, j);
				const double *src = cnt + (k - j) * row;
				size_t off = j * r;

				for (size_t x = smax; x >= off; x--) {
					if (src[x - off] != 0)
						dst[x] += coef * src[x - off];
					if (x == off)
						break;
				}
			}
		}
		i += t;
	}
	for (size_t x = 0; x <= smax; x++) {
		double c = cnt[na * row + x];
		size_t d = x > e ? x - e : e - x;

		total += c;
		if (d >= dobs)
			hit += c;
	}
	free(cnt);
	return total > 0 ? hit / total : 1;
}

double ranktest_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u_out)
{
	size_t N = na + nb, s_obs = 0, tie_sum3 = 0;
	struct labelled sbuf[SMALL_SORT], *s;
	size_t r2buf[SMALL_SORT], *rank2;
	int ties = 0;
	double u, p;

	if (u_out)
		*u_out = NAN;
	if (!na || !nb)
		return 1;
	s = N <= SMALL_SORT ? sbuf : xmalloc(N * sizeof(*s));
	rank2 = N <= SMALL_SORT ? r2buf : xmalloc(N * sizeof(*rank2));
	for (size_t i = 0; i < na; i++)
		s[i] = (struct labelled){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		s[na + i] = (struct labelled){ b[i], 0 };
	sort_labelled(s, N);
	for (size_t i = 0; i < N;) {
		size_t t = 1;

		while (i + t < N && s[i + t].v == s[i].v)
			t++;
		for (size_t j = 0; j < t; j++) {
			rank2[i + j] = 2 * i + t + 1;
			if (s[i + j].from_a)
				s_obs += rank2[i + j];
		}
		if (t > 1) {
			ties = 1;
			tie_sum3 += t * t * t - t;
		}
		i += t;
	}
	u = (double)s_obs / 2 - (double)(na * (na + 1)) / 2;
	if (u_out)
		*u_out = u;

	if (ties && tie_sum3 == N * N * N - N) {
		p = 1; /* every value equal */
	} else if (N <= RANKTEST_EXACT_MAX && ties) {
		/* the DP is cheaper over the smaller sample; p is symmetric */
		if (nb < na) {
			size_t sb = 0;

			for (size_t i = 0; i < N; i++) {
				s[i].from_a = !s[i].from_a;
				if (s[i].from_a)
					sb += rank2[i];
			}
			p = exact_p_ties(s, rank2, N, nb, sb);
		} else {
			p = exact_p_ties(s, rank2, N, na, s_obs);
		}
	} else if (N <= RANKTEST_EXACT_MAX) {
		size_t ui = (size_t)u;
		const double *cdf = u_cdf_cached(na, nb);
		double lower, upper;

		/*
		 * U is symmetric about na*nb/2: P(U >= u) = P(U <= na*nb - u), read
		 * from the cdf like the lower tail, not as 1 - cdf[u - 1] (which
		 * cancelled: 2/924 came out as 0.0021645021645022577 on the upper
		 * side and 0.0021645021645021645 on the lower)
		 */
		lower = cdf[ui];
		upper = cdf[na * nb - ui];
		p = 2 * (lower < upper ? lower : upper);
	} else {
		double mn = (double)na * (double)nb, n = (double)N;
		double var = mn / 12 * ((n + 1) - (double)tie_sum3 / (n * (n - 1)));
		double d = fabs(u - mn / 2) - 0.5;

		if (var <= 0)
			p = 1;
		else
			p = 2 * gsl_cdf_ugaussian_Q((d > 0 ? d : 0) / sqrt(var));
	}
	if (s != sbuf) {
		free(s);
		free(rank2);
	}
	return p > 1 ? 1 : p;
}

/*
 * The differences b[j] - a[i] of sorted a (sa) and sorted b (sb), as a
 * matrix whose rows (i) rise with j and whose columns fall with i (the
 * rounding of a difference keeps that order), held by its sides only.
 */
struct diffs {
	const double *sa, *sb;
	size_t na, nb;
	size_t *lo, *hi, *nlt, *nle; /* per row: the candidate columns, the counts at a pivot */
	uint64_t rng;
};

/* how many differences are below p: one walk down the rows */
static size_t diffs_below(const struct diffs *x, double p)
{
	size_t n = 0, j = 0;

	for (size_t i = 0; i < x->na; i++) {
		while (j < x->nb && x->sb[j] - x->sa[i] < p)
			j++;
		n += j;
	}
	return n;
}

/*
 * The difference of rank k (0-based, the value a sort puts at k) without
 * forming the na * nb of them: randomized selection over the rows'
 * candidate ranges (Monahan, ACM TOMS 10 (1984) 265-270): a pivot drawn
 * from the candidates, the differences below and at most it counted by
 * one walk, each row's range cut to the side that holds rank k. Expected
 * O((na + nb) log(na nb)). The pivot leaves the candidates every round
 * and the value of rank k never does, so it ends with that value.
 */
static double diffs_rank(struct diffs *x, size_t k)
{
	for (size_t i = 0; i < x->na; i++) {
		x->lo[i] = 0;
		x->hi[i] = x->nb;
	}
	for (;;) {
		size_t cand = 0, lt = 0, le = 0, jl = 0, je = 0, pick;
		double p = 0;

		for (size_t i = 0; i < x->na; i++)
			cand += x->hi[i] - x->lo[i];
		x->rng ^= x->rng << 13;
		x->rng ^= x->rng >> 7;
		x->rng ^= x->rng << 17;
		pick = (size_t)(x->rng % cand);
		for (size_t i = 0; i < x->na; i++) {
			if (pick < x->hi[i] - x->lo[i]) {
				p = x->sb[x->lo[i] + pick] - x->sa[i];
				break;
			}
			pick -= x->hi[i] - x->lo[i];
		}
		for (size_t i = 0; i < x->na; i++) {
			while (jl < x->nb && x->sb[jl] - x->sa[i] < p)
				jl++;
			while (je < x->nb && !(x->sb[je] - x->sa[i] > p))
				je++;
			x->nlt[i] = jl;
			x->nle[i] = je;
			lt += jl;
			le += je;
		}
		if (k >= lt && k < le)
			return p;
		for (size_t i = 0; i < x->na; i++) {
			if (k < lt && x->nlt[i] < x->hi[i])
				x->hi[i] = x->nlt[i];
			if (k >= le && x->nle[i] > x->lo[i])
				x->lo[i] = x->nle[i];
		}
	}
}

/*
 * The value at position pos of the sorted differences, v the value of that
 * rank: v itself unless it is a zero, whose sign is the one the stable
 * sort of the differences in their generated order (a, b as given: i, then
 * j) puts at pos. Only -0 - +0 makes a -0, and -0 and +0 compare equal,
 * so the rank alone leaves the sign open.
 */
static double sorted_zero(const struct diffs *x, double v, size_t pos, const double *a,
			  const double *b)
{
	size_t below;

	if (v != 0)
		return v;
	below = diffs_below(x, 0);
	for (size_t i = 0; i < x->na; i++)
		for (size_t j = 0; j < x->nb; j++)
			if (b[j] - a[i] == 0 && below++ == pos)
				return b[j] - a[i];
	return v; /* not reached: pos is a zero's position */
}

/* the value a stable sort of the differences puts at pos */
static double diffs_at(struct diffs *x, size_t pos, const double *a, const double *b)
{
	return sorted_zero(x, diffs_rank(x, pos), pos, a, b);
}

static void diffs_init(struct diffs *x, const double *a, size_t na, const double *b, size_t nb)
{
	double *sa = xmalloc(na * sizeof(*sa)), *sb = xmalloc(nb * sizeof(*sb));

	memcpy(sa, a, na * sizeof(*sa));
	memcpy(sb, b, nb * sizeof(*sb));
	sort_doubles(sa, na);
	sort_doubles(sb, nb);
	x->sa = sa;
	x->sb = sb;
	x->na = na;
	x->nb = nb;
	x->lo = xmalloc(4 * na * sizeof(*x->lo));
	x->hi = x->lo + na;
	x->nlt = x->hi + na;
	x->nle = x->nlt + na;
	x->rng = 0x9e3779b97f4a7c15ULL;
}

static void diffs_release(struct diffs *x)
{
	free((double *)x->sa);
	free((double *)x->sb);
	free(x->lo);
}

int ranktest_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double level,
			    double *est, double *lo, double *hi)
{
	size_t mn = na * nb, N = na + nb, k = 0, half = mn / 2;
	double alpha2 = (1 - level) / 2;
	double d[SMALL_SORT], med, med0;
	struct diffs x;
	int small = mn <= SMALL_SORT;

	*est = *lo = *hi = NAN;
	if (!na || !nb)
		return -1;
	/*
	 * Of the mn differences only four order statistics are used (the two
	 * middle ones, the interval's ends): above SMALL_SORT they are
	 * selected from the sorted samples (diffs_rank), not read off a sort
	 * of all mn of them (the sort of the 300 x 300 differences of two
	 * 64-commit segments was most of a detection pass). Each is the value
	 * the sort puts there (sorted_zero: a zero's sign too), so the results
	 * are the sort's.
	 */
	if (small) {
		for (size_t i = 0; i < na; i++)
			for (size_t j = 0; j < nb; j++)
				d[i * nb + j] = b[j] - a[i];
		sort_doubles(d, mn);
		med = d[half];
		med0 = mn % 2 ? med : d[half - 1];
	} else {
		diffs_init(&x, a, na, b, nb);
		med = diffs_at(&x, half, a, b);
		med0 = mn % 2 ? med : diffs_at(&x, half - 1, a, b);
	}
	*est = mn % 2 ? med : (med0 + med) / 2;

	if (level > 0 && level < 1 && N <= RANKTEST_EXACT_MAX) {
		const double *cdf = u_cdf_cached(na, nb);

		/* P(U <= k-1) <= alpha/2, with a little room for rounding */
		while (k < mn / 2 && cdf[k] <= alpha2 * (1 + 1e-12))
			k++;
	} else if (level > 0 && level < 1) {
		double z = gsl_cdf_ugaussian_Qinv(alpha2);
		double kk = floor((double)mn / 2 - z * sqrt((double)mn * (double)(N + 1) / 12));

		k = kk >= 1 ? (size_t)kk : 0;
	}
	if (k >= 1) {
		*lo = small ? d[k - 1] : diffs_at(&x, k - 1, a, b);
		*hi = small ? d[mn - k] : diffs_at(&x, mn - k, a, b);
	}
	if (!small)
		diffs_release(&x);
	return k >= 1 ? 0 : -1;
}

double ranktest_welch(const double *a, size_t na, const double *b, size_t nb, double *t, double *df)
{
	double ma = 0, mb = 0, va = 0, vb = 0, se2, tt, dd;

	if (t)
		*t = NAN;
	if (df)
		*df = NAN;
	if (na < 2 || nb < 2)
		return NAN;
	/* shifted sums: identical values give an exact mean and zero variance */
	for (size_t i = 0; i < na; i++)
		ma += a[i] - a[0];
	for (size_t i = 0; i < nb; i++)
		mb += b[i] - b[0];
	ma = a[0] + ma / (double)na;
	mb = b[0] + mb / (double)nb;
	for (size_t i = 0; i < na; i++)
		va += (a[i] - ma) * (a[i] - ma);
	for (size_t i = 0; i < nb; i++)
		vb += (b[i] - mb) * (b[i] - mb);
	va /= (double)(na - 1);
	vb /= (double)(nb - 1);
	se2 = va / (double)na + vb / (double)nb;
	if (se2 <= 0) {
		if (t)
			*t = ma == mb ? 0 : (mb > ma ? INFINITY : -INFINITY);
		return ma == mb ? 1 : 0;
	}
	tt = (mb - ma) / sqrt(se2);
	dd = se2 * se2 /
	     ((va / (double)na) * (va / (double)na) / (double)(na - 1) +
	      (vb / (double)nb) * (vb / (double)nb) / (double)(nb - 1));
	if (t)
		*t = tt;
	if (df)
		*df = dd;
	return 2 * gsl_cdf_tdist_Q(fabs(tt), dd);
}

double ranktest_min_p_ties(const double *a, size_t na, const double *b, size_t nb)
{
	size_t N = na + nb;
	double buf[SMALL_SORT], *v, p;
	int ties = 0;

	if (!na || !nb)
		return 1;
	v = N <= SMALL_SORT ? buf : xmalloc(N * sizeof(*v));
	memcpy(v, a, na * sizeof(*v));
	memcpy(v + na, b, nb * sizeof(*v));
	sort_doubles(v, N);
	for (size_t i = 1; i < N && !ties; i++)
		ties = v[i] == v[i - 1];
	if (!ties) {
		p = ranktest_min_p(na, nb);
	} else if (v[0] == v[N - 1]) {
		p = 1; /* one value throughout: no arrangement can differ */
	} else {
		/* the two most extreme arrangements: a takes the lowest, or the highest, values */
		double lo = ranktest_mann_whitney(v, na, v + na, nb, NULL);
		double hi = ranktest_mann_whitney(v + nb, na, v, nb, NULL);

		p = lo < hi ? lo : hi;
	}
	if (v != buf)
		free(v);
	return p;
}
