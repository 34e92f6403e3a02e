#ifndef REGTRACK_SERVER_BISECT_COORD_H
#define REGTRACK_SERVER_BISECT_COORD_H

/*
 * The bisect coordinator's thread (bgthread.h): every `bisect_poll_ms`, or
 * at once when kicked, one pass: mirror one tree whose mirror was never
 * made from its current url, start a bisect for one confirmed regression
 * (when `auto_bisect` is on), then start every queued bisect and step every
 * running one (bisect.h has the rules).
 */
struct server;
struct bisect_coord;
struct bisect_spec;
struct db_bisect_reg_todo;

/* Starts the thread; NULL (and a line in the log) when it cannot start. */
struct bisect_coord *bisect_coord_start(struct server *srv);
/*
 * Stops the thread after its current step and waits for it; b stays valid
 * (kicks are no-ops) until bisect_coord_stop. NULL is a no-op.
 */
void bisect_coord_halt(struct bisect_coord *b);
/* Halts (if not yet) and frees b. NULL is a no-op. */
void bisect_coord_stop(struct bisect_coord *b);
/*
 * Fills *s (zeroed first) for a bisect of regression t (a row of
 * db_bisect_reg_todo() or db_bisect_reg_one()): its tree, range, setup and
 * metric, 5 runs a step and 10 of each reference end, regression_id t->id;
 * token_id 0 and monitors NULL (perf-profile) for the caller to change.
 * The strings of *s are borrowed from t: valid until
 * db_bisect_reg_todo_release(t). Used by auto_bisect and "bisect now"
 * (POST /api/v1/regressions/{id}/bisect).
 */
void bisect_spec_of_todo(const struct db_bisect_reg_todo *t, struct bisect_spec *s);
/* Wakes the thread now (a bisect was created); any thread, any time. NULL is a no-op. */
void bisect_coord_kick(struct bisect_coord *b);

#endif
