#ifndef REGTRACK_LOGLINE_H
#define REGTRACK_LOGLINE_H

#include <stdarg.h>

/*
 * One log line on stderr, "YYYY-MM-DDTHH:MM:SSZ LEVEL message" (UTC), in one
 * write so lines of several threads never interleave; the message is cut at
 * 2 KiB. The server's slog_* (server/log.h) and the worker's wlog_*
 * (worker/wlog.h) are this with their level words. level and fmt borrowed.
 */
void logline_v(const char *level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
