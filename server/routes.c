/* The one route table of regtrack-server (DESIGN.md "HTTP API v1"). */
#include "server/api.h"

#include "banned.h"

const struct route routes[] = {
	{ "GET", "/healthz", api_healthz, AUTH_NONE },
	{ "GET", "/metrics", api_prometheus, AUTH_NONE },
	{ "POST", "/api/v1/results", api_results_post, AUTH_SUBMIT },
	{ "GET", "/api/v1/runs/{}", api_run_get, AUTH_READ },
	{ "GET", "/api/v1/series", api_series_get, AUTH_READ },
	{ "GET", "/api/v1/compare", api_compare_get, AUTH_READ },
	{ "GET", "/api/v1/machines", api_machines_get, AUTH_READ },
	{ "GET", "/api/v1/testcases", api_testcases_get, AUTH_READ },
	{ "GET", "/api/v1/metrics", api_metrics_get, AUTH_READ },
	{ "PUT", "/api/v1/metrics/{}", api_metric_put, AUTH_ADMIN },
};
const unsigned nr_routes = sizeof(routes) / sizeof(routes[0]);
