/* The query arguments of each route, from the OpenAPI document (route_args.h). */
#include "server/api/route_args.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* 1 when the OpenAPI path (segments "{name}") is the route pattern (segments "{}"). */
static int path_is(const char *path, const char *pattern)
{
	while (*path && *pattern) {
		if (*path == '{' && pattern[0] == '{' && pattern[1] == '}') {
			while (*path && *path != '/')
				path++;
			pattern += 2;
			continue;
		}
		if (*path != *pattern)
			return 0;
		path++;
		pattern++;
	}
	return !*path && !*pattern;
}

/* p itself, or what its "$ref" names under #/components/parameters; NULL when unresolved. */
static json_t *resolve(json_t *spec, json_t *p)
{
	const char *ref = json_string_value(json_object_get(p, "$ref"));
	static const char prefix[] = "#/components/parameters/";

	if (!json_object_get(p, "$ref"))
		return p;
	if (!ref || strncmp(ref, prefix, sizeof(prefix) - 1))
		return NULL;
	return json_object_get(json_object_get(json_object_get(spec, "components"), "parameters"),
			       ref + sizeof(prefix) - 1);
}

/* Appends the query names of the parameter list ps to names (n of them); -1 on a bad $ref. */
static int add_query(json_t *spec, json_t *ps, const char ***names, size_t *n)
{
	size_t i;
	json_t *p;

	json_array_foreach (ps, i, p) {
		json_t *r = resolve(spec, p);
		const char *name = json_string_value(json_object_get(r, "name"));
		const char *in = json_string_value(json_object_get(r, "in"));

		if (!r)
			return -1;
		if (!name || !in || strcmp(in, "query"))
			continue;
		*names = xrealloc(*names, (*n + 2) * sizeof(**names));
		(*names)[(*n)++] = xstrdup(name);
		(*names)[*n] = NULL;
	}
	return 0;
}

/* The operation of method (upper case) in a path item, or NULL. */
static json_t *operation(json_t *item, const char *method)
{
	char m[16];
	size_t i;

	for (i = 0; method[i] && i + 1 < sizeof(m); i++)
		m[i] = (char)(method[i] >= 'A' && method[i] <= 'Z' ? method[i] - 'A' + 'a' :
								     method[i]);
	m[i] = '\0';
	return json_object_get(item, m);
}

int route_args_load(const struct route *routes, unsigned nr, const char *spec, size_t len,
		    const char *const ***out, struct err *e)
{
	json_error_t je;
	json_t *doc = json_loadb(spec, len, 0, &je), *paths = json_object_get(doc, "paths");
	const char ***a;

	*out = NULL;
	if (!json_is_object(paths)) {
		json_decref(doc);
		return err_setc(e, ERR_INTERNAL, "openapi", "the OpenAPI document has no paths");
	}
	a = xcalloc(nr ? nr : 1, sizeof(*a));
	for (unsigned i = 0; i < nr; i++) {
		const char *path;
		json_t *item;

		json_object_foreach (paths, path, item) {
			json_t *op;
			size_t n = 0;

			if (!path_is(path, routes[i].pattern) ||
			    !(op = operation(item, routes[i].method)))
				continue;
			a[i] = xcalloc(1, sizeof(*a[i]));
			if (add_query(doc, json_object_get(item, "parameters"), &a[i], &n) ||
			    add_query(doc, json_object_get(op, "parameters"), &a[i], &n)) {
				/* path is doc's: the message is written before doc goes */
				err_setc(e, ERR_INTERNAL, path,
					 "the OpenAPI document's %s %s has a parameter $ref that "
					 "does not resolve",
					 routes[i].method, path);
				json_decref(doc);
				route_args_free((const char *const **)a, nr);
				return -1;
			}
			break;
		}
	}
	json_decref(doc);
	*out = (const char *const **)a;
	return 0;
}

void route_args_free(const char *const **a, unsigned nr)
{
	if (!a)
		return;
	for (unsigned i = 0; i < nr; i++) {
		if (!a[i])
			continue;
		for (size_t k = 0; a[i][k]; k++)
			free((char *)a[i][k]);
		free((void *)a[i]);
	}
	free((void *)a);
}
