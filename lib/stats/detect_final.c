/* Where the after side of a final estimate's fallback range ends (detect_noise.h). */
#include "detect_noise.h"

size_t detect_fallback_to(const struct detect_series *s, const struct change_point *cp, size_t hi)
{
	size_t W = s->opts.window,
	       scan_end = cp->window_from + W < s->n ? cp->window_from + W : s->n;

	/*
	 * window_to below the scan window's end: binary segmentation cut the window at a
	 * split it accepted to the right of this one, a second step the scan saw there
	 * (the rescan from this change may then call it gradual). Else window_to is where
	 * W cut the window, which says nothing of the data: the level after it is the
	 * change's own until the next accepted split.
	 */
	if (cp->window_to < scan_end && cp->window_to < hi)
		return cp->window_to;
	return hi;
}
