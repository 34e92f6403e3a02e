#ifndef REGTRACK_SERVER_LOG_H
#define REGTRACK_SERVER_LOG_H

/*
 * The server's log, in the worker's form (worker/wlog.h): one line per
 * event on stderr (systemd's journal keeps it),
 * "YYYY-MM-DDTHH:MM:SSZ LEVEL message". Thread-safe: one write per line.
 * Messages follow the house style: lowercase, what failed first, the
 * subject in quotes. Database messages go here, never into a reply.
 */
void slog_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void slog_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void slog_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
