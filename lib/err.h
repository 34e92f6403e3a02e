#ifndef REGTRACK_ERR_H
#define REGTRACK_ERR_H

/*
 * The error a fallible function fills in (after curl's error buffer and
 * jansson's json_error_t). Fallible functions return 0 on success or a
 * negative value on failure and, on failure, fill the caller's struct err.
 *
 * id       what went wrong, one of enum err_code: programs act on e->id,
 *          never on the text of e->code (ERR_NONE for a peer's code, below)
 * code     machine-readable name of id ("invalid_field", "not_found"), as
 *          the server replies it in {"error": {"code": ...}}
 * message  lowercase, no trailing period, what failed first
 * detail   e.g. the field name or path ("metrics.x[2]"); may be empty
 * status   the HTTP status id maps to (400, 404, 409, 413, 500, 503, ...);
 *          a peer's reply status for a peer's code
 */
/*
 * Error codes, sorted, with the name and HTTP status of each in
 * err_codes[] (err.c). A new code is added here only for a condition that
 * no code below means; synonyms ("io" for io_error, "invalid" for
 * invalid_field) are not codes.
 */
enum err_code {
	ERR_NONE = 0,
	ERR_APPLY_FAILED, /* apply_failed 422: a patch series does not apply on its base (git am) */
	ERR_BUSY,	  /* busy 409: another process holds the resource (a spool, a lock) */
	ERR_CANCELLED,	  /* cancelled 503: the operation was asked to stop */
	ERR_CONFIG, /* config_invalid 400: a configuration file, key or command-line option is wrong */
	ERR_CONFLICT, /* conflict 409: the request contradicts what is stored (a unique key, a state) */
	ERR_DB, /* db_error 500: the database refused a statement (its text is logged, never replied) */
	ERR_DB_TIMEOUT,	    /* db_timeout 503: a statement ran past its timeout */
	ERR_DB_UNAVAILABLE, /* db_unavailable 503: no connection to the database */
	ERR_FETCH,	    /* fetch_failed 502: fetching from another server failed (git, HTTP) */
	ERR_FORBIDDEN,	    /* forbidden 403: the token's scope does not allow this */
	ERR_GIT,	    /* git_failed 502: a git command failed */
	ERR_INTERNAL,	    /* internal 500: a bug or an impossible state */
	ERR_INVALID_FIELD, /* invalid_field 400: a field, argument or value is malformed; detail names it */
	ERR_INVALID_JOB, /* invalid_job 400: the job cannot run on this worker as specified; detail names the field */
	ERR_INVALID_JSON,  /* invalid_json 400: the body is not JSON */
	ERR_IO,		   /* io_error 500: a file or pipe could not be read or written */
	ERR_LEASE_LOST,	   /* lease_lost 409: the job's lease is held by another attempt */
	ERR_METHOD,	   /* method_not_allowed 405: the path exists but not with this method */
	ERR_MISSING_FIELD, /* missing_field 400: a required field is absent; detail names it */
	ERR_NOT_FOUND,	   /* not_found 404: what the request names does not exist */
	ERR_OVERLOADED,	   /* overloaded 503: the server holds as many connections as it may */
	ERR_QUOTA,     /* quota_exceeded 429: the caller's share of a shared resource is used up */
	ERR_SMTP,      /* smtp_failed 502: the mail server refused or failed */
	ERR_SPAWN,     /* spawn_failed 500: a child process could not be started or failed */
	ERR_TOO_LARGE, /* too_large 413: input past a stated limit */
	ERR_TORN, /* torn 500: a stored file is not whole (a crash mid-write); it was set aside */
	ERR_TRANSPORT,	  /* transport 502: no HTTP reply (connection refused, reset, timed out) */
	ERR_UNAUTHORIZED, /* unauthorized 401: no valid token */
	ERR_NR_CODES
};

struct err {
	enum err_code id; /* ERR_NONE when set from a free code (err_set) */
	int status;
	char code[48];
	char message[256];
	char detail[256];
};

/*
 * Fills e (if not NULL) with code id: its name and HTTP status from the
 * table, detail (may be NULL: "") and the formatted message. Texts longer
 * than their field are cut to fit (always NUL-terminated). Returns -1, so
 * that `return err_setc(e, ...);` fails.
 */
int err_setc(struct err *e, enum err_code id, const char *detail, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * A code and status that came from a peer: the server's JSON error
 * {"code", "message", "detail"} and the reply's HTTP status, copied by
 * the API client of the CLI and the worker (lib/apiclient.c, api_reply_error()); and
 * server/http/http_reply.c's reply_errf() shorthand. e->id is ERR_NONE. Every
 * error raised here is err_setc()'s: tests/lint.sh fails on err_set()
 * anywhere else. Fills e like err_setc(); returns -1.
 */
int err_set(struct err *e, int status, const char *code, const char *detail, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Zeroes e: id ERR_NONE, status 0, empty texts. */
void err_clear(struct err *e);
/*
 * The code's name ("invalid_field") and HTTP status; "error" / 500 for
 * ERR_NONE and for values out of range.
 */
const char *err_code_name(enum err_code id);
int err_code_status(enum err_code id);

#endif
