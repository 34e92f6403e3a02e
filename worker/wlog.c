#include "worker/wlog.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static void vlog(const char *level, const char *fmt, va_list ap)
{
	char line[2048], stamp[32];
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s %s %s\n", stamp, level, line);
}

void wlog_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("info", fmt, ap);
	va_end(ap);
}

void wlog_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning", fmt, ap);
	va_end(ap);
}

void wlog_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error", fmt, ap);
	va_end(ap);
}
