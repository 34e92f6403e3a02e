/* A regression record's evidence in one sentence (evidence.h). */
#include "evidence.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void evidence_init(struct evidence *ev)
{
	ev->commits_after = 0;
	ev->noise_cycle = 0;
	ev->shift_pct = ev->ci_lo_pct = ev->ci_hi_pct = ev->shift = ev->noise_sigma = NAN;
	ev->before = ev->after = NAN;
}

int evidence_base_zero(const struct evidence *ev)
{
	return !isfinite(ev->shift_pct) && ev->before == 0 && isfinite(ev->after) && ev->after != 0;
}

void evidence_level(double x, char out[32])
{
	snprintf(out, 32, "%.4g", x == 0 ? 0 : x); /* -0: "0" */
}

double evidence_spread_ratio(const struct evidence *ev)
{
	if (!isfinite(ev->shift) || !isfinite(ev->noise_sigma) || !(ev->noise_sigma > 0))
		return NAN;
	return fabs(ev->shift) / ev->noise_sigma;
}

/* x with a sign and `decimals` decimals into out; a value that rounds to 0 has no sign */
static void signed_num(double x, int decimals, char out[32])
{
	snprintf(out, 32, "%+.*f", decimals, x);
	if (strspn(out + 1, "0.") == strlen(out + 1))
		memmove(out, out + 1, strlen(out)); /* "-0.0", "+0.00": "0.0", "0.00" */
}

int evidence_text(const struct evidence *ev, struct buf *out)
{
	double ratio = evidence_spread_ratio(ev);
	int d = fabs(ev->shift_pct) < 1 ? 2 : 1;
	char x[32], lo[32], hi[32];

	if (!ev->commits_after)
		return 0;
	if (evidence_base_zero(ev)) {
		evidence_level(ev->after, x);
		if (buf_addf(out,
			     "the %zu tested commit%s after moved from 0 to %s (the base is 0: "
			     "no %%change)",
			     ev->commits_after, ev->commits_after == 1 ? "" : "s", x))
			return -1;
	} else if (!isfinite(ev->shift_pct)) {
		return 0;
	} else {
		signed_num(ev->shift_pct, d, x);
		if (buf_addf(out, "the %zu tested commit%s after moved by %s %%", ev->commits_after,
			     ev->commits_after == 1 ? "" : "s", x))
			return -1;
	}
	if (isfinite(ev->shift_pct) && isfinite(ev->ci_lo_pct) && isfinite(ev->ci_hi_pct)) {
		signed_num(ev->ci_lo_pct, d, lo);
		signed_num(ev->ci_hi_pct, d, hi);
		if (buf_addf(out, " [%s, %s]", lo, hi))
			return -1;
	}
	if (isfinite(ratio) &&
	    buf_addf(out, ", %.*f \xc3\x97 the series' own spread", ratio < 99.95 ? 1 : 0, ratio))
		return -1;
	if (isfinite(ratio) && ev->noise_cycle &&
	    buf_addf(out, " net of its %zu-commit cycle", ev->noise_cycle))
		return -1;
	return 0;
}
