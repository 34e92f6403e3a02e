/* Backtests of a plan's detector settings on its stored history (see backtest.h). */
#include "server/detect/backtest.h"
#include "buf.h"
#include "resultdoc.h"
#include "server/db/db.h"
#include "server/db/plans.h"
#include "server/db/series.h"
#include "server/jsonout.h"
#include "server/detect/plan_detect.h"
#include "server/detect/regressions.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *backtest_label_name(enum backtest_label l)
{
	static const char *const names[BACKTEST_NR_LABELS] = { "true", "false", "unjudged",
							       "unlabelled" };

	return (unsigned)l < BACKTEST_NR_LABELS ? names[l] : "?";
}

double backtest_precision(const struct backtest_tally *t)
{
	size_t judged = t->n[BACKTEST_TRUE] + t->n[BACKTEST_FALSE];

	return judged ? (double)t->n[BACKTEST_TRUE] / (double)judged : NAN;
}

void backtest_init(struct backtest *b, const struct detect_opts *cur,
		   const struct detect_opts *next)
{
	memset(b, 0, sizeof(*b));
	b->cur = *cur;
	b->next = *next;
}

void backtest_release(struct backtest *b)
{
	for (size_t i = 0; i < b->nadded; i++)
		free(b->added[i].metric);
	for (size_t i = 0; i < b->nremoved; i++)
		free(b->removed[i].metric);
	free(b->added);
	free(b->removed);
	free(b->commit_ids);
	memset(b, 0, sizeof(*b));
}

/* --- one metric series ------------------------------------------------------- */

/* One metric's series of a setup: its commits by position, its records' positions. */
struct bt_series {
	const struct backtest_input *in;
	long long metric_id;
	const char *metric;
	long long *commit; /* per position */
	size_t n;
	/* the records of this metric, with the positions of their commits (-1: not in it) */
	const struct db_backtest_record **rec;
	long *good_pos, *bad_pos;
	size_t nrec;
};

static long pos_of(const struct bt_series *s, long long commit)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->commit[i] == commit)
			return (long)i;
	return -1;
}

/* the record of position idx's range: the exact one, else the narrowest holding it */
static const struct db_backtest_record *match(const struct bt_series *s, size_t idx)
{
	const struct db_backtest_record *best = NULL;
	long width = 0;

	for (size_t k = 0; k < s->nrec; k++)
		if (s->rec[k]->good_commit == s->commit[idx - 1] &&
		    s->rec[k]->bad_commit == s->commit[idx])
			return s->rec[k];
	for (size_t k = 0; k < s->nrec; k++) {
		long g = s->good_pos[k], b = s->bad_pos[k];

		if (g < 0 || b < 0 || g > (long)idx - 1 || b < (long)idx)
			continue;
		if (!best || b - g < width) {
			best = s->rec[k];
			width = b - g;
		}
	}
	return best;
}

static int in_since(const struct backtest_input *in, long long commit)
{
	size_t lo = 0, hi = in->nsince;

	if (!in->since)
		return 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->since_ids[mid] < commit)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < in->nsince && in->since_ids[lo] == commit;
}

/* a change point that counts as an alert: a range inside the series, dated since */
static int counts(const struct bt_series *s, const struct change_point *cp)
{
	return cp->index > 0 && cp->index < s->n && in_since(s->in, s->commit[cp->index]);
}

static int found_in(const struct detect_series *ds, const struct bt_series *s, size_t index)
{
	for (size_t k = 0; k < ds->ncp; k++)
		if (ds->cp[k].index == index && counts(s, &ds->cp[k]))
			return 1;
	return 0;
}

static enum backtest_label label_of(const struct db_backtest_record *r)
{
	int l;

	if (!r)
		return BACKTEST_UNLABELLED;
	l = regression_state_label(r->state);
	return l > 0 ? BACKTEST_TRUE : l < 0 ? BACKTEST_FALSE : BACKTEST_UNJUDGED;
}

static void tally(struct backtest_tally *t, enum backtest_label l)
{
	t->alerts++;
	t->n[l]++;
}

static void add_alert(struct backtest_alert **list, size_t *n, size_t *alloc,
		      const struct bt_series *s, const struct change_point *cp,
		      const struct db_backtest_record *r, enum backtest_label l)
{
	struct backtest_alert *a;

	ALLOC_GROW(*list, *n + 1, *alloc);
	a = &(*list)[(*n)++];
	memset(a, 0, sizeof(*a));
	a->setup_id = s->in->setup_id;
	a->metric_id = s->metric_id;
	a->metric = xstrdup(s->metric);
	a->good_commit = s->commit[cp->index - 1];
	a->bad_commit = s->commit[cp->index];
	a->before = cp->before;
	a->after = cp->after;
	a->change_pct = cp->change_pct;
	a->p_value = cp->p_value;
	a->record_id = r ? r->id : 0;
	snprintf(a->state, sizeof(a->state), "%s", r ? r->state : "");
	a->label = l;
}

/*
 * The alerts of side ds (the other side: other), tallied in *all; those the
 * other side lacks also in *only and in the list.
 */
static void side(const struct bt_series *s, const struct detect_series *ds,
		 const struct detect_series *other, struct backtest_tally *all,
		 struct backtest_tally *only, struct backtest_alert **list, size_t *n,
		 size_t *alloc)
{
	for (size_t k = 0; k < ds->ncp; k++) {
		const struct change_point *cp = &ds->cp[k];
		const struct db_backtest_record *r;
		enum backtest_label l;

		if (!counts(s, cp))
			continue;
		r = match(s, cp->index);
		l = label_of(r);
		tally(all, l);
		if (found_in(other, s, cp->index))
			continue;
		tally(only, l);
		add_alert(list, n, alloc, s, cp, r, l);
	}
}

/* the rows of one metric from in->p[i]: detected both ways; returns the index after them */
static size_t one_metric(struct backtest *b, const struct backtest_input *in, size_t i)
{
	const struct db_detect_point *m = &in->p[i];
	struct detect_opts oc, on;
	struct detect_series cur, next;
	struct bt_series s;
	double *vals;
	size_t j = i, nv;

	memset(&s, 0, sizeof(s));
	s.in = in;
	s.metric_id = m->metric_id;
	s.metric = m->metric;
	while (j < in->n && in->p[j].metric_id == m->metric_id)
		j++;
	s.commit = xcalloc(j - i + 1, sizeof(*s.commit));
	vals = xcalloc(j - i + 1, sizeof(*vals));
	plan_detect_metric(&b->cur, m->is_monitor, &oc);
	plan_detect_metric(&b->next, m->is_monitor, &on);
	detect_series_init(&cur, &oc);
	detect_series_init(&next, &on);
	/* per commit (consecutive rows), its run means; as detect.c pushes them */
	for (size_t k = i; k < j;) {
		long long cid = in->p[k].commit_id;

		nv = 0;
		while (k < j && in->p[k].commit_id == cid)
			vals[nv++] = in->p[k++].value;
		if (detect_series_push(&cur, vals, nv) == 0) {
			if (detect_series_push(&next, vals, nv))
				abort(); /* the same values cannot be refused once */
			s.commit[s.n++] = cid;
		}
	}
	detect_series_run(&cur);
	detect_series_run(&next);
	s.rec = xcalloc(in->nrec + 1, sizeof(*s.rec));
	s.good_pos = xcalloc(in->nrec + 1, sizeof(*s.good_pos));
	s.bad_pos = xcalloc(in->nrec + 1, sizeof(*s.bad_pos));
	for (size_t k = 0; k < in->nrec; k++)
		if (in->rec[k].metric_id == m->metric_id) {
			s.rec[s.nrec] = &in->rec[k];
			s.good_pos[s.nrec] = pos_of(&s, in->rec[k].good_commit);
			s.bad_pos[s.nrec] = pos_of(&s, in->rec[k].bad_commit);
			s.nrec++;
		}
	b->series++;
	b->points += s.n;
	if (b->ncommit_ids + s.n > b->commit_ids_alloc) {
		b->commit_ids_alloc = 2 * (b->ncommit_ids + s.n);
		b->commit_ids = xrealloc(b->commit_ids,
					 b->commit_ids_alloc * sizeof(*b->commit_ids));
	}
	memcpy(b->commit_ids + b->ncommit_ids, s.commit, s.n * sizeof(*s.commit));
	b->ncommit_ids += s.n;
	side(&s, &cur, &next, &b->before, &b->rem, &b->removed, &b->nremoved, &b->removed_alloc);
	side(&s, &next, &cur, &b->after, &b->add, &b->added, &b->nadded, &b->added_alloc);
	detect_series_release(&cur);
	detect_series_release(&next);
	free(s.rec);
	free(s.good_pos);
	free(s.bad_pos);
	free(s.commit);
	free(vals);
	return j;
}

static int cmp_id(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

void backtest_add(struct backtest *b, const struct backtest_input *in)
{
	size_t k = 0;

	for (size_t i = 0; i < in->n;)
		i = one_metric(b, in, i);
	/* the distinct commits so far: a setup's metrics share most of theirs */
	if (b->ncommit_ids)
		qsort(b->commit_ids, b->ncommit_ids, sizeof(*b->commit_ids), cmp_id);
	for (size_t i = 0; i < b->ncommit_ids; i++)
		if (!k || b->commit_ids[i] != b->commit_ids[k - 1])
			b->commit_ids[k++] = b->commit_ids[i];
	b->ncommit_ids = k;
	b->commits = k;
}

/* --- a plan's backtest: the reads and the reply ------------------------------ */

/*
 * since as RFC 3339 into out: "YYYY-MM-DD" is that day's 00:00 UTC. -1 with
 * e naming "since", also for a time after now: no alert can be dated from
 * then on, and a backtest that counts none would read as "nothing changes".
 */
static int since_norm(const char *since, char *out, size_t size, struct err *e)
{
	struct timespec now;
	double t;

	if (strlen(since) == 10)
		snprintf(out, size, "%sT00:00:00Z", since);
	else
		snprintf(out, size, "%s", since);
	if (strlen(since) >= size - 10 || date_or_rfc3339_seconds(out, &t))
		return err_setc(e, ERR_INVALID_FIELD, "since",
				"'since' is a date (YYYY-MM-DD) or an RFC 3339 date-time, not '%.64s'",
				since);
	clock_gettime(CLOCK_REALTIME, &now);
	if (t > (double)now.tv_sec + (double)now.tv_nsec / 1e9)
		return err_setc(
			e, ERR_INVALID_FIELD, "since",
			"'since' lies in the future: '%.64s' (no alert can be dated from then on)",
			since);
	return 0;
}

/* the plan's current settings into *cur: -1 with e (ERR_NOT_FOUND naming "name") */
static int plan_settings(struct db_conn *c, const struct config *cfg, const char *name,
			 struct detect_opts *cur, struct err *e)
{
	char *text = NULL;
	json_t *spec, *d = NULL;
	int got = db_plan_json(c, name, &text, e);

	if (got < 0)
		return -1;
	if (!got)
		return err_setc(e, ERR_NOT_FOUND, "name", "no plan '%s'", name);
	spec = json_loads(text, 0, NULL);
	free(text);
	plan_detect_defaults(cfg, cur);
	if (!spec || plan_detect_check(json_object_get(spec, "detect"), "detect.", &d, e)) {
		json_decref(spec);
		return err_setc(e, ERR_INTERNAL, "", "plan '%s': stored settings unreadable", name);
	}
	plan_detect_apply(d, cur);
	json_decref(d);
	json_decref(spec);
	return 0;
}

/* reads and examines every setup of the plan into b; 0 or -1 with e */
static int run_setups(struct db_conn *c, const struct db_backtest_setup *setups, size_t nsetups,
		      const char *since, struct backtest *b, struct err *e)
{
	for (size_t i = 0; i < nsetups; i++) {
		struct db_detect_series rows;
		struct db_backtest_record *rec = NULL;
		long long *ids = NULL;
		size_t nrec = 0, nids = 0;
		struct backtest_input in;
		int bad;

		bad = db_detect_series(c, setups[i].id, &rows, e) ||
		      db_backtest_records(c, setups[i].id, &rec, &nrec, e) ||
		      (since && db_backtest_since(c, setups[i].id, since, &ids, &nids, e));
		if (!bad) {
			memset(&in, 0, sizeof(in));
			in.setup_id = setups[i].id;
			in.p = rows.p;
			in.n = rows.n;
			in.rec = rec;
			in.nrec = nrec;
			in.since = since != NULL;
			in.since_ids = ids;
			in.nsince = nids;
			backtest_add(b, &in);
		}
		db_detect_series_free(&rows);
		free(rec);
		free(ids);
		if (bad)
			return -1;
	}
	return 0;
}

static const char *sha_of(const struct db_series_commits *cm, long long id)
{
	for (size_t i = 0; i < cm->nr; i++)
		if (cm->rows[i].id == id)
			return cm->rows[i].sha;
	return NULL;
}

static json_t *alert_json(const struct backtest_alert *a, const struct db_backtest_setup *setups,
			  size_t nsetups, const struct db_series_commits *cm)
{
	const struct db_backtest_setup *s = NULL;
	const char *good = sha_of(cm, a->good_commit), *bad = sha_of(cm, a->bad_commit);
	json_t *o;

	for (size_t i = 0; i < nsetups && !s; i++)
		if (setups[i].id == a->setup_id)
			s = &setups[i];
	o = json_object();
	if (s) {
		json_t *params = json_loads(s->params, 0, NULL);

		json_object_set_new(o, "testcase", json_string(s->testcase));
		json_object_set_new(o, "params", params ? params : json_object());
		json_object_set_new(o, "kconfig", json_string(s->kconfig));
		json_object_set_new(o, "compiler", json_string(s->compiler));
		json_object_set_new(o, "tbox_group", json_string(s->tbox_group));
		json_object_set_new(o, "mode", json_string(s->mode));
		json_object_set_new(o, "monitors", json_string(s->monitors));
	}
	json_object_set_new(o, "metric", json_string(a->metric));
	json_object_set_new(o, "good", good ? json_string(good) : json_null());
	json_object_set_new(o, "bad", bad ? json_string(bad) : json_null());
	json_object_set_new(o, "before", json_num(a->before));
	json_object_set_new(o, "after", json_num(a->after));
	json_object_set_new(o, "change_pct", json_num(a->change_pct));
	json_object_set_new(o, "p_value", json_num(a->p_value));
	json_object_set_new(o, "regression_id",
			    a->record_id ? json_integer(a->record_id) : json_null());
	json_object_set_new(o, "state", a->state[0] ? json_string(a->state) : json_null());
	json_object_set_new(o, "label", json_string(backtest_label_name(a->label)));
	return o;
}

static json_t *tally_json(const struct backtest_tally *t, int with_precision)
{
	json_t *o = json_object();

	json_object_set_new(o, "alerts", json_integer((json_int_t)t->alerts));
	for (int l = 0; l < BACKTEST_NR_LABELS; l++)
		json_object_set_new(o, backtest_label_name((enum backtest_label)l),
				    json_integer((json_int_t)t->n[l]));
	if (with_precision)
		json_object_set_new(o, "precision", json_num(backtest_precision(t)));
	return o;
}

/* the reply of backtest_plan(); the commits' shas read on c. NULL with e */
static json_t *reply_of(struct db_conn *c, const struct backtest *b, const char *name,
			const char *since, const json_t *set,
			const struct db_backtest_setup *setups, size_t nsetups, struct err *e)
{
	size_t n = 2 * (b->nadded + b->nremoved), k = 0;
	long long *ids = xcalloc(n + 1, sizeof(*ids));
	struct db_series_commits cm;
	json_t *o, *added, *removed, *list;

	for (size_t i = 0; i < b->nadded; i++) {
		ids[k++] = b->added[i].good_commit;
		ids[k++] = b->added[i].bad_commit;
	}
	for (size_t i = 0; i < b->nremoved; i++) {
		ids[k++] = b->removed[i].good_commit;
		ids[k++] = b->removed[i].bad_commit;
	}
	if (db_series_commits(c, ids, k, &cm, e)) {
		free(ids);
		return NULL;
	}
	free(ids);
	added = tally_json(&b->add, 0);
	list = json_array();
	for (size_t i = 0; i < b->nadded; i++)
		json_array_append_new(list, alert_json(&b->added[i], setups, nsetups, &cm));
	json_object_set_new(added, "list", list);
	removed = tally_json(&b->rem, 0);
	list = json_array();
	for (size_t i = 0; i < b->nremoved; i++)
		json_array_append_new(list, alert_json(&b->removed[i], setups, nsetups, &cm));
	json_object_set_new(removed, "list", list);
	db_series_commits_free(&cm);
	o = json_pack("{s:s,s:o,s:O,s:o,s:o,s:I,s:I,s:I,s:o,s:o,s:o,s:o}", "plan", name, "since",
		      since ? json_string(since) : json_null(), "set", set, "current",
		      plan_detect_json(&b->cur), "new", plan_detect_json(&b->next), "series",
		      (json_int_t)b->series, "commits", (json_int_t)b->commits, "points",
		      (json_int_t)b->points, "before", tally_json(&b->before, 1), "after",
		      tally_json(&b->after, 1), "added", added, "removed", removed);
	return o;
}

int backtest_plan(struct db_conn *c, const struct config *cfg, const char *name, const char *since,
		  const json_t *set, json_t **out, struct err *e)
{
	char sn[64];
	json_t *setobj = NULL, *empty = json_object();
	struct detect_opts cur, next;
	struct db_backtest_setup *setups = NULL;
	size_t nsetups = 0;
	struct backtest b;
	int ret = -1;

	*out = NULL;
	memset(&b, 0, sizeof(b));
	if ((since && since_norm(since, sn, sizeof(sn), e)) ||
	    plan_detect_check(set, "set.", &setobj, e))
		goto done;
	if (db_begin_read_only(c, e))
		goto done;
	if (plan_settings(c, cfg, name, &cur, e) ||
	    db_backtest_setups(c, name, &setups, &nsetups, e))
		goto rollback;
	next = cur;
	plan_detect_apply(setobj, &next);
	if (plan_detect_check_fit(&next, setobj, "set.", e))
		goto rollback;
	backtest_init(&b, &cur, &next);
	if (run_setups(c, setups, nsetups, since ? sn : NULL, &b, e))
		goto rollback;
	*out = reply_of(c, &b, name, since ? sn : NULL, setobj ? setobj : empty, setups, nsetups,
			e);
	ret = *out ? 0 : -1;
rollback:
	db_rollback(c);
done:
	backtest_release(&b);
	db_backtest_setups_free(setups, nsetups);
	json_decref(setobj);
	json_decref(empty);
	return ret;
}

/* --- regtrack-server backtest ------------------------------------------------- */

static void print_settings(const char *what, const json_t *s)
{
	const char *k;
	json_t *v;
	int first = 1;

	printf("  %-8s", what);
	json_object_foreach ((json_t *)s, k, v) {
		printf("%s %s %g", first ? "" : ",", k, json_number_value(v));
		first = 0;
	}
	putchar('\n');
}

static void print_tally(const char *what, const json_t *t)
{
	json_t *p = json_object_get(t, "precision");
	long long n = json_integer_value(json_object_get(t, "alerts"));

	printf("%-7s %lld alert%s: %lld true, %lld false, %lld unjudged, %lld unlabelled; ", what,
	       n, n == 1 ? "" : "s", json_integer_value(json_object_get(t, "true")),
	       json_integer_value(json_object_get(t, "false")),
	       json_integer_value(json_object_get(t, "unjudged")),
	       json_integer_value(json_object_get(t, "unlabelled")));
	if (json_is_number(p))
		printf("precision %.2f\n", json_number_value(p));
	else
		printf("precision - (none judged)\n");
}

static void print_list(const char *what, const json_t *side)
{
	json_t *a;
	size_t i;

	printf("%s: %lld\n", what, (long long)json_integer_value(json_object_get(side, "alerts")));
	json_array_foreach (json_object_get(side, "list"), i, a) {
		char *params = json_dumps(json_object_get(a, "params"),
					  JSON_COMPACT | JSON_SORT_KEYS);
		json_t *id = json_object_get(a, "regression_id");

		printf("  %s %s %s %s %s %s  %.12s..%.12s  %+.2f%%  p %.3g  %s",
		       json_string_value(json_object_get(a, "metric")),
		       json_string_value(json_object_get(a, "testcase")), params ? params : "{}",
		       json_string_value(json_object_get(a, "kconfig")),
		       json_string_value(json_object_get(a, "compiler")),
		       json_string_value(json_object_get(a, "tbox_group")),
		       json_string_value(json_object_get(a, "good")),
		       json_string_value(json_object_get(a, "bad")),
		       json_number_value(json_object_get(a, "change_pct")),
		       json_number_value(json_object_get(a, "p_value")),
		       json_string_value(json_object_get(a, "label")));
		if (json_is_integer(id))
			printf(" (regression %lld, %s)\n", (long long)json_integer_value(id),
			       json_string_value(json_object_get(a, "state")));
		else
			printf(" (no record)\n");
		free(params);
	}
}

static void print_text(const json_t *r)
{
	json_t *since = json_object_get(r, "since");

	printf("backtest of plan '%s': %lld series over %lld commits (%lld points: a commit "
	       "once per series)%s%s\n",
	       json_string_value(json_object_get(r, "plan")),
	       (long long)json_integer_value(json_object_get(r, "series")),
	       (long long)json_integer_value(json_object_get(r, "commits")),
	       (long long)json_integer_value(json_object_get(r, "points")),
	       json_is_string(since) ? "; alerts since " : "",
	       json_is_string(since) ? json_string_value(since) : "");
	print_settings("current:", json_object_get(r, "current"));
	print_settings("new:", json_object_get(r, "new"));
	print_list("added (alerted with the new settings only)", json_object_get(r, "added"));
	print_list("removed (alerted with the current settings only)",
		   json_object_get(r, "removed"));
	print_tally("before:", json_object_get(r, "before"));
	print_tally("after:", json_object_get(r, "after"));
}

int backtest_cli(const struct config *cfg, int argc, char **argv)
{
	static const char usage[] =
		"usage: regtrack-server backtest --plan NAME [--since DATE] [--set KEY=VALUE]... "
		"[--json]\n";
	const char *plan = NULL, *since = NULL;
	json_t *set = json_object(), *r = NULL;
	int as_json = 0, ret = 2;
	struct db *db = NULL;
	struct err e;
	struct db_conn *c;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--plan") && i + 1 < argc) {
			plan = argv[++i];
		} else if (!strcmp(argv[i], "--since") && i + 1 < argc) {
			since = argv[++i];
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			if (plan_detect_set_arg(set, argv[++i], &e)) {
				fprintf(stderr, "regtrack-server: %s\n", e.message);
				goto out;
			}
		} else if (!strcmp(argv[i], "--json")) {
			as_json = 1;
		} else {
			fputs(usage, stderr);
			goto out;
		}
	}
	if (!plan) {
		fputs(usage, stderr);
		goto out;
	}
	db = db_new(cfg->db, cfg->db_timeout_ms);
	c = db_conn(db, &e);
	if (!c || backtest_plan(c, cfg, plan, since, set, &r, &e)) {
		fprintf(stderr, "regtrack-server: backtest: %s%s%s%s\n", e.message,
			e.detail[0] ? " (" : "", e.detail, e.detail[0] ? ")" : "");
		/* as `plan apply`: a bad argument or an unknown plan is the user's input */
		ret = e.id == ERR_INVALID_FIELD || e.id == ERR_NOT_FOUND ? 2 : 1;
		goto out;
	}
	if (as_json) {
		/* the API's reply, byte for byte: numbers that read back exactly */
		struct buf text = BUF_INIT(0);

		if (jsonout_json(&text, r))
			abort(); /* no cap, and every string came from jansson */
		puts(text.data);
		buf_release(&text);
	} else {
		print_text(r);
	}
	ret = 0;
out:
	json_decref(r);
	json_decref(set);
	db_free(db);
	return ret;
}
