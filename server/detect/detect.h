#ifndef REGTRACK_SERVER_DETECT_THREAD_H
#define REGTRACK_SERVER_DETECT_THREAD_H

#include "err.h"
#include "server/config.h"
#include "server/detect/detect_int.h"

struct db_conn;

/*
 * Change detection off the request path.
 *
 * An ingest stores its run and, in the same transaction, queues the run's
 * setup in detect_queue (db_detect_enqueue(), ON CONFLICT DO NOTHING: one
 * pending row per setup however many runs arrive). An insert notifies
 * channel 'regtrack_detect' at commit. One background thread per server
 * (bgthread.h) LISTENs on its own connection and waits on that socket for
 * at most `detect_poll_ms`, so it wakes at once on a commit of any server
 * and still finds rows whose notification it missed; every STALE_CHECK_S
 * (60 s) it queues again the claims of a server that died mid-detection. It then
 * claims queued setups one at a time (FOR UPDATE SKIP LOCKED; a setup
 * being examined by one server is not claimed by another), examines each
 * with detect_setup() and deletes the claim. A run stored meanwhile queues
 * the setup again (a claimed row is not "pending"), so it is never missed.
 * An upload never waits for any of this.
 *
 * Incremental or not: every examination is a full recompute of the
 * setup's series from the database (the detector is O(T log W), cheaper
 * than reading the series; figures in docs/internals/performance.md).
 * No per-series state is kept in memory, so the answer is the full-
 * recompute answer by construction, also after a restart, when commits get
 * their topo_order later (which reorders a series), when runs of old
 * commits arrive late, and when several servers share one database.
 */

struct server;
struct detect_thread;

/* Starts the thread; NULL (and a line in the log) when it cannot start. */
struct detect_thread *detect_thread_start(struct server *srv);
/* Stops the thread after the setup it is examining, then frees t. NULL is a no-op. */
void detect_thread_stop(struct detect_thread *t);

/*
 * Examines every metric of setup `setup_id`: its series in series order
 * (per commit, the run means of its ok runs), the detector of
 * stats/detect.h with the server's defaults (window cfg->detect_window,
 * p_max cfg->detect_p_max, min_change_pct cfg->detect_min_change_pct;
 * plan_detect_defaults) changed by the "detect" keys of the plan that
 * governs the setup: of the plans whose jobs put runs into it, the first
 * by name that has a "detect" object (db_setup_plan_detect; a plan
 * without one leaves the choice to the others). min_change_pct is at
 * least 5 for monitor metrics (plan_detect_metric). It stores the change
 * points as regression records by the
 * rules of regressions.h, all in one transaction on c (which must be
 * idle). Errors: -1 with e (the store's errors (db.h)); nothing is written.
 */
int detect_setup(struct db_conn *c, long long setup_id, const struct config *cfg,
		 struct detect_setup_stats *st, struct err *e) __attribute__((warn_unused_result));

#endif
