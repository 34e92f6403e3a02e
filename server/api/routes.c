/*
 * The one route table of regtrack-server (DESIGN.md "HTTP API v1"),
 * grouped by resource as api.h is, sorted by path then method within a
 * group. dispatch() takes the first entry whose pattern and method match
 * ({} is one path segment); no two entries of one method match a same
 * URL, so the order is for the reader only: a literal segment
 * (/jobs/lease) never competes with a {} of its method (/jobs/{} is GET).
 *
 * ROUTE_REPLICA: the handler only reads, and a reply a few seconds old is
 * fine (the dashboard's pages): it reads from the replica when one is set
 * and in time (server/replica.h). Not /jobs/{}, which workers and the CLI
 * poll for a job's end, nor /trees, whose reply is cached per change.
 */
#include "server/api/api.h"

/*
 * What a caller without a token does not get (README "Security: what is
 * public"): what was submitted for an A/B request (its notify address,
 * its series' subject; the mbox itself is AUTH_PRIVATE), the build log
 * of its jobs and the request's fail_reason, which quotes it (compiler
 * errors quote the patch) and the host facts a
 * worker registered (kernel, command line, microcode).
 */
static const struct withheld request_private[] = { { "notify", NULL },
						   { "patches.subject", NULL },
						   { "patches.mbox_url", NULL },
						   { "fail_reason", NULL },
						   { NULL, NULL } };
static const struct withheld job_private[] = { { "log_tail", "request" }, { NULL, NULL } };
static const struct withheld machine_private[] = { { "fingerprint", NULL }, { NULL, NULL } };

const struct route routes[] = {
	/* health and metrics */
	{ "GET", "/healthz", api_healthz, AUTH_NONE, ROUTE_PRIMARY, NULL },
	{ "GET", "/metrics", api_prometheus, AUTH_NONE, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/openapi.json", api_openapi_get, AUTH_NONE, ROUTE_PRIMARY, NULL },
	/* results and runs */
	{ "POST", "/api/v1/results", api_results_post, AUTH_SUBMIT, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/runs", api_runs_get, AUTH_READ, ROUTE_REPLICA, NULL },
	{ "GET", "/api/v1/runs/{}", api_run_get, AUTH_READ, ROUTE_REPLICA, NULL },
	/* series */
	{ "GET", "/api/v1/series", api_series_get, AUTH_READ, ROUTE_REPLICA, NULL },
	/* compare */
	{ "GET", "/api/v1/compare", api_compare_get, AUTH_READ, ROUTE_REPLICA, NULL },
	/* meta: machines, metrics, testcases */
	{ "GET", "/api/v1/machines", api_machines_get, AUTH_READ, ROUTE_REPLICA, machine_private },
	{ "GET", "/api/v1/metrics", api_metrics_get, AUTH_READ, ROUTE_REPLICA, NULL },
	{ "PUT", "/api/v1/metrics/{}", api_metric_put, AUTH_ADMIN, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/testcases", api_testcases_get, AUTH_READ, ROUTE_REPLICA, NULL },
	/* inboxes */
	{ "GET", "/api/v1/inboxes", api_inboxes_get, AUTH_READ, ROUTE_PRIMARY, NULL },
	{ "POST", "/api/v1/inboxes", api_inboxes_post, AUTH_ADMIN, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/inboxes/{}/messages", api_inbox_messages_get, AUTH_READ, ROUTE_PRIMARY,
	  NULL },
	{ "GET", "/api/v1/inboxes/{}/series", api_inbox_series_get, AUTH_READ, ROUTE_PRIMARY,
	  NULL },
	/* trees */
	{ "GET", "/api/v1/trees", api_trees_get, AUTH_READ, ROUTE_PRIMARY, NULL },
	{ "POST", "/api/v1/trees", api_trees_post, AUTH_ADMIN, ROUTE_PRIMARY, NULL },
	{ "POST", "/api/v1/trees/{}/poll", api_tree_poll, AUTH_JOBS, ROUTE_PRIMARY, NULL },
	/* plans */
	{ "GET", "/api/v1/plans", api_plans_get, AUTH_READ, ROUTE_PRIMARY, NULL },
	{ "POST", "/api/v1/plans", api_plans_post, AUTH_ADMIN, ROUTE_PRIMARY, NULL },
	{ "DELETE", "/api/v1/plans/{}", api_plan_delete, AUTH_ADMIN, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/plans/{}", api_plan_get, AUTH_READ, ROUTE_PRIMARY, NULL },
	{ "PUT", "/api/v1/plans/{}", api_plan_put, AUTH_ADMIN, ROUTE_PRIMARY, NULL },
	{ "POST", "/api/v1/plans/{}/backtest", api_plan_backtest, AUTH_ADMIN, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/plans/{}/pushes", api_plan_pushes_get, AUTH_READ, ROUTE_PRIMARY, NULL },
	/* jobs */
	{ "GET", "/api/v1/jobs", api_jobs_get, AUTH_READ, ROUTE_REPLICA, NULL },
	{ "POST", "/api/v1/jobs", api_jobs_post, AUTH_JOBS, ROUTE_PRIMARY, NULL },
	{ "POST", "/api/v1/jobs/lease", api_jobs_lease, AUTH_WORKER, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/jobs/{}", api_job_get, AUTH_READ, ROUTE_PRIMARY, job_private },
	{ "POST", "/api/v1/jobs/{}/cancel", api_job_cancel, AUTH_JOBS, ROUTE_PRIMARY, NULL },
	{ "POST", "/api/v1/jobs/{}/complete", api_job_complete, AUTH_WORKER, ROUTE_PRIMARY, NULL },
	{ "POST", "/api/v1/jobs/{}/heartbeat", api_job_heartbeat, AUTH_WORKER, ROUTE_PRIMARY,
	  NULL },
	{ "GET", "/api/v1/jobs/{}/kconfig", api_job_kconfig, AUTH_READ, ROUTE_PRIMARY, NULL },
	/* workers */
	{ "POST", "/api/v1/workers/register", api_workers_register, AUTH_WORKER, ROUTE_PRIMARY,
	  NULL },
	/* kernel images keyed by SHA-256: built by one worker, booted by another */
	{ "GET", "/api/v1/images/{}", api_image_get, AUTH_WORKER, ROUTE_PRIMARY, NULL },
	{ "PUT", "/api/v1/images/{}", api_image_put, AUTH_WORKER, ROUTE_PRIMARY, NULL },
	/* regressions */
	{ "GET", "/api/v1/regressions", api_regressions_get, AUTH_READ, ROUTE_REPLICA, NULL },
	{ "GET", "/api/v1/regressions/{}", api_regression_get, AUTH_READ, ROUTE_REPLICA, NULL },
	{ "PATCH", "/api/v1/regressions/{}", api_regression_patch, AUTH_ADMIN, ROUTE_PRIMARY,
	  NULL },
	{ "POST", "/api/v1/regressions/{}/invalid", api_regression_invalid, AUTH_ADMIN,
	  ROUTE_PRIMARY, NULL },
	/* the alert-quality ledger */
	{ "GET", "/api/v1/quality", api_quality_get, AUTH_READ, ROUTE_REPLICA, NULL },
	/* reports: a regression's report mail and the outbox */
	{ "GET", "/api/v1/outbox", api_outbox_get, AUTH_ADMIN, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/regressions/{}/report", api_regression_report_get, AUTH_READ,
	  ROUTE_PRIMARY, NULL },
	{ "POST", "/api/v1/regressions/{}/report", api_regression_report, AUTH_ADMIN, ROUTE_PRIMARY,
	  NULL },
	{ "POST", "/api/v1/regressions/{}/bisect", api_regression_bisect, AUTH_ADMIN, ROUTE_PRIMARY,
	  NULL },
	/* bisects */
	{ "GET", "/api/v1/bisects", api_bisects_get, AUTH_READ, ROUTE_REPLICA, NULL },
	{ "POST", "/api/v1/bisects", api_bisects_post, AUTH_JOBS, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/bisects/{}", api_bisect_get, AUTH_READ, ROUTE_REPLICA, NULL },
	{ "POST", "/api/v1/bisects/{}/cancel", api_bisect_cancel, AUTH_JOBS, ROUTE_PRIMARY, NULL },
	/* A/B requests */
	{ "GET", "/api/v1/requests", api_requests_get, AUTH_READ, ROUTE_PRIMARY, request_private },
	{ "POST", "/api/v1/requests", api_requests_post, AUTH_JOBS, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/requests/{}", api_request_get, AUTH_READ, ROUTE_PRIMARY,
	  request_private },
	{ "POST", "/api/v1/requests/{}/cancel", api_request_cancel, AUTH_JOBS, ROUTE_PRIMARY,
	  NULL },
	{ "GET", "/api/v1/requests/{}/mbox", api_request_mbox, AUTH_READ | AUTH_PRIVATE,
	  ROUTE_PRIMARY, NULL },
	/* subscriptions */
	{ "GET", "/api/v1/subscriptions", api_subscriptions_get, AUTH_ADMIN, ROUTE_PRIMARY, NULL },
	{ "POST", "/api/v1/subscriptions", api_subscriptions_post, AUTH_ADMIN, ROUTE_PRIMARY,
	  NULL },
	{ "DELETE", "/api/v1/subscriptions/{}", api_subscription_delete, AUTH_ADMIN, ROUTE_PRIMARY,
	  NULL },
	/* kconfig: .config differences */
	{ "GET", "/api/v1/bisects/{}/kconfig-diff", api_bisect_kconfig_diff, AUTH_READ,
	  ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/kconfig/diff", api_kconfig_diff, AUTH_READ, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/regressions/{}/kconfig-diff", api_regression_kconfig_diff, AUTH_READ,
	  ROUTE_PRIMARY, NULL },
	/* profiles: a run's folded stacks, profile diffs */
	{ "GET", "/api/v1/bisects/{}/profile-diff", api_bisect_profile_diff, AUTH_READ,
	  ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/profile-diff", api_profile_diff_get, AUTH_READ, ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/requests/{}/profile-diff", api_request_profile_diff, AUTH_READ,
	  ROUTE_PRIMARY, NULL },
	{ "GET", "/api/v1/runs/{}/profile", api_run_profile_get, AUTH_READ, ROUTE_PRIMARY, NULL },
};
const unsigned nr_routes = sizeof(routes) / sizeof(routes[0]);
