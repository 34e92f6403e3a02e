/* GET /api/v1/openapi.json: docs/openapi.json, embedded at build time (tools/embed-file). */
#include "server/api/api.h"

#include <stddef.h>

#include "server/api/route_args.h"

extern const char openapi_json[];
extern const size_t openapi_json_len;

enum MHD_Result api_openapi_get(struct request *rq)
{
	return reply_text(rq, 200, "application/json", openapi_json, openapi_json_len);
}

int api_route_args(const char *const ***out, struct err *e)
{
	return route_args_load(routes, nr_routes, openapi_json, openapi_json_len, out, e);
}
