/* A plan's detector settings: checking against the table of keys, defaults (see plan_detect.h). */
#include "server/detect/plan_detect.h"
#include "stats/detect_keys.h"
#include "xalloc.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one value checked against its key: a new JSON number, or NULL with e */
static json_t *check_value(const struct detect_key *k, const json_t *v, const char *path,
			   struct err *e)
{
	double x = json_number_value(v);

	if (k->type == DETECT_KEY_SIZE && !json_is_integer(v)) {
		err_setc(e, ERR_INVALID_FIELD, path, "'%s' is an integer in %.0f..%.0f", path,
			 k->min, k->max);
		return NULL;
	}
	if (k->type == DETECT_KEY_REAL && !json_is_number(v)) {
		err_setc(e, ERR_INVALID_FIELD, path, "'%s' is a number in %g..%g", path, k->min,
			 k->max);
		return NULL;
	}
	if (!detect_key_in_bounds(k, x)) {
		err_setc(e, ERR_INVALID_FIELD, path, "'%s' is %g, outside %g..%g", path, x, k->min,
			 k->max);
		return NULL;
	}
	return k->type == DETECT_KEY_SIZE ? json_integer(json_integer_value(v)) : json_real(x);
}

int plan_detect_check(const json_t *in, const char *prefix, json_t **out, struct err *e)
{
	const char *name;
	json_t *v, *o, *w, *m;
	char path[160];

	*out = NULL;
	if (!in || json_is_null(in))
		return 0;
	if (!json_is_object(in)) {
		snprintf(path, sizeof(path), "%.*s", (int)strcspn(prefix, "."), prefix);
		return err_setc(e, ERR_INVALID_FIELD, path,
				"'%s' is an object of detector settings (p_max, window, ...)",
				path);
	}
	o = json_object();
	json_object_foreach ((json_t *)in, name, v) {
		const struct detect_key *k = detect_key_find(name);
		json_t *x;

		snprintf(path, sizeof(path), "%s%.100s", prefix, name);
		if (!k) {
			json_decref(o);
			return err_setc(e, ERR_INVALID_FIELD, path,
					"unknown detector setting '%s' (p_max, window, min_seg, "
					"min_change_pct, min_effect)",
					path);
		}
		if (!(x = check_value(k, v, path, e))) {
			json_decref(o);
			return -1;
		}
		json_object_set_new(o, name, x);
	}
	w = json_object_get(o, "window");
	m = json_object_get(o, "min_seg");
	if (w && m && 2 * json_integer_value(m) > json_integer_value(w)) {
		snprintf(path, sizeof(path), "%smin_seg", prefix);
		err_setc(e, ERR_INVALID_FIELD, path,
			 "'%s' is more than half of the window (%lld commits)", path,
			 (long long)json_integer_value(w));
		/* w is o's: the message is written before o goes */
		json_decref(o);
		return -1;
	}
	if (!json_object_size(o)) {
		json_decref(o);
		return 0;
	}
	*out = o;
	return 0;
}

void plan_detect_defaults(const struct config *cfg, struct detect_opts *o)
{
	detect_opts_init(o);
	o->window = (size_t)cfg->detect_window;
	o->p_max = cfg->detect_p_max;
	o->min_change_pct = cfg->detect_min_change_pct;
}

void plan_detect_apply(const json_t *settings, struct detect_opts *o)
{
	const char *name;
	json_t *v;

	json_object_foreach ((json_t *)settings, name, v) {
		const struct detect_key *k = detect_key_find(name);

		if (k)
			detect_key_set(o, k, json_number_value(v));
	}
}

void plan_detect_metric(const struct detect_opts *base, int is_monitor, struct detect_opts *out)
{
	*out = *base;
	if (is_monitor && out->min_change_pct < PLAN_DETECT_MONITOR_MIN_PCT)
		out->min_change_pct = PLAN_DETECT_MONITOR_MIN_PCT;
}

json_t *plan_detect_json(const struct detect_opts *o)
{
	json_t *j = json_object();

	for (size_t i = 0; i < detect_nkeys; i++) {
		const struct detect_key *k = &detect_keys[i];
		double x = detect_key_get(o, k);

		json_object_set_new(j, k->name,
				    k->type == DETECT_KEY_SIZE ? json_integer((json_int_t)x) :
								 json_real(x));
	}
	return j;
}

/*
 * 1 when s is a finite number in decimal notation: digits, a sign, a point
 * and an exponent only. strtod() alone also takes "nan", "inf" and hex
 * ("0x10"), which are no lab's setting; json_real() of a nan is NULL, so a
 * nan would vanish from the object instead of being refused.
 */
static int decimal_number(const char *s, double *x)
{
	char *end;

	if (!*s || s[strspn(s, "0123456789+-.eE")] || !strpbrk(s, "0123456789"))
		return 0;
	errno = 0;
	*x = strtod(s, &end);
	return !*end && !errno && isfinite(*x);
}

int plan_detect_set_arg(json_t *obj, const char *arg, struct err *e)
{
	const char *eq = strchr(arg, '=');
	char *key, *end;
	const char *val;
	long long n;
	double x;

	if (!eq || eq == arg)
		return err_setc(e, ERR_INVALID_FIELD, "set", "--set takes KEY=VALUE, not '%.100s'",
				arg);
	key = xstrndup(arg, (size_t)(eq - arg));
	if (json_object_get(obj, key)) { /* which one was meant: the last silently won */
		err_setc(e, ERR_INVALID_FIELD, "set", "--set %s is given twice", key);
		free(key);
		return -1;
	}
	val = eq + 1;
	errno = 0;
	n = strtoll(val, &end, 10);
	if (*val && !val[strspn(val, "0123456789+-")] && !*end && !errno)
		json_object_set_new(obj, key, json_integer(n));
	else if (decimal_number(val, &x))
		json_object_set_new(obj, key, json_real(x));
	else
		json_object_set_new(obj, key, json_string(val));
	free(key);
	return 0;
}

int plan_detect_check_fit(const struct detect_opts *o, const json_t *given, const char *prefix,
			  struct err *e)
{
	const char *key = json_object_get(given, "min_seg") ? "min_seg" : "window";
	char path[160];

	if (!json_object_get(given, "min_seg") && !json_object_get(given, "window"))
		return 0;
	if (detect_keys_seg_fits(o))
		return 0;
	snprintf(path, sizeof(path), "%s%s", prefix, key);
	return err_setc(e, ERR_INVALID_FIELD, path,
			"'%s': min_seg %zu is more than half of the window (%zu commits)", path,
			o->min_seg, o->window);
}
