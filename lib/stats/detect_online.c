/* The detector's online checks: CUSUM of the newest commits and the tip check (detect.h). */
#include "detect.h"
#include "compare.h"
#include "ranktest.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void detect_online_check(const double *ref, size_t nref, const double *tail, size_t ntail,
			 const struct detect_opts *o, struct detect_online *out)
{
	struct detect_opts def;
	double *tmp, center, scale;

	if (!o) {
		detect_opts_init(&def);
		o = &def;
	}
	memset(out, 0, sizeof(*out));
	out->center = out->scale = out->change_pct = NAN;
	if (nref < 4 || !ntail)
		return;
	tmp = xmalloc((nref > ntail ? nref : ntail) * sizeof(*tmp));
	memcpy(tmp, ref, nref * sizeof(*tmp));
	center = ranktest_median_inplace(tmp, nref);
	for (size_t i = 0; i < nref; i++)
		tmp[i] = fabs(ref[i] - center);
	scale = 1.4826 * ranktest_median_inplace(tmp, nref);
	if (!(scale > 0)) {
		/* more than half the window is one value: mean absolute deviation */
		double sum = 0;

		for (size_t i = 0; i < nref; i++)
			sum += fabs(ref[i] - center);
		scale = 1.2533 * sum / (double)nref;
	}
	if (!(scale > 0))
		scale = fabs(center) > 0 ? 1e-9 * fabs(center) : 1e-300;
	out->center = center;
	out->scale = scale;
	for (size_t i = 0; i < ntail; i++) {
		double z = (tail[i] - center) / scale;

		if (z > o->cusum_clip)
			z = o->cusum_clip;
		if (z < -o->cusum_clip)
			z = -o->cusum_clip;
		out->s_hi = fmax(0, out->s_hi + z - o->cusum_k);
		out->s_lo = fmax(0, out->s_lo - z - o->cusum_k);
		if (!out->alarm && (out->s_hi > o->cusum_h || out->s_lo > o->cusum_h)) {
			out->alarm = out->s_hi > o->cusum_h ? 1 : -1;
			out->alarm_at = i;
		}
	}
	memcpy(tmp, tail, ntail * sizeof(*tmp));
	out->change_pct = compare_pct_change(center, ranktest_median_inplace(tmp, ntail));
	free(tmp);
}

void detect_series_check_tail(const struct detect_series *s, size_t ntail,
			      struct detect_online *out)
{
	size_t end, from = 0;

	if (ntail > s->n)
		ntail = s->n;
	end = s->n - ntail;
	if (s->ncp && s->cp[s->ncp - 1].index <= end)
		from = s->cp[s->ncp - 1].index;
	if (end > s->opts.window && end - s->opts.window > from)
		from = end - s->opts.window;
	detect_online_check(s->med + from, end - from, s->med + end, ntail, &s->opts, out);
}

void detect_series_tip(const struct detect_series *s, double z_min, struct detect_tip *out)
{
	struct detect_online o;

	memset(out, 0, sizeof(*out));
	out->center = out->scale = out->tip = out->z = out->change_pct = NAN;
	if (s->n < 2)
		return;
	detect_series_check_tail(s, 1, &o);
	out->tip = s->med[s->n - 1];
	/* the window of detect_series_check_tail */
	out->nref = s->n - 1;
	if (s->ncp && s->cp[s->ncp - 1].index <= s->n - 1)
		out->nref = s->n - 1 - s->cp[s->ncp - 1].index;
	if (out->nref > s->opts.window)
		out->nref = s->opts.window;
	if (!isfinite(o.center))
		return;
	out->center = o.center;
	out->scale = o.scale;
	out->z = (out->tip - o.center) / o.scale;
	out->change_pct = o.change_pct;
	if (z_min > 0 && fabs(out->z) >= z_min && fabs(out->change_pct) >= s->opts.min_change_pct)
		out->moved = out->z > 0 ? 1 : -1;
}
