#ifndef REGTRACK_TEST_DETECT_CORPUS_H
#define REGTRACK_TEST_DETECT_CORPUS_H

/*
 * A labelled corpus of benchmark-like series for the change-point
 * detector, generated from fixed seeds (shared by tests/unit/test_detect.c
 * and bench/detect_bench.c; header-only, static functions).
 *
 * A series: `len` commits; each commit has 1 run (or 1-6 runs in the
 * "runs" kind); a run is level * (1 + cv * noise). The level starts at
 * 1000 and changes at true change points by a relative step drawn from
 * {1, 2, 3, 5, 8, 10, 15, 20, 30, 50} %, direction random. The distance
 * between steps is 40-400 commits (series of fewer than 80 commits get at
 * most one step, in their middle third). Noise CVs: 0.5, 1, 2, 5, 10 %.
 * Step size in sigma units = step % / cv %.
 *
 * Kinds:
 *  CK_GAUSS    gaussian noise
 *  CK_OUTLIER  gaussian, plus 2 % of runs multiplied by 1 +- (5..20) cv
 *  CK_BIMODAL  30 % of runs come from a second mode 4 cv above
 *  CK_DRIFT    gaussian plus a slow linear drift: 3 sigma per max(len, 1000)
 *              commits (3 sigma over the whole series when it is longer)
 *  CK_RUNS     1-6 runs per commit (different run counts), gaussian
 *  CK_MIXED    1-6 runs, outliers, bimodal and drift together
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

enum corpus_kind { CK_GAUSS, CK_OUTLIER, CK_BIMODAL, CK_DRIFT, CK_RUNS, CK_MIXED, CK_NKINDS };

static const char *const corpus_kind_names[] = { "gauss", "outlier", "bimodal",
						 "drift", "runs",    "mixed" };

struct corpus_rng {
	uint64_t s;
};

static uint64_t corpus_next(struct corpus_rng *r)
{
	/* splitmix64 (Steele, Lea, Flood 2014) */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double corpus_unif(struct corpus_rng *r)
{
	return ((double)(corpus_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double corpus_gauss(struct corpus_rng *r)
{
	double u = corpus_unif(r), v = corpus_unif(r);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

struct corpus_series {
	size_t ncommits;
	double *v;     /* all runs */
	size_t *group; /* commit of each run */
	size_t nv;
	size_t *cps;	  /* true change points: first commit after the step */
	double *cp_sigma; /* step size in units of the per-run noise sigma */
	size_t ncps;
	double cv_pct;
};

static const double corpus_steps[] = { 1, 2, 3, 5, 8, 10, 15, 20, 30, 50 };
static const double corpus_cvs[] = { 0.5, 1, 2, 5, 10 };

static void corpus_make(struct corpus_series *cs, uint64_t seed, size_t len, double cv_pct,
			enum corpus_kind kind)
{
	struct corpus_rng r = { seed * 0x2545f4914f6cdd1dULL + 1 };
	size_t alloc_v = 0, alloc_cp = 0, alloc_s = 0, next;
	double level = 1000, cv = cv_pct / 100;
	int many_runs = kind == CK_RUNS || kind == CK_MIXED;
	int outliers = kind == CK_OUTLIER || kind == CK_MIXED;
	int bimodal = kind == CK_BIMODAL || kind == CK_MIXED;
	int drift = kind == CK_DRIFT || kind == CK_MIXED;

	memset(cs, 0, sizeof(*cs));
	cs->ncommits = len;
	cs->cv_pct = cv_pct;
	if (len < 80)
		next = len / 3 + (size_t)(corpus_unif(&r) * (double)(len / 3));
	else
		next = 40 + (size_t)(corpus_unif(&r) * 360);
	for (size_t c = 0; c < len; c++) {
		size_t runs = many_runs ? 1 + (size_t)(corpus_unif(&r) * 6) : 1;

		if (c == next && (len < 80 || c + 20 <= len)) {
			double step = corpus_steps[(size_t)(corpus_unif(&r) * 10)] / 100;
			int up = corpus_unif(&r) < 0.5;

			/* keep the level within [250, 4000] */
			if (level > 2000)
				up = 0;
			if (level < 500)
				up = 1;
			level *= up ? 1 + step : 1 / (1 + step);
			ALLOC_GROW(cs->cps, cs->ncps + 1, alloc_cp);
			ALLOC_GROW(cs->cp_sigma, cs->ncps + 1, alloc_s);
			cs->cps[cs->ncps] = c;
			/* up and down steps both move log(level) by log(1+step) */
			cs->cp_sigma[cs->ncps] = step / cv;
			cs->ncps++;
			next = len < 80 ? len : c + 40 + (size_t)(corpus_unif(&r) * 360);
		}
		for (size_t k = 0; k < runs; k++) {
			double e = corpus_gauss(&r), x;

			if (bimodal && corpus_unif(&r) < 0.3)
				e += 4;
			if (outliers && corpus_unif(&r) < 0.02)
				e += (corpus_unif(&r) < 0.5 ? -1 : 1) * (5 + 15 * corpus_unif(&r));
			if (drift)
				e += 3 * (double)c / (double)(len > 1000 ? len : 1000);
			x = level * (1 + cv * e);
			if (x <= 0)
				x = level * 0.01;
			ALLOC_GROW(cs->v, cs->nv + 1, alloc_v);
			cs->v[cs->nv] = x;
			cs->nv++;
		}
		cs->group = xrealloc(cs->group, (cs->nv ? cs->nv : 1) * sizeof(*cs->group));
		for (size_t k = cs->nv - runs; k < cs->nv; k++)
			cs->group[k] = c;
	}
}

static void corpus_free(struct corpus_series *cs)
{
	free(cs->v);
	free(cs->group);
	free(cs->cps);
	free(cs->cp_sigma);
	memset(cs, 0, sizeof(*cs));
}

/* Tallies: true positives split by step size, false alarms, points. */
struct corpus_score {
	size_t true_big, found_big;	/* true steps >= 3 sigma; how many detected */
	size_t true_small, found_small; /* steps < 3 sigma */
	size_t detections, false_alarms;
	size_t points;
	size_t by_bucket_true[6], by_bucket_found[6]; /* <1, 1-2, 2-3, 3-5, 5-10, >=10 sigma */
};

#define CORPUS_TOLERANCE 5 /* a detection within +-5 commits matches a true step */

static size_t corpus_bucket(double sigma)
{
	return sigma < 1 ? 0 : sigma < 2 ? 1 : sigma < 3 ? 2 : sigma < 5 ? 3 : sigma < 10 ? 4 : 5;
}

/* Matches detected change points idx[0..nd) against the truth (greedy, nearest first). */
static void corpus_tally(const struct corpus_series *cs, const size_t *idx, size_t nd,
			 struct corpus_score *sc)
{
	unsigned char *used = xcalloc(nd ? nd : 1, 1);

	sc->points += cs->ncommits;
	sc->detections += nd;
	for (size_t t = 0; t < cs->ncps; t++) {
		size_t best = SIZE_MAX, bestd = SIZE_MAX, b = corpus_bucket(cs->cp_sigma[t]);

		for (size_t d = 0; d < nd; d++) {
			size_t dist = idx[d] > cs->cps[t] ? idx[d] - cs->cps[t] :
							    cs->cps[t] - idx[d];

			if (!used[d] && dist <= CORPUS_TOLERANCE && dist < bestd) {
				best = d;
				bestd = dist;
			}
		}
		sc->by_bucket_true[b]++;
		if (cs->cp_sigma[t] >= 3)
			sc->true_big++;
		else
			sc->true_small++;
		if (best != SIZE_MAX) {
			used[best] = 1;
			sc->by_bucket_found[b]++;
			if (cs->cp_sigma[t] >= 3)
				sc->found_big++;
			else
				sc->found_small++;
		}
	}
	for (size_t d = 0; d < nd; d++)
		if (!used[d])
			sc->false_alarms++;
	free(used);
}

/* Precision counts detections of small steps as neither right nor wrong. */
static double corpus_recall(const struct corpus_score *sc)
{
	return sc->true_big ? (double)sc->found_big / (double)sc->true_big : 1;
}

static double corpus_precision(const struct corpus_score *sc)
{
	double tp = (double)sc->found_big;

	return tp + (double)sc->false_alarms > 0 ? tp / (tp + (double)sc->false_alarms) : 1;
}

static double corpus_f1(const struct corpus_score *sc)
{
	double p = corpus_precision(sc), r = corpus_recall(sc);

	return p + r > 0 ? 2 * p * r / (p + r) : 0;
}

static double corpus_fa_per_2000(const struct corpus_score *sc)
{
	return sc->points ? 2000.0 * (double)sc->false_alarms / (double)sc->points : 0;
}

#endif
