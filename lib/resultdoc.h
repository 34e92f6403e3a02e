#ifndef REGTRACK_RESULTDOC_H
#define REGTRACK_RESULTDOC_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"
#include "profile.h"

/*
 * The result document (DESIGN.md "The result document"): validation of one
 * parsed JSON object, pure and side-effect free (fuzzed in `make fuzz`).
 *
 * Required: "run_id" (UUID text), "commit" (40 lowercase hex), "testcase"
 * (1..128 chars of [A-Za-z0-9._+-]), "metrics" (object NAME -> non-empty
 * array of finite numbers; NAME 1..256 printable ASCII without spaces;
 * at least one metric unless "status" is not "ok").
 * Optional, type-checked when present: "job_id" (integer >= 1), "tree",
 * "branch", "kconfig", "compiler", "status" (ok, failed, build-failed,
 * boot-failed, run-failed), "started_at" and "commit_time" (RFC 3339 dates
 * PostgreSQL's timestamptz takes: is_rfc3339), "commit_subject",
 * "duration_s" (number >= 0), "mode" (wallclock|icount; default
 * params.measure, then "wallclock"; given with a params.measure that says
 * the other, ERR_INVALID_FIELD "mode"), "params" (object of strings, numbers
 * and booleans), "machine" (object: hostname (at most 255 bytes), arch (64),
 * cpu_model, tbox_group strings; nr_cpus an integer in [0, 2^31-1], the range of its integer
 * column; memory_mb an integer >= 0). Every integer is checked against
 * the range of the column it goes to, so no value reaches the database
 * to fail there. Whether job_id names a job is the caller's question
 * (ingest_result).
 * "monitors" (the monitors that ran beside the case: an array of
 * "perf-profile" / "perf-stat", lib/profile.h; kept sorted and
 * deduplicated in monitors, "" when absent or []), "profile" (when
 * perf-profile ran: an object of "event" (1..64 bytes of
 * [A-Za-z0-9._:+-], e.g. cpu-clock), "samples" (an integer >= 0, as perf
 * counted them), "folded" (folded stacks, folded_check(), at most
 * RESULTDOC_MAX_PROFILE_BYTES bytes: 413 too_large with detail
 * "profile.folded" past it); a document with a profile must list
 * "perf-profile" in monitors (400, detail "monitors"), so a profiled run
 * never lands in an unprofiled series).
 * Identical images, checked when present and kept among the
 * unknown fields below (runs.extra; sql/0022 makes columns of them):
 * "image_sha256" (64 lowercase hex: the SHA-256 of the booted kernel
 * image, worker/kernel.h) and "host_fingerprint" (object of at most 16
 * string-or-null values of at most 4096 bytes: cpu_model, microcode,
 * cpufreq_governor, kernel_release, cmdline, numa_nodes of the host that
 * ran it and accel, the accelerator the run used; worker/fingerprint.h).
 * Unknown fields are kept by the caller, not rejected, up to
 * RESULTDOC_MAX_EXTRA_VALUES JSON values and RESULTDOC_MAX_EXTRA_BYTES
 * bytes (compact JSON) in all (413 too_large past them, detail the field
 * that crossed the limit).
 *
 * Limits: at most RESULTDOC_MAX_METRICS metrics and RESULTDOC_MAX_VALUES
 * values in all; strings at most 4096 bytes (jansson already rejects
 * invalid UTF-8 and NUL bytes when parsing).
 */
#define RESULTDOC_MAX_METRICS 100000
#define RESULTDOC_MAX_VALUES 2000000
#define PARAMS_MAX_KEYS 100
#define RESULTDOC_MAX_EXTRA_VALUES 100000
#define RESULTDOC_MAX_EXTRA_BYTES (2 << 20)
#define RESULTDOC_MAX_PROFILE_BYTES (4 << 20) /* profile.folded, bytes */

/* The top-level fields with a meaning (and a column) of their own, NULL-terminated. */
extern const char *const resultdoc_fields[];

struct resultdoc {
	/* all borrowed from the json_t given to resultdoc_check(); NULL when absent */
	const char *run_id; /* lowercased copy lives in run_id_buf */
	char run_id_buf[37];
	const char *commit, *testcase, *tree, *branch, *kconfig, *compiler;
	const char *status; /* never NULL after a successful check: default "ok" */
	const char *started_at, *commit_time, *commit_subject, *mode;
	long long job_id;  /* 0 = none */
	double duration_s; /* NAN = absent */
	json_t *params;	   /* object; borrowed, or NULL when absent */
	json_t *machine;   /* object or NULL */
	const char *hostname, *arch, *cpu_model, *tbox_group;
	long long nr_cpus, memory_mb;	  /* -1 = absent */
	json_t *metrics;		  /* object */
	char monitors[MONITORS_TEXT_MAX]; /* normalized ("" = none) */
	const char *profile_event;	  /* NULL: no profile */
	long long profile_samples;	  /* -1: no profile */
	const char *profile_folded;	  /* borrowed; profile_folded_len bytes */
	size_t profile_folded_len;
	const char *image_sha256; /* NULL = absent */
	json_t *host_fingerprint; /* object or NULL */
	size_t nr_metrics, nr_values;
};

/*
 * Checks `doc` and fills `out` with borrowed views into it (valid while the
 * caller holds doc). Returns 0, or -1 with e filled: ERR_INVALID_FIELD or
 * ERR_MISSING_FIELD (400), detail = the JSON path of the first bad field
 * ("metrics.NAME[2]", "machine.nr_cpus", "commit"), or ERR_TOO_LARGE
 * (413) past the limits above.
 */
int resultdoc_check(json_t *doc, struct resultdoc *out, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The one check of params, for results, jobs, bisects, plans and
 * requests (a job whose params its results would be refused for can
 * never deliver): an object of at most PARAMS_MAX_KEYS keys of 1..128
 * bytes, each value a string of at most 4096 bytes, a number or a
 * boolean (no nested objects or arrays, no null). 0, or -1 with e
 * (400 invalid_field, detail "params" or "params.KEY").
 */
int params_check(json_t *params, struct err *e) __attribute__((warn_unused_result));

/* 1 when s is a UUID in text form (8-4-4-4-12 hex digits, any case). */
int is_uuid(const char *s);
/*
 * 1 when s is an RFC 3339 date-time (YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM),
 * 'T' also 't' or ' ', 'Z' also 'z') that PostgreSQL's timestamptz accepts:
 * a real calendar date (days per month, Gregorian leap years) of a year
 * 0001..9999, hour 00..23, minute 00..59, second 00..59 or a leap second
 * 60 without a fraction, any number of fraction digits, offset at most
 * 15:59 either way (PostgreSQL refuses a displacement of 16 hours or more).
 */
int is_rfc3339(const char *s);

/*
 * The instant s names, in unix seconds with the fraction s gives: a date
 * "YYYY-MM-DD" (that day's 00:00 UTC) or an RFC 3339 date-time as
 * is_rfc3339() takes it (a leap second reads as the next minute's first).
 * 0 with *out set, or -1 when s is neither (a calendar date that does not
 * exist, such as 2026-02-30, included).
 */
int date_or_rfc3339_seconds(const char *s, double *out);

#endif
