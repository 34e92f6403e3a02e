/*
 * bench/detect_bench — figures for the statistics core.
 *
 * Build and run (from the top of the tree, after the library is built):
 *   make B=build/plain build/plain/libregtrack.a
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -Ilib -I. -Itests/unit -o build/plain/detect_bench \
 *       bench/detect_bench.c build/plain/libregtrack.a $(pkg-config --libs gsl jansson) -lm
 *   build/plain/detect_bench
 * (`make bench` runs it through bench/run.sh once the lead wires it.)
 *
 * Prints
 *  1. recall per step size (in sigma of the per-run noise) and precision,
 *     F1 and false alarms per 2,000 points on the labelled corpus of
 *     tests/unit/test_detect_corpus.h with other seeds than the unit test
 *     (held out), for the regtrack detector and for a baseline: classic
 *     L2 binary segmentation (CUSUM of per-commit medians, threshold
 *     sigma * sqrt(2 log T) * 1.5, sigma from the MAD of differences);
 *  2. timings, each beside a baseline measured in the same run:
 *     full detection of a 10,000-point series (baseline: qsort of the
 *     same 10,000 values, and the L2 binary segmentation), one appended
 *     run on that series (incremental), and a compare of 2 commits x 6
 *     runs x 5,000 metrics (baseline: mean and %stddev only, as LKP).
 *     Targets: <= 10 ms, <= 1 ms, <= 20 ms.
 * No assertions: numbers only. Exit 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats/compare.h"
#include "stats/detect.h"
#include "bench/binseg.h"
#include "stats/ranktest.h"
#include "test_detect_corpus.h"
#include "clock.h"

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* per-commit medians of a corpus series */
static double *medians(const struct corpus_series *cs)
{
	double *m = malloc(cs->ncommits * sizeof(*m));
	size_t i = 0;

	for (size_t c = 0; c < cs->ncommits; c++) {
		size_t from = i;

		while (i < cs->nv && cs->group[i] == c)
			i++;
		double tmp[16];
		memcpy(tmp, cs->v + from, (i - from) * sizeof(double));
		m[c] = ranktest_median_inplace(tmp, i - from);
	}
	return m;
}

static size_t baseline_detect(const double *m, size_t n, size_t *out, size_t max)
{
	double *d = malloc((n ? n : 1) * sizeof(*d)), sigma;
	size_t nout = 0;

	if (n < 6) {
		free(d);
		return 0;
	}
	for (size_t i = 1; i < n; i++)
		d[i - 1] = fabs(m[i] - m[i - 1]);
	sigma = ranktest_median_inplace(d, n - 1) / 0.6745 / sqrt(2);
	free(d);
	if (!(sigma > 0))
		return 0;
	binseg(m, 0, n, 1.5 * sigma * sqrt(2 * log((double)n)), out, &nout, max);
	return nout;
}

/* ---- corpus figures -------------------------------------------------------- */

static void corpus_figures(void)
{
	static const size_t lens[] = { 20, 50, 100, 300, 1000, 3000, 10000 };
	static const char *const bucket[] = { "<1", "1-2", "2-3", "3-5", "5-10", ">=10" };
	struct corpus_score ours[CK_NKINDS + 1], base[CK_NKINDS + 1];
	size_t *idx = malloc(20000 * sizeof(*idx));
	double t_ours = 0, t_base = 0;

	memset(ours, 0, sizeof(ours));
	memset(base, 0, sizeof(base));
	for (int k = 0; k < CK_NKINDS; k++)
		for (size_t li = 0; li < 7; li++)
			for (size_t ci = 0; ci < 5; ci++)
				for (uint64_t seed = 1; seed <= (lens[li] < 1000 ? 12 : 2);
				     seed++) {
					struct corpus_series cs;
					struct detect_series s;
					struct err e;
					double *m;
					int64_t t0;
					size_t nb;

					/* seeds disjoint from tests/unit/test_detect.c */
					corpus_make(&cs,
						    5000003 + seed * 104729 + li * 613 + ci * 17 +
							    (uint64_t)k * 7000001,
						    lens[li], corpus_cvs[ci], k);
					t0 = mono_ns();
					if (detect_values(cs.v, cs.group, cs.nv, NULL, &s, &e))
						exit(1);
					t_ours += mono_ms_since(t0);
					for (size_t j = 0; j < s.ncp && j < 20000; j++)
						idx[j] = s.cp[j].id;
					corpus_tally(&cs, idx, s.ncp, &ours[k]);
					corpus_tally(&cs, idx, s.ncp, &ours[CK_NKINDS]);
					detect_series_release(&s);
					m = medians(&cs);
					t0 = mono_ns();
					nb = baseline_detect(m, cs.ncommits, idx, 20000);
					t_base += mono_ms_since(t0);
					corpus_tally(&cs, idx, nb, &base[k]);
					corpus_tally(&cs, idx, nb, &base[CK_NKINDS]);
					free(m);
					corpus_free(&cs);
				}
	printf("== labelled corpus (held-out seeds), match tolerance +-%d commits\n",
	       CORPUS_TOLERANCE);
	printf("%-9s %-10s %6s %6s %6s %6s %8s  recall by step size (sigma):", "kind", "detector",
	       "recall", "prec", "F1", "FA", "FA/2000");
	for (int b = 0; b < 6; b++)
		printf(" %s", bucket[b]);
	printf("\n");
	for (int k = 0; k <= CK_NKINDS; k++)
		for (int d = 0; d < 2; d++) {
			const struct corpus_score *sc = d ? &base[k] : &ours[k];

			printf("%-9s %-10s %6.3f %6.3f %6.3f %6zu %8.2f ",
			       k == CK_NKINDS ? "ALL" : corpus_kind_names[k],
			       d ? "L2-binseg" : "regtrack", corpus_recall(sc),
			       corpus_precision(sc), corpus_f1(sc), sc->false_alarms,
			       corpus_fa_per_2000(sc));
			for (int b = 0; b < 6; b++)
				printf(" %zu/%zu", sc->by_bucket_found[b], sc->by_bucket_true[b]);
			printf("\n");
		}
	printf("(recall, precision, F1 are for steps >= 3 sigma; FA = detections matching no step)\n");
	printf("corpus time: regtrack %.1f ms, L2-binseg %.1f ms, %zu points\n\n", t_ours, t_base,
	       ours[CK_NKINDS].points);
	free(idx);
}

/* ---- timings --------------------------------------------------------------- */

#define REPS 21

static double median_of(double *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp_d);
	return t[n / 2];
}

static void timings(void)
{
	struct corpus_series cs;
	double tq[REPS], tb[REPS], td[REPS], ti[REPS], tc[REPS], tl[REPS];
	size_t *idx = malloc(20000 * sizeof(*idx));
	double *m;

	corpus_make(&cs, 77, 10000, 2, CK_MIXED);
	m = medians(&cs);
	for (int r = 0; r < REPS; r++) {
		struct detect_series s;
		struct err e;
		double *copy = malloc(cs.nv * sizeof(*copy));
		int64_t t0;

		memcpy(copy, cs.v, cs.nv * sizeof(*copy));
		t0 = mono_ns();
		qsort(copy, cs.nv, sizeof(*copy), cmp_d);
		tq[r] = mono_ms_since(t0);
		free(copy);

		t0 = mono_ns();
		baseline_detect(m, cs.ncommits, idx, 20000);
		tb[r] = mono_ms_since(t0);

		t0 = mono_ns();
		if (detect_values(cs.v, cs.group, cs.nv, NULL, &s, &e))
			exit(1);
		td[r] = mono_ms_since(t0);
		detect_series_release(&s);
	}
	/* incremental: series of 9,999 commits detected, then one more run arrives */
	for (int r = 0; r < REPS; r++) {
		struct detect_series s;
		size_t i = 0;
		double t0, x;

		detect_series_init(&s, NULL);
		for (size_t c = 0; c + 1 < cs.ncommits; c++) {
			size_t from = i;

			while (i < cs.nv && cs.group[i] == c)
				i++;
			if (detect_series_push(&s, cs.v + from, i - from))
				exit(1);
		}
		detect_series_run(&s);
		x = cs.v[cs.nv - 1];
		t0 = mono_ns();
		if (detect_series_push(&s, &x, 1))
			exit(1);
		detect_series_run(&s);
		ti[r] = mono_ms_since(t0);
		detect_series_release(&s);
	}
	/* compare: 2 commits x 6 runs x 5,000 metrics */
	{
		enum { NM = 5000 };
		double *a = malloc(NM * 6 * sizeof(*a)), *b = malloc(NM * 6 * sizeof(*b));
		double *p = malloc(NM * sizeof(*p)), *q = malloc(NM * sizeof(*q));
		struct corpus_rng rng = { 99 };
		volatile double sink = 0;

		for (size_t i = 0; i < NM * 6; i++) {
			a[i] = 1000 * (1 + 0.02 * corpus_gauss(&rng));
			b[i] = 1000 * (1 + 0.02 * corpus_gauss(&rng)) * (i % 60 == 0 ? 1.1 : 1);
		}
		for (int r = 0; r < REPS; r++) {
			double t0 = mono_ns();

			for (size_t mi = 0; mi < NM; mi++) {
				struct compare_result res;

				compare_samples(a + 6 * mi, 6, b + 6 * mi, 6, NULL, &res);
				p[mi] = res.p_value;
			}
			bh_adjust(p, NM, q);
			tc[r] = mono_ms_since(t0);
			t0 = mono_ns();
			for (size_t mi = 0; mi < NM; mi++) {
				struct sample_stats sa, sb;

				sample_stats_compute(a + 6 * mi, 6, &sa);
				sample_stats_compute(b + 6 * mi, 6, &sb);
				sink += sa.stddev_pct + sb.mean;
			}
			tl[r] = mono_ms_since(t0);
		}
		(void)sink;
		free(a);
		free(b);
		free(p);
		free(q);
	}
	printf("== timings (median of %d runs, ms)\n", REPS);
	printf("detect 10,000-point series (%zu runs):   %8.3f   target <= 10 ms\n", cs.nv,
	       median_of(td, REPS));
	printf("   baseline qsort of the same values:   %8.3f\n", median_of(tq, REPS));
	printf("   baseline L2 binary segmentation:     %8.3f\n", median_of(tb, REPS));
	printf("append one run, incremental detect:     %8.3f   target <= 1 ms\n",
	       median_of(ti, REPS));
	printf("   baseline full detect (above):        %8.3f\n", median_of(td, REPS));
	printf("compare 2 commits x 6 runs x 5,000:     %8.3f   target <= 20 ms\n",
	       median_of(tc, REPS));
	printf("   baseline mean + %%stddev only:        %8.3f\n", median_of(tl, REPS));
	free(m);
	free(idx);
	corpus_free(&cs);
}

int main(void)
{
	corpus_figures();
	timings();
	return 0;
}
