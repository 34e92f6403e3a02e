/*
 * bench/tip_delay — reports at the tip: the delay from a
 * step to its regression record, in tested commits after the step, for
 * the detector alone and with the tip check of server/detect/detect.c.
 *
 * Built and run by bench/run.sh (`make bench`, step "tip").
 *
 * Model: one series per trial, QUIET commits at level 1000 then AFTER
 * commits at 1000 * (1 + step), each commit RUNS runs with Gaussian noise
 * of sigma 1 % of the level (a typical wall-clock benchmark; icount is far
 * quieter). One tested commit per push: after each push (k = 1, 2, ...
 * commits after the step) the server examines the series as detect.c does,
 * with the server's defaults (detect_window 64, p_max 1e-3,
 * detect_min_change_pct 1, detect_confirm_commits 5, detect_tip_z 3,
 * detect_tip_runs 5):
 *  - detector alone: recorded at the first k with a change point at the
 *    step (the detector needs min_seg = 3 commits after it); confirmed
 *    (what the auto-bisect takes) at the first k where rule (a) or (b) of
 *    server/detect/regressions.h holds: the pair of 3 vs 3 runs can never be
 *    `different`, so (b), the step over 5 commits;
 *  - with the tip check: when the newest commit moves detect_tip_z robust
 *    sigmas off its window (detect_series_tip), 5 more runs of it and of
 *    the commit before are drawn and the pair decides (compare_samples);
 *    `different` in the tip's direction records it, confirmed, at that k.
 *    Otherwise the detector's figures stand.
 * It also counts the tips of the quiet part that ask for extra runs (the
 * cost: extra jobs per 100 quiet pushes).
 *
 * Output: one line per step size, "step PCT%: alone recorded MEDIAN p90
 * P90 confirmed MEDIAN p90 P90 | tip recorded MEDIAN p90 P90 caught PCT%
 * | false tips PER100", then "samples" lines for bench.py. Exit 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "stats/detect.h"

#define TRIALS 60
#define QUIET 40
#define AFTER 12
#define RUNS 3
#define TIP_RUNS 5
#define SIGMA 0.01
#define CONFIRM 5

static unsigned long long rng_state = 88172645463325252ULL;

static double uniform01(void)
{
	/* xorshift64*: deterministic, so every `make bench` prints the same figures */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static double gauss(void)
{
	double u = uniform01(), v = uniform01();

	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void draw(double level, double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = level * (1 + SIGMA * gauss());
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile(double *x, size_t n, double q)
{
	qsort(x, n, sizeof(*x), cmp_d);
	return x[(size_t)(q * (double)(n - 1) + 0.5)];
}

static void opts(struct detect_opts *o)
{
	detect_opts_init(o);
	o->window = 64;
	o->p_max = 1e-3;
	o->min_change_pct = 1.0;
}

/* rule (b) of regressions.h at change point cp (detect.c step_holds) */
static int step_holds(const struct detect_series *ds, const struct change_point *cp)
{
	double mid = (cp->before + cp->after) / 2;
	int down = cp->after < cp->before;

	if (ds->n - cp->index < CONFIRM || cp->index == 0)
		return 0;
	if ((ds->med[cp->index - 1] < mid) == down)
		return 0;
	for (size_t i = cp->index; i < cp->index + CONFIRM; i++)
		if ((ds->med[i] < mid) != down)
			return 0;
	return 1;
}

struct trial {
	int alone_rec, alone_conf, tip_rec; /* k, or AFTER + 1 when never within AFTER */
	int quiet_tips;			    /* quiet tips that asked for extra runs */
};

static void one_trial(double step, struct trial *t)
{
	double runs[QUIET + AFTER][RUNS];
	struct detect_opts o;

	opts(&o);
	t->alone_rec = t->alone_conf = t->tip_rec = AFTER + 1;
	t->quiet_tips = 0;
	for (size_t i = 0; i < QUIET + AFTER; i++)
		draw(i < QUIET ? 1000 : 1000 * (1 + step), runs[i], RUNS);
	/* the quiet tips from the 8th push on (the server needs 4 commits of window) */
	for (size_t n = 8; n <= QUIET; n++) {
		struct detect_series ds;
		struct detect_tip tip;

		detect_series_init(&ds, &o);
		for (size_t i = 0; i < n; i++)
			detect_series_push(&ds, runs[i], RUNS);
		detect_series_run(&ds);
		detect_series_tip(&ds, 3.0, &tip);
		t->quiet_tips += tip.moved != 0;
		detect_series_release(&ds);
	}
	for (int k = 1; k <= AFTER; k++) {
		struct detect_series ds;
		struct detect_tip tip;
		size_t n = QUIET + (size_t)k;

		detect_series_init(&ds, &o);
		for (size_t i = 0; i < n; i++)
			detect_series_push(&ds, runs[i], RUNS);
		detect_series_run(&ds);
		for (size_t c = 0; c < ds.ncp; c++) {
			if (ds.cp[c].index != QUIET)
				continue;
			if (t->alone_rec > k)
				t->alone_rec = k;
			if (t->alone_conf > k && step_holds(&ds, &ds.cp[c]))
				t->alone_conf = k;
		}
		if (t->tip_rec > AFTER) {
			detect_series_tip(&ds, 3.0, &tip);
			if (tip.moved) {
				double a[RUNS + TIP_RUNS], b[RUNS + TIP_RUNS];
				struct compare_result pair;

				memcpy(a, runs[n - 2], sizeof(runs[0]));
				memcpy(b, runs[n - 1], sizeof(runs[0]));
				draw(n - 2 < QUIET ? 1000 : 1000 * (1 + step), a + RUNS, TIP_RUNS);
				draw(1000 * (1 + step), b + RUNS, TIP_RUNS);
				compare_samples(a, RUNS + TIP_RUNS, b, RUNS + TIP_RUNS, NULL, &pair);
				/* only the range that holds the step is the step's record */
				if (pair.verdict == VERDICT_DIFFERENT && pair.direction == tip.moved &&
				    n - 1 == QUIET)
					t->tip_rec = k;
			}
		}
		detect_series_release(&ds);
	}
	/* with the tip check the detector still runs: the earlier of the two */
	if (t->tip_rec > t->alone_conf)
		t->tip_rec = t->alone_conf;
}

static void print_samples(const char *name, const double *x, size_t n)
{
	printf("samples %s:", name);
	for (size_t i = 0; i < n; i++)
		printf(" %g", x[i]);
	printf("\n");
}

int main(void)
{
	static const double steps[] = { -0.02, -0.03, -0.05, -0.10 };

	printf("reports at the tip: %d trials per step, %d quiet commits then %d after, %d runs "
	       "a commit, noise sigma %.0f%% a run, %d extra runs a side; delays in tested "
	       "commits after the step (%d = not within %d)\n",
	       TRIALS, QUIET, AFTER, RUNS, SIGMA * 100, TIP_RUNS, AFTER + 1, AFTER);
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		double rec[TRIALS], conf[TRIALS], tip[TRIALS], tmp[TRIALS];
		int caught = 0, quiet = 0;
		char name[64];

		for (int i = 0; i < TRIALS; i++) {
			struct trial t;

			one_trial(steps[s], &t);
			rec[i] = t.alone_rec;
			conf[i] = t.alone_conf;
			tip[i] = t.tip_rec;
			caught += t.tip_rec == 1;
			quiet += t.quiet_tips;
		}
		printf("step %+.0f%%:", steps[s] * 100);
		memcpy(tmp, rec, sizeof(rec));
		printf(" alone recorded %g p90 %g", quantile(tmp, TRIALS, 0.5),
		       quantile(tmp, TRIALS, 0.9));
		memcpy(tmp, conf, sizeof(conf));
		printf(" confirmed %g p90 %g", quantile(tmp, TRIALS, 0.5), quantile(tmp, TRIALS, 0.9));
		memcpy(tmp, tip, sizeof(tip));
		printf(" | tip recorded %g p90 %g caught %.0f%%", quantile(tmp, TRIALS, 0.5),
		       quantile(tmp, TRIALS, 0.9), 100.0 * caught / TRIALS);
		printf(" | false tips %.2f per 100 quiet pushes\n",
		       100.0 * quiet / (TRIALS * (QUIET - 7)));
		snprintf(name, sizeof(name), "alone_confirmed %+.0f%%", steps[s] * 100);
		print_samples(name, conf, TRIALS);
		snprintf(name, sizeof(name), "alone_recorded %+.0f%%", steps[s] * 100);
		print_samples(name, rec, TRIALS);
		snprintf(name, sizeof(name), "tip %+.0f%%", steps[s] * 100);
		print_samples(name, tip, TRIALS);
	}
	return 0;
}
