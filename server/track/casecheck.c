/* Jobs, plans and requests checked against the cases the workers registered (see casecheck.h). */
#include "server/track/casecheck.h"
#include "buf.h"
#include "names.h"
#include "server/db/jobs.h"
#include "vmspec.h"
#include "xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CASES 256
#define MAX_CASE_PARAMS 100
#define MAX_CASES_TEXT (256 * 1024)

/* params the worker reads itself, for every case (lib/vmspec.h) */
#define worker_params vmspec_params

int casecheck_load(struct db_conn *c, struct casecheck *cc, struct err *e)
{
	char *text = NULL;
	json_t *all, *one, *table, *v;
	const char *name, *key;
	size_t i;

	memset(cc, 0, sizeof(*cc));
	cc->cases = json_object();
	if (db_machine_cases_json(c, &text, e) < 0)
		return -1;
	all = json_loads(text, 0, NULL);
	free(text);
	json_array_foreach (all, i, one) {
		if (!json_is_object(one))
			continue;
		cc->machines++;
		json_object_foreach (one, name, table) {
			json_t *u = json_object_get(cc->cases, name);

			if (!u) {
				u = json_object();
				json_object_set_new(cc->cases, name, u);
			}
			json_object_foreach (table, key, v) {
				json_t *defs = json_object_get(u, key);
				size_t k;
				json_t *d;
				int seen = 0;

				if (!defs) {
					defs = json_array();
					json_object_set_new(u, key, defs);
				}
				json_array_foreach (defs, k, d)
					seen |= json_equal(d, v);
				if (!seen)
					json_array_append(defs, v);
			}
		}
	}
	json_decref(all);
	return 0;
}

void casecheck_release(struct casecheck *cc)
{
	json_decref(cc->cases);
	memset(cc, 0, sizeof(*cc));
}

static int is_worker_param(const char *k)
{
	return vmspec_is_param(k);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "a, b, c" of obj's keys, sorted, then the worker's own params when with_worker */
static void keys_list(const json_t *obj, int with_worker, struct buf *out)
{
	size_t n = json_object_size(obj), i = 0;
	const char **keys = xmalloc((n + 1) * sizeof(*keys));
	const char *k;
	json_t *v;

	json_object_foreach ((json_t *)obj, k, v)
		keys[i++] = k;
	qsort(keys, n, sizeof(*keys), cmp_str);
	/* a list past the buffer's cap is cut short: it is a hint in a message */
	for (i = 0; i < n; i++)
		if (buf_addf(out, "%s%s", i ? ", " : "", keys[i]))
			break;
	for (i = 0; with_worker && worker_params[i]; i++)
		if (buf_addf(out, "%s%s",
			     !n && !i		  ? "" :
			     worker_params[i + 1] ? ", " :
						    ", and ",
			     worker_params[i]))
			break;
	if (!n && !with_worker && buf_addstr(out, "none"))
		abort(); /* under the cap */
	free(keys);
}

/* the number in text, whole of it (strtod); 0 or -1 */
static int number_of(const char *text, double *d)
{
	char *end;

	errno = 0;
	*d = strtod(text, &end);
	return *text && end != text && !*end && !errno && isfinite(*d) ? 0 : -1;
}

/* def's bound key ("min", "max"); absent: none (dflt) */
static double bound(const json_t *def, const char *key, double dflt)
{
	const json_t *b = json_object_get(def, key);

	return json_is_number(b) ? json_number_value(b) : dflt;
}

/* 1 when word is one of choices "a|b|c" */
static int is_choice(const char *choices, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = choices; p && *p;) {
		size_t len = strcspn(p, "|");

		if (len == n && !strncmp(p, word, n))
			return 1;
		p += len + (p[len] == '|');
	}
	return 0;
}

/* why (whylen bytes) set from fmt; returns 0: value_ok()'s "refused" */
static int refuse(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return 0;
}

/*
 * Whether the value val (a param of a job: string, integer, real, boolean,
 * passed to the case as key=TEXT, worker/execute.c) passes the case's own
 * check of one registered param def ({type, min, max, choices}: what
 * casecommon.c's param_set() refuses with "bad value"). A "P%" task count
 * depends on the machine's CPUs: only its form is checked. A type this
 * server does not know passes. 1, or 0 with why.
 */
static int value_ok(const json_t *def, const json_t *val, char *why, size_t whylen)
{
	const char *type = json_string_value(json_object_get(def, "type"));
	const char *choices = json_string_value(json_object_get(def, "choices"));
	double lo = bound(def, "min", -INFINITY), hi = bound(def, "max", INFINITY), d;
	char text[64], num[64];
	const char *t = text;
	size_t n;

	if (json_is_string(val))
		t = json_string_value(val);
	else if (json_is_integer(val))
		snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(val));
	else if (json_is_real(val))
		snprintf(text, sizeof(text), "%.17g", json_real_value(val));
	else if (json_is_boolean(val))
		snprintf(text, sizeof(text), "%d", json_is_true(val) ? 1 : 0);
	else
		return refuse(why, whylen, "a param is a string, a number or a boolean");
	if (!type)
		return 1;
	if (!strcmp(type, "int")) {
		char *end;

		errno = 0;
		d = (double)strtoll(t, &end, 10);
		if (!*t || *end || errno)
			return refuse(why, whylen, "'%.100s' is not an integer", t);
	} else if (!strcmp(type, "double")) {
		if (number_of(t, &d))
			return refuse(why, whylen, "'%.100s' is not a number", t);
	} else if (!strcmp(type, "tasks")) {
		n = strlen(t);
		snprintf(num, sizeof(num), "%.*s", (int)(n && t[n - 1] == '%' ? n - 1 : n), t);
		if (n >= sizeof(num) || number_of(num, &d) || d <= 0 ||
		    (t[n - 1] != '%' && d != floor(d)))
			return refuse(why, whylen,
				      "'%.100s' is neither a task count nor a percentage", t);
		if (t[n - 1] == '%')
			return 1; /* of the CPUs the machine has */
	} else if (!strcmp(type, "duration")) {
		/* "N", "Ns", "Nm", "Nh": seconds (casecommon.c's param_set) */
		n = strlen(t);
		snprintf(num, sizeof(num), "%.*s", (int)(n && strchr("smh", t[n - 1]) ? n - 1 : n),
			 t);
		if (n >= sizeof(num) || number_of(num, &d))
			return refuse(why, whylen, "'%.100s' is not a duration (N, Ns, Nm or Nh)",
				      t);
		d *= t[n - 1] == 'm' ? 60 : t[n - 1] == 'h' ? 3600 : 1;
	} else if (!strcmp(type, "choice")) {
		return is_choice(choices ? choices : "", t) ?
			       1 :
			       refuse(why, whylen, "'%.100s' is not one of %.200s", t,
				      choices ? choices : "");
	} else if (!strcmp(type, "string")) {
		return *t && (double)strlen(t) <= hi ?
			       1 :
			       refuse(why, whylen, "'%.100s' is empty or longer than %.0f bytes", t,
				      hi);
	} else {
		return 1;
	}
	if (d < lo || d > hi)
		return refuse(why, whylen, "'%.100s' is out of range %.15g..%.15g", t, lo, hi);
	return 1;
}

/* value_ok() by one of the defs (the registered workers' tables of the param) */
static int value_ok_any(const json_t *defs, const json_t *val, char *why, size_t whylen)
{
	size_t i;
	json_t *d;

	json_array_foreach ((json_t *)defs, i, d)
		if (value_ok(d, val, why, whylen))
			return 1;
	return !json_array_size(defs);
}

int casecheck_testcase(struct casecheck *cc, const char *prefix, const char *testcase,
		       const json_t *params, json_t *warnings, struct err *e)
{
	const json_t *known;
	const char *k;
	json_t *v;
	struct buf list = BUF_INIT(8 * 1024);
	struct vmspec vm;
	char field[300];

	/* the worker's own params are known whatever the workers registered */
	if (vmspec_parse(params, prefix, &vm, e) < 0) {
		buf_release(&list);
		return -1;
	}
	if (!cc->machines) {
		if (!cc->warned_none && warnings)
			json_array_append_new(
				warnings,
				json_string(
					"no worker has registered its cases yet: testcase and params "
					"not checked"));
		cc->warned_none = 1;
		return 0;
	}
	known = json_object_get(cc->cases, testcase);
	if (!known) {
		keys_list(cc->cases, 0, &list);
		snprintf(field, sizeof(field), "%stestcase", prefix);
		err_setc(e, ERR_INVALID_FIELD, field,
			 "unknown testcase '%s': the registered workers run %s", testcase,
			 list.data ? list.data : "none");
		buf_release(&list);
		return -1;
	}
	json_object_foreach ((json_t *)params, k, v) {
		const json_t *defs = json_object_get(known, k);
		char why[400];

		if (defs && !value_ok_any(defs, v, why, sizeof(why))) {
			snprintf(field, sizeof(field), "%sparams.%.200s", prefix, k);
			err_setc(e, ERR_INVALID_FIELD, field,
				 "bad value for param '%.100s' of %s: %s", k, testcase, why);
			buf_release(&list);
			return -1;
		}
		if (defs || is_worker_param(k))
			continue;
		keys_list(known, 1, &list);
		snprintf(field, sizeof(field), "%sparams.%.200s", prefix, k);
		err_setc(e, ERR_INVALID_FIELD, field,
			 "unknown param '%.200s' of %s: its params are %s", k, testcase,
			 list.data ? list.data : "none");
		buf_release(&list);
		return -1;
	}
	buf_release(&list);
	return 0;
}

int casecheck_served(struct db_conn *c, const char *capability, const char *tbox_group,
		     const char *arch, json_t *warnings, struct err *e)
{
	long long n;

	if (db_machines_serving(c, capability, tbox_group, arch, &n, e) < 0)
		return -1;
	if (n || !warnings)
		return 0;
	if (tbox_group)
		json_array_append_new(warnings,
				      json_sprintf("no registered worker serves tbox_group '%s' with "
						   "capability %s%s%s: the job waits for one",
						   tbox_group, capability, arch ? " on " : "",
						   arch ? arch : ""));
	else
		json_array_append_new(warnings,
				      json_sprintf("no registered worker has capability %s%s%s: the "
						   "job waits for one",
						   capability, arch ? " on " : "",
						   arch ? arch : ""));
	return 0;
}

int casecheck_registration(const json_t *cases, char **text, struct err *e)
{
	const char *name, *key;
	json_t *table, *v;
	char field[300];

	*text = NULL;
	if (!cases || json_is_null(cases))
		return 0;
	if (!json_is_object(cases) || json_object_size(cases) > MAX_CASES)
		return err_setc(e, ERR_INVALID_FIELD, "cases",
				"'cases' is an object of at most %d cases {NAME: {PARAM: {...}}}",
				MAX_CASES);
	json_object_foreach ((json_t *)cases, name, table) {
		snprintf(field, sizeof(field), "cases.%.200s", name);
		if (!names_plain(name, NAMES_PLAIN_MAX))
			return err_setc(e, ERR_INVALID_FIELD, field,
					"case names are 1..128 chars of [A-Za-z0-9._+-]");
		if (!json_is_object(table) || json_object_size(table) > MAX_CASE_PARAMS)
			return err_setc(
				e, ERR_INVALID_FIELD, field,
				"a case's table is an object of at most %d params {PARAM: {...}}",
				MAX_CASE_PARAMS);
		json_object_foreach (table, key, v) {
			if (!names_plain(key, NAMES_PLAIN_MAX) || !json_is_object(v)) {
				snprintf(field, sizeof(field), "cases.%.100s.%.100s", name, key);
				return err_setc(e, ERR_INVALID_FIELD, field,
						"a param is a plain name with an object {type, default, "
						"...}");
			}
		}
	}
	*text = json_dumps(cases, JSON_COMPACT | JSON_SORT_KEYS);
	if (!*text || strlen(*text) > MAX_CASES_TEXT) {
		free(*text);
		*text = NULL;
		return err_setc(e, ERR_TOO_LARGE, "cases", "'cases' is at most %d bytes",
				MAX_CASES_TEXT);
	}
	return 0;
}

char *casecheck_pg_array(const json_t *warnings)
{
	struct buf b = BUF_INIT(0);
	size_t i;
	json_t *w;

	int over = buf_addch(&b, '{'); /* no cap: an append cannot fail */

	json_array_foreach ((json_t *)warnings, i, w) {
		const char *s = json_string_value(w);

		over |= buf_addstr(&b, i ? ",\"" : "\"");
		for (; s && *s; s++) {
			if (*s == '"' || *s == '\\')
				over |= buf_addch(&b, '\\');
			over |= buf_addch(&b, *s);
		}
		over |= buf_addch(&b, '"');
	}
	over |= buf_addch(&b, '}');
	if (over)
		abort();
	return buf_detach(&b, NULL);
}

int casecheck_testcases(struct db_conn *c, const json_t *testcases, struct err *e)
{
	struct casecheck cc;
	json_t *tc;
	size_t i;
	int ret = 0;

	if (casecheck_load(c, &cc, e))
		return -1;
	json_array_foreach (testcases, i, tc) {
		char prefix[40];

		snprintf(prefix, sizeof(prefix), "testcases[%zu].", i);
		ret = casecheck_testcase(&cc, prefix,
					 json_string_value(json_object_get(tc, "testcase")),
					 json_object_get(tc, "params"), NULL, e);
		if (ret)
			break;
	}
	casecheck_release(&cc);
	return ret;
}
