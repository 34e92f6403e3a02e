#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *e, int status, const char *code, const char *detail, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->status = status;
	snprintf(e->code, sizeof(e->code), "%s", code ? code : "error");
	snprintf(e->detail, sizeof(e->detail), "%s", detail ? detail : "");
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	return -1;
}

void err_clear(struct err *e)
{
	memset(e, 0, sizeof(*e));
}
