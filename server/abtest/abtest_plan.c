/*
 * A/B requests by plan: the fields a request does not give, from a test
 * plan's; see abtest.h.
 */
#include "server/abtest/abtest.h"
#include "server/db/plans.h"
#include "arch.h"
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAME 128

/* a kconfig name without its arch word: "x86_64-tiny-mm" -> "tiny-mm"; "host" stays */
static const char *config_of(const char *k)
{
	const char *dash = strchr(k, '-');

	return arch_of_kconfig(k) && dash ? dash + 1 : k;
}

/* 1 when a kernel of kconfig k runs on target t: host anywhere, any tbox_group, its own arch */
static int runs_on(const char *k, const char *t)
{
	const char *ta = arch_normalize(t);

	return !strcmp(k, "host") || !ta || !strcmp(arch_of_kconfig(k), ta);
}

/* 1 when one of targets (an array of names) runs kconfig k */
static int runs_on_any(const char *k, const json_t *targets)
{
	size_t i;
	json_t *t;

	json_array_foreach (targets, i, t)
		if (json_is_string(t) && runs_on(k, json_string_value(t)))
			return 1;
	return 0;
}

/* absent or null */
static int absent(const json_t *body, const char *key)
{
	json_t *v = json_object_get(body, key);

	return !v || json_is_null(v);
}

/* the plan's targets its kconfigs boot on (a target no kconfig runs on is not in its matrix) */
static int fill_targets(json_t *body, const json_t *plan, const char *name, struct err *e)
{
	json_t *kcs = json_object_get(plan, "kconfigs"), *out = json_array(), *t, *k;
	size_t i, j;

	json_array_foreach (json_object_get(plan, "targets"), i, t)
		json_array_foreach (kcs, j, k)
			if (runs_on(json_string_value(k), json_string_value(t))) {
				json_array_append(out, t);
				break;
			}
	if (!json_array_size(out)) {
		json_decref(out);
		return err_setc(e, ERR_INVALID_FIELD, "plan",
				"plan '%s' runs no kconfig on any of its targets", name);
	}
	json_object_set_new(body, "targets", out);
	return 0;
}

/*
 * The one kconfig of the request: the plan's kconfigs that run on the
 * request's targets must be one config (the same name after the arch word,
 * or "host"), which the request builds for each target's arch
 */
static int fill_kconfig(json_t *body, const json_t *plan, const char *name, struct err *e)
{
	const json_t *targets = json_object_get(body, "targets");
	const char *first = NULL, *other = NULL;
	size_t i;
	json_t *k;

	json_array_foreach (json_object_get(plan, "kconfigs"), i, k) {
		const char *kc = json_string_value(k);

		if (!runs_on_any(kc, targets))
			continue;
		if (!first)
			first = kc;
		else if (strcmp(config_of(first), config_of(kc)) && !other)
			other = kc;
	}
	if (!first)
		return err_setc(e, ERR_INVALID_FIELD, "plan",
				"plan '%s' has no kconfig for the request's targets: give 'kconfig'",
				name);
	if (other)
		return err_setc(e, ERR_INVALID_FIELD, "plan",
				"plan '%s' builds more than one kconfig ('%s', '%s') and a request "
				"builds one (its name for each target's arch): give 'kconfig'",
				name, first, other);
	json_object_set_new(body, "kconfig", json_string(first));
	return 0;
}

int abtest_plan_fill(json_t *body, const json_t *plan, struct err *e)
{
	const char *name = json_string_value(json_object_get(plan, "name"));
	const char *tree = json_string_value(json_object_get(plan, "tree"));
	const char *measure = json_string_value(json_object_get(plan, "measure"));
	json_t *v, *compilers = json_object_get(plan, "compilers");
	json_t *monitors = json_object_get(plan, "monitors");
	long long repeat = json_integer_value(json_object_get(plan, "repeat"));

	if (!name || !tree)
		return err_setc(e, ERR_INTERNAL, "plan", "plan has no name or tree");
	v = json_object_get(body, "tree");
	if (absent(body, "tree"))
		json_object_set_new(body, "tree", json_string(tree));
	else if (json_is_string(v) && strcmp(json_string_value(v), tree))
		return err_setc(e, ERR_INVALID_FIELD, "plan", "plan '%s' tests tree '%s', not '%s'",
				name, tree, json_string_value(v));
	if (absent(body, "testcases"))
		json_object_set_new(body, "testcases",
				    json_deep_copy(json_object_get(plan, "testcases")));
	if (absent(body, "targets") && fill_targets(body, plan, name, e))
		return -1;
	if (absent(body, "kconfig") && json_is_array(json_object_get(body, "targets")) &&
	    fill_kconfig(body, plan, name, e))
		return -1;
	if (absent(body, "compiler")) {
		if (json_array_size(compilers) != 1)
			return err_setc(e, ERR_INVALID_FIELD, "plan",
					"plan '%s' builds with %zu compilers and a request with one: "
					"give 'compiler'",
					name, json_array_size(compilers));
		json_object_set(body, "compiler", json_array_get(compilers, 0));
	}
	/* wallclock is the default: naming it would make the params another setup's */
	if (absent(body, "measure") && measure && !strcmp(measure, "icount"))
		json_object_set_new(body, "measure", json_string(measure));
	if (absent(body, "monitors") && json_array_size(monitors))
		json_object_set(body, "monitors", monitors);
	/* 1 (a plan's default, a run per tracked commit) compares nothing: chosen from noise */
	if (absent(body, "repeat") && repeat >= 2)
		json_object_set_new(body, "repeat", json_integer(repeat));
	return 0;
}

int abtest_plan_apply(struct db_conn *c, json_t *body, struct err *e)
{
	json_t *v = json_object_get(body, "plan"), *plan;
	const char *name = json_string_value(v);
	char *text;
	int got, rc;

	if (absent(body, "plan"))
		return 0;
	if (!name || !names_plain(name, MAX_NAME))
		return err_setc(e, ERR_INVALID_FIELD, "plan",
				"'plan' is a plan's name: 1..%d chars of [A-Za-z0-9._+-]",
				MAX_NAME);
	got = db_plan_json(c, name, &text, e);
	if (got < 0)
		return -1;
	if (!got)
		return err_setc(e, ERR_NOT_FOUND, "plan",
				"no plan '%s': GET /api/v1/plans lists them", name);
	plan = json_loads(text, 0, NULL);
	free(text);
	if (!plan)
		return err_setc(e, ERR_INTERNAL, "plan", "plan '%s' is stored unreadable", name);
	rc = abtest_plan_fill(body, plan, e);
	json_decref(plan);
	return rc;
}
