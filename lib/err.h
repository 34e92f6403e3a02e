#ifndef REGTRACK_ERR_H
#define REGTRACK_ERR_H

/*
 * The error a fallible function fills in (after curl's error buffer and
 * jansson's json_error_t). Fallible functions return 0 on success or a
 * negative value on failure and, on failure, fill the caller's struct err.
 *
 * code     machine-readable, e.g. "invalid_field", "not_found", "conflict"
 * message  lowercase, no trailing period, what failed first
 * detail   e.g. the field name or path ("metrics.x[2]"); may be empty
 * status   the HTTP status this maps to (400, 404, 409, 413, 500, 503, …)
 */
struct err {
	int status;
	char code[48];
	char message[256];
	char detail[256];
};

/* Fills e (if not NULL) and returns -1. Strings are truncated to fit. */
int err_set(struct err *e, int status, const char *code, const char *detail, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void err_clear(struct err *e);

#endif
