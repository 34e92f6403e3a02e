/* A plan's detector settings: the table of keys, checking, defaults (see plan_detect.h). */
#include "server/detect/plan_detect.h"
#include "xalloc.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum key_type {
	KEY_REAL, /* a double field */
	KEY_SIZE, /* a size_t field: a JSON integer */
};

/* One setting: its name, its field of struct detect_opts and its bounds (inclusive). */
struct detect_key {
	const char *name;
	enum key_type type;
	size_t offset;
	double min, max;
};

#define REAL(f, lo, hi)                                               \
	{                                                             \
#f, KEY_REAL, offsetof(struct detect_opts, f), lo, hi \
	}
#define SIZE(f, lo, hi)                                               \
	{                                                             \
#f, KEY_SIZE, offsetof(struct detect_opts, f), lo, hi \
	}
static const struct detect_key keys[] = {
	REAL(p_max, 0, 1),	  SIZE(window, 8, 100000),
	SIZE(min_seg, 1, 1000),	  REAL(min_change_pct, 0, 1000),
	REAL(min_effect, 0, 100),
};
#undef REAL
#undef SIZE
#define NR_KEYS (sizeof(keys) / sizeof(keys[0]))

static const struct detect_key *key_of(const char *name)
{
	for (size_t i = 0; i < NR_KEYS; i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

static double *real_field(struct detect_opts *o, const struct detect_key *k)
{
	return (double *)((char *)o + k->offset);
}

static size_t *size_field(struct detect_opts *o, const struct detect_key *k)
{
	return (size_t *)((char *)o + k->offset);
}

/* one value checked against its key: a new JSON number, or NULL with e */
static json_t *check_value(const struct detect_key *k, const json_t *v, const char *path,
			   struct err *e)
{
	double x = json_number_value(v);

	if (k->type == KEY_SIZE && !json_is_integer(v)) {
		err_setc(e, ERR_INVALID_FIELD, path, "'%s' is an integer in %.0f..%.0f", path,
			 k->min, k->max);
		return NULL;
	}
	if (k->type == KEY_REAL && !json_is_number(v)) {
		err_setc(e, ERR_INVALID_FIELD, path, "'%s' is a number in %g..%g", path, k->min,
			 k->max);
		return NULL;
	}
	if (!isfinite(x) || x < k->min || x > k->max) {
		err_setc(e, ERR_INVALID_FIELD, path, "'%s' is %g, outside %g..%g", path, x, k->min,
			 k->max);
		return NULL;
	}
	return k->type == KEY_SIZE ? json_integer(json_integer_value(v)) : json_real(x);
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
		const struct detect_key *k = key_of(name);
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
		json_decref(o);
		return err_setc(e, ERR_INVALID_FIELD, path,
				"'%s' is more than half of the window (%lld commits)", path,
				(long long)json_integer_value(w));
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
		const struct detect_key *k = key_of(name);

		if (!k)
			continue;
		if (k->type == KEY_SIZE)
			*size_field(o, k) = (size_t)json_integer_value(v);
		else
			*real_field(o, k) = json_number_value(v);
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
	struct detect_opts c = *o;

	for (size_t i = 0; i < NR_KEYS; i++)
		json_object_set_new(j, keys[i].name,
				    keys[i].type == KEY_SIZE ?
					    json_integer((json_int_t)*size_field(&c, &keys[i])) :
					    json_real(*real_field(&c, &keys[i])));
	return j;
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
	val = eq + 1;
	errno = 0;
	n = strtoll(val, &end, 10);
	if (*val && !*end && !errno) {
		json_object_set_new(obj, key, json_integer(n));
	} else {
		errno = 0;
		x = strtod(val, &end);
		if (*val && !*end && !errno)
			json_object_set_new(obj, key, json_real(x));
		else
			json_object_set_new(obj, key, json_string(val));
	}
	free(key);
	return 0;
}
