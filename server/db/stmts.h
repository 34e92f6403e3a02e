#ifndef REGTRACK_SERVER_DB_STMTS_H
#define REGTRACK_SERVER_DB_STMTS_H

#include "server/db/db_int.h"

/*
 * The statement tables, one per subject, each defined beside its readers
 * and indexed by an enum private to that file; db_subject_table() lists
 * them. Parameters are always $n; nothing is ever spliced into SQL text.
 */
extern const struct db_stmt_table db_stmts_inbox;	 /* db/inbox.c */
extern const struct db_stmt_table db_stmts_inbox_series; /* db/inbox_series.c */
extern const struct db_stmt_table db_stmts_inbox_reply;	 /* db/inbox_reply.c */
extern const struct db_stmt_table db_stmts_tokens;	 /* db/tokens.c */
extern const struct db_stmt_table db_stmts_kconfig;	 /* db/kconfig.c */
extern const struct db_stmt_table db_stmts_backtest;	 /* db/backtest.c */
extern const struct db_stmt_table db_stmts_quality;	 /* db/quality.c */
extern const struct db_stmt_table db_stmts_plans;	 /* db/plans.c */
extern const struct db_stmt_table db_stmts_meta;	 /* db/meta.c */
extern const struct db_stmt_table db_stmts_jobs;	 /* db/jobs.c */
extern const struct db_stmt_table db_stmts_profiles;	 /* db/profiles.c */
extern const struct db_stmt_table db_stmts_series;	 /* db/series.c */
extern const struct db_stmt_table db_stmts_trees;	 /* db/trees.c */
extern const struct db_stmt_table db_stmts_bisects;	 /* db/bisects.c */
extern const struct db_stmt_table db_stmts_bisect_regs;	 /* db/bisect_regs.c */
extern const struct db_stmt_table db_stmts_requests;	 /* db/requests.c */
extern const struct db_stmt_table db_stmts_request_mail; /* db/request_mail.c */
extern const struct db_stmt_table db_stmts_mail_report;	 /* db/mail.c */
extern const struct db_stmt_table db_stmts_mail_subs;	 /* db/mail_subs.c */
extern const struct db_stmt_table db_stmts_outbox;	 /* db/outbox.c */
extern const struct db_stmt_table db_stmts_runs;	 /* db/runs.c */
extern const struct db_stmt_table db_stmts_run_values;	 /* db/run_values.c */
extern const struct db_stmt_table db_stmts_detect_queue; /* db/detect_queue.c */
extern const struct db_stmt_table db_stmts_regressions;	 /* db/regressions.c */
extern const struct db_stmt_table db_stmts_regr_json;	 /* db/regression_json.c */
extern const struct db_stmt_table db_stmts_tip;		 /* db/tip.c */
extern const struct db_stmt_table db_stmts_det_series;	 /* db/detect_series.c */
extern const struct db_stmt_table db_stmts_det_explain;	 /* db/detect_explain.c */
extern const struct db_stmt_table db_stmts_leases;	 /* db/leases.c */
extern const struct db_stmt_table db_stmts_machines;	 /* db/machines.c */

/* jobs.monitors ("perf-profile,perf-stat", sql/0018) of job j as a JSON array (jobs.c, leases.c) */
#define JOB_MONITORS \
	"CASE WHEN j.monitors = '' THEN '[]'::json ELSE to_json(string_to_array(j.monitors, ',')) END"

/* series order: the tree's history once known, then commit time, then first seen */
#define COMMIT_ORDER "c.topo_order NULLS LAST, c.commit_time NULLS LAST, c.first_seen, c.id"

/*
 * The reads of an A/B request rq (requests.c, request_mail.c): its state
 * as shown, the stored one once final, else from its jobs
 */
#define REQ_STATE                                                                                \
	"CASE WHEN rq.state IN ('resolving', 'done', 'failed', 'cancelled') THEN rq.state "      \
	"WHEN EXISTS (SELECT 1 FROM jobs j WHERE j.request_id = rq.id AND j.state <> 'queued') " \
	"THEN 'running' ELSE 'queued' END"
/* field F of the first head run's extra (the worker's patch-id of the series), jsonb */
#define REQ_HEAD_RUN(F)                                                            \
	"(SELECT r.extra->'" F "' FROM runs r JOIN jobs k ON k.id = r.job_id "     \
	"WHERE k.request_id = rq.id AND k.ab_side = 'head' AND r.extra ? '" F "' " \
	"ORDER BY r.id LIMIT 1)"

/*
 * Run alias R is not of an A/B request's patched head: a commit `git am`
 * made on a worker, on no branch of the tree, whose runs stay out of the
 * setup's series (detection's, ST_DETECT_SERIES, and the charts',
 * ST_SERIES) where they would read as the branch's newest commit. A hashed
 * subplan, computed once per statement; a run without a job (CI) stays in.
 */
#define NOT_PATCHED_HEAD_RUN(R)                                      \
	"coalesce(" R ".job_id, 0) NOT IN (SELECT j.id FROM jobs j " \
	"JOIN requests q ON q.id = j.request_id WHERE j.ab_side = 'head' AND q.patches IS NOT NULL)"

/*
 * The commit whose runs stood for commit CID in bisect BID: CID was a step
 * that ran nothing because its kernel image is that commit's (the step's
 * evidence.same_image_as). Rows (id, sha, subject), one or none. BID and
 * CID are SQL expressions. The one rule for "the parent's runs" of a
 * bisect's comparison table: the mail's (ST_MAIL_SAME_IMAGE) and the
 * bisect JSON's parent_stand_in (the pages') use it both.
 */
#define SAME_IMAGE_STAND_IN(BID, CID)                                                         \
	"SELECT o.id, o.sha, o.subject FROM bisect_steps s "                                  \
	"JOIN commits o ON o.sha = s.evidence->>'same_image_as' WHERE s.bisect_id = " BID " " \
	"AND s.commit_id = " CID " AND cardinality(s.samples) = 0 ORDER BY s.id DESC LIMIT 1"

/* the same as JSON {sha, subject} (NULL when the first bad commit's first parent ran
 * itself), for a query where b is the bisect and fb its first bad commit */
#define PARENT_STAND_IN_JSON                                                                        \
	"(SELECT json_build_object('sha', x.sha, 'subject', x.subject) FROM (" SAME_IMAGE_STAND_IN( \
		"b.id", "(SELECT p.id FROM commits p WHERE p.sha = fb.parents[1])") ") x)"

#endif
