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
	out->nref = nref;
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

/*
 * The first commit of the reference of a tail that starts at commit end:
 * the last change point before end, at most opts.window commits back. A
 * change point at end itself is the step into the tail: the reference is
 * then the segment before it, not the empty one after it.
 */
static size_t tail_ref_from(const struct detect_series *s, size_t end)
{
	size_t from = 0;

	for (size_t k = 0; k < s->ncp; k++)
		if (s->cp[k].index < end && s->cp[k].index > from)
			from = s->cp[k].index;
	if (end > s->opts.window && end - s->opts.window > from)
		from = end - s->opts.window;
	return from;
}

void detect_series_check_tail(const struct detect_series *s, size_t ntail,
			      struct detect_online *out)
{
	size_t end, from;
	double *tmp;

	if (ntail > s->n)
		ntail = s->n;
	end = s->n - ntail;
	from = tail_ref_from(s, end);
	detect_online_check(s->med + from, end - from, s->med + end, ntail, &s->opts, out);
	out->nref = end - from;
	if (isfinite(out->center) || end == from || !ntail)
		return;
	/* 1 to 3 reference commits: their median and the tail's %change, no noise model */
	tmp = xmalloc((end - from > ntail ? end - from : ntail) * sizeof(*tmp));
	memcpy(tmp, s->med + from, (end - from) * sizeof(*tmp));
	out->center = ranktest_median_inplace(tmp, end - from);
	memcpy(tmp, s->med + end, ntail * sizeof(*tmp));
	out->change_pct = compare_pct_change(out->center, ranktest_median_inplace(tmp, ntail));
	free(tmp);
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
	out->nref = o.nref;
	/* fewer than 4 commits before the tip: a median, but no noise model to judge by */
	if (!isfinite(o.center) || !isfinite(o.scale))
		return;
	out->center = o.center;
	out->scale = o.scale;
	out->z = (out->tip - o.center) / o.scale;
	out->change_pct = o.change_pct;
	if (z_min > 0 && fabs(out->z) >= z_min && fabs(out->change_pct) >= s->opts.min_change_pct)
		out->moved = out->z > 0 ? 1 : -1;
}
