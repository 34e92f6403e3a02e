#include "jsonkeys.h"

#include <stdio.h>
#include <string.h>

int json_keys_only(const json_t *o, const char *const *names, const char *where, struct err *e)
{
	const char *k;
	json_t *v;

	if (!json_is_object(o))
		return 0;
	json_object_foreach ((json_t *)o, k, v) {
		char known[512], field[160];
		size_t i, len = 0;

		for (i = 0; names[i]; i++)
			if (!strcmp(k, names[i]))
				break;
		if (names[i])
			continue;
		known[0] = '\0';
		for (i = 0; names[i] && len < sizeof(known); i++)
			len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s",
						i ? ", " : "", names[i]);
		snprintf(field, sizeof(field), "%s%s%.100s", where, *where ? "." : "", k);
		return err_setc(e, ERR_INVALID_FIELD, field, "unknown field '%s' (known: %s)",
				field, known);
	}
	return 0;
}

int json_each_keys_only(const json_t *a, const char *const *names, const char *where, struct err *e)
{
	for (size_t i = 0; i < json_array_size(a); i++)
		if (json_keys_only(json_array_get(a, i), names, where, e))
			return -1;
	return 0;
}
