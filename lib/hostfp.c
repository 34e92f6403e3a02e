/* Which host fingerprint fields differ between two sides (see hostfp.h). */
#include "hostfp.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* the set of the field's values over the side's fingerprints, as an object VALUE -> true */
static json_t *values_of(const json_t *side, const char *field)
{
	json_t *set = json_object(), *fp;
	size_t i;

	json_array_foreach (side, i, fp) {
		const json_t *v = json_object_get(fp, field);
		const char *s = json_is_string(v) ? json_string_value(v) : "\x01null";

		json_object_set_new(set, s, json_true());
	}
	return set;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *hostfp_diff(const json_t *base, const json_t *head)
{
	json_t *out = json_array(), *keys = json_object(), *fp;
	const char **names;
	const char *k;
	json_t *v;
	size_t i, n = 0;

	if (!json_is_array(base) || !json_is_array(head) || !json_array_size(base) ||
	    !json_array_size(head)) {
		json_decref(keys);
		return out;
	}
	json_array_foreach (base, i, fp)
		json_object_foreach ((json_t *)fp, k, v)
			json_object_set_new(keys, k, json_true());
	json_array_foreach (head, i, fp)
		json_object_foreach ((json_t *)fp, k, v)
			json_object_set_new(keys, k, json_true());
	names = xcalloc(json_object_size(keys) + 1, sizeof(*names));
	json_object_foreach (keys, k, v) {
		json_t *a = values_of(base, k), *b = values_of(head, k);

		if (!json_equal(a, b))
			names[n++] = k;
		json_decref(a);
		json_decref(b);
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++)
		json_array_append_new(out, json_string(names[i]));
	free(names);
	json_decref(keys);
	return out;
}
