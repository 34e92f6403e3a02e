/* Runs a side for an A/B comparison; see samplesize.h for the formula and its sources. */
#include "stats/samplesize.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

double samplesize_z(double p)
{
	if (!(p > 0 && p < 1))
		return NAN;
	return gsl_cdf_ugaussian_Pinv(p);
}

double samplesize_runs(double cv_pct, double delta_pct, double alpha, double power)
{
	double za, zb, r;

	if (!(cv_pct >= 0) || !(delta_pct > 0) || !(alpha > 0 && alpha < 1) ||
	    !(power > 0 && power < 1) || !isfinite(cv_pct) || !isfinite(delta_pct))
		return NAN;
	za = samplesize_z(1 - alpha / 2);
	zb = samplesize_z(power);
	r = cv_pct / delta_pct;
	return (2 * (za + zb) * (za + zb) * r * r + za * za / 4) * M_PI / 3;
}

int samplesize_rank_floor(double alpha)
{
	double c = 1; /* C(2n, n) */

	for (int n = 1; n < 30; n++) {
		c = c * (2 * n) * (2 * n - 1) / ((double)n * n);
		if (2 / c <= alpha)
			return n;
	}
	return 30;
}

int samplesize_choose(double cv_pct, double delta_pct, double alpha, double power, int lo, int hi,
		      double *raw)
{
	int fl = alpha > 0 && alpha <= 1 ? samplesize_rank_floor(alpha) : 1;
	double n = samplesize_runs(cv_pct, delta_pct, alpha, power);

	if (fl > lo)
		lo = fl;
	if (hi < lo)
		hi = lo;
	*raw = n;
	if (isnan(n) || n <= lo)
		return lo;
	if (n >= hi)
		return hi;
	return (int)ceil(n - 1e-9);
}
