#ifndef REGTRACK_SERVER_ABTEST_H
#define REGTRACK_SERVER_ABTEST_H

#include <jansson.h>
#include <math.h>

#include "buf.h"
#include "err.h"
#include "server/db/requests.h"

struct db_conn;

/*
 * A/B requests beyond their HTTP handlers (api/requests.c):
 * resolving the refs a submission names in the tree's mirror, and the
 * verdict once both sides have their runs.
 *
 * Verdict: per (group = target x testcase, metric) the comparison of base
 * vs head samples (one value per run: its mean over iterations) by
 * lib/stats compare_samples(), with floor_pct = the request's
 * min_change_pct (NAN: the metric's floor, compare_opts_floor) and the
 * Benjamini-Hochberg FDR over all rows of the request (compare_fdr); its
 * direction is the Hodges-Lehmann shift's, its meaning the metric
 * registry's higher_is_better. Overall, over the test metrics (monitors
 * only when there are no others), rows of one constant value at both
 * sides left out (compare_result.constant: no evidence either way):
 * `regression` when a row regressed, else `improvement` when one improved,
 * else `no-change` when every row is `same` (its CI inside +-floor), else
 * `inconclusive` (too few runs, an unknown metric direction, or no row
 * left).
 *
 * Deterministic measurement: in an icount setup a
 * row's comparison is compare_deterministic() with the setup's A/A spread
 * of the metric from its history (server/detect/aa_history.h, the request's own
 * commits left out), which may decide where the rank test cannot (3 vs
 * 3); such a row says by_spread and is not in the FDR family (q null).
 */

/* The alpha of a request's comparisons (compare's default). */
#define ABTEST_ALPHA 0.01
#define ABTEST_DEFAULT_REPEAT 6	  /* runs a side without history: 6 vs 6 reach p 0.0022 */
#define ABTEST_POWER 0.8	  /* of the runs chosen from a setup's noise */
#define ABTEST_MAX_AUTO_REPEAT 30 /* the most runs a side chosen from noise */
#define ABTEST_MIN_DF 3 /* repeated runs (sum of runs - 1 per commit) that make a history */

/*
 * Pure: the rows and overall verdict from samples s[0..n) as
 * db_request_samples() orders them; groups: the request's spec.groups
 * (borrowed; each row copies its target, testcase, params); aa: NULL, or
 * n A/A spreads, aa[i] the one of s[i]'s (group, metric) for
 * compare_deterministic() (NAN: none, the rank test). Returns the verdict
 * (static string) and *rows, a new JSON array.
 */
const char *abtest_verdict(const struct db_request_sample *s, long n, double min_change_pct,
			   json_t *groups, const double *aa, json_t **rows);

/*
 * Settles request id if it can be: in one transaction, a request not
 * final whose jobs all finished becomes `done` with its verdict, or
 * `failed` as soon as one job failed (build, boot, run or apply; its
 * unfinished jobs are cancelled) with which and why. Called after a job of
 * a request completed and before a request is shown. 1 settled now, 0
 * nothing to do, -1 with e (db errors).
 */
int abtest_settle(struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));

/*
 * abtest_settle() of the request job_id belongs to, if any (after the job
 * completed). 0, 1 or -1 with e as abtest_settle().
 */
int abtest_settle_job(struct db_conn *c, long long job_id, struct err *e)
	__attribute__((warn_unused_result));

/* One target x testcase of a request, as its jobs name the setup (all borrowed). */
struct abtest_setup {
	const char *target, *testcase;
	const char *params;			 /* canonical JSON text, measure included */
	const char *kconfig, *tbox_group, *arch; /* tbox_group NULL: any of arch */
};

/*
 * `repeat` omitted: the runs a side from the
 * measured noise of each group's setup history (db_request_noise: the
 * pooled within-commit CV of run means at commits with repeated runs,
 * at least ABTEST_MIN_DF degrees of freedom): per metric (the case's;
 * monitors only when there is no other) the runs that detect
 * min_change_pct (NAN: the metric's floor, compare_opts_floor) with power
 * ABTEST_POWER at ABTEST_ALPHA, samplesize_choose() within [the rank
 * test's floor, ABTEST_MAX_AUTO_REPEAT]; the largest over metrics and
 * groups. No history: ABTEST_DEFAULT_REPEAT. 0 with *repeat, *why (new:
 * "CV 1.8 % over 50 runs at 12 commits (METRIC) → 22 runs a side for 2 %
 * (power 0.8, α 0.01)", and why a bound applied) and *noise (new JSON
 * array: per metric target, testcase, metric, cv_pct, runs, commits,
 * min_change_pct, runs_a_side, raw); -1 with e (db errors).
 */
int abtest_choose_repeat(struct db_conn *c, const struct abtest_setup *groups, size_t nr_groups,
			 const char *compiler, const char *mode, double min_change_pct,
			 long long *repeat, char **why, json_t **noise, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Appends s to b as one word of a POSIX shell: bare when it is made of
 * letters, digits and ._,=+-/:%@ only, else in single quotes (a quote as
 * '\''), so that pasting the command line runs nothing of s. 0, or -1
 * when b is full (its cap).
 */
int abtest_shell_word(struct buf *b, const char *s);
/*
 * Appends " --params k=v,k=v" of params (a JSON object; its "measure"
 * left out: a flag of its own), keys sorted by name, as one shell word, nothing when it has no
 * other key. 0, or -1 when b is full.
 */
int abtest_shell_params(struct buf *b, json_t *params);

/*
 * One token-free command that runs a data point on a developer's box,
 * inside a kernel tree: `regtrack-worker reproduce --kconfig K --testcase
 * T [--params k=v,...] [--measure M] [--arch aarch64] --commit SHA
 * [--patches series.mbox] --repeat N`, every word shell-quoted. params: a
 * JSON object or NULL (its "measure" is left out: that is `measure`, NULL
 * = none); arch: "aarch64" or "arm64" add --arch aarch64, anything else
 * (NULL) nothing; patches: 1 adds --patches. New string (caller frees), or
 * NULL when it does not fit.
 */
char *abtest_reproduce_command(const char *kconfig, const char *testcase, json_t *params,
			       const char *measure, const char *arch, const char *sha, int patches,
			       long long repeat);

/*
 * The commands that run each data point of a request again (abtest_mail.c):
 * per group, base then head, {target, testcase, side, command, curl}:
 * `regtrack-worker reproduce --kconfig K --testcase T [--params k=v,...]
 * [--measure M] [--arch aarch64] --commit SHA [--patches series.mbox]
 * --repeat N` (run inside a kernel tree; no server, no token; words
 * shell-quoted) and the curl that queues it as one job of the service at
 * public_url (none for a patched head: the service has no job of a patch).
 * head_sha NULL: the head is base + the request's patches. New JSON array.
 */
json_t *abtest_reproduce_local(const struct abtest_setup *groups, size_t nr_groups,
			       const char *tree, const char *compiler, const char *measure,
			       const char *base_sha, const char *head_sha, long long repeat,
			       const char *public_url);

/*
 * A request by plan (`"plan": NAME` in a submission): fills the fields
 * submission body (a JSON object, changed in place) does not give from
 * normalized plan spec `plan` (borrowed; server/track/plan.h); the request's own
 * fields win. tree: the plan's (a request's tree must be the plan's);
 * testcases: the plan's; targets: the plan's that one of its kconfigs runs
 * on; kconfig: the plan's that run on the request's targets, which must be
 * one config (the same name after the arch word, or "host": a request
 * builds one, named for each target's arch); compiler: the plan's only
 * one; measure: icount when the plan's is (wallclock, the default, is not
 * named: the params stay the plan's setups'); monitors: the plan's when
 * any; repeat: the plan's when 2 or more (1, the plan default of one run
 * per tracked commit, compares nothing: chosen from the noise instead).
 * 0, or -1 with e: ERR_INVALID_FIELD detail "plan" (another tree, several
 * kconfigs or compilers to choose from, no kconfig for the targets).
 */
int abtest_plan_fill(json_t *body, const json_t *plan, struct err *e)
	__attribute__((warn_unused_result));

/*
 * abtest_plan_fill() of the plan body's "plan" names, read from the
 * database (db_plan_json()). Nothing when body has no plan: 0. -1 with e:
 * ERR_INVALID_FIELD detail "plan" (not a name, or abtest_plan_fill's),
 * ERR_NOT_FOUND detail "plan" (no such plan), db errors.
 */
int abtest_plan_apply(struct db_conn *c, json_t *body, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The result mail of request request_id to its `notify` address, gathered
 * as typed rows (db/request_mail.h) and rendered by lib/abmail.h, in the
 * kernel test robot's form for a patch ("we noticed a +12.0% improvement of
 * METRIC on x86_64 with your patch \"[PATCH] ...\"", the other targets'
 * change of that metric, the setup, an LKP table per target and testcase,
 * the request page under public_url, the commands that run it again): 0
 * with *subject, *body, *to (new strings), -1 with e (db errors;
 * ERR_NOT_FOUND: no such request or no notify).
 */
int abtest_mail(struct db_conn *c, const char *public_url, long long request_id, char **subject,
		char **body, char **to, struct err *e) __attribute__((warn_unused_result));
/*
 * abtest_mail()'s subject and body whether or not the request has a
 * notify (a series' reply in its list thread, server/inbox/inbox_reply.c), the
 * change named by series_title (the series' title as the inbox stores it:
 * its cover letter's subject after the bracket) unless it is NULL or "":
 * 0 with *subject, *body (new strings), -1 with e (ERR_NOT_FOUND: no such
 * request; db errors).
 */
int abtest_mail_text(struct db_conn *c, const char *public_url, long long request_id,
		     const char *series_title, char **subject, char **body, struct err *e)
	__attribute__((warn_unused_result));

#endif
