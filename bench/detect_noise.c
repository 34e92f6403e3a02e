/*
 * bench/detect_noise — the change-point detector by noise kind.
 *
 * For each kind of noise (CV 1 % of the level, one run a commit, fixed
 * seeds), beside the L2 binary segmentation baseline of detect_bench.c:
 *  - false alarms per 1000 points on series without a step (30 x 1000 points)
 *  - recall, precision and F1 on series with steps (10 x 3000 points; a step
 *    every 40..400 commits, of 3, 5, 8, 10, 15 or 20 sigma, up or down; a
 *    detection within +-5 commits of a step matches it, once)
 * Kinds:
 *  gaussian  i.i.d. N(0, 1)
 *  outlier   gaussian, 2 % of runs moved by +-(5..20) sigma
 *  bimodal   gaussian, 30 % of runs 4 sigma higher
 *  drift     gaussian plus +10 % of the level over 500 points
 *  ar1       AR(1) with phi = 0.8 (stationary sd 1): strong short-range dependence
 *  ar1-0.5   AR(1) with phi = 0.5 (stationary sd 1): the trust target
 * Then the stored real series (the .txt files of tests/fixtures/series, README there):
 * repeated A/A runs of one kernel and one binary, so every change point is
 * a false alarm; false alarms per 1000 points per series and in all.
 * Then the detector's time on 10^4 points (median of 21 runs).
 * Build: bench/run.sh (as detect_bench). No assertions; exit 0.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <time.h>

#include "stats/detect.h"
#include "stats/numlist.h"
#include "bench/binseg.h"

enum { K_GAUSS, K_OUTLIER, K_BIMODAL, K_DRIFT, K_AR1, K_AR1_05, K_N };
static const char *const kind_names[K_N] = { "gaussian", "outlier", "bimodal", "drift", "ar1", "ar1-0.5" };

static uint64_t rng_s;

static double unit(void)
{
	uint64_t z = (rng_s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return (((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(unit())) * cos(2 * M_PI * unit());
}

/*
 * n points of kind k at CV 1 %; with steps, *cps gets the step positions
 * (at most max). Returns the number of steps.
 */
static size_t make(double *x, size_t n, int k, uint64_t seed, int steps, size_t *cps, size_t max)
{
	static const double sizes[] = { 3, 5, 8, 10, 15, 20 };
	double level = 1000, e = 0;
	size_t next = steps ? 40 + (size_t)(unit() * 360) : n, ncp = 0;

	rng_s = seed;
	for (size_t t = 0; t < n; t++) {
		double z = gauss(), y;

		if (t == next && t + 20 <= n && ncp < max) {
			double d = sizes[(size_t)(unit() * 6)] * 0.01;
			int up = level < 600 || (level < 2000 && unit() < 0.5);

			level *= up ? 1 + d : 1 / (1 + d);
			cps[ncp++] = t;
			next = t + 40 + (size_t)(unit() * 360);
		}
		if (k == K_AR1) {
			e = t ? 0.8 * e + 0.6 * z : z;
			z = e;
		}
		if (k == K_AR1_05) {
			/* innovations of sd sqrt(1 - 0.25): stationary sd 1 */
			e = t ? 0.5 * e + 0.8660254 * z : z;
			z = e;
		}
		if (k == K_OUTLIER && unit() < 0.02)
			z += (unit() < 0.5 ? -1 : 1) * (5 + 15 * unit());
		if (k == K_BIMODAL && unit() < 0.3)
			z += 4;
		y = level * (1 + 0.01 * z);
		if (k == K_DRIFT)
			y += level * 0.1 * (double)t / 500;
		x[t] = y;
	}
	return ncp;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static size_t baseline(const double *x, size_t n, size_t *out, size_t max)
{
	double *d = malloc(n * sizeof(*d)), sigma;
	size_t nout = 0;

	for (size_t i = 1; i < n; i++)
		d[i - 1] = fabs(x[i] - x[i - 1]);
	qsort(d, n - 1, sizeof(*d), cmp_d);
	sigma = d[(n - 1) / 2] / 0.6745 / sqrt(2);
	free(d);
	if (sigma > 0)
		binseg(x, 0, n, 1.5 * sigma * sqrt(2 * log((double)n)), out, &nout, max);
	return nout;
}

static size_t ours(const double *x, size_t n, size_t *out, size_t max)
{
	struct detect_series s;
	struct err e;
	size_t m = 0;

	if (detect_values(x, NULL, n, NULL, &s, &e))
		exit(1);
	for (size_t j = 0; j < s.ncp && m < max; j++)
		out[m++] = s.cp[j].index;
	detect_series_release(&s);
	return m;
}

struct score {
	size_t truth, found, detections, false_alarms, points;
};

static void tally(const size_t *cps, size_t ncp, const size_t *det, size_t nd, struct score *sc)
{
	unsigned char used[512] = { 0 };

	sc->truth += ncp;
	sc->detections += nd;
	for (size_t j = 0; j < nd; j++) {
		int hit = 0;

		for (size_t i = 0; i < ncp && !hit; i++)
			if (!used[i] &&
			    (det[j] > cps[i] ? det[j] - cps[i] : cps[i] - det[j]) <= 5) {
				used[i] = 1;
				hit = 1;
			}
		sc->found += hit;
		sc->false_alarms += !hit;
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void real_series(size_t *det)
{
	size_t (*const det_fn[2])(const double *, size_t, size_t *, size_t) = { ours, baseline };
	size_t total[2] = { 0, 0 }, points = 0;
	glob_t g;

	printf("\n== stored real series (A/A: every change point is a false alarm)\n");
	if (glob("tests/fixtures/series/*.txt", 0, NULL, &g) || !g.gl_pathc) {
		printf("no stored series under tests/fixtures/series\n");
		return;
	}
	printf("%-44s %6s %14s %14s\n", "series", "points", "regtrack FA/1k", "binseg FA/1k");
	for (size_t i = 0; i < g.gl_pathc; i++) {
		size_t n, fa[2];
		double *x;
		struct err e;

		if (numlist_load(g.gl_pathv[i], 64u << 20, &x, &n, &e)) {
			printf("%s: %s\n", g.gl_pathv[i], e.message);
			continue;
		}
		if (n < 10) {
			free(x);
			continue;
		}
		for (int d = 0; d < 2; d++) {
			fa[d] = det_fn[d](x, n, det, 4096);
			total[d] += fa[d];
		}
		points += n;
		printf("%-44s %6zu %14.2f %14.2f\n", strrchr(g.gl_pathv[i], '/') + 1, n,
		       1000.0 * (double)fa[0] / (double)n, 1000.0 * (double)fa[1] / (double)n);
		free(x);
	}
	if (points)
		printf("%-44s %6zu %14.2f %14.2f   (target <= 4 on real series)\n", "all", points,
		       1000.0 * (double)total[0] / (double)points,
		       1000.0 * (double)total[1] / (double)points);
	globfree(&g);
}

int main(void)
{
	static double x[10000];
	static size_t cps[512], det[4096];
	size_t (*const det_fn[2])(const double *, size_t, size_t *, size_t) = { ours, baseline };
	static const char *const det_names[2] = { "regtrack", "L2-binseg" };

	printf("== detector by noise kind (CV 1 %%, 1 run a commit, fixed seeds)\n");
	printf("%-9s %-10s %12s %7s %7s %7s\n", "noise", "detector", "FA/1000 pts", "recall",
	       "prec", "F1");
	for (int k = 0; k < K_N; k++)
		for (int d = 0; d < 2; d++) {
			struct score fa = { 0 }, st = { 0 };
			double r, p;

			for (uint64_t seed = 1; seed <= 30; seed++) {
				make(x, 1000, k, 1000003 * (uint64_t)k + seed, 0, cps, 0);
				tally(cps, 0, det, det_fn[d](x, 1000, det, 4096), &fa);
				fa.points += 1000;
			}
			for (uint64_t seed = 1; seed <= 10; seed++) {
				size_t ncp = make(x, 3000, k, 7000001 * (uint64_t)k + seed, 1, cps,
						  512);

				tally(cps, ncp, det, det_fn[d](x, 3000, det, 4096), &st);
				st.points += 3000;
			}
			r = st.truth ? (double)st.found / (double)st.truth : 0;
			p = st.detections ? (double)st.found / (double)st.detections : 1;
			printf("%-9s %-10s %12.2f %7.3f %7.3f %7.3f\n", kind_names[k], det_names[d],
			       1000.0 * (double)fa.false_alarms / (double)fa.points, r, p,
			       r + p > 0 ? 2 * r * p / (r + p) : 0);
		}
	printf("targets: <= 1 false alarm per 1000 points on drift-free noise\n");
	real_series(det);
	{
		double t[21];

		make(x, 10000, K_GAUSS, 5, 1, cps, 512);
		for (int i = 0; i < 21; i++) {
			double t0 = now_ms();

			ours(x, 10000, det, 4096);
			t[i] = now_ms() - t0;
		}
		qsort(t, 21, sizeof(*t), cmp_d);
		printf("detect 10^4 points: %.2f ms (median of 21; target <= 10 ms)\n", t[10]);
	}
	return 0;
}
