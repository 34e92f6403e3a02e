#include "worker/wlog.h"
#include "logline.h"

#include <stdarg.h>

void wlog_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	logline_v("info", fmt, ap);
	va_end(ap);
}

void wlog_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	logline_v("warning", fmt, ap);
	va_end(ap);
}

void wlog_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	logline_v("error", fmt, ap);
	va_end(ap);
}
