/* Test plans: checking, normalizing, storing, the matrix (see plan.h; the CLI: plan_cli.c). */
#include "server/track/plan.h"
#include "server/track/casecheck.h"
#include "server/detect/plan_detect.h"
#include "resultdoc.h"
#include "names.h"
#include "server/db/db.h"
#include "server/db/trees.h"
#include "arch.h"
#include "vmspec.h"
#include "xalloc.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 64 /* entries of one list field */
#define MAX_WORD 128
#define MAX_PATTERN 256
#define MAX_PARAMS_TEXT 1024 /* a testcase's params as JSON text */

/*
 * A glob fnmatch(3) reads as meant: printable, no "[" without its "]", no
 * trailing lone backslash; ref globs also follow git's ref name rules
 * (no space, "..", "~^:", no leading '-').
 */
static int glob_ok(const char *s, int ref)
{
	size_t n = strlen(s);

	if (!n || n > MAX_PATTERN || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x21 || ch == 0x7f)
			return 0;
		if (ref && (strchr("~^:\\", ch) || (ch == '.' && s[i + 1] == '.')))
			return 0;
		if (ch == '\\' && i + 1 == n)
			return 0;
		if (ch == '\\') {
			i++;
			continue;
		}
		if (ch == '[') {
			size_t k = i + 1;

			if (k < n && (s[k] == '!' || s[k] == '^'))
				k++;
			if (k < n && s[k] == ']')
				k++;
			while (k < n && s[k] != ']')
				k++;
			if (k >= n)
				return 0;
			i = k;
		}
	}
	return 1;
}

/* a target's arch when it names one (x86_64, arm64, aarch64, ...), else NULL (a tbox_group) */
static const char *target_arch(const char *t)
{
	return arch_normalize(t);
}

/* keys an object may have; the first other is an error naming it */
static int only_keys(const json_t *o, const char *const *keys, const char *prefix, struct err *e)
{
	const char *k;
	json_t *v;

	json_object_foreach ((json_t *)o, k, v) {
		size_t i;

		for (i = 0; keys[i]; i++)
			if (!strcmp(keys[i], k))
				break;
		if (!keys[i]) {
			char path[160];

			snprintf(path, sizeof(path), "%s%.100s", prefix, k);
			return err_setc(e, ERR_INVALID_FIELD, path, "unknown field '%s'", path);
		}
	}
	return 0;
}

/*
 * A list of strings at key: each checked by ok(s) (else "what"), at most
 * MAX_LIST, no duplicates; absent: def (a new array, or NULL = required).
 * Returns a new array or NULL with e.
 */
static json_t *str_list(const json_t *in, const char *key, int (*ok)(const char *),
			const char *what, int empty_ok, json_t *def, struct err *e)
{
	json_t *v = json_object_get(in, key), *out;
	size_t i;
	json_t *x;

	if (!v || json_is_null(v)) {
		if (!def)
			err_setc(e, ERR_MISSING_FIELD, key, "'%s' is required", key);
		return def;
	}
	json_decref(def);
	if (!json_is_array(v)) {
		err_setc(e, ERR_INVALID_FIELD, key, "'%s' is an array of %s", key, what);
		return NULL;
	}
	if (!json_array_size(v) && !empty_ok) {
		err_setc(e, ERR_INVALID_FIELD, key,
			 "'%s' is empty: the plan's matrix would be empty", key);
		return NULL;
	}
	if (json_array_size(v) > MAX_LIST) {
		err_setc(e, ERR_INVALID_FIELD, key, "'%s' has more than %d entries", key, MAX_LIST);
		return NULL;
	}
	out = json_array();
	json_array_foreach (v, i, x) {
		char path[64];
		const char *s = json_string_value(x);

		snprintf(path, sizeof(path), "%s[%zu]", key, i);
		if (!s || !ok(s)) {
			err_setc(e, ERR_INVALID_FIELD, path, "%s is not %s", path, what);
			json_decref(out);
			return NULL;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(json_string_value(json_array_get(v, k)), s)) {
				err_setc(e, ERR_INVALID_FIELD, path, "%s repeats '%s'", path, s);
				json_decref(out);
				return NULL;
			}
		json_array_append_new(out, json_string(s));
	}
	return out;
}

static int word_ok(const char *s)
{
	return names_plain(s, MAX_WORD);
}

static int branch_ok(const char *s)
{
	return glob_ok(s, 1);
}

static int path_ok(const char *s)
{
	return glob_ok(s, 0);
}

static int kconfig_ok(const char *s)
{
	return names_plain(s, MAX_WORD) && (!strcmp(s, "host") || arch_of_kconfig(s));
}

/* an integer at key within [min, max], def when absent; -1 with e */
static int int_field(const json_t *o, const char *key, const char *path, long long def,
		     long long min, long long max, long long *out, struct err *e)
{
	json_t *v = json_object_get(o, key);

	*out = def;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
		return err_setc(e, ERR_INVALID_FIELD, path, "'%s' is an integer in %lld..%lld",
				path, min, max);
	*out = json_integer_value(v);
	return 0;
}

static int bool_field(const json_t *o, const char *key, const char *path, int def, int *out,
		      struct err *e)
{
	json_t *v = json_object_get(o, key);

	*out = def;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return err_setc(e, ERR_INVALID_FIELD, path, "'%s' is true or false", path);
	*out = json_is_true(v);
	return 0;
}

static json_t *testcases_field(const json_t *in, struct err *e)
{
	static const char *const keys[] = { "testcase", "params", NULL };
	json_t *v = json_object_get(in, "testcases"), *out, *x;
	size_t i;

	if (!v || json_is_null(v)) {
		err_setc(e, ERR_MISSING_FIELD, "testcases", "'testcases' is required");
		return NULL;
	}
	if (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > MAX_LIST) {
		err_setc(e, ERR_INVALID_FIELD, "testcases",
			 "'testcases' is an array of 1..%d {testcase, params}: an empty one is an empty "
			 "matrix",
			 MAX_LIST);
		return NULL;
	}
	out = json_array();
	json_array_foreach (v, i, x) {
		char path[64], prefix[48];
		json_t *tc, *params;
		const char *k;
		json_t *pv;
		char *text;

		snprintf(prefix, sizeof(prefix), "testcases[%zu].", i);
		if (!json_is_object(x)) {
			snprintf(path, sizeof(path), "testcases[%zu]", i);
			err_setc(e, ERR_INVALID_FIELD, path, "%s is an object {testcase, params}",
				 path);
			goto bad;
		}
		if (only_keys(x, keys, prefix, e))
			goto bad;
		tc = json_object_get(x, "testcase");
		snprintf(path, sizeof(path), "testcases[%zu].testcase", i);
		if (!json_is_string(tc) || !names_plain(json_string_value(tc), MAX_WORD)) {
			err_setc(e, tc ? ERR_INVALID_FIELD : ERR_MISSING_FIELD, path,
				 "%s is a name of 1..%d chars of [A-Za-z0-9._+-]", path, MAX_WORD);
			goto bad;
		}
		params = json_object_get(x, "params");
		snprintf(path, sizeof(path), "testcases[%zu].params", i);
		if (params && !json_is_null(params) && !json_is_object(params)) {
			err_setc(e, ERR_INVALID_FIELD, path, "%s is an object", path);
			goto bad;
		}
		/* the one params rule (results, jobs, bisects, requests) */
		if (params && json_is_object(params) && params_check(params, e)) {
			char key[sizeof(e->detail)];

			memcpy(key, e->detail, sizeof(key));
			snprintf(e->detail, sizeof(e->detail), "testcases[%zu].%.200s", i, key);
			goto bad;
		}
		json_object_foreach (params &&json_is_object(params) ? params : NULL, k, pv) {
			snprintf(path, sizeof(path), "testcases[%zu].params.%.24s", i, k);
			if (!strcmp(k, "measure")) {
				err_setc(e, ERR_INVALID_FIELD, path, "the plan's 'measure' sets %s",
					 path);
				goto bad;
			}
			if (!json_is_string(pv) && !json_is_number(pv) && !json_is_boolean(pv)) {
				err_setc(e, ERR_INVALID_FIELD, path,
					 "params values are strings, numbers or booleans");
				goto bad;
			}
		}
		text = params && json_is_object(params) ? json_dumps(params, JSON_COMPACT) : NULL;
		if (text && strlen(text) > MAX_PARAMS_TEXT) {
			free(text);
			snprintf(path, sizeof(path), "testcases[%zu].params", i);
			err_setc(e, ERR_INVALID_FIELD, path, "%s is longer than %d bytes", path,
				 MAX_PARAMS_TEXT);
			goto bad;
		}
		free(text);
		params = params && json_is_object(params) ? json_deep_copy(params) : json_object();
		/* the shape in its one spelling (vmspec.h): the plan's pin 1 and a job's pin true
		 * are one series */
		if (vmspec_canonical(params, prefix, e)) {
			json_decref(params);
			goto bad;
		}
		json_array_append_new(out,
				      json_pack("{s:O,s:o}", "testcase", tc, "params", params));
	}
	return out;
bad:
	json_decref(out);
	return NULL;
}

static json_t *schedule_field(const json_t *in, struct err *e)
{
	static const char *const keys[] = { "heads", "every", "paths", "max_per_push", NULL };
	json_t *s = json_object_get(in, "schedule"), *paths = NULL;
	long long every, max;
	int heads;
	json_t *empty = json_object();

	if (s && !json_is_null(s) && !json_is_object(s)) {
		json_decref(empty);
		err_setc(e, ERR_INVALID_FIELD, "schedule", "'schedule' is an object");
		return NULL;
	}
	if (!s || json_is_null(s))
		s = empty;
	if (only_keys(s, keys, "schedule.", e) ||
	    bool_field(s, "heads", "schedule.heads", 1, &heads, e) ||
	    int_field(s, "every", "schedule.every", 0, 0, 100000, &every, e) ||
	    int_field(s, "max_per_push", "schedule.max_per_push", 20, 1, 10000, &max, e))
		goto bad;
	paths = str_list(s, "paths", path_ok, "a path prefix or an fnmatch glob", 1, json_array(),
			 e);
	if (!paths) {
		if (!strncmp(e->detail, "paths", 5)) {
			char d[64];

			snprintf(d, sizeof(d), "schedule.%.40s", e->detail);
			snprintf(e->detail, sizeof(e->detail), "%s", d);
		}
		goto bad;
	}
	if (!heads && !every) {
		json_decref(paths);
		err_setc(e, ERR_INVALID_FIELD, "schedule",
			 "'schedule' tests nothing after the baseline: heads is false and every is 0");
		goto bad;
	}
	json_decref(empty);
	return json_pack("{s:b,s:I,s:o,s:I}", "heads", heads, "every", (json_int_t)every, "paths",
			 paths, "max_per_push", (json_int_t)max);
bad:
	json_decref(empty);
	return NULL;
}

/*
 * Every testcase runs under every kconfig: with "host" among them, one whose
 * params shape a qemu guest (accel..numa) is the 400 a host job with them
 * gets; under a kernel kconfig, vcpus past what its arch's qemu machine takes
 * (vmspec_arch_check()) is; named testcases[i].params.KEY, rather than jobs
 * queued that no run can have.
 */
static int shape_check(const json_t *tcs, const json_t *kconfigs, struct err *e)
{
	size_t i, j;
	json_t *k, *tc;

	json_array_foreach (kconfigs, j, k)
		json_array_foreach (tcs, i, tc) {
			const char *kc = json_string_value(k);
			const json_t *params = json_object_get(tc, "params");
			char prefix[40];

			snprintf(prefix, sizeof(prefix), "testcases[%zu].", i);
			if (!strcmp(kc, "host") ?
				    vmspec_host_check(params, prefix, e) :
				    vmspec_arch_check(params, arch_of_kconfig(kc), prefix, e))
				return -1;
		}
	return 0;
}

/*
 * Under the plan's measure icount each job's params get measure "icount":
 * a testcase's shape is checked with it (vcpus 4 or numa 2 is the 400 a
 * job with them gets, testcases[i].params.KEY), and kconfig "host" (no
 * guest: wall-clock time) is a 400 naming measure, rather than jobs that
 * every worker fails.
 */
static int icount_shape_check(const json_t *tcs, const json_t *kconfigs, struct err *e)
{
	size_t i;
	json_t *k, *tc;

	json_array_foreach (kconfigs, i, k)
		if (!strcmp(json_string_value(k), "host"))
			return err_setc(e, ERR_INVALID_FIELD, "measure",
					"'measure' \"icount\" needs qemu; kconfig \"host\" "
					"measures wall-clock time");
	json_array_foreach (tcs, i, tc) {
		json_t *params = json_deep_copy(json_object_get(tc, "params"));
		struct vmspec v;
		char prefix[40];
		int rc;

		snprintf(prefix, sizeof(prefix), "testcases[%zu].", i);
		json_object_set_new(params, "measure", json_string("icount"));
		rc = vmspec_parse(params, prefix, &v, e);
		json_decref(params);
		if (rc)
			return -1;
	}
	return 0;
}

int plan_normalize(const json_t *in, const char *name, long max_jobs_per_push, long detect_window,
		   json_t **out, struct err *e)
{
	static const char *const keys[] = { "name",	"tree",	     "branches", "testcases",
					    "kconfigs", "compilers", "targets",	 "repeat",
					    "measure",	"monitors",  "schedule", "priority",
					    "owner",	"enabled",   "detect",	 NULL };
	json_t *p = NULL, *v, *list;
	const char *s;
	long long repeat, priority;
	int enabled;
	struct plan_setup *setups;
	size_t nr;

	*out = NULL;
	if (!json_is_object(in))
		return err_setc(e, ERR_INVALID_FIELD, "", "a plan is a JSON object");
	if (only_keys(in, keys, "", e))
		return -1;
	v = json_object_get(in, "name");
	s = json_string_value(v);
	if (v && !json_is_null(v) && (!s || !names_plain(s, MAX_WORD)))
		return err_setc(e, ERR_INVALID_FIELD, "name",
				"'name' is 1..%d chars of [A-Za-z0-9._+-]", MAX_WORD);
	if (name && s && strcmp(name, s))
		return err_setc(e, ERR_INVALID_FIELD, "name",
				"'name' is '%s' but the path says '%s'", s, name);
	if (!s)
		s = name;
	if (!s)
		return err_setc(e, ERR_MISSING_FIELD, "name", "'name' is required");
	if (!names_plain(s, MAX_WORD))
		return err_setc(e, ERR_INVALID_FIELD, "name",
				"'name' is 1..%d chars of [A-Za-z0-9._+-]", MAX_WORD);
	p = json_pack("{s:s}", "name", s);
	v = json_object_get(in, "tree");
	if (!v || json_is_null(v)) {
		err_setc(e, ERR_MISSING_FIELD, "tree", "'tree' is required");
		goto bad;
	}
	if (!json_is_string(v) || !names_plain(json_string_value(v), MAX_WORD)) {
		err_setc(e, ERR_INVALID_FIELD, "tree", "'tree' is a tree name");
		goto bad;
	}
	json_object_set(p, "tree", v);
#define LIST(key, ok, what, def)                               \
	do {                                                   \
		list = str_list(in, key, ok, what, 0, def, e); \
		if (!list)                                     \
			goto bad;                              \
		json_object_set_new(p, key, list);             \
	} while (0)
	LIST("branches", branch_ok, "a branch name or an fnmatch glob of branch names", NULL);
	if (!(list = testcases_field(in, e)))
		goto bad;
	json_object_set_new(p, "testcases", list);
	LIST("kconfigs", kconfig_ok,
	     "a kconfig the workers build: \"host\", or x86_64-…, arm64-… or aarch64-… "
	     "(x86_64-defconfig, arm64-tiny-mm, …)",
	     NULL);
	if (shape_check(json_object_get(p, "testcases"), list, e))
		goto bad;
	LIST("compilers", word_ok, "a compiler name (gcc-12)", json_pack("[s]", "gcc-12"));
	LIST("targets", word_ok, "an arch (x86_64, arm64, aarch64) or a tbox_group name", NULL);
#undef LIST
	if (int_field(in, "repeat", "repeat", 1, 1, 100, &repeat, e))
		goto bad;
	json_object_set_new(p, "repeat", json_integer(repeat));
	v = json_object_get(in, "measure");
	if (v && !json_is_null(v) &&
	    (!json_is_string(v) || (strcmp(json_string_value(v), "wallclock") &&
				    strcmp(json_string_value(v), "icount")))) {
		err_setc(e, ERR_INVALID_FIELD, "measure",
			 "'measure' is \"wallclock\" or \"icount\"");
		goto bad;
	}
	json_object_set_new(p, "measure",
			    json_string(v && !json_is_null(v) ? json_string_value(v) :
								"wallclock"));
	if (v && json_is_string(v) && !strcmp(json_string_value(v), "icount") &&
	    icount_shape_check(json_object_get(p, "testcases"), json_object_get(p, "kconfigs"), e))
		goto bad;
	{
		char mon[MONITORS_TEXT_MAX];

		if (monitors_from_json(json_object_get(in, "monitors"), "monitors", mon, e))
			goto bad;
		json_object_set_new(p, "monitors", monitors_json(mon));
	}
	if (!(list = schedule_field(in, e)))
		goto bad;
	json_object_set_new(p, "schedule", list);
	if (int_field(in, "priority", "priority", 0, -100, 100, &priority, e))
		goto bad;
	json_object_set_new(p, "priority", json_integer(priority));
	v = json_object_get(in, "owner");
	if (v && !json_is_null(v) &&
	    (!json_is_string(v) || json_string_length(v) > 256 || !json_string_length(v))) {
		err_setc(e, ERR_INVALID_FIELD, "owner",
			 "'owner' is a string of 1..256 chars (an address)");
		goto bad;
	}
	json_object_set(p, "owner", v ? v : json_null());
	if (bool_field(in, "enabled", "enabled", 1, &enabled, e))
		goto bad;
	json_object_set_new(p, "enabled", json_boolean(enabled));
	/* only the detector settings given: the others follow the server's config */
	if (plan_detect_check(json_object_get(in, "detect"), "detect.", &list, e))
		goto bad;
	if (list) {
		struct detect_opts o;

		/* a min_seg alone lands in the server's window */
		detect_opts_init(&o);
		o.window = (size_t)detect_window;
		plan_detect_apply(list, &o);
		json_object_set_new(p, "detect", list);
		if (plan_detect_check_fit(&o, list, "detect.", e))
			goto bad;
	}

	nr = plan_setups(p, &setups);
	plan_setups_free(setups, nr);
	if (!nr) {
		err_setc(e, ERR_INVALID_FIELD, "targets",
			 "the matrix is empty: no target runs the arch of any kconfig");
		goto bad;
	}
	{
		long long per_push = (long long)nr *
				     json_integer_value(
					     json_object_get(json_object_get(p, "schedule"),
							     "max_per_push"));

		if (per_push > max_jobs_per_push) {
			err_setc(e, ERR_INVALID_FIELD, "schedule.max_per_push",
				 "one push could queue %lld jobs (max_per_push x %zu setups), more than the "
				 "server's %ld (plan_max_jobs_per_push)",
				 per_push, nr, max_jobs_per_push);
			goto bad;
		}
	}
	*out = p;
	return 0;
bad:
	json_decref(p);
	return -1;
}

const char *plan_change_name(enum db_plan_change change)
{
	switch (change) {
	case DB_PLAN_CREATED:
		return "created";
	case DB_PLAN_UPDATED:
		return "updated";
	case DB_PLAN_UNCHANGED:
		return "unchanged";
	case DB_PLAN_EXISTS:
		return "exists";
	}
	return "?";
}

int plan_store(struct db_conn *c, const json_t *spec, int create_only, enum db_plan_change *change,
	       struct err *e)
{
	const char *name = json_string_value(json_object_get(spec, "name"));
	const char *tree = json_string_value(json_object_get(spec, "tree"));
	struct db_tree t;
	char *text;
	int ret;

	if (db_tree_get(c, tree, &t, e) < 0)
		return -1;
	db_tree_release(&t);
	if (!t.id)
		return err_setc(e, ERR_NOT_FOUND, "tree",
				"no tree '%s': register it with POST "
				"/api/v1/trees",
				tree);
	/* each testcase and its params against what the workers registered */
	if (casecheck_testcases(c, json_object_get(spec, "testcases"), e))
		return -1;
	text = json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
	ret = db_plan_store(c, name, t.id, text, json_is_true(json_object_get(spec, "enabled")),
			    create_only, change, e);
	free(text);
	if (!ret && *change == DB_PLAN_EXISTS)
		return err_setc(e, ERR_CONFLICT, "name",
				"plan '%s' exists: PUT /api/v1/plans/%s "
				"changes it",
				name, name);
	return ret;
}

size_t plan_setups(const json_t *spec, struct plan_setup **setups)
{
	json_t *tcs = json_object_get(spec, "testcases"), *ks = json_object_get(spec, "kconfigs");
	json_t *cs = json_object_get(spec, "compilers"), *ts = json_object_get(spec, "targets");
	const char *measure = json_string_value(json_object_get(spec, "measure"));
	size_t n = 0, alloc = 0, a, b, d, f;
	json_t *tc, *k, *cc, *t;
	char monitors[MONITORS_TEXT_MAX];
	struct err me;

	*setups = NULL;
	/* normalized by plan_normalize(); a spec stored before monitors has none */
	if (monitors_from_json(json_object_get(spec, "monitors"), "monitors", monitors, &me))
		monitors[0] = '\0';
	json_array_foreach (tcs, a, tc)
		json_array_foreach (ks, b, k)
			json_array_foreach (cs, d, cc)
				json_array_foreach (ts, f, t) {
					const char *kc = json_string_value(k),
						   *tg = json_string_value(t);
					const char *ka = arch_of_kconfig(kc), *ta = target_arch(tg);
					int host = !strcmp(kc, "host");
					json_t *params;
					struct plan_setup *s;
					char capbuf[64];

					if (!host && ta && strcmp(ka, ta))
						continue; /* a kernel of one arch is not booted on another */
					ALLOC_GROW(*setups, n + 1, alloc);
					s = &(*setups)[n++];
					params = json_deep_copy(json_object_get(tc, "params"));
					if (measure && !strcmp(measure, "icount"))
						json_object_set_new(params, "measure",
								    json_string("icount"));
					s->testcase = xstrdup(
						json_string_value(json_object_get(tc, "testcase")));
					s->params = json_dumps(params,
							       JSON_COMPACT | JSON_SORT_KEYS |
								       JSON_REAL_PRECISION(15));
					json_decref(params);
					s->kconfig = xstrdup(kc);
					s->compiler = xstrdup(json_string_value(cc));
					s->arch = host ? (ta ? xstrdup(ta) : NULL) : xstrdup(ka);
					s->tbox_group = ta ? NULL : xstrdup(tg);
					s->capability = xstrdup(
						vmspec_job_capability(kc, ka, s->params, capbuf,
								      sizeof(capbuf)));
					s->monitors = xstrdup(monitors);
					/* an unprofiled setup keeps the key it had before monitors */
					s->key = xstrfmt("%s %s %s %s %s%s%s", s->testcase,
							 s->params, s->kconfig, s->compiler,
							 ta ? ta : tg, *monitors ? " " : "",
							 monitors);
				}
	return n;
}

void plan_setups_free(struct plan_setup *setups, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(setups[i].testcase);
		free(setups[i].params);
		free(setups[i].kconfig);
		free(setups[i].compiler);
		free(setups[i].arch);
		free(setups[i].tbox_group);
		free(setups[i].capability);
		free(setups[i].key);
		free(setups[i].monitors);
	}
	free(setups);
}

int plan_branch_match(const json_t *spec, const char *branch)
{
	size_t i;
	json_t *g;

	json_array_foreach (json_object_get(spec, "branches"), i, g)
		if (!fnmatch(json_string_value(g), branch, 0))
			return 1;
	return 0;
}

void plan_rule(const json_t *spec, struct sched_rule *r)
{
	json_t *s = json_object_get(spec, "schedule"), *paths = json_object_get(s, "paths"), *v;
	const char **list = xcalloc(json_array_size(paths) + 1, sizeof(*list));
	size_t i;

	json_array_foreach (paths, i, v)
		list[i] = json_string_value(v);
	r->heads = json_is_true(json_object_get(s, "heads"));
	r->every = (long)json_integer_value(json_object_get(s, "every"));
	r->max_per_push = (long)json_integer_value(json_object_get(s, "max_per_push"));
	r->paths = list;
	r->nr_paths = json_array_size(paths);
}
