#ifndef REGTRACK_SERVER_API_H
#define REGTRACK_SERVER_API_H

#include "server/http/http.h"

struct db_conn;

/*
 * Handlers of the HTTP API v1, one file per resource (api/<resource>.c).
 * Each parses and validates its input, calls the db layer and replies with
 * JSON through reply_json() or the one error path reply_err(). The route
 * table is in routes.c, grouped and sorted as these declarations are;
 * DESIGN.md lists the endpoints.
 */

/* The route table (routes.c), static, that main.c gives http_start(). */
extern const struct route routes[];
extern const unsigned nr_routes;

/* health and metrics (health.c) */
enum MHD_Result api_healthz(struct request *rq);
enum MHD_Result api_prometheus(struct request *rq);
/* GET /api/v1/openapi.json: the API as an OpenAPI 3 document (docs/openapi.json, embedded) */
enum MHD_Result api_openapi_get(struct request *rq);
/*
 * The query arguments of each route of routes[] as docs/openapi.json (the
 * document api_openapi_get serves) describes them: route_args_load() over
 * routes and the embedded document; the caller owns *out (route_args_free
 * with nr_routes). -1 with e when the document cannot be read (a build
 * defect: the server does not start).
 */
int api_route_args(const char *const ***out, struct err *e);

/* results and runs (results.c, runs.c) */
enum MHD_Result api_results_post(struct request *rq);
enum MHD_Result api_runs_get(struct request *rq);
enum MHD_Result api_run_get(struct request *rq);

/* series (series.c) */
enum MHD_Result api_series_get(struct request *rq);

/* compare (compare.c) */
enum MHD_Result api_compare_get(struct request *rq);

/* meta: machines, metrics, testcases (meta.c) */
enum MHD_Result api_machines_get(struct request *rq);
enum MHD_Result api_metrics_get(struct request *rq);
enum MHD_Result api_metric_put(struct request *rq);
enum MHD_Result api_testcases_get(struct request *rq);

/* inboxes (inboxes.c) */
enum MHD_Result api_inboxes_get(struct request *rq);
enum MHD_Result api_inboxes_post(struct request *rq);
enum MHD_Result api_inbox_messages_get(struct request *rq);
enum MHD_Result api_inbox_series_get(struct request *rq);
/* trees (trees.c) */
enum MHD_Result api_trees_get(struct request *rq);
enum MHD_Result api_trees_post(struct request *rq);
enum MHD_Result api_tree_poll(struct request *rq);

/* plans (plans.c) */
enum MHD_Result api_plans_get(struct request *rq);
enum MHD_Result api_plans_post(struct request *rq);
enum MHD_Result api_plan_delete(struct request *rq);
enum MHD_Result api_plan_get(struct request *rq);
enum MHD_Result api_plan_put(struct request *rq);
enum MHD_Result api_plan_pushes_get(struct request *rq);
/* POST /api/v1/plans/{name}/backtest: server/detect/backtest.h's reply, nothing stored */
enum MHD_Result api_plan_backtest(struct request *rq);

/* jobs (jobs.c) */
enum MHD_Result api_jobs_get(struct request *rq);
enum MHD_Result api_jobs_post(struct request *rq);
enum MHD_Result api_jobs_lease(struct request *rq);
enum MHD_Result api_job_get(struct request *rq);
enum MHD_Result api_job_cancel(struct request *rq);
enum MHD_Result api_job_complete(struct request *rq);
enum MHD_Result api_job_heartbeat(struct request *rq);
enum MHD_Result api_job_kconfig(struct request *rq);

/* workers (workers.c) */
enum MHD_Result api_workers_register(struct request *rq);

/* kernel images keyed by SHA-256 (images.c) */
enum MHD_Result api_image_put(struct request *rq);
enum MHD_Result api_image_get(struct request *rq);

/* regressions (regressions.c) */
enum MHD_Result api_regressions_get(struct request *rq);
enum MHD_Result api_regression_get(struct request *rq);
enum MHD_Result api_regression_patch(struct request *rq);
enum MHD_Result api_regression_invalid(struct request *rq);

/* the alert-quality ledger (quality.c) */
enum MHD_Result api_quality_get(struct request *rq);

/* reports: a regression's report text, mailing it, the outbox (reports.c) */
enum MHD_Result api_outbox_get(struct request *rq);
enum MHD_Result api_regression_report_get(struct request *rq);
enum MHD_Result api_regression_report(struct request *rq);

/* bisects (bisects.c) */
enum MHD_Result api_bisects_get(struct request *rq);
enum MHD_Result api_bisects_post(struct request *rq);
enum MHD_Result api_bisect_get(struct request *rq);
enum MHD_Result api_bisect_cancel(struct request *rq);
enum MHD_Result api_regression_bisect(struct request *rq);

/* A/B requests (requests.c) */
enum MHD_Result api_requests_get(struct request *rq);
enum MHD_Result api_requests_post(struct request *rq);
/*
 * A submission body (borrowed) taken as POST /api/v1/requests takes it, for
 * the server's own callers (server.h submit_request): checked as far as no
 * git is needed and stored in state "resolving" for resolver.h's threads,
 * which resolve its refs and queue its jobs (or fail it with a reason). The
 * request's id, or -1 with e (the error the API would answer). No token: the
 * request has no submitter.
 */
long long api_request_submit(struct server *srv, struct db_conn *c, json_t *body, struct err *e);
/*
 * Request id, stored in state "resolving" by POST /api/v1/requests, checked
 * again, its refs resolved in the tree's mirror (each git command bounded by
 * resolve_timeout_s) and its jobs queued (server.h resolve_request): 0 when
 * queued or when it was no longer resolving, -1 with e: why it cannot be
 * (the ref that is not a commit, the fetch that failed: ERR_GIT), or a
 * database error (503: try again).
 */
int api_request_resolve(struct server *srv, struct db_conn *c, long long id, struct err *e);
enum MHD_Result api_request_get(struct request *rq);
enum MHD_Result api_request_cancel(struct request *rq);
enum MHD_Result api_request_mbox(struct request *rq);
/*
 * A body's "from_mail" (a kernel test robot report, lib/robotmail.h) turned
 * into the request's head, base, testcases and label where the body has
 * none; "from_mail" and "dry_run" are then removed from b (borrowed). With
 * "dry_run": true, *dry is a new {request, robot} for a 200 answer (else
 * NULL). 0, or -1 with e: the mail's first missing part (detail
 * "from_mail.commit", ...), a case this lab does not run
 * ("from_mail.testcase"), a bad "dry_run" (requests_mail.c).
 */
int requests_from_mail(json_t *b, json_t **dry, struct err *e) __attribute__((warn_unused_result));

/* subscriptions (subscriptions.c) */
enum MHD_Result api_subscriptions_get(struct request *rq);
enum MHD_Result api_subscriptions_post(struct request *rq);
enum MHD_Result api_subscription_delete(struct request *rq);

/* kconfig: .config differences (kconfig.c) */
enum MHD_Result api_bisect_kconfig_diff(struct request *rq);
enum MHD_Result api_kconfig_diff(struct request *rq);
enum MHD_Result api_regression_kconfig_diff(struct request *rq);

/* profiles: a run's folded stacks, profile diffs (profiles.c) */
enum MHD_Result api_run_profile_get(struct request *rq);
enum MHD_Result api_profile_diff_get(struct request *rq);
enum MHD_Result api_bisect_profile_diff(struct request *rq);
enum MHD_Result api_request_profile_diff(struct request *rq);

#endif
