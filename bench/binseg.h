#ifndef REGTRACK_BENCH_BINSEG_H
#define REGTRACK_BENCH_BINSEG_H

#include <math.h>
#include <stddef.h>

/*
 * The benches' baseline detector (bench/detect_bench.c, bench/detect_noise.c):
 * L2 binary segmentation. binseg() splits x[lo..hi) at the point of the
 * largest standardized difference of the two sides' sums (CUSUM), when it
 * is at least thr and both sides hold 3 points or more, and recurses into
 * both sides; the split indexes go to out[] in ascending order, *nout of
 * them, at most max. Header-only: each bench is one translation unit.
 */
static void binseg(const double *x, size_t lo, size_t hi, double thr, size_t *out, size_t *nout,
		   size_t max)
{
	double total = 0, left = 0, best = 0;
	size_t n = hi - lo, bt = 0;

	if (n < 6 || *nout >= max)
		return;
	for (size_t i = lo; i < hi; i++)
		total += x[i];
	for (size_t t = 1; t < n; t++) {
		double c;

		left += x[lo + t - 1];
		c = fabs(left - total * (double)t / (double)n) /
		    sqrt((double)t * (double)(n - t) / (double)n);
		if (c > best && t >= 3 && n - t >= 3) {
			best = c;
			bt = t;
		}
	}
	if (!bt || best < thr)
		return;
	binseg(x, lo, lo + bt, thr, out, nout, max);
	if (*nout < max)
		out[(*nout)++] = lo + bt;
	binseg(x, lo + bt, hi, thr, out, nout, max);
}

#endif
