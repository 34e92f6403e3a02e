/* The alert-quality ledger: rows of counts -> precision and false alarms per week (quality.h). */
#include "server/detect/quality.h"
#include "server/detect/regressions.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WEEK_S 604800.0
#define DAY_S 86400.0

struct counts {
	long long t, f, u; /* true changes, false alarms, unjudged */
};

/* one name's counts (name NULL: no plan), and for plans the false alarms per week */
struct tally_entry {
	const char *name;
	struct counts c;
	long long *weekly;
};

struct tally {
	struct tally_entry *v;
	size_t nr, alloc;
	size_t nr_weeks; /* > 0: entries keep weekly false alarms */
};

static int same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* NULL first, then byte order */
static int name_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return !b - !a;
	return strcmp(a, b);
}

static int entry_cmp(const void *x, const void *y)
{
	return name_cmp(((const struct tally_entry *)x)->name,
			((const struct tally_entry *)y)->name);
}

static struct tally_entry *tally_get(struct tally *t, const char *name)
{
	struct tally_entry *e;

	for (size_t i = 0; i < t->nr; i++)
		if (same_name(t->v[i].name, name))
			return &t->v[i];
	if (t->nr == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 16;
		t->v = xrealloc(t->v, t->alloc * sizeof(*t->v));
	}
	e = &t->v[t->nr++];
	memset(e, 0, sizeof(*e));
	e->name = name;
	if (t->nr_weeks)
		e->weekly = xcalloc(t->nr_weeks, sizeof(*e->weekly));
	return e;
}

static void tally_release(struct tally *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->v[i].weekly);
	free(t->v);
}

static void count_add(struct counts *c, int label, long long n)
{
	if (label > 0)
		c->t += n;
	else if (label < 0)
		c->f += n;
	else
		c->u += n;
}

/* COUNTS (quality.h) into o; returns o */
static json_t *counts_set(json_t *o, const struct counts *c)
{
	json_object_set_new(o, "true_changes", json_integer(c->t));
	json_object_set_new(o, "false_alarms", json_integer(c->f));
	json_object_set_new(o, "unjudged", json_integer(c->u));
	json_object_set_new(o, "alerts", json_integer(c->t + c->f + c->u));
	json_object_set_new(o, "precision",
			    c->t + c->f ? json_real((double)c->t / (double)(c->t + c->f)) :
					  json_null());
	return o;
}

static json_t *name_json(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* [{key: name, COUNTS…}] sorted by name */
static json_t *tally_json(struct tally *t, const char *key)
{
	json_t *a = json_array();

	if (t->nr)
		qsort(t->v, t->nr, sizeof(*t->v), entry_cmp);
	for (size_t i = 0; i < t->nr; i++) {
		json_t *o = json_object();

		json_object_set_new(o, key, name_json(t->v[i].name));
		json_array_append_new(a, counts_set(o, &t->v[i].c));
	}
	return a;
}

static json_t *time_json(double t)
{
	time_t s = (time_t)floor(t);
	struct tm tm;
	char out[32];

	if (!gmtime_r(&s, &tm) || !strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return json_null();
	return json_string(out);
}

json_t *quality_labels_json(void)
{
	json_t *t = json_array(), *f = json_array(), *u = json_array();

	for (size_t i = 0; regression_states[i]; i++) {
		int l = regression_state_label(regression_states[i]);

		json_array_append_new(l > 0 ? t : l < 0 ? f : u, json_string(regression_states[i]));
	}
	return json_pack("{s:o, s:o, s:o}", "true_change", t, "false_alarm", f, "unjudged", u);
}

static json_t *window_json(double since, double until, size_t nr_weeks)
{
	json_t *starts = json_array();

	for (size_t i = 0; i < nr_weeks; i++)
		json_array_append_new(starts, time_json(since + (double)i * WEEK_S));
	return json_pack("{s:o, s:o, s:f, s:f, s:o}", "since", time_json(since), "until",
			 time_json(until), "days", (until - since) / DAY_S, "weeks",
			 (until - since) / WEEK_S, "week_starts", starts);
}

/* the groups: one entry per contiguous (plan, testcase, metric, tbox_group) of rows */
static json_t *groups_json(const struct db_quality_row *rows, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n;) {
		const struct db_quality_row *g = &rows[i];
		struct counts c = { 0, 0, 0 };
		json_t *o;

		for (;
		     i < n && same_name(rows[i].plan, g->plan) &&
		     !strcmp(rows[i].testcase, g->testcase) && !strcmp(rows[i].metric, g->metric) &&
		     !strcmp(rows[i].tbox_group, g->tbox_group);
		     i++)
			count_add(&c, regression_state_label(rows[i].state), rows[i].count);
		o = json_pack("{s:o, s:s, s:s, s:s}", "plan", name_json(g->plan), "testcase",
			      g->testcase, "metric", g->metric, "tbox_group", g->tbox_group);
		json_array_append_new(a, counts_set(o, &c));
	}
	return a;
}

json_t *quality_json(const struct db_quality_row *rows, size_t n, double since, double until)
{
	double span = until > since ? until - since : 0;
	size_t nr_weeks = (size_t)ceil(span / WEEK_S);
	struct tally plans = { .nr_weeks = nr_weeks ? nr_weeks : 1 }, tcs = { 0 }, metrics = { 0 },
		     tboxes = { 0 };
	struct counts all = { 0, 0, 0 };
	json_t *out, *fa;

	if (!nr_weeks)
		nr_weeks = 1;
	for (size_t i = 0; i < n; i++) {
		const struct db_quality_row *r = &rows[i];
		int label = regression_state_label(r->state);
		struct tally_entry *p = tally_get(&plans, r->plan);

		count_add(&all, label, r->count);
		count_add(&p->c, label, r->count);
		count_add(&tally_get(&tcs, r->testcase)->c, label, r->count);
		count_add(&tally_get(&metrics, r->metric)->c, label, r->count);
		count_add(&tally_get(&tboxes, r->tbox_group)->c, label, r->count);
		if (label < 0) {
			size_t w = r->week < 0 ? 0 : (size_t)r->week;

			p->weekly[w < nr_weeks ? w : nr_weeks - 1] += r->count;
		}
	}
	out = json_object();
	json_object_set_new(out, "window", window_json(since, until, nr_weeks));
	json_object_set_new(out, "labels", quality_labels_json());
	json_object_set_new(out, "overall", counts_set(json_object(), &all));
	json_object_set_new(out, "by_plan", tally_json(&plans, "plan"));
	json_object_set_new(out, "by_testcase", tally_json(&tcs, "testcase"));
	json_object_set_new(out, "by_metric", tally_json(&metrics, "metric"));
	json_object_set_new(out, "by_tbox_group", tally_json(&tboxes, "tbox_group"));
	json_object_set_new(out, "groups", groups_json(rows, n));
	fa = json_array();
	for (size_t i = 0; i < plans.nr; i++) {
		const struct tally_entry *p = &plans.v[i];
		json_t *weekly = json_array();

		for (size_t w = 0; w < nr_weeks; w++)
			json_array_append_new(weekly, json_integer(p->weekly[w]));
		json_array_append_new(fa,
				      json_pack("{s:o, s:I, s:I, s:f, s:o}", "plan",
						name_json(p->name), "false_alarms",
						(json_int_t)p->c.f, "alerts",
						(json_int_t)(p->c.t + p->c.f + p->c.u), "per_week",
						span > 0 ? (double)p->c.f / (span / WEEK_S) : 0.0,
						"weekly", weekly));
	}
	json_object_set_new(out, "false_alarms_per_week", fa);
	tally_release(&plans);
	tally_release(&tcs);
	tally_release(&metrics);
	tally_release(&tboxes);
	return out;
}
