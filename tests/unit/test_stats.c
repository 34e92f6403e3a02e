/*
 * Two-sample comparison: exact p-values against hand-computed values and
 * brute-force enumeration, HL intervals by hand, Welch against the t table,
 * BH, the metric registry, and the real fixtures (LKP's fxmark verdict,
 * the proc-vs-map and oom-reaper seeds).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "attr.h"
#include "stats/ranktest.h"
#include "stats/samplesize.h"
#include "xalloc.h"

#define FIXDIR "tests/fixtures/stats/"

static FILE *open_fixture(const char *name)
{
	char path[512];
	const char *top = getenv("REGTRACK_SRCDIR");
	FILE *f;

	snprintf(path, sizeof(path), "%s%s%s", top ? top : "", top ? "/" : "", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open fixture '%s'", path);
	return f;
}

/* ---- exact Mann-Whitney ------------------------------------------------ */

static void test_mw_exact_no_ties(void **state UNUSED)
{
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	const double a4[] = { 1, 2, 3, 4 }, b4[] = { 5, 6, 7, 8 };
	/* U = 1 (6 > 5): P(U <= 1) = 2/252, two-sided 4/252 (R: 0.01587) */
	const double a5[] = { 1, 2, 3, 4, 6 }, b5[] = { 5, 7, 8, 9, 10 };
	double u;

	assert_float_equal(ranktest_mann_whitney(a3, 3, b3, 3, &u), 0.1, 1e-12);
	assert_float_equal(u, 0, 0);
	assert_float_equal(ranktest_mann_whitney(a4, 4, b4, 4, NULL), 2.0 / 70, 1e-12);
	assert_float_equal(ranktest_mann_whitney(a5, 5, b5, 5, &u), 4.0 / 252, 1e-12);
	assert_float_equal(u, 1, 0);
	/* direction does not matter */
	assert_float_equal(ranktest_mann_whitney(b5, 5, a5, 5, &u), 4.0 / 252, 1e-12);
	assert_float_equal(u, 24, 0);
	/* one value a side: p is 1 */
	assert_float_equal(ranktest_mann_whitney(a3, 1, b3, 1, NULL), 1, 0);
	assert_float_equal(ranktest_min_p(3, 3), 0.1, 1e-12);
	assert_float_equal(ranktest_min_p(6, 6), 2.0 / 924, 1e-12);
	assert_float_equal(ranktest_min_p(1, 1), 1, 0);
}

/* Brute force: every way to pick na of the pooled values as "a". */
static double brute_p(const double *a, size_t na, const double *b, size_t nb)
{
	size_t N = na + nb, hit = 0, total = 0;
	double pool[16], rank[16], s_obs = 0, e;

	for (size_t i = 0; i < na; i++)
		pool[i] = a[i];
	for (size_t i = 0; i < nb; i++)
		pool[na + i] = b[i];
	for (size_t i = 0; i < N; i++) {
		double less = 0, eq = 0;

		for (size_t j = 0; j < N; j++) {
			less += pool[j] < pool[i];
			eq += pool[j] == pool[i];
		}
		rank[i] = less + (eq + 1) / 2;
	}
	for (size_t i = 0; i < na; i++)
		s_obs += rank[i];
	e = (double)na * (double)(N + 1) / 2;
	for (unsigned mask = 0; mask < (1u << N); mask++) {
		double s = 0;

		if ((size_t)__builtin_popcount(mask) != na)
			continue;
		for (size_t i = 0; i < N; i++)
			if (mask & (1u << i))
				s += rank[i];
		total++;
		if (fabs(s - e) >= fabs(s_obs - e) - 1e-9)
			hit++;
	}
	return (double)hit / (double)total;
}

static void test_mw_exact_ties_against_enumeration(void **state UNUSED)
{
	const double a[] = { 1, 2, 2, 3, 5 }, b[] = { 2, 3, 3, 4, 6, 6 };
	const double c[] = { 7, 7, 7, 8 }, d[] = { 7, 8, 8, 9, 9, 9, 10 };
	const double g[] = { 1, 1, 1, 1, 2 }, h[] = { 1, 2, 2, 2, 2, 2 };
	double p;

	p = ranktest_mann_whitney(a, 5, b, 6, NULL);
	assert_float_equal(p, brute_p(a, 5, b, 6), 1e-12);
	assert_true(p > 0.05 && p < 1);
	p = ranktest_mann_whitney(c, 4, d, 7, NULL);
	assert_float_equal(p, brute_p(c, 4, d, 7), 1e-12);
	/* sizes swapped exercise the other DP orientation */
	assert_float_equal(ranktest_mann_whitney(d, 7, c, 4, NULL), p, 1e-12);
	p = ranktest_mann_whitney(g, 5, h, 6, NULL);
	assert_float_equal(p, brute_p(g, 5, h, 6), 1e-12);
	/* all tied: nothing to see */
	assert_float_equal(ranktest_mann_whitney(c, 3, c, 3, NULL), 1, 0);
}

static void test_mw_normal_approximation(void **state UNUSED)
{
	double a[30], b[30], p, u;

	for (int i = 0; i < 30; i++) {
		a[i] = i;
		b[i] = 100 + i;
	}
	/* N = 60 > RANKTEST_EXACT_MAX: z = (450 - 0.5) / sqrt(900 * 61 / 12) */
	p = ranktest_mann_whitney(a, 30, b, 30, &u);
	assert_float_equal(u, 0, 0);
	assert_float_equal(p / 3.019859359162151e-11, 1, 1e-6);
}

/* ---- Hodges-Lehmann ------------------------------------------------------ */

static void test_hodges_lehmann_by_hand(void **state UNUSED)
{
	/* differences 100 + j - 10 i: 61..65, 71..75, 81..85, 91..95, 101..105 */
	const double a[] = { 0, 10, 20, 30, 40 }, b[] = { 101, 102, 103, 104, 105 };
	double est, lo, hi;

	/* 5 vs 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so k = 3 */
	assert_int_equal(ranktest_hodges_lehmann(a, 5, b, 5, 0.95, &est, &lo, &hi), 0);
	assert_float_equal(est, 83, 1e-12);
	assert_float_equal(lo, 63, 1e-12);
	assert_float_equal(hi, 103, 1e-12);
	/* 3 vs 3 cannot reach 95 % (P(U = 0) = 0.05 > 0.025), but reaches 90 % */
	assert_int_equal(ranktest_hodges_lehmann(a, 3, b, 3, 0.95, &est, &lo, &hi), -1);
	assert_true(isnan(lo) && isnan(hi));
	assert_float_equal(est, 92, 1e-12); /* median of 81..83, 91..93, 101..103 */
	assert_int_equal(ranktest_hodges_lehmann(a, 3, b, 3, 0.90, &est, &lo, &hi), 0);
	assert_float_equal(lo, 81, 1e-12);
	assert_float_equal(hi, 103, 1e-12);
}

static void test_u_cdf(void **state UNUSED)
{
	double cdf[26];

	ranktest_u_cdf(5, 5, cdf);
	/* counts of U for 5 vs 5 start 1, 1, 2, 3, 5, 7 (of 252) */
	assert_float_equal(cdf[0], 1.0 / 252, 1e-15);
	assert_float_equal(cdf[2], 4.0 / 252, 1e-15);
	assert_float_equal(cdf[5], 19.0 / 252, 1e-15);
	assert_float_equal(cdf[25], 1, 1e-15);
	assert_float_equal(cdf[12], 0.5, 1e-15); /* symmetric around 12.5 */
}

/* ---- Welch ---------------------------------------------------------------- */

static void test_welch_against_t_table(void **state UNUSED)
{
	/*
	 * equal variances 2.5, n = 5: se^2 = 1, t = 2, df = 8. Two-sided p from
	 * the closed form for even df (Abramowitz & Stegun 26.7.3):
	 * 1 - sin(th) (1 + c/2 + 3c^2/8 + 15c^3/48), th = atan(2/sqrt(8)),
	 * c = cos^2(th) = 2/3 -> 0.0805162380
	 */
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 3, 4, 5, 6, 7 };
	double t, df, p;

	p = ranktest_welch(a, 5, b, 5, &t, &df);
	assert_float_equal(t, 2, 1e-12);
	assert_float_equal(df, 8, 1e-12);
	assert_float_equal(p, 0.0805162380, 1e-9);
	assert_true(isnan(ranktest_welch(a, 1, b, 5, NULL, NULL)));
}

/* ---- median, sample stats, BH ------------------------------------------ */

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static void test_median_matches_sort(void **state UNUSED)
{
	uint64_t s = 42;

	for (size_t n = 1; n < 60; n++) {
		double v[60], w[60], want;

		for (size_t i = 0; i < n; i++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			v[i] = (double)((s >> 33) % 17); /* many ties */
		}
		memcpy(w, v, sizeof(v));
		qsort(w, n, sizeof(*w), cmp_d);
		want = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
		assert_float_equal(ranktest_median_inplace(v, n), want, 0);
	}
}

static void test_sample_stats(void **state UNUSED)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 }; /* population sd 2, mean 5 */
	const double z[] = { NAN, INFINITY };
	struct sample_stats st;

	sample_stats_compute(v, 8, &st);
	assert_int_equal(st.n, 8);
	assert_float_equal(st.mean, 5, 1e-12);
	assert_float_equal(st.median, 4.5, 1e-12);
	assert_float_equal(st.stddev_pct, 40, 1e-12);
	assert_float_equal(st.min, 2, 0);
	assert_float_equal(st.max, 9, 0);
	sample_stats_compute(v, 0, &st);
	assert_int_equal(st.n, 0);
	assert_true(isnan(st.mean) && isnan(st.median) && isnan(st.stddev_pct));
	sample_stats_compute(z, 2, &st);
	assert_int_equal(st.n, 0);
	assert_true(isnan(st.max));
}

/*
 * compare_fdr: a 6 vs 6 regression (exact p = 2/924) in a family with one
 * unchanged metric (6 vs 6) and six metrics seen in one head run only
 * (n = [0, 1]). The six cannot be significant (min_p 1) and do not count:
 * m = 2, q = 2 * 2/924 = 0.004329 <= 0.01, still different. Counted (plain
 * bh_adjust over all eight) q would be 8 * 2/924 = 0.0173: need-more-runs.
 */
static void test_compare_fdr_leaves_out_untestable_rows(void **state)
{
	double base[6] = { 1000, 1001, 1002, 1003, 1004, 1005 };
	double head[6] = { 900, 901, 902, 903, 904, 905 };
	double same[6] = { 50, 51, 52, 53, 54, 55 }, one[1] = { 7 };
	struct compare_result res[8], *r[8];
	double q[8], p[8];

	(void)state;
	compare_samples(base, 6, head, 6, NULL, &res[0]);
	compare_samples(same, 6, same, 6, NULL, &res[1]);
	for (int i = 2; i < 8; i++)
		compare_samples(NULL, 0, one, 1, NULL, &res[i]);
	for (int i = 0; i < 8; i++) {
		r[i] = &res[i];
		p[i] = res[i].p_value;
	}
	assert_int_equal(res[0].verdict, VERDICT_DIFFERENT);
	assert_float_equal(res[0].p_value, 2.0 / 924, 1e-15);
	assert_float_equal(res[2].min_p, 1, 0);
	/* the same p whichever side is lower, to the last bit (2/924 rounded once) */
	{
		struct compare_result up;

		compare_samples(head, 6, base, 6, NULL, &up);
		assert_true(up.p_value == 2.0 / 924 && res[0].p_value == 2.0 / 924);
	}
	compare_fdr(r, 8, 0.01, q);
	assert_float_equal(q[0], 2 * (2.0 / 924), 1e-15);
	assert_float_equal(q[1], 1, 1e-12);
	for (int i = 2; i < 8; i++)
		assert_true(isnan(q[i]));
	assert_int_equal(res[0].verdict, VERDICT_DIFFERENT);
	/* the same family through plain BH: the eight count, the regression is lost */
	bh_adjust(p, 8, p);
	assert_true(p[0] > 0.01);
	/* a family of two metrics at 5 vs 5 (min p 2/252 = 0.0079): both count */
	{
		double a5[5] = { 1000, 1001, 1002, 1003, 1004 },
		       b5[5] = { 900, 901, 902, 903, 904 };
		double c5[5] = { 1000, 1002, 1004, 1006, 1008 },
		       d5[5] = { 1001, 1003, 1005, 1007, 1009 };
		struct compare_result t[2], *tp[2] = { &t[0], &t[1] };

		compare_samples(a5, 5, b5, 5, NULL, &t[0]);
		compare_samples(c5, 5, d5, 5, NULL, &t[1]);
		compare_fdr(tp, 2, 0.01, q);
		assert_float_equal(q[0], 2 * (2.0 / 252), 1e-15);
		assert_int_equal(t[0].verdict, VERDICT_NEED_MORE_RUNS);
		/* a copy of the same runs (every value tied in pairs) cannot reach 0.01: it
		 * does not count (ranktest_min_p_ties) */
		compare_samples(a5, 5, b5, 5, NULL, &t[0]);
		compare_samples(a5, 5, a5, 5, NULL, &t[1]);
		assert_true(t[1].min_p > 0.01);
		compare_fdr(tp, 2, 0.01, q);
		assert_float_equal(q[0], 2.0 / 252, 1e-15);
		assert_true(isnan(q[1]));
		assert_int_equal(t[0].verdict, VERDICT_DIFFERENT);
	}
}

static void test_bh_adjust(void **state UNUSED)
{
	/* R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02 */
	double p[] = { 0.01, 0.04, 0.03, 0.005, NAN }, q[5];

	bh_adjust(p, 5, q);
	assert_float_equal(q[0], 0.02, 1e-15);
	assert_float_equal(q[1], 0.04, 1e-15);
	assert_float_equal(q[2], 0.04, 1e-15);
	assert_float_equal(q[3], 0.02, 1e-15);
	assert_true(isnan(q[4]));
	/* in place, and capped at 1 */
	p[0] = 0.9;
	p[1] = 0.8;
	bh_adjust(p, 2, p);
	assert_float_equal(p[0], 0.9, 1e-15);
	assert_float_equal(p[1], 0.9, 1e-15);
}

static void test_metric_registry(void **state UNUSED)
{
	assert_int_equal(metric_higher_is_better(
				 "fxmark.ssd_ext4_no_jnl_MRPL_4_bufferedio.works/sec"),
			 1);
	assert_int_equal(metric_higher_is_better("will-it-scale.per_thread_ops"), 1);
	assert_int_equal(metric_higher_is_better("vm-scalability.throughput"), 1);
	/* LKP's vm-scalability.median (and our small-allocs.median) is the median task's KB/s */
	assert_int_equal(metric_higher_is_better("vm-scalability.median"), 1);
	assert_int_equal(metric_higher_is_better("small-allocs.median"), 1);
	assert_string_equal(metric_unit_guess("small-allocs.median"), "KB/s");
	assert_int_equal(metric_higher_is_better("execl.lps"), 1);
	assert_int_equal(metric_higher_is_better("proc-vs-map.median_ms"), 0);
	assert_int_equal(metric_higher_is_better("unixbench.score"), 1);
	assert_int_equal(metric_higher_is_better("stress-ng.mmap.ops_per_sec"), 1);
	assert_int_equal(metric_higher_is_better("proc-vs-map.read_latency_ms"), 0);
	assert_int_equal(metric_higher_is_better("time.elapsed_time"), 0);
	assert_int_equal(metric_higher_is_better("perf-stat.overall.cpi"), 0);
	assert_int_equal(metric_higher_is_better("perf-stat.ps.cycles"), -1);
	assert_int_equal(metric_higher_is_better("hackbench.unknown_thing"), -1);
	/* a statistic's name without a unit or a rate word: no direction guessed */
	assert_int_equal(metric_higher_is_better("nginx.requests_per_second.max"), -1);
	assert_int_equal(metric_higher_is_better("redis.get.median"), -1);
	assert_int_equal(metric_higher_is_better("schbench.wakeup_latency.max"), 0);
	assert_string_equal(metric_unit_guess("oom.total_running_time_ms"), "ms");
	assert_string_equal(metric_unit_guess("stress-ng.mmap.ops_per_sec"), "ops/s");
	assert_string_equal(metric_unit_guess("hackbench.unknown_thing"), "");
	assert_int_equal(metric_is_monitor("perf-stat.ps.cycles"), 1);
	assert_int_equal(metric_is_monitor("perf-profile.children.cycles-pp.do_mmap"), 1);
	assert_int_equal(metric_is_monitor("time.elapsed_time"), 1);
	assert_int_equal(metric_is_monitor("vmstat.cpu.us"), 1);
	assert_int_equal(metric_is_monitor("will-it-scale.per_thread_ops"), 0);
	assert_int_equal(metric_is_monitor("timer-stress.score"), 0);
}

/* ---- verdicts ------------------------------------------------------------- */

static void test_small_n_is_need_more_runs(void **state UNUSED)
{
	/* +50 % with complete separation, but 3 vs 3 cannot reach p <= 0.01 */
	const double a[] = { 100, 101, 102 }, b[] = { 150, 151, 152 };
	struct compare_result r;

	compare_samples(a, 3, b, 3, NULL, &r);
	assert_float_equal(r.p_value, 0.1, 1e-12);
	assert_float_equal(r.min_p, 0.1, 1e-12);
	assert_true(r.change_pct > 49 && r.change_pct < 51);
	assert_true(isnan(r.ci_lo_pct));
	assert_int_equal(r.verdict, VERDICT_NEED_MORE_RUNS);
	assert_string_equal(verdict_name(r.verdict), "need-more-runs");
	assert_int_equal(compare_change_kind(&r, 1), CHANGE_NONE);
}

static void test_same_and_floor(void **state UNUSED)
{
	double a[10], b[10];
	struct compare_result r;
	struct compare_opts o;

	for (int i = 0; i < 10; i++) {
		a[i] = 1000 + (i % 5) - 2;	 /* +-0.2 % */
		b[i] = 1001 + ((i * 3) % 5) - 2; /* +0.1 % */
	}
	compare_samples(a, 10, b, 10, NULL, &r);
	assert_int_equal(r.verdict, VERDICT_SAME);
	assert_true(r.ci_lo_pct >= -1 && r.ci_hi_pct <= 1 && r.ci_lo_pct <= r.ci_hi_pct);
	assert_string_equal(verdict_name(r.verdict), "same");
	/* a real but tiny shift: significant, yet below a 1 % floor, and the CI is inside */
	for (int i = 0; i < 10; i++)
		b[i] = a[i] + 5; /* +0.5 % */
	compare_samples(a, 10, b, 10, NULL, &r);
	assert_true(r.p_value <= 0.01);
	assert_int_equal(r.verdict, VERDICT_SAME);
	compare_opts_init(&o);
	o.floor_pct = 0.25;
	compare_samples(a, 10, b, 10, &o, &r);
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_float_equal(compare_opts_floor(&o, "perf-stat.ps.cycles"), 5.0, 0);
	assert_float_equal(compare_opts_floor(&o, "will-it-scale.per_thread_ops"), 0.25, 0);
}

static void test_nonpositive_values_fall_back_to_raw(void **state UNUSED)
{
	const double a[] = { -2, -1, 0, 1, 2, -1.5, 0.5 }, b[] = { 8, 9, 10, 11, 12, 8.5, 10.5 };
	struct compare_result r;

	compare_samples(a, 7, b, 7, NULL, &r);
	assert_int_equal(r.log_scale, 0);
	/* mean_a = -1/7: LKP's %change keeps the base's sign (lkp-tests calc_perf_change) */
	assert_float_equal(r.change_pct, 100 * (69.0 / 7 + 1.0 / 7) / (-1.0 / 7), 1e-9);
	/* the verdict's size: the HL shift relative to |mean_a| (median_a is 0), upwards */
	assert_int_equal(r.direction, 1);
	assert_float_equal(r.hl_pct, 100 * r.shift / (1.0 / 7), 1e-9);
	assert_true(r.shift > 9 && r.shift < 11);
	assert_true(isfinite(r.ci_lo_pct) && r.ci_lo_pct > 0);
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_true(isfinite(r.welch_p) && r.welch_p < 1e-6);
}

/* ---- real fixtures -------------------------------------------------------- */

/* Reads the "- number" lines under `key:` of the LKP fixture. */
static size_t read_matrix(const char *key, double *out, size_t max)
{
	FILE *f = open_fixture(FIXDIR "lkp-changed-stats-fxmark-regression.yaml");
	char line[512];
	int in = 0, after_stat = 0;
	size_t n = 0;

	while (fgets(line, sizeof(line), f)) {
		if (line[0] != ' ' && line[0] != '#') {
			in = !strncmp(line, key, strlen(key));
			after_stat = 0;
			continue;
		}
		if (!in)
			continue;
		if (strstr(line, "works/sec:")) {
			after_stat = 1;
			continue;
		}
		if (after_stat && strstr(line, "- ") && n < max)
			out[n++] = strtod(strstr(line, "- ") + 2, NULL);
	}
	fclose(f);
	return n;
}

static void test_lkp_fxmark_fixture(void **state UNUSED)
{
	const char *name = "fxmark.ssd_ext4_no_jnl_MRPL_4_bufferedio.works/sec";
	double a[16], b[16];
	size_t na = read_matrix("matrix_a:", a, 16), nb = read_matrix("matrix_b:", b, 16);
	struct compare_result r;

	assert_int_equal(na, 6);
	assert_int_equal(nb, 6);
	assert_float_equal(a[0], 7415950.517791, 1e-6);
	assert_float_equal(b[5], 7902933.963499, 1e-6);
	compare_samples(a, na, b, nb, NULL, &r);
	/* complete separation, 6 vs 6: exact p = 2 / C(12, 6) */
	assert_float_equal(r.p_value, 2.0 / 924, 1e-12);
	assert_true(r.exact);
	/* LKP lists the stat as changed; we agree: different, an improvement */
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_int_equal(compare_change_kind(&r, metric_higher_is_better(name)),
			 CHANGE_IMPROVEMENT);
	assert_string_equal(change_kind_name(compare_change_kind(&r, 1)), "improvement");
	/* LKP's min/max of each side agree with ours */
	assert_float_equal(r.a.min, 7363113.100274, 1e-6);
	assert_float_equal(r.a.max, 7442603.302947, 1e-6);
	assert_float_equal(r.b.min, 7785809.108594, 1e-6);
	assert_float_equal(r.b.max, 8013649.203754, 1e-6);
	/*
	 * Named disagreement: the fixture's mean_a (7415950.517791) and
	 * mean_b (7927162.999455) are not the arithmetic means of the six
	 * runs but the upper median (sorted[3]) of each side, and its ratio
	 * 1.0689 is their quotient.
	 * Our mean is the arithmetic mean, so our %change is +6.80 %, not
	 * +6.89 %. Both sides call it a change.
	 */
	assert_float_equal(r.a.mean, 7403946.784849334, 1e-6);
	assert_float_equal(r.b.mean, 7907512.720075, 1e-6);
	assert_float_equal(r.change_pct, 6.8013175926, 1e-8);
	assert_float_equal(r.a.stddev_pct, 0.393105131, 1e-8);
	assert_true(r.ci_lo_pct > 4 && r.ci_hi_pct < 9 && r.ci_lo_pct < r.hl_pct &&
		    r.hl_pct < r.ci_hi_pct);
}

/* Reads the three columns of one side ("baseline:" or "patched:") of the seed. */
static size_t read_proc_vs_map(const char *side, double *med, double *mn, double *mx)
{
	FILE *f = open_fixture(FIXDIR "proc-vs-map-smaps_rollup-arm64-24c.txt");
	char line[256];
	int in = 0;
	size_t n = 0;

	while (fgets(line, sizeof(line), f)) {
		char *end;
		double x;

		if (line[0] == '#')
			continue;
		if (line[0] != ' ') {
			in = !strncmp(line, side, strlen(side));
			continue;
		}
		x = strtod(line, &end);
		if (!in || end == line)
			continue;
		med[n] = x;
		mn[n] = strtod(end, &end);
		mx[n] = strtod(end, &end);
		n++;
	}
	fclose(f);
	return n;
}

/* C(n, k) as a double, exact for the sizes used here (C(40, 20) < 2^53) */
static double binom(unsigned n, unsigned k)
{
	double c = 1;

	for (unsigned i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	return c;
}

static void test_seed_proc_vs_map(void **state UNUSED)
{
	double amed[32], amin[32], amax[32], bmed[32], bmin[32], bmax[32];
	size_t na = read_proc_vs_map("baseline:", amed, amin, amax);
	size_t nb = read_proc_vs_map("patched:", bmed, bmin, bmax);
	struct compare_result r;

	assert_int_equal(na, 20);
	assert_int_equal(nb, 20);
	/* median latency 0.132 -> 0.006 ms: every value tied within a side */
	compare_samples(amed, na, bmed, nb, NULL, &r);
	assert_float_equal(r.a.median, 0.132, 1e-12);
	assert_float_equal(r.b.median, 0.006, 1e-12);
	assert_float_equal(r.change_pct, 100 * (0.006 - 0.132) / 0.132, 1e-9); /* -95.45 % */
	assert_true(r.change_pct < -95.4 && r.change_pct > -95.5);
	/* complete separation, 20 vs 20: exact p = 2 / C(40, 20) */
	assert_float_equal(r.p_value, 2 / binom(40, 20), 1e-20);
	assert_float_equal(r.ci_lo_pct, r.change_pct, 1e-9);
	assert_float_equal(r.ci_hi_pct, r.change_pct, 1e-9);
	assert_true(r.welch_p == 0); /* zero variance, different means */
	assert_true(r.a.stddev_pct == 0 && r.b.stddev_pct == 0);
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_int_equal(compare_change_kind(&r, metric_higher_is_better("proc-vs-map.median_ms")),
			 CHANGE_IMPROVEMENT);
	/* worst case 3.924 -> 2.043 ms, every patched max below every baseline max */
	compare_samples(amax, na, bmax, nb, NULL, &r);
	assert_float_equal(r.a.max, 3.924, 1e-12);
	assert_float_equal(r.b.max, 2.043, 1e-12);
	assert_true(r.a.max > 3.9 && r.b.max < 2.1);
	assert_float_equal(r.p_value, 2 / 137846528820.0, 1e-20);
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_true(r.change_pct < -30 && r.change_pct > -40);
	/* minimum column: bimodal baseline (0.12 and 1.3 ms) vs 0.006 */
	compare_samples(amin, na, bmin, nb, NULL, &r);
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_true(r.a.stddev_pct > 100);
}

static void test_seed_oom_reaper(void **state UNUSED)
{
	FILE *f = open_fixture(FIXDIR "oom-reaper-exit-arm64.txt");
	char line[256], name[128];
	int rows = 0, seen_total = 0;

	while (fgets(line, sizeof(line), f)) {
		double with, without;
		struct compare_result r;

		if (line[0] == '#' || sscanf(line, "%127s %lf %lf", name, &with, &without) != 3)
			continue;
		rows++;
		/* base = without the patch, head = with it; one sample a side */
		compare_samples(&without, 1, &with, 1, NULL, &r);
		assert_int_equal(r.a.n, 1);
		assert_float_equal(r.p_value, 1, 0);
		assert_true(isnan(r.ci_lo_pct) && isnan(r.welch_p));
		assert_int_not_equal(r.verdict, VERDICT_DIFFERENT);
		assert_int_equal(r.verdict, VERDICT_NEED_MORE_RUNS);
		if (!strcmp(name, "total_running_time")) {
			seen_total = 1;
			assert_float_equal(r.change_pct, 100 * (132.6 - 167.1) / 167.1, 1e-9);
			assert_true(r.change_pct < -20.6 && r.change_pct > -20.7);
		}
	}
	fclose(f);
	assert_int_equal(rows, 9);
	assert_true(seen_total);
}

/* ---- verdicts never wrong-way ------------------------------------ */

/* splitmix64 + Box-Muller, a fixed stream per seed */
static uint64_t t_rng;
static double t_unit(void)
{
	uint64_t z = (t_rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return (((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
}
static double t_gauss(void)
{
	return sqrt(-2 * log(t_unit())) * cos(2 * M_PI * t_unit());
}

static void test_failed_run_does_not_flip_direction(void **state)
{
	double a[10], b[10];
	struct compare_result r;

	(void)state;
	t_rng = 1;
	for (int i = 0; i < 10; i++)
		a[i] = 1000 + 5 * t_gauss();
	for (int i = 0; i < 9; i++)
		b[i] = 1010 + 5 * t_gauss();
	b[9] = 10; /* one failed run */
	compare_samples(a, 10, b, 10, NULL, &r);
	/* the means say -8.9 %: LKP's column keeps that */
	assert_true(r.change_pct < -8 && r.change_pct > -10);
	/* the verdict follows the rank test and its HL shift: +1 %, an improvement */
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_int_equal(r.direction, 1);
	assert_true(r.p_value < 0.006);
	assert_float_equal(r.hl_pct, 1.0, 0.05);
	assert_true(r.ci_lo_pct > 0.3 && r.ci_hi_pct < 1.8 && r.ci_lo_pct < r.hl_pct &&
		    r.hl_pct < r.ci_hi_pct);
	assert_true(r.shift > 5 && r.shift < 15);
	assert_int_equal(compare_change_kind(&r, 1), CHANGE_IMPROVEMENT);
	assert_int_equal(compare_change_kind(&r, 0), CHANGE_REGRESSION);
	/* the failed run is flagged, nothing else */
	assert_int_equal(r.outliers_a, 0);
	assert_int_equal(r.outliers_b, 1);
	{
		unsigned char f[10];

		assert_int_equal(sample_outliers(b, 10, COMPARE_OUTLIER_K, f), 1);
		for (int i = 0; i < 10; i++)
			assert_int_equal(f[i], i == 9);
	}
	/* 50 seeds of the same setup: `different` is always upwards, never a regression */
	{
		int diff = 0;

		for (uint64_t seed = 1; seed <= 50; seed++) {
			struct compare_result q;

			t_rng = seed;
			for (int i = 0; i < 10; i++)
				a[i] = 1000 + 5 * t_gauss();
			for (int i = 0; i < 9; i++)
				b[i] = 1010 + 5 * t_gauss();
			b[9] = 10;
			compare_samples(a, 10, b, 10, NULL, &q);
			assert_true(q.change_pct < -8);
			if (q.verdict == VERDICT_DIFFERENT) {
				diff++;
				assert_int_equal(q.direction, 1);
				assert_true(q.hl_pct > 1 && q.hl_pct < 1.5);
			}
		}
		/* a true +1 % shift on a 1 % floor: about a third pass */
		assert_true(diff >= 10);
	}
	/* the mirror image (seed 1, values 2000 - x, the failed run at 1990): a fall */
	t_rng = 1;
	for (int i = 0; i < 10; i++)
		a[i] = 2000 - (1000 + 5 * t_gauss());
	for (int i = 0; i < 9; i++)
		b[i] = 2000 - (1010 + 5 * t_gauss());
	b[9] = 1990;
	{
		struct compare_opts o;

		/* a -0.99 % fall in logs: a 0.5 % floor */
		compare_opts_init(&o);
		o.floor_pct = 0.5;
		compare_samples(a, 10, b, 10, &o, &r);
	}
	assert_true(r.change_pct > 0.8); /* the means rose */
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_int_equal(r.direction, -1);
	assert_int_equal(compare_change_kind(&r, 1), CHANGE_REGRESSION);
}

/*
 * 40 of 100 head runs 50 % higher (a second mode: a lock's slow path taken in some
 * boots) leave the Hodges-Lehmann shift of the whole sample at +0.5 % with an
 * interval inside a 5 % floor: `same` before, though the means moved +20 %. The
 * outlier shares (0 of 100 vs 40 of 100) differ: need-more-runs, never `same`.
 * One failed run of ten (1 vs 0) is no such evidence: Fisher's p is 1.
 */
static void test_part_of_the_runs_moved_is_never_same(void **state)
{
	double a[100], b[100];
	struct compare_opts o;
	struct compare_result r;

	(void)state;
	compare_opts_init(&o);
	o.floor_pct = 5;
	t_rng = 2;
	for (int i = 0; i < 100; i++) {
		a[i] = 100 + 0.3 * t_gauss();
		b[i] = (i % 5 < 2 ? 150 : 100) + 0.3 * t_gauss();
	}
	compare_samples(a, 100, b, 100, &o, &r);
	assert_int_equal(r.outliers_a, 0);
	assert_int_equal(r.outliers_b, 40);
	assert_int_equal(r.outliers_differ, 1);
	assert_true(r.ci_lo_pct > -5 && r.ci_hi_pct < 5); /* what made it `same` */
	assert_true(r.change_pct > 19 && r.change_pct < 21);
	assert_int_equal(r.verdict, VERDICT_NEED_MORE_RUNS);
	/* the same runs without the second mode: same */
	for (int i = 0; i < 100; i++)
		b[i] = 100 + 0.3 * t_gauss();
	compare_samples(a, 100, b, 100, &o, &r);
	assert_int_equal(r.outliers_differ, 0);
	assert_int_equal(r.verdict, VERDICT_SAME);
	/* one failed run of ten beside none: not a moved part */
	for (int i = 0; i < 10; i++)
		b[i] = 100 + 0.3 * t_gauss();
	b[9] = 10;
	compare_samples(a, 10, b, 10, &o, &r);
	assert_int_equal(r.outliers_a + 10 * r.outliers_b, 10);
	assert_int_equal(r.outliers_differ, 0);
	assert_int_equal(r.verdict, VERDICT_SAME);
}

static void test_outlier_rule(void **state)
{
	/* median 100, MAD 1 -> robust sd 1.4826: the bound is 100 +- 7.413 */
	const double v[] = { 99, 100, 101, 100, 99, 101, 107.4, 107.5, 92.5 };
	const double flat[] = { 5, 5, 5, 5, 5, 5, 5, 7 }, two[] = { 1, 1000 };
	unsigned char f[9];

	(void)state;
	assert_int_equal(sample_outliers(v, 9, 5, f), 2);
	assert_int_equal(f[6], 0);
	assert_int_equal(f[7], 1);
	assert_int_equal(f[8], 1);
	/* MAD 0: 1.2533 * mean absolute deviation (2/8) = 0.313 -> 7 is beyond 5 +- 1.57 */
	assert_int_equal(sample_outliers(flat, 8, 5, NULL), 1);
	assert_int_equal(sample_outliers(flat, 7, 5, NULL), 0);
	assert_int_equal(sample_outliers(two, 2, 5, NULL), 0);
}

static void test_constant_metrics_do_not_count_in_fdr(void **state)
{
	double base[6], head[6], k[6] = { 3, 3, 3, 3, 3, 3 }, z[6] = { 0 };
	struct compare_result res[5], *r[5];
	double q[5];

	(void)state;
	t_rng = 4;
	for (int i = 0; i < 6; i++) {
		base[i] = 1000 + 3 * t_gauss();
		head[i] = 950 + 3 * t_gauss();
	}
	compare_samples(base, 6, head, 6, NULL, &res[0]);
	compare_samples(k, 6, k, 6, NULL, &res[1]);
	compare_samples(z, 6, z, 6, NULL, &res[2]);
	compare_samples(k, 6, k, 6, NULL, &res[3]);
	compare_samples(z, 6, z, 6, NULL, &res[4]);
	for (int i = 0; i < 5; i++)
		r[i] = &res[i];
	assert_float_equal(res[0].p_value, 2.0 / 924, 1e-15);
	for (int i = 1; i < 5; i++) {
		assert_float_equal(res[i].p_value, 1, 0);
		assert_float_equal(res[i].min_p, 1, 0);
		assert_int_equal(res[i].verdict, VERDICT_SAME);
	}
	compare_fdr(r, 5, 0.01, q);
	assert_float_equal(q[0], 2.0 / 924, 1e-15);
	for (int i = 1; i < 5; i++)
		assert_true(isnan(q[i]));
	assert_int_equal(res[0].verdict, VERDICT_DIFFERENT);
	assert_int_equal(res[0].direction, -1);
	/* ties that still allow a small p count: 0,0,0,1,1,1 vs 2,2,2,3,3,3 */
	{
		const double ta[6] = { 0, 0, 0, 1, 1, 1 }, tb[6] = { 2, 2, 2, 3, 3, 3 };
		double m = ranktest_min_p_ties(ta, 6, tb, 6);

		assert_float_equal(m, ranktest_mann_whitney(ta, 6, tb, 6, NULL), 1e-15);
		assert_true(m <= 0.01);
		/* a counter that moved once in 12 runs can never reach 0.01 */
		const double c1[6] = { 0, 0, 0, 0, 0, 0 }, c2[6] = { 0, 0, 0, 0, 0, 1 };
		assert_true(ranktest_min_p_ties(c1, 6, c2, 6) > 0.01);
	}
}

static void test_zero_and_negative_bases(void **state)
{
	const double z[6] = { 0, 0, 0, 0, 0, 0 }, x[6] = { 4, 5, 5, 6, 5, 5 };
	double na[6], nb[6];
	struct compare_result r;

	(void)state;
	/* 0 -> x: a finite LKP %change (base 1e-100), `different`, upwards */
	compare_samples(z, 6, x, 6, NULL, &r);
	assert_true(isfinite(r.change_pct));
	assert_float_equal(r.change_pct / 5e102, 1, 1e-9);
	assert_float_equal(r.change_pct, compare_pct_change(0, 5), 0);
	assert_true(isinf(r.hl_pct) && r.hl_pct > 0);
	assert_float_equal(r.shift, 5, 0);
	assert_int_equal(r.direction, 1);
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_int_equal(compare_change_kind(&r, 0), CHANGE_REGRESSION);
	/* and x -> 0 */
	compare_samples(x, 6, z, 6, NULL, &r);
	assert_float_equal(r.change_pct, -100, 1e-12);
	assert_int_equal(r.direction, -1);
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_int_equal(r.constant, 0);
	/* zeros on both sides: same, with a [0, 0] interval, no change (not LKP's -100 % of a
	 * 1e-100 base), and flagged constant: such a row carries no evidence */
	compare_samples(z, 6, z, 6, NULL, &r);
	assert_int_equal(r.verdict, VERDICT_SAME);
	assert_float_equal(r.ci_lo_pct, 0, 0);
	assert_float_equal(r.hl_pct, 0, 0);
	assert_true(r.change_pct == 0 && !signbit(r.change_pct));
	assert_int_equal(r.constant, 1);
	assert_true(compare_pct_change(0, 0) == 0);
	assert_true(compare_pct_change(-3, -3) == 0);
	assert_float_equal(compare_pct_change(0, 5), 5e102, 1e90);
	/* one constant a side but two different values: not constant (0 -> 5 above moved) */
	{
		const double f[4] = { 5, 5, 5, 5 }, g[4] = { 5, 5, 5, 6 };

		compare_samples(f, 4, f, 4, NULL, &r);
		assert_int_equal(r.constant, 1);
		compare_samples(f, 4, g, 4, NULL, &r);
		assert_int_equal(r.constant, 0);
		compare_samples(z, 6, f, 4, NULL, &r);
		assert_int_equal(r.constant, 0);
		compare_samples(f, 4, NULL, 0, NULL, &r);
		assert_int_equal(r.constant, 0);
	}
	/* LKP's signed base: -60742 -> -50000 is -17.7 % in the table, the value rose */
	t_rng = 60742;
	for (int i = 0; i < 6; i++) {
		na[i] = -60742 + 100 * t_gauss();
		nb[i] = -50000 + 100 * t_gauss();
	}
	compare_samples(na, 6, nb, 6, NULL, &r);
	assert_float_equal(r.change_pct, 100 * (r.b.mean - r.a.mean) / r.a.mean, 1e-9);
	assert_true(r.change_pct < -17 && r.change_pct > -18.5);
	assert_int_equal(r.log_scale, 0);
	assert_int_equal(r.direction, 1);
	assert_true(r.hl_pct > 17 && r.hl_pct < 18.5);
	assert_int_equal(r.verdict, VERDICT_DIFFERENT);
	assert_int_equal(compare_change_kind(&r, 1), CHANGE_IMPROVEMENT);
	/* the kind from a direction, whatever the sign of LKP's %change */
	assert_true(r.change_pct < 0);
	assert_int_equal(change_kind_of(r.direction, 1), CHANGE_IMPROVEMENT);
	assert_int_equal(change_kind_of(-1, 1), CHANGE_REGRESSION);
	assert_int_equal(change_kind_of(-1, 0), CHANGE_IMPROVEMENT);
	assert_int_equal(change_kind_of(1, -1), CHANGE_UNKNOWN);
	assert_int_equal(change_kind_of(0, 1), CHANGE_NONE);
}

/* runs a side (samplesize.h): known numbers, bounds, and the power it promises */
static void test_samplesize_known_numbers(void **state UNUSED)
{
	double raw;

	assert_float_equal(samplesize_z(0.975), 1.959963985, 1e-8);
	assert_float_equal(samplesize_z(0.8), 0.841621234, 1e-8);
	assert_true(isnan(samplesize_z(1)));
	/* Lehr's 16 a group for an effect of one sigma at 0.05 / 0.8, + z^2/4, / (3/pi) */
	assert_float_equal(samplesize_runs(5, 5, 0.05, 0.8) * 3 / M_PI, 16.658124, 1e-5);
	assert_float_equal(samplesize_runs(5, 5, 0.05, 0.8), 17.444347, 1e-5);
	/* CV 1.8 %, 2 %, the requests' alpha 0.01 */
	assert_float_equal(samplesize_runs(1.8, 2, 0.01, 0.8), 21.549915, 1e-5);
	assert_int_equal(samplesize_choose(1.8, 2, 0.01, 0.8, 3, 40, &raw), 22);
	/* no spread (icount): only the z^2/4 term, below the rank test's floor */
	assert_float_equal(samplesize_runs(0, 2, 0.01, 0.8), 1.737012, 1e-5);
	assert_int_equal(samplesize_choose(0, 2, 0.01, 0.8, 3, 40, &raw), 5);
	/* too noisy: the bound */
	assert_int_equal(samplesize_choose(10, 2, 0.01, 0.8, 3, 40, &raw), 40);
	assert_float_equal(raw, 613.246355, 1e-4);
	assert_true(isnan(samplesize_runs(1, 0, 0.01, 0.8)));
	assert_true(isnan(samplesize_runs(-1, 2, 0.01, 0.8)));
	assert_int_equal(samplesize_choose(1, 0, 0.01, 0.8, 6, 40, &raw), 6);
	/* 2 / C(2n, n) <= alpha: C(8,4) = 70, C(10,5) = 252 */
	assert_int_equal(samplesize_rank_floor(0.05), 4);
	assert_int_equal(samplesize_rank_floor(0.01), 5);
	assert_int_equal(samplesize_rank_floor(0.0079), 6);
	assert_int_equal(samplesize_rank_floor(0.008), 5);
}

/* xorshift64* and Box-Muller: a fixed stream of standard normals */
static double test_gauss(uint64_t *x)
{
	double u1, u2;

	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	u1 = ((*x * 2685821657736338717ull) >> 11) * 0x1.0p-53;
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	u2 = ((*x * 2685821657736338717ull) >> 11) * 0x1.0p-53;
	return sqrt(-2 * log(u1 + 1e-300)) * cos(2 * M_PI * u2);
}

/* the n chosen for CV 1.8 %, +2 %, alpha 0.01 detects that change in ~80 % of trials */
static void test_samplesize_power_by_simulation(void **state UNUSED)
{
	double raw, a[64], b[64];
	int n = samplesize_choose(1.8, 2, 0.01, 0.8, 3, 64, &raw), hits = 0, trials = 400;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	struct compare_opts o;
	struct compare_result r;

	compare_opts_init(&o);
	o.alpha = 0.01;
	for (int t = 0; t < trials; t++) {
		for (int i = 0; i < n; i++) {
			a[i] = 1000 * (1 + 0.018 * test_gauss(&x));
			b[i] = 1020 * (1 + 0.018 * test_gauss(&x));
		}
		compare_samples(a, (size_t)n, b, (size_t)n, &o, &r);
		hits += r.p_value <= o.alpha;
	}
	/* 400 trials: 0.80 +- 0.04 is two binomial standard errors */
	assert_in_range(hits, 300, 352);
	printf("samplesize: n %d (raw %.2f), power by simulation %.3f\n", n, raw,
	       hits / (double)trials);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mw_exact_no_ties),
		cmocka_unit_test(test_mw_exact_ties_against_enumeration),
		cmocka_unit_test(test_mw_normal_approximation),
		cmocka_unit_test(test_hodges_lehmann_by_hand),
		cmocka_unit_test(test_u_cdf),
		cmocka_unit_test(test_welch_against_t_table),
		cmocka_unit_test(test_median_matches_sort),
		cmocka_unit_test(test_sample_stats),
		cmocka_unit_test(test_bh_adjust),
		cmocka_unit_test(test_compare_fdr_leaves_out_untestable_rows),
		cmocka_unit_test(test_metric_registry),
		cmocka_unit_test(test_small_n_is_need_more_runs),
		cmocka_unit_test(test_same_and_floor),
		cmocka_unit_test(test_nonpositive_values_fall_back_to_raw),
		cmocka_unit_test(test_lkp_fxmark_fixture),
		cmocka_unit_test(test_seed_proc_vs_map),
		cmocka_unit_test(test_seed_oom_reaper),
		cmocka_unit_test(test_failed_run_does_not_flip_direction),
		cmocka_unit_test(test_outlier_rule),
		cmocka_unit_test(test_part_of_the_runs_moved_is_never_same),
		cmocka_unit_test(test_constant_metrics_do_not_count_in_fdr),
		cmocka_unit_test(test_zero_and_negative_bases),
		cmocka_unit_test(test_samplesize_known_numbers),
		cmocka_unit_test(test_samplesize_power_by_simulation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
