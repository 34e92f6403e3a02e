#include "logline.h"

#include <stdio.h>
#include <time.h>

void logline_v(const char *level, const char *fmt, va_list ap)
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
