#ifndef REGTRACK_SERVER_BISECT_STEP_H
#define REGTRACK_SERVER_BISECT_STEP_H

#include "err.h"

struct db_conn;

/*
 * One coordinator step of a running bisect (bisect.h has the rules): in one
 * transaction with the bisect row locked, unless a job of its last round is
 * still out, read the candidates of its level, its jobs and samples, record
 * the steps of the round that ended, ask the planner (lib/bisect/plan.h)
 * and act on its decision: queue the next round's probes, descend into a
 * merge's side branch, or finish (found, ambiguous, failed).
 *
 * Returns 1 when a new level began (step it again now), 0 when done for
 * now (also when it is not running or another server holds it), -1 with e
 * (the store's errors (db.h); ERR_DB for a running bisect without candidates
 * or with a malformed descent record).
 */
struct server;

int bisect_step_running(struct server *srv, struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));

#endif
