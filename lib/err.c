#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int status;
} err_codes[ERR_NR_CODES] = {
	[ERR_NONE] = { "error", 500 },
	[ERR_APPLY_FAILED] = { "apply_failed", 422 },
	[ERR_BUSY] = { "busy", 409 },
	[ERR_CANCELLED] = { "cancelled", 503 },
	[ERR_CONFIG] = { "config_invalid", 400 },
	[ERR_CONFLICT] = { "conflict", 409 },
	[ERR_DB] = { "db_error", 500 },
	[ERR_DB_TIMEOUT] = { "db_timeout", 503 },
	[ERR_DB_UNAVAILABLE] = { "db_unavailable", 503 },
	[ERR_FETCH] = { "fetch_failed", 502 },
	[ERR_FORBIDDEN] = { "forbidden", 403 },
	[ERR_GIT] = { "git_failed", 502 },
	[ERR_INTERNAL] = { "internal", 500 },
	[ERR_INVALID_FIELD] = { "invalid_field", 400 },
	[ERR_INVALID_JOB] = { "invalid_job", 400 },
	[ERR_INVALID_JSON] = { "invalid_json", 400 },
	[ERR_IO] = { "io_error", 500 },
	[ERR_LEASE_LOST] = { "lease_lost", 409 },
	[ERR_METHOD] = { "method_not_allowed", 405 },
	[ERR_MISSING_FIELD] = { "missing_field", 400 },
	[ERR_NOT_FOUND] = { "not_found", 404 },
	[ERR_OVERLOADED] = { "overloaded", 503 },
	[ERR_SMTP] = { "smtp_failed", 502 },
	[ERR_SPAWN] = { "spawn_failed", 500 },
	[ERR_TOO_LARGE] = { "too_large", 413 },
	[ERR_QUOTA] = { "quota_exceeded", 429 },
	[ERR_TORN] = { "torn", 500 },
	[ERR_TRANSPORT] = { "transport", 502 },
	[ERR_UNAUTHORIZED] = { "unauthorized", 401 },
};

int err_set(struct err *e, int status, const char *code, const char *detail, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->id = ERR_NONE;
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

const char *err_code_name(enum err_code id)
{
	return (unsigned)id < ERR_NR_CODES ? err_codes[id].name : "error";
}

int err_code_status(enum err_code id)
{
	return (unsigned)id < ERR_NR_CODES ? err_codes[id].status : 500;
}

int err_setc(struct err *e, enum err_code id, const char *detail, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->id = id;
	e->status = err_code_status(id);
	snprintf(e->code, sizeof(e->code), "%s", err_code_name(id));
	snprintf(e->detail, sizeof(e->detail), "%s", detail ? detail : "");
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	return -1;
}
