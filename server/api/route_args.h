#ifndef REGTRACK_SERVER_API_ROUTE_ARGS_H
#define REGTRACK_SERVER_API_ROUTE_ARGS_H

#include <stddef.h>

#include "err.h"
#include "server/http/request.h"

/*
 * The query arguments each route takes, read from the OpenAPI document the
 * server serves (docs/openapi.json): one description is both what a client
 * reads and what the server accepts, so an argument a handler reads but the
 * document omits fails the tests that use it, and a misspelt or unknown
 * argument (`series?setup=24`) is a 400 naming it, not a filter silently
 * ignored (http.c's preflight, after the token check).
 */

/*
 * For each of the nr routes, the names of its query arguments: the
 * "parameters" of the path and of the operation with "in": "query"
 * ("$ref" to #/components/parameters/NAME resolved), matched by method
 * and by path with every "{name}" segment read as the route's "{}".
 * Fills (*out)[i] with a NULL-terminated array of names, or NULL for a
 * route the document does not describe (its arguments are not checked).
 * spec[0..len) is the document (borrowed). Returns 0, or -1 with e
 * (ERR_INTERNAL) when it is not JSON with "paths" or a "$ref" does not
 * resolve. *out (and its arrays, names) are owned by the caller:
 * route_args_free.
 */
int route_args_load(const struct route *routes, unsigned nr, const char *spec, size_t len,
		    const char *const ***out, struct err *e) __attribute__((warn_unused_result));

/* Frees what route_args_load filled (nr its route count); a NULL a is a no-op. */
void route_args_free(const char *const **a, unsigned nr);

#endif
