#ifndef REGTRACK_SERVER_BGTHREAD_H
#define REGTRACK_SERVER_BGTHREAD_H

#include "err.h"

/*
 * One background thread around a step function: the lease reaper, change
 * detection, the bisect coordinator and the mailer are each a step that
 * does one pass of its work and says how long it may sleep. The module
 * owns the thread, its wake-up pipe and its stop flag, so each of them is
 * start / kick / stop and nothing else.
 *
 * step(arg, &fd) runs on the thread, first at once, then again after its
 * returned wait in milliseconds (< 0: until kicked), earlier when
 * bgthread_kick() is called or, when step set *fd (initially -1) to a
 * readable descriptor (a LISTEN connection's socket), when that fd is
 * readable. It is never called again once bgthread_stop() has begun.
 */
struct bgthread;

typedef long (*bgthread_step_fn)(void *arg, int *fd);

/*
 * Starts the thread named `name` (static storage, for the log). Returns
 * a new handle (freed by bgthread_stop) or NULL with e (500 "internal":
 * no pipe, no thread).
 */
struct bgthread *bgthread_start(const char *name, bgthread_step_fn step, void *arg, struct err *e);
/* Wakes the thread for another step now; async-signal-safe, never blocks. */
void bgthread_kick(struct bgthread *t);
/* Whether bgthread_stop() has begun (for a long step to give up early). */
int bgthread_stopping(const struct bgthread *t);
/* Asks the thread to stop, waits for its step to return, frees t. NULL is a no-op. */
void bgthread_stop(struct bgthread *t);

#endif
