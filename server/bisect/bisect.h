#ifndef REGTRACK_SERVER_BISECT_H
#define REGTRACK_SERVER_BISECT_H

#include <jansson.h>

#include "err.h"

struct db_conn;

/*
 * The bisect coordinator: one background thread per server that
 * drives every active bisect, plus the writes the API calls. The module is
 * four files: bisect.c (a bisect's lifecycle: create, start, cancel,
 * finish), bisect_step.c (one step of a running bisect: from the samples
 * to the next probes or the verdict), bisect_coord.c (the thread) and
 * db/bisects.c (its rows).
 *
 * A bisect is `queued` when created (POST /api/v1/bisects, or by the
 * thread itself for a confirmed regression when `auto_bisect` = 1 and
 * |%change| >= `auto_bisect_min_pct`: the regression moves to `bisecting`,
 * with bisect_id set and a history row by "bisect"). The thread then
 * fetches the tree's mirror (gitmirror.h), imports its commit metadata,
 * takes the first-parent chain good..bad as the candidates (level 0) and
 * makes it `running`. From then on, whenever every job of its last round has
 * finished, it reads the samples (one value per ok run: the run's mean of
 * the metric; runs stored earlier at those commits for the same series
 * count too when `bisect_reuse_runs` = 1), marks commits whose job ended
 * build-failed, boot-failed or run-failed (or failed for good, or ok
 * without the metric) as skipped, records one step per commit measured in
 * that round (samples, verdict, evidence), and asks the planner
 * (lib/bisect/plan.h) what next:
 *   - probes: ordinary jobs (priority `bisect_priority`, below tracking
 *     jobs; jobs.bisect_id and bisect_round set), at most k per round where
 *     k = the idle machines matching arch / tbox_group / capability seen in
 *     the last 90 s, capped by the bisect's own k, `bisect_max_k` and
 *     `bisect_share_pct` of all matching machines (at least 1);
 *   - done on a two-parent merge M (level 0, or a merge inside a side
 *     branch): the bisect descends instead of ending. The next level's
 *     candidates are M's side branch, `git rev-list --first-parent
 *     --reverse M^2 ^M^1` (oldest first), then M itself as its bad end;
 *     its good end is M^1, which the level above showed good (M and M^1
 *     keep their samples, so the level starts with both references
 *     measured). Every level is a linear order, so the planner's posterior
 *     over "first bad index" applies unchanged; rounds keep counting over
 *     levels. A level whose first bad is its own bad end (every side
 *     commit good: the merge itself, e.g. two good parents that are slow
 *     together) ends with M; an octopus merge is not descended into. The
 *     level left is recorded in bisects.descents (the merge, its first
 *     parent, candidates, confidence, verification), steps carry their
 *     level (sql/0009). Why not all of `git rev-list --bisect-all`: a
 *     posterior over "which commit is first bad" needs a linear order in
 *     which every commit after the first bad is bad; over a DAG that holds
 *     only along a chain, and descending one merge at a time keeps each
 *     phase a chain at the cost of one verification per merge;
 *   - done: first bad commit, confidence, verification recorded; its
 *     regression moves to `bisected` and the report is queued in the same
 *     transaction (outbox_bisect_done);
 *   - ambiguous (every commit that could split the range failed to build):
 *     done with outcome "ambiguous" and the candidates left;
 *   - failed: with the reason. A regression whose bisect did not find one
 *     commit goes back to `confirmed` with a note (bisect_id stays set).
 * Each coordinator step runs in one transaction with the bisect row locked
 * (FOR UPDATE SKIP LOCKED), so several servers can share one database.
 * The thread also mirrors every tree whose mirror was never made from its
 * current url (a tree just posted), off the request path.
 */

struct server;
struct db_bisect_row;

/* What POST /api/v1/bisects asks for; every pointer borrowed for the call. */
struct bisect_spec {
	const char *tree;	/* a registered tree (404 otherwise) */
	const char *good, *bad; /* 40-hex shas */
	const char *testcase;
	const char *params; /* JSON object text (canonical: sorted keys, compact) */
	const char *kconfig, *compiler;
	const char *arch; /* NULL: from the kconfig name (x86_64-…, arm64-…) or none for host */
	const char *tbox_group; /* NULL = any machine of the arch */
	const char *metric;
	int runs_per_step, ref_runs, k; /* k 0 = as many as idle workers */
	long long regression_id;	/* 0 = none */
	long long token_id;		/* 0 = none */
	const char *monitors; /* its profile round's (normalized, "" = none); NULL: perf-profile */
};

/*
 * Inserts a queued bisect (commits and testcase found or created). Returns
 * its id, or -1 with e: ERR_NOT_FOUND detail "tree", the store's errors
 * (db.h). Runs in the caller's transaction if one is open.
 */
long long bisect_create(struct db_conn *c, const struct bisect_spec *s, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Cancels bisect id and its unfinished jobs. Returns 1 when it was active,
 * 0 when it was not (already finished or no such bisect), -1 with e.
 */
int bisect_cancel(struct db_conn *c, long long id, const char *reason, struct err *e)
	__attribute__((warn_unused_result));

/*
 * For the coordinator (bisect_coord.c, bisect_step.c):
 *
 * bisect_start: queued -> running: fetches the tree's mirror, imports its
 * commits and stores the first-parent chain good..bad as the candidates
 * (git runs outside any transaction; the row is locked again to write). A
 * git failure ends the bisect `failed`. Returns 0 (also when the bisect is
 * not queued or another server holds it) or -1 with e on a db error.
 *
 * bisect_finish: ends bisect b in the caller's transaction (state "done" or
 * "failed", outcome "found" / "ambiguous" / NULL, first_bad a commit id or
 * 0, cands a bigint[] text or NULL, confidence NAN = none, reason NULL =
 * none, verification and model borrowed, NULL = none) and moves its
 * regression and the records sharing it. Returns 0 or -1 with e.
 */
int bisect_start(struct server *srv, struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));
int bisect_finish(struct server *srv, struct db_conn *c, const struct db_bisect_row *b,
		  const char *state, const char *outcome, long long first_bad, const char *cands,
		  double confidence, const char *reason, json_t *verification, json_t *model,
		  struct err *e) __attribute__((warn_unused_result));

#endif
