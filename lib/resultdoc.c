#include "resultdoc.h"
#include "jsonkeys.h"
#include "names.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STR 4096

static int digits(const char *s, int n)
{
	for (int i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int num(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

static int days_in_month(int year, int month)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 && leap ? 29 : days[month - 1];
}

/*
 * The ranges are what PostgreSQL's timestamptz input accepts (checked
 * against PostgreSQL 15): year 0000 is refused ("date/time field value out
 * of range"), second 60 only without a fraction, and a zone displacement
 * of 16 hours or more ("time zone displacement out of range"), so offsets
 * stop at +-15:59 (the real ones span -12:00..+14:00). Hour 24, which
 * PostgreSQL reads as the next midnight, is not RFC 3339.
 */
int is_rfc3339(const char *s)
{
	size_t n = strlen(s);
	const char *p;
	int year, month, sec, frac = 0;

	if (n < 20 || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' ||
	    !digits(s + 8, 2) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
	    !digits(s + 11, 2) || s[13] != ':' || !digits(s + 14, 2) || s[16] != ':' ||
	    !digits(s + 17, 2))
		return 0;
	year = num(s, 4);
	month = num(s + 5, 2);
	sec = num(s + 17, 2);
	if (year < 1 || month < 1 || month > 12 || num(s + 8, 2) < 1 ||
	    num(s + 8, 2) > days_in_month(year, month) || num(s + 11, 2) > 23 ||
	    num(s + 14, 2) > 59 || sec > 60)
		return 0;
	p = s + 19;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return 0;
		frac = 1;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (sec == 60 && frac)
		return 0;
	if ((*p == 'Z' || *p == 'z') && !p[1])
		return 1;
	if ((*p == '+' || *p == '-') && digits(p + 1, 2) && p[3] == ':' && digits(p + 4, 2) &&
	    !p[6])
		return num(p + 1, 2) <= 15 && num(p + 4, 2) <= 59;
	return 0;
}

/* days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's days_from_civil) */
static long long days_from_civil(int y, int m, int d)
{
	int era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (long long)era * 146097 + doe - 719468;
}

int date_or_rfc3339_seconds(const char *s, double *out)
{
	const char *p;
	double t, frac = 0;
	int year, month, day;

	if (strlen(s) == 10) {
		if (!digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' ||
		    !digits(s + 8, 2))
			return -1;
	} else if (!is_rfc3339(s)) {
		return -1;
	}
	year = num(s, 4);
	month = num(s + 5, 2);
	day = num(s + 8, 2);
	if (year < 1 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month))
		return -1;
	t = (double)days_from_civil(year, month, day) * 86400.0;
	if (strlen(s) == 10) {
		*out = t;
		return 0;
	}
	t += num(s + 11, 2) * 3600.0 + num(s + 14, 2) * 60.0 + num(s + 17, 2);
	p = s + 19;
	if (*p == '.') {
		char *end;

		/* ".25": strtod reads the fraction alone, correctly rounded */
		frac = strtod(p, &end);
		p = end;
	}
	if (*p == '+' || *p == '-')
		t -= (*p == '-' ? -1 : 1) * (num(p + 1, 2) * 3600.0 + num(p + 4, 2) * 60.0);
	*out = t + frac;
	return 0;
}

int is_uuid(const char *s)
{
	static const int dash[] = { 8, 13, 18, 23 };
	size_t i, d = 0;

	if (strlen(s) != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		if (d < 4 && (int)i == dash[d]) {
			if (s[i] != '-')
				return 0;
			d++;
		} else if (!isxdigit((unsigned char)s[i])) {
			return 0;
		}
	}
	return 1;
}

static int is_name(const char *s, size_t max, int dots_slashes)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (dots_slashes) {
			if (c <= ' ' || c >= 0x7f)
				return 0;
		} else if (!isalnum(c) && c != '.' && c != '_' && c != '-' && c != '+') {
			return 0;
		}
	}
	return 1;
}

/* optional string field: NULL when absent; -1 when the wrong type or too long */
static int opt_str(json_t *obj, const char *key, const char *path, const char **out, struct err *e)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return err_setc(e, ERR_INVALID_FIELD, path, "'%s' must be a string", path);
	if (json_string_length(v) > MAX_STR)
		return err_setc(e, ERR_INVALID_FIELD, path, "'%s' is longer than %d bytes", path,
				MAX_STR);
	*out = json_string_value(v);
	return 0;
}

/*
 * optional integer field within [min, max] (the range of its column: a
 * value past it would reach the database and come back as a 500)
 */
static int opt_int(json_t *obj, const char *key, const char *path, long long min, long long max,
		   long long *out, struct err *e)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
		return err_setc(e, ERR_INVALID_FIELD, path,
				"'%s' must be an integer in [%lld, %lld]", path, min, max);
	*out = json_integer_value(v);
	return 0;
}

static const char *const machine_fields[] = { "hostname", "arch",      "cpu_model", "tbox_group",
					      "nr_cpus",  "memory_mb", NULL };

static int check_machine(json_t *m, struct resultdoc *d, struct err *e)
{
	if (!json_is_object(m))
		return err_setc(e, ERR_INVALID_FIELD, "machine", "'machine' must be an object");
	/* a misspelt key would file the run under another machine (setup): refused */
	if (json_keys_only(m, machine_fields, "machine", e))
		return -1;
	if (opt_str(m, "hostname", "machine.hostname", &d->hostname, e) ||
	    opt_str(m, "arch", "machine.arch", &d->arch, e) ||
	    opt_str(m, "cpu_model", "machine.cpu_model", &d->cpu_model, e) ||
	    opt_str(m, "tbox_group", "machine.tbox_group", &d->tbox_group, e) ||
	    opt_int(m, "nr_cpus", "machine.nr_cpus", 0, INT32_MAX, &d->nr_cpus, e) ||
	    opt_int(m, "memory_mb", "machine.memory_mb", 0, INT64_MAX, &d->memory_mb, e))
		return -1;
	/* the machines' unique key (hostname, arch, tbox_group) is a btree of whole values */
	if (d->hostname && strlen(d->hostname) > 255)
		return err_setc(e, ERR_INVALID_FIELD, "machine.hostname",
				"'machine.hostname' is longer than 255 bytes");
	if (d->arch && strlen(d->arch) > 64)
		return err_setc(e, ERR_INVALID_FIELD, "machine.arch",
				"'machine.arch' is longer than 64 bytes");
	if (d->tbox_group && !names_plain(d->tbox_group, NAMES_PLAIN_MAX))
		return err_setc(e, ERR_INVALID_FIELD, "machine.tbox_group",
				"'machine.tbox_group' must be 1..128 chars of [A-Za-z0-9._+-]");
	return 0;
}

int params_check(json_t *p, struct err *e)
{
	const char *k;
	json_t *v;
	char path[300];

	if (!json_is_object(p))
		return err_setc(e, ERR_INVALID_FIELD, "params", "'params' must be an object");
	if (json_object_size(p) > PARAMS_MAX_KEYS)
		return err_setc(e, ERR_INVALID_FIELD, "params", "'params' has more than %d keys",
				PARAMS_MAX_KEYS);
	json_object_foreach (p, k, v) {
		snprintf(path, sizeof(path), "params.%.200s", k);
		if (!*k || strlen(k) > 128)
			return err_setc(e, ERR_INVALID_FIELD, path,
					"params keys must be 1..128 bytes");
		if (!json_is_string(v) && !json_is_number(v) && !json_is_boolean(v))
			return err_setc(e, ERR_INVALID_FIELD, path,
					"'%s' must be a string, number or boolean", path);
		if (json_is_string(v) && json_string_length(v) > MAX_STR)
			return err_setc(e, ERR_INVALID_FIELD, path, "'%s' is longer than %d bytes",
					path, MAX_STR);
	}
	return 0;
}

static int check_metrics(json_t *m, struct resultdoc *d, struct err *e)
{
	const char *name;
	json_t *arr;
	char path[320];

	if (!json_is_object(m))
		return err_setc(e, ERR_INVALID_FIELD, "metrics",
				"'metrics' must be an object of NAME: [values]");
	d->nr_metrics = json_object_size(m);
	if (d->nr_metrics > RESULTDOC_MAX_METRICS)
		return err_setc(e, ERR_TOO_LARGE, "metrics", "more than %d metrics",
				RESULTDOC_MAX_METRICS);
	json_object_foreach (m, name, arr) {
		size_t i;
		json_t *v;

		snprintf(path, sizeof(path), "metrics.%.256s", name);
		if (!is_name(name, 256, 1))
			return err_setc(
				e, ERR_INVALID_FIELD, path,
				"metric names must be 1..256 printable ASCII chars without spaces");
		if (json_is_number(arr))
			return err_setc(e, ERR_INVALID_FIELD, path,
					"'%s' must be an array of numbers (one per iteration)",
					path);
		if (!json_is_array(arr) || !json_array_size(arr))
			return err_setc(e, ERR_INVALID_FIELD, path,
					"'%s' must be a non-empty array of numbers", path);
		json_array_foreach (arr, i, v) {
			if (!json_is_number(v) || !isfinite(json_number_value(v))) {
				snprintf(path, sizeof(path), "metrics.%.256s[%zu]", name, i);
				return err_setc(e, ERR_INVALID_FIELD, path,
						"'%s' must be a finite number", path);
			}
		}
		d->nr_values += json_array_size(arr);
		if (d->nr_values > RESULTDOC_MAX_VALUES)
			return err_setc(e, ERR_TOO_LARGE, "metrics", "more than %d values",
					RESULTDOC_MAX_VALUES);
	}
	return 0;
}

/* "image_sha256" and "host_fingerprint" (see resultdoc.h) */
static int check_image(json_t *doc, struct resultdoc *d, struct err *e)
{
	json_t *v = json_object_get(doc, "image_sha256"), *x;
	const char *key;

	if (v && !json_is_null(v)) {
		const char *h = json_string_value(v);
		size_t i = 0;

		while (h && i < 64 &&
		       ((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')))
			i++;
		if (!h || i != 64 || h[64])
			return err_setc(e, ERR_INVALID_FIELD, "image_sha256",
					"'image_sha256' must be 64 lowercase hex digits");
		d->image_sha256 = h;
	}
	v = json_object_get(doc, "host_fingerprint");
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v) || json_object_size(v) > 16)
		return err_setc(e, ERR_INVALID_FIELD, "host_fingerprint",
				"'host_fingerprint' must be an object of at most 16 strings");
	json_object_foreach (v, key, x)
		if (!json_is_null(x) && (!json_is_string(x) || json_string_length(x) > 4096))
			return err_setc(e, ERR_INVALID_FIELD, "host_fingerprint",
					"'host_fingerprint.%.100s' must be a string of at most 4096 "
					"bytes or null",
					key);
	d->host_fingerprint = v;
	return 0;
}

const char *const resultdoc_fields[] = { "run_id",	   "job_id",   "tree",	   "branch",
					 "commit",	   "kconfig",  "compiler", "machine",
					 "testcase",	   "params",   "status",   "started_at",
					 "duration_s",	   "metrics",  "mode",	   "commit_time",
					 "commit_subject", "monitors", "profile",  NULL };

static int is_field(const char *key)
{
	for (int i = 0; resultdoc_fields[i]; i++)
		if (!strcmp(key, resultdoc_fields[i]))
			return 1;
	return 0;
}

/*
 * Adds the JSON values in j (j itself included) to *values and about the
 * bytes of its compact text (strings' lengths, 8 for each other value) to
 * *bytes; stops once *values is past limit.
 */
static void measure(json_t *j, size_t limit, size_t *values, size_t *bytes)
{
	const char *k;
	json_t *v;
	size_t i;

	++*values;
	if (json_is_string(j))
		*bytes += json_string_length(j) + 2;
	else
		*bytes += 8;
	if (json_is_object(j)) {
		json_object_foreach (j, k, v) {
			*bytes += strlen(k) + 3;
			measure(v, limit, values, bytes);
			if (*values > limit)
				return;
		}
	} else if (json_is_array(j)) {
		json_array_foreach (j, i, v) {
			measure(v, limit, values, bytes);
			if (*values > limit)
				return;
		}
	}
}

/* The fields without a column of their own (stored as runs.extra), bounded. */
static int check_unknown(json_t *doc, struct err *e)
{
	const char *k;
	json_t *v;
	size_t values = 0, bytes = 0;
	char path[140];

	json_object_foreach (doc, k, v) {
		if (is_field(k))
			continue;
		snprintf(path, sizeof(path), "%.128s", k);
		bytes += strlen(k) + 3;
		measure(v, RESULTDOC_MAX_EXTRA_VALUES, &values, &bytes);
		if (values > RESULTDOC_MAX_EXTRA_VALUES)
			return err_setc(e, ERR_TOO_LARGE, path,
					"the fields without a column hold more than %d JSON values",
					RESULTDOC_MAX_EXTRA_VALUES);
		if (bytes > RESULTDOC_MAX_EXTRA_BYTES)
			return err_setc(e, ERR_TOO_LARGE, path,
					"the fields without a column are larger than %d bytes",
					RESULTDOC_MAX_EXTRA_BYTES);
	}
	return 0;
}

static int check_profile(json_t *p, struct resultdoc *d, struct err *e)
{
	json_t *f;
	long long folded_samples;

	if (!json_is_object(p))
		return err_setc(e, ERR_INVALID_FIELD, "profile",
				"'profile' must be an object {event, samples, folded}");
	if (opt_str(p, "event", "profile.event", &d->profile_event, e) ||
	    opt_int(p, "samples", "profile.samples", 0, INT64_MAX, &d->profile_samples, e))
		return -1;
	if (!d->profile_event)
		return err_setc(e, ERR_MISSING_FIELD, "profile.event",
				"'profile.event' is required (the perf event, e.g. cpu-clock)");
	if (strlen(d->profile_event) > 64 || !*d->profile_event)
		return err_setc(e, ERR_INVALID_FIELD, "profile.event",
				"'profile.event' must be 1..64 bytes");
	for (const char *c = d->profile_event; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._:+-", *c))
			return err_setc(e, ERR_INVALID_FIELD, "profile.event",
					"'profile.event' must be of [A-Za-z0-9._:+-]");
	if (d->profile_samples < 0)
		return err_setc(e, ERR_MISSING_FIELD, "profile.samples",
				"'profile.samples' is required");
	f = json_object_get(p, "folded");
	if (!f || json_is_null(f))
		return err_setc(e, ERR_MISSING_FIELD, "profile.folded",
				"'profile.folded' is required");
	if (!json_is_string(f))
		return err_setc(e, ERR_INVALID_FIELD, "profile.folded",
				"'profile.folded' must be a string of folded stacks");
	if (json_string_length(f) > RESULTDOC_MAX_PROFILE_BYTES)
		return err_setc(e, ERR_TOO_LARGE, "profile.folded",
				"'profile.folded' is %zu bytes, more than "
				"RESULTDOC_MAX_PROFILE_BYTES = %d",
				json_string_length(f), RESULTDOC_MAX_PROFILE_BYTES);
	d->profile_folded = json_string_value(f);
	d->profile_folded_len = json_string_length(f);
	return folded_check(d->profile_folded, d->profile_folded_len, "profile.folded",
			    &folded_samples, e);
}

static const char *const statuses[] = { "ok",	       "failed",     "build-failed",
					"boot-failed", "run-failed", NULL };

int resultdoc_check(json_t *doc, struct resultdoc *d, struct err *e)
{
	json_t *v;
	const char *measure = NULL;
	int ok;

	memset(d, 0, sizeof(*d));
	d->duration_s = NAN;
	d->nr_cpus = d->memory_mb = -1;
	d->profile_samples = -1;
	if (!json_is_object(doc))
		return err_setc(e, ERR_INVALID_FIELD, "",
				"a result document must be a JSON object");
	if (check_unknown(doc, e))
		return -1;

	if (opt_str(doc, "run_id", "run_id", &d->run_id, e))
		return -1;
	if (!d->run_id)
		return err_setc(e, ERR_MISSING_FIELD, "run_id", "'run_id' is required");
	if (!is_uuid(d->run_id))
		return err_setc(e, ERR_INVALID_FIELD, "run_id", "'run_id' must be a UUID");
	for (int i = 0; i < 37; i++)
		d->run_id_buf[i] = (char)tolower((unsigned char)d->run_id[i]);
	d->run_id = d->run_id_buf;

	if (opt_str(doc, "commit", "commit", &d->commit, e))
		return -1;
	if (!d->commit)
		return err_setc(e, ERR_MISSING_FIELD, "commit", "'commit' is required");
	if (!names_full_sha(d->commit))
		return err_setc(e, ERR_INVALID_FIELD, "commit",
				"'commit' must be a full 40-digit lowercase hex sha");

	if (opt_str(doc, "testcase", "testcase", &d->testcase, e))
		return -1;
	if (!d->testcase)
		return err_setc(e, ERR_MISSING_FIELD, "testcase", "'testcase' is required");
	if (!names_plain(d->testcase, NAMES_PLAIN_MAX))
		return err_setc(e, ERR_INVALID_FIELD, "testcase",
				"'testcase' must be 1..128 chars of [A-Za-z0-9._+-]");

	if (opt_str(doc, "tree", "tree", &d->tree, e) ||
	    opt_str(doc, "branch", "branch", &d->branch, e) ||
	    opt_str(doc, "kconfig", "kconfig", &d->kconfig, e) ||
	    opt_str(doc, "compiler", "compiler", &d->compiler, e) ||
	    opt_str(doc, "status", "status", &d->status, e) ||
	    opt_str(doc, "started_at", "started_at", &d->started_at, e) ||
	    opt_str(doc, "commit_time", "commit_time", &d->commit_time, e) ||
	    opt_str(doc, "commit_subject", "commit_subject", &d->commit_subject, e) ||
	    opt_str(doc, "mode", "mode", &d->mode, e) ||
	    opt_int(doc, "job_id", "job_id", 1, INT64_MAX, &d->job_id, e))
		return -1;
	if (d->tree && !names_plain(d->tree, NAMES_PLAIN_MAX))
		return err_setc(e, ERR_INVALID_FIELD, "tree",
				"'tree' must be 1..128 chars of [A-Za-z0-9._+-]");
	if (d->kconfig && !names_plain(d->kconfig, NAMES_PLAIN_MAX))
		return err_setc(e, ERR_INVALID_FIELD, "kconfig",
				"'kconfig' must be 1..128 chars of [A-Za-z0-9._+-]");
	if (d->compiler && !names_plain(d->compiler, NAMES_PLAIN_MAX))
		return err_setc(e, ERR_INVALID_FIELD, "compiler",
				"'compiler' must be 1..128 chars of [A-Za-z0-9._+-]");
	if (!d->status)
		d->status = "ok";
	ok = 0;
	for (int i = 0; statuses[i]; i++)
		if (!strcmp(d->status, statuses[i]))
			ok = 1;
	if (!ok)
		return err_setc(e, ERR_INVALID_FIELD, "status",
				"'status' must be ok, failed, build-failed, boot-failed or run-failed");
	if (d->started_at && !is_rfc3339(d->started_at))
		return err_setc(e, ERR_INVALID_FIELD, "started_at",
				"'started_at' must be an RFC 3339 date-time");
	if (d->commit_time && !is_rfc3339(d->commit_time))
		return err_setc(e, ERR_INVALID_FIELD, "commit_time",
				"'commit_time' must be an RFC 3339 date-time");

	v = json_object_get(doc, "duration_s");
	if (v && !json_is_null(v)) {
		if (!json_is_number(v) || json_number_value(v) < 0)
			return err_setc(e, ERR_INVALID_FIELD, "duration_s",
					"'duration_s' must be a number >= 0");
		d->duration_s = json_number_value(v);
	}

	v = json_object_get(doc, "params");
	if (v && !json_is_null(v)) {
		if (params_check(v, e))
			return -1;
		d->params = v;
		if (json_is_string(json_object_get(v, "measure")))
			measure = json_string_value(json_object_get(v, "measure"));
	}
	/* mode is the run's, params.measure its setup's: a run measured one way cannot
	 * join a series measured the other */
	if (d->mode && measure && strcmp(d->mode, measure))
		return err_setc(e, ERR_INVALID_FIELD, "mode",
				"'mode' \"%.16s\" contradicts params.measure \"%.16s\"", d->mode,
				measure);
	if (!d->mode)
		d->mode = measure ? measure : "wallclock";
	if (strcmp(d->mode, "wallclock") && strcmp(d->mode, "icount"))
		return err_setc(e, ERR_INVALID_FIELD,
				d->mode == measure ? "params.measure" : "mode",
				"measurement mode must be 'wallclock' or 'icount'");

	v = json_object_get(doc, "machine");
	if (v && !json_is_null(v)) {
		if (check_machine(v, d, e))
			return -1;
		d->machine = v;
	}

	if (monitors_from_json(json_object_get(doc, "monitors"), "monitors", d->monitors, e))
		return -1;
	v = json_object_get(doc, "profile");
	if (v && !json_is_null(v)) {
		if (check_profile(v, d, e))
			return -1;
		if (!monitors_has(d->monitors, "perf-profile"))
			return err_setc(e, ERR_INVALID_FIELD, "monitors",
					"a document with a 'profile' must list \"perf-profile\" in "
					"'monitors'");
	}

	if (check_image(doc, d, e))
		return -1;
	v = json_object_get(doc, "metrics");
	if (!v)
		return err_setc(e, ERR_MISSING_FIELD, "metrics", "'metrics' is required");
	if (check_metrics(v, d, e))
		return -1;
	if (!d->nr_metrics && !strcmp(d->status, "ok"))
		return err_setc(e, ERR_INVALID_FIELD, "metrics",
				"'metrics' is empty: a run with status 'ok' needs at least one metric");
	d->metrics = v;
	return 0;
}
