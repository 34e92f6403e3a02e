#ifndef REGTRACK_WORKER_WLOG_H
#define REGTRACK_WORKER_WLOG_H

/*
 * The worker's log: one line per event on stderr (systemd's journal keeps
 * it), "YYYY-MM-DDTHH:MM:SSZ LEVEL message". Thread-safe (one fprintf per
 * line). Messages follow the house style: lowercase, what failed first.
 * Nothing is logged while a case measures (see agent.c).
 */
void wlog_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void wlog_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void wlog_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
