/*
 * ranktest_hodges_lehmann() selects the order statistics it needs instead
 * of sorting every difference: its estimate and interval must be the
 * values of the definition (the stable sort of the differences b[j] - a[i]
 * in their generated order, read at the median and at k - 1, mn - k), to
 * the bit, including the sign of a zero, on random samples, samples full
 * of ties (deterministic counters), sorted and reversed samples (the bad
 * cases of a naive pivot) and sizes either side of the small-sample path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "stats/ranktest.h"
#include "xalloc.h"

#include <gsl/gsl_cdf.h>

/* a value and its place in the generated order */
struct at {
	double v;
	size_t i;
};

/* by value, equal values in their generated order: a stable sort (the reference's zeros) */
static int cmp_at(const void *x, const void *y)
{
	const struct at *a = x, *b = y;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static void stable_sort(double *v, size_t n)
{
	struct at *t = xmalloc((n ? n : 1) * sizeof(*t));

	for (size_t i = 0; i < n; i++)
		t[i] = (struct at){ v[i], i };
	qsort(t, n, sizeof(*t), cmp_at);
	for (size_t i = 0; i < n; i++)
		v[i] = t[i].v;
	free(t);
}

/* the definition, by a full stable sort; returns as ranktest_hodges_lehmann */
static int reference_hl(const double *a, size_t na, const double *b, size_t nb, double level,
			double *est, double *lo, double *hi)
{
	size_t mn = na * nb, N = na + nb, k = 0;
	double alpha2 = (1 - level) / 2, *d = xmalloc(mn * sizeof(*d));

	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[i * nb + j] = b[j] - a[i];
	stable_sort(d, mn);
	*est = mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2;
	*lo = *hi = NAN;
	if (N <= RANKTEST_EXACT_MAX) {
		double *cdf = xmalloc((mn + 1) * sizeof(*cdf));

		ranktest_u_cdf(na, nb, cdf);
		while (k < mn / 2 && cdf[k] <= alpha2 * (1 + 1e-12))
			k++;
		free(cdf);
	} else {
		double z = gsl_cdf_ugaussian_Qinv(alpha2);
		double kk = floor((double)mn / 2 - z * sqrt((double)mn * (double)(N + 1) / 12));

		k = kk >= 1 ? (size_t)kk : 0;
	}
	if (k >= 1) {
		*lo = d[k - 1];
		*hi = d[mn - k];
	}
	free(d);
	return k >= 1 ? 0 : -1;
}

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t next_u64(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double uniform(void)
{
	return (double)(next_u64() >> 11) / 9007199254740992.0;
}

enum shape { NOISY, FEW_LEVELS, SIGNED_ZEROS, SORTED, REVERSED, CONSTANT, NR_SHAPES };

static void fill(double *v, size_t n, enum shape s, double shift)
{
	for (size_t i = 0; i < n; i++) {
		switch (s) {
		case NOISY:
			v[i] = 1000 * (1 + 0.003 * (uniform() - 0.5)) + shift;
			break;
		case FEW_LEVELS: /* instruction counts: a few exact values */
			v[i] = 1e6 + (double)(next_u64() % 3) + shift;
			break;
		case SIGNED_ZEROS: /* -0 and +0, which compare equal */
			v[i] = next_u64() % 2 ? -0.0 : 0.0;
			if (next_u64() % 4 == 0)
				v[i] = (double)(next_u64() % 3) - 1 + shift;
			break;
		case SORTED:
			v[i] = (double)i + shift;
			break;
		case REVERSED:
			v[i] = (double)(n - i) + shift;
			break;
		default:
			v[i] = 5;
		}
	}
}

static void assert_same_bits(double x, double y)
{
	if (memcmp(&x, &y, sizeof(x)))
		fail_msg("%.17g (%s) != %.17g (%s)", x, signbit(x) ? "-" : "+", y,
			 signbit(y) ? "-" : "+");
}

static void check_one(const double *a, size_t na, const double *b, size_t nb, double level)
{
	double e1, l1, h1, e2, l2, h2;
	int r1 = ranktest_hodges_lehmann(a, na, b, nb, level, &e1, &l1, &h1);
	int r2 = reference_hl(a, na, b, nb, level, &e2, &l2, &h2);

	assert_int_equal(r1, r2);
	assert_same_bits(e1, e2);
	assert_same_bits(l1, l2);
	assert_same_bits(h1, h2);
}

static void test_selection_equals_sort(void **state UNUSED)
{
	static const size_t sizes[] = { 1, 2, 3, 5, 7, 8, 9, 11, 17, 30, 64, 65, 150, 301 };
	size_t nsz = sizeof(sizes) / sizeof(sizes[0]);
	double *a = xmalloc(301 * sizeof(*a)), *b = xmalloc(301 * sizeof(*b));
	size_t cases = 0;

	for (int s = 0; s < NR_SHAPES; s++)
		for (size_t i = 0; i < nsz; i++)
			for (size_t j = 0; j < nsz; j += 2) {
				size_t na = sizes[i], nb = sizes[(i + j) % nsz];

				fill(a, na, (enum shape)s, 0);
				fill(b, nb, (enum shape)s, s == NOISY ? 2 : 0);
				check_one(a, na, b, nb, 0.95);
				check_one(b, nb, a, na, 0.99);
				cases += 2;
			}
	assert_true(cases > 300);
	free(a);
	free(b);
}

/* random sizes and shapes, levels either side of the exact and normal paths */
static void test_random_sizes(void **state UNUSED)
{
	double a[120], b[120];
	static const double levels[] = { 0.5, 0.8, 0.9, 0.95, 0.99 };

	for (int round = 0; round < 1500; round++) {
		size_t na = 1 + (size_t)(next_u64() % 120), nb = 1 + (size_t)(next_u64() % 120);
		enum shape sa = (enum shape)(next_u64() % NR_SHAPES);
		enum shape sb = (enum shape)(next_u64() % NR_SHAPES);

		fill(a, na, sa, 0);
		fill(b, nb, sb, (double)(next_u64() % 3));
		check_one(a, na, b, nb, levels[round % 5]);
	}
}

/* the signs of zero medians and ends, where only the stable order decides */
static void test_zero_signs(void **state UNUSED)
{
	double a[40], b[40];

	for (int round = 0; round < 200; round++) {
		size_t na = 9 + (size_t)(next_u64() % 31), nb = 9 + (size_t)(next_u64() % 31);

		fill(a, na, SIGNED_ZEROS, 0);
		fill(b, nb, SIGNED_ZEROS, 0);
		check_one(a, na, b, nb, 0.95);
		check_one(a, na, b, nb, 0.5);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selection_equals_sort),
		cmocka_unit_test(test_random_sizes),
		cmocka_unit_test(test_zero_signs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
