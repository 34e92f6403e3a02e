/* The detector settings a user may set and their bounds (see detect_keys.h). */
#include "stats/detect_keys.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define REAL(f, lo, hi)                                                      \
	{                                                                    \
#f, DETECT_KEY_REAL, offsetof(struct detect_opts, f), lo, hi \
	}
#define SIZE(f, lo, hi)                                                      \
	{                                                                    \
#f, DETECT_KEY_SIZE, offsetof(struct detect_opts, f), lo, hi \
	}
const struct detect_key detect_keys[] = {
	REAL(p_max, 0, 1),	  SIZE(window, 8, 100000),
	SIZE(min_seg, 1, 1000),	  REAL(min_change_pct, 0, 1000),
	REAL(min_effect, 0, 100),
};
#undef REAL
#undef SIZE
const size_t detect_nkeys = sizeof(detect_keys) / sizeof(detect_keys[0]);

const struct detect_key *detect_key_find(const char *name)
{
	for (size_t i = 0; i < detect_nkeys; i++)
		if (!strcmp(detect_keys[i].name, name))
			return &detect_keys[i];
	return NULL;
}

int detect_key_in_bounds(const struct detect_key *k, double x)
{
	if (!isfinite(x) || x < k->min || x > k->max)
		return 0;
	return k->type != DETECT_KEY_SIZE || x == floor(x);
}

double detect_key_get(const struct detect_opts *o, const struct detect_key *k)
{
	const char *p = (const char *)o + k->offset;

	if (k->type == DETECT_KEY_SIZE)
		return (double)*(const size_t *)(const void *)p;
	return *(const double *)(const void *)p;
}

void detect_key_set(struct detect_opts *o, const struct detect_key *k, double x)
{
	char *p = (char *)o + k->offset;

	if (k->type == DETECT_KEY_SIZE)
		*(size_t *)(void *)p = (size_t)x;
	else
		*(double *)(void *)p = x;
}

int detect_keys_seg_fits(const struct detect_opts *o)
{
	return 2 * o->min_seg <= o->window;
}
