#include "profile.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- monitors --------------------------------------------------------------- */

/* the names in their sorted order: bit i set = names[i] present */
static const char *const monitor_names[] = { "perf-profile", "perf-stat" };
#define NR_MONITORS 2

static int monitor_bit(const char *s, size_t n)
{
	for (int i = 0; i < NR_MONITORS; i++)
		if (strlen(monitor_names[i]) == n && !memcmp(monitor_names[i], s, n))
			return 1 << i;
	return 0;
}

static void monitors_text(int bits, char out[MONITORS_TEXT_MAX])
{
	size_t at = 0;

	out[0] = '\0';
	for (int i = 0; i < NR_MONITORS; i++)
		if (bits & (1 << i))
			at += (size_t)snprintf(out + at, MONITORS_TEXT_MAX - at, "%s%s",
					       at ? "," : "", monitor_names[i]);
}

int monitors_from_json(json_t *v, const char *field, char out[MONITORS_TEXT_MAX], struct err *e)
{
	size_t i;
	json_t *x;
	int bits = 0;

	out[0] = '\0';
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return err_setc(e, ERR_INVALID_FIELD, field,
				"'%s' must be an array of \"perf-profile\", \"perf-stat\"", field);
	json_array_foreach (v, i, x) {
		int b = json_is_string(x) ?
				monitor_bit(json_string_value(x), json_string_length(x)) :
				0;
		char path[160];

		if (!b) {
			snprintf(path, sizeof(path), "%.120s[%zu]", field, i);
			return err_setc(e, ERR_INVALID_FIELD, path,
					"'%s' is %s%.64s%s: a monitor is \"perf-profile\" or "
					"\"perf-stat\"",
					path, json_is_string(x) ? "'" : "",
					json_is_string(x) ? json_string_value(x) : "not a string",
					json_is_string(x) ? "'" : "");
		}
		bits |= b;
	}
	monitors_text(bits, out);
	return 0;
}

int monitors_from_text(const char *arg, const char *field, char out[MONITORS_TEXT_MAX],
		       struct err *e)
{
	const char *p = arg;
	int bits = 0;

	out[0] = '\0';
	if (!strcmp(arg, "none"))
		return 0;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		int b = monitor_bit(p, n);

		if (!b)
			return err_setc(
				e, ERR_INVALID_FIELD, field,
				"'%s' must list perf-profile, perf-stat separated by ',' (or be none)",
				field);
		bits |= b;
		p += n;
		if (*p == ',') {
			p++;
			if (!*p)
				return err_setc(e, ERR_INVALID_FIELD, field, "'%s' ends with ','",
						field);
		}
	}
	monitors_text(bits, out);
	return 0;
}

json_t *monitors_json(const char *text)
{
	json_t *a = json_array();

	for (int i = 0; i < NR_MONITORS; i++)
		if (monitors_has(text, monitor_names[i]))
			json_array_append_new(a, json_string(monitor_names[i]));
	return a;
}

int monitors_has(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p && *p;) {
		const char *end = strchr(p, ',');
		size_t m = end ? (size_t)(end - p) : strlen(p);

		if (m == n && !memcmp(p, name, n))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* --- folded lines ----------------------------------------------------------- */

#define COUNT_MAX 1000000000000000LL /* 10^15: exact in a double, summable */

/*
 * One line line[0..n) (without its '\n'): *frames_len = the bytes before
 * the last space, *count. 0, or -1 with why (static text).
 */
static int parse_line(const char *line, size_t n, size_t *frames_len, long long *count,
		      const char **why)
{
	size_t sp = n, i;
	long long c = 0;

	if (!n) {
		*why = "an empty line";
		return -1;
	}
	while (sp > 0 && line[sp - 1] != ' ')
		sp--;
	if (!sp) {
		*why = "no space before the sample count";
		return -1;
	}
	if (sp == n) {
		*why = "no sample count after the last space";
		return -1;
	}
	for (i = sp; i < n; i++) {
		if (line[i] < '0' || line[i] > '9') {
			*why = "the sample count is not a decimal integer";
			return -1;
		}
		if (c > COUNT_MAX / 10) {
			*why = "the sample count is larger than 10^15";
			return -1;
		}
		c = c * 10 + (line[i] - '0');
	}
	if (c < 1 || c > COUNT_MAX) {
		*why = "the sample count must be in [1, 10^15]";
		return -1;
	}
	sp--; /* the frames end before the space */
	if (!sp) {
		*why = "no frames before the sample count";
		return -1;
	}
	for (i = 0; i < sp; i++) {
		unsigned char ch = (unsigned char)line[i];

		if (ch < 0x20 || ch == 0x7f) {
			*why = "a control character in the frames";
			return -1;
		}
		if (ch == ';' && (i == 0 || line[i - 1] == ';' || i + 1 == sp)) {
			*why = "an empty frame";
			return -1;
		}
	}
	*frames_len = sp;
	*count = c;
	return 0;
}

int folded_each_line(const char *text, size_t len, const char *field, folded_line_fn fn, void *ctx,
		     long long *samples, struct err *e)
{
	size_t at = 0, lineno = 0;
	long long sum = 0;

	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at, fl;
		long long count;
		const char *why;

		lineno++;
		if (parse_line(text + at, n, &fl, &count, &why))
			return err_setc(e, ERR_INVALID_FIELD, field, "line %zu: %s", lineno, why);
		if (sum > INT64_MAX - count)
			return err_setc(e, ERR_INVALID_FIELD, field,
					"line %zu: the samples add up past 2^63", lineno);
		sum += count;
		if (fn && fn(ctx, text + at, fl, count))
			return err_setc(e, ERR_INVALID_FIELD, field, "line %zu: too many frames",
					lineno);
		at += n + (nl != NULL);
	}
	if (samples)
		*samples = sum;
	return 0;
}

int folded_check(const char *text, size_t len, const char *field, long long *samples, struct err *e)
{
	return folded_each_line(text, len, field, NULL, NULL, samples, e);
}
