/* A/B requests: ref resolution and the verdict; see abtest.h. */
#include "server/abtest/abtest.h"
#include "server/detect/aa_history.h"
#include "server/db/db.h"
#include "server/db/outbox.h"
#include "server/log.h"
#include "stats/compare.h"
#include "stats/metric.h"
#include "stats/samplesize.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *pair(double a, double b)
{
	return json_pack("[o,o]", num(a), num(b));
}

/* (group, metric) order of db_request_aa_metrics() */
static int cmp_aa_metric(const void *x, const void *y)
{
	const struct db_request_aa_metric *a = x, *b = y;

	if (a->group != b->group)
		return (a->group > b->group) - (a->group < b->group);
	return strcmp(a->metric, b->metric);
}

/* one row of the result: the comparison r of metric s (base) vs its head */
static json_t *row_json(const struct db_request_sample *s, json_t *group,
			const struct compare_result *r, double q, double floor, const char *change)
{
	json_t *o = json_object();

	json_object_set_new(o, "group", json_integer(s->group));
	json_object_set(o, "target", json_object_get(group, "target"));
	json_object_set(o, "testcase", json_object_get(group, "testcase"));
	json_object_set(o, "params", json_object_get(group, "params"));
	json_object_set_new(o, "metric", json_string(s->metric));
	json_object_set_new(o, "monitor", json_boolean(s->is_monitor));
	json_object_set_new(o, "n", json_pack("[I,I]", (json_int_t)r->a.n, (json_int_t)r->b.n));
	json_object_set_new(o, "mean", pair(r->a.mean, r->b.mean));
	json_object_set_new(o, "stddev_pct", pair(r->a.stddev_pct, r->b.stddev_pct));
	json_object_set_new(o, "change_pct", num(r->change_pct));
	json_object_set_new(o, "hl_pct", num(r->hl_pct));
	json_object_set_new(o, "ci_pct", pair(r->ci_lo_pct, r->ci_hi_pct));
	json_object_set_new(o, "p_value", num(r->p_value));
	json_object_set_new(o, "q_value", num(q));
	json_object_set_new(o, "floor_pct", num(floor));
	json_object_set_new(o, "verdict", json_string(verdict_name(r->verdict)));
	json_object_set_new(o, "by_spread", json_boolean(r->by_spread));
	json_object_set_new(o, "constant", json_boolean(r->constant));
	json_object_set_new(o, "change", json_string(change));
	return o;
}

const char *abtest_verdict(const struct db_request_sample *s, long n, double min_change_pct,
			   json_t *groups, const double *aa, json_t **rows)
{
	struct compare_result *res = xcalloc((size_t)n + 1, sizeof(*res));
	struct compare_result **ptr = xcalloc((size_t)n + 1, sizeof(*ptr));
	const struct db_request_sample **base = xcalloc((size_t)n + 1, sizeof(*base));
	double *floors = xcalloc((size_t)n + 1, sizeof(*floors)),
	       *q = xcalloc((size_t)n + 1, sizeof(*q));
	size_t *fam = xcalloc((size_t)n + 1, sizeof(*fam)), nf = 0;
	size_t nr = 0, primary = 0;
	int regr = 0, impr = 0, same = 0, other = 0, any_primary = 0;
	struct compare_opts o;
	const char *verdict;

	compare_opts_init(&o);
	o.alpha = ABTEST_ALPHA;
	/* base and head of one (group, metric) are neighbours; a metric one side lacks compares
	 * against nothing (need-more-runs) */
	for (long i = 0; i < n; i++) {
		const struct db_request_sample *a = NULL, *b = NULL;
		struct compare_opts om = o;
		double spread = aa ? aa[i] : NAN;

		if (!s[i].head) {
			a = &s[i];
			if (i + 1 < n && s[i + 1].head && s[i + 1].group == a->group &&
			    !strcmp(s[i + 1].metric, a->metric))
				b = &s[++i];
		} else {
			b = &s[i];
		}
		om.floor_pct = isnan(min_change_pct) ? compare_opts_floor(&o, (a ? a : b)->metric) :
						       min_change_pct;
		compare_deterministic(a ? a->values : NULL, a ? a->n : 0, b ? b->values : NULL,
				      b ? b->n : 0, &om, spread, &res[nr]);
		floors[nr] = om.floor_pct;
		base[nr] = a ? a : b;
		q[nr] = NAN;
		/* the FDR family: the rows a p-value decides */
		if (!res[nr].by_spread) {
			fam[nf] = nr;
			ptr[nf++] = &res[nr];
		}
		nr++;
	}
	{
		double *qf = xcalloc(nf + 1, sizeof(*qf));

		compare_fdr(ptr, nf, o.alpha, qf);
		for (size_t i = 0; i < nf; i++)
			q[fam[i]] = qf[i];
		free(qf);
	}
	/*
	 * one constant value at both sides (a counter at 0 -> 0, a config echo) is `same` with
	 * no evidence of a change or of none (compare.h): it neither decides the verdict nor
	 * keeps the monitors from deciding, as compare --gate leaves it out
	 */
	for (size_t i = 0; i < nr; i++)
		if (!base[i]->is_monitor && !res[i].constant)
			any_primary = 1;
	*rows = json_array();
	for (size_t i = 0; i < nr; i++) {
		const struct db_request_sample *m = base[i];
		int hib = m->higher_is_better >= 0 ? m->higher_is_better :
						     metric_higher_is_better(m->metric);
		enum change_kind k = compare_change_kind(&res[i], hib);

		json_array_append_new(*rows,
				      row_json(m, json_array_get(groups, (size_t)m->group), &res[i],
					       q[i], floors[i], change_kind_name(k)));
		if ((any_primary && m->is_monitor) || res[i].constant)
			continue;
		primary++;
		if (k == CHANGE_REGRESSION)
			regr++;
		else if (k == CHANGE_IMPROVEMENT)
			impr++;
		else if (res[i].verdict == VERDICT_SAME)
			same++;
		else
			other++;
	}
	verdict = regr				  ? "regression" :
		  impr				  ? "improvement" :
		  primary && same == (int)primary ? "no-change" :
						    "inconclusive";
	(void)other;
	free(res);
	free(ptr);
	free(base);
	free(floors);
	free(q);
	free(fam);
	return verdict;
}

/*
 * The A/A spread of each sample s[0..n) of request id (abtest.h): per
 * (group, metric), from the history of its setup without the request's
 * commits; NAN where none (wall-clock setups, too little history). A new
 * array of n (at least 1), or NULL with e.
 */
static double *request_aa(struct db_conn *c, long long id, const struct db_request_sample *s,
			  long n, struct err *e)
{
	struct db_request_aa_metric *m;
	long nm = db_request_aa_metrics(c, id, &m, e);
	double *aa;
	long long *setups;
	size_t ns = 0;
	struct aa_history h;

	if (nm < 0)
		return NULL;
	setups = xcalloc((size_t)nm + 1, sizeof(*setups));
	for (long i = 0; i < nm; i++) {
		size_t k = 0;

		while (k < ns && setups[k] != m[i].setup_id)
			k++;
		if (k == ns)
			setups[ns++] = m[i].setup_id;
	}
	if (aa_history_load(c, setups, ns, 0, 0, &h, e)) {
		free(setups);
		db_request_aa_metrics_free(m, nm);
		return NULL;
	}
	free(setups);
	aa = xcalloc((size_t)n + 1, sizeof(*aa));
	for (long i = 0; i < n; i++) {
		struct db_request_aa_metric key = { .group = s[i].group, .metric = s[i].metric };
		const struct db_request_aa_metric *x = nm ? bsearch(&key, m, (size_t)nm, sizeof(*m),
								    cmp_aa_metric) :
							    NULL;
		struct aa_spread sp;

		aa[i] = NAN;
		if (!x)
			continue;
		aa_history_spread(&h, x->setup_id, x->metric_id, x->base_commit, x->head_commit,
				  &sp);
		aa[i] = aa_spread_usable(&sp);
	}
	aa_history_release(&h);
	db_request_aa_metrics_free(m, nm);
	return aa;
}

/* the done request's result: {verdict, alpha, rows} as text (new) and its verdict */
static char *decide(struct db_conn *c, long long id, json_t *spec, const char **verdict,
		    struct err *e)
{
	struct db_request_sample *s;
	long n = db_request_samples(c, id, &s, e);
	json_t *mcp, *rows, *res;
	char *text;
	double *aa;

	if (n < 0)
		return NULL;
	aa = request_aa(c, id, s, n, e);
	if (!aa) {
		db_request_samples_free(s, n);
		return NULL;
	}
	mcp = json_object_get(spec, "min_change_pct");
	*verdict = abtest_verdict(s, n, json_is_number(mcp) ? json_number_value(mcp) : NAN,
				  json_object_get(spec, "groups"), aa, &rows);
	free(aa);
	db_request_samples_free(s, n);
	res = json_pack("{s:s,s:f,s:o}", "verdict", *verdict, "alpha", ABTEST_ALPHA, "rows", rows);
	text = json_dumps(res, JSON_COMPACT | JSON_REAL_PRECISION(10));
	json_decref(res);
	return text;
}

int abtest_settle(struct db_conn *c, long long id, struct err *e)
{
	struct db_request_lock l;
	json_t *spec = NULL;
	char *result = NULL;
	const char *verdict = NULL;
	int got, ret = 0;

	if (db_begin(c, e))
		return -1;
	got = db_request_lock(c, id, &l, e);
	if (got <= 0)
		goto out;
	if (strcmp(l.state, "queued") && strcmp(l.state, "running"))
		goto out;
	if (l.failed) {
		char *why = xstrfmt("%s", l.first_failure ? l.first_failure : "a job failed");
		long jobs;

		got = db_request_finish(c, id, "failed", NULL, NULL, why,
					l.head_sha[0] ? l.head_sha : NULL, e);
		free(why);
		if (got < 0 || (got && db_request_cancel_jobs(c, id, &jobs, e) < 0) ||
		    (got && db_outbox_insert_request(c, id, e) < 0))
			goto fail;
		ret = got;
		goto out;
	}
	if (l.finished < l.jobs || !l.jobs)
		goto out;
	spec = json_loads(l.spec, 0, NULL);
	result = decide(c, id, spec, &verdict, e);
	if (!result)
		goto fail;
	got = db_request_finish(c, id, "done", verdict, result, NULL,
				l.head_sha[0] ? l.head_sha : NULL, e);
	/* the mail to notify, queued if and only if the request ends */
	if (got < 0 || (got && db_outbox_insert_request(c, id, e) < 0))
		goto fail;
	ret = got;
out:
	if (got < 0)
		goto fail;
	db_request_lock_release(&l);
	json_decref(spec);
	free(result);
	if (db_commit(c, e))
		return -1;
	return ret;
fail:
	db_request_lock_release(&l);
	json_decref(spec);
	free(result);
	db_rollback(c);
	return -1;
}

int abtest_settle_job(struct db_conn *c, long long job_id, struct err *e)
{
	long long id;
	int got = db_request_of_job(c, job_id, &id, e);

	return got <= 0 ? got : abtest_settle(c, id, e);
}

/* a CV in percent as people read it: 1.8, 0.42, 0.0031 */
static void cv_text(double cv, char *out, size_t n)
{
	snprintf(out, n, cv >= 1 ? "%.1f" : "%.2g", cv);
}

int abtest_choose_repeat(struct db_conn *c, const struct abtest_setup *groups, size_t nr_groups,
			 const char *compiler, const char *mode, double min_change_pct,
			 long long *repeat, char **why_out, json_t **noise_out, struct err *e)
{
	struct compare_opts o;
	int best = 0, lo = samplesize_rank_floor(ABTEST_ALPHA);
	char why[600] = "";

	json_t *noise = json_array();

	compare_opts_init(&o);
	o.alpha = ABTEST_ALPHA;
	for (size_t i = 0; i < nr_groups; i++) {
		const struct abtest_setup *g = &groups[i];
		struct db_noise *nz;
		long n = db_request_noise(c, g->testcase, g->params, g->kconfig, compiler, mode,
					  g->tbox_group, g->tbox_group ? NULL : g->arch, &nz, e);
		int primary = 0;

		if (n < 0) {
			json_decref(noise);
			return -1;
		}
		for (long j = 0; j < n; j++)
			primary |= !nz[j].is_monitor && nz[j].df >= ABTEST_MIN_DF;
		for (long j = 0; j < n; j++) {
			const struct db_noise *x = &nz[j];
			double floor = isnan(min_change_pct) ? compare_opts_floor(&o, x->metric) :
							       min_change_pct;
			double raw;
			int k;
			char cv[32];

			if (x->df < ABTEST_MIN_DF || (primary && x->is_monitor) ||
			    !isfinite(x->cv_pct))
				continue;
			k = floor > 0 ?
				    samplesize_choose(x->cv_pct, floor, ABTEST_ALPHA, ABTEST_POWER,
						      lo, ABTEST_MAX_AUTO_REPEAT, &raw) :
				    ABTEST_MAX_AUTO_REPEAT;
			if (floor <= 0)
				raw = INFINITY;
			json_array_append_new(noise,
					      json_pack("{s:s,s:s,s:s,s:f,s:I,s:I,s:f,s:i,s:o}",
							"target", g->target, "testcase",
							g->testcase, "metric", x->metric, "cv_pct",
							x->cv_pct, "runs", (json_int_t)x->runs,
							"commits", (json_int_t)x->commits,
							"min_change_pct", floor, "runs_a_side", k,
							"raw",
							isfinite(raw) ? json_real(raw) :
									json_null()));
			if (k <= best)
				continue;
			best = k;
			cv_text(x->cv_pct, cv, sizeof(cv));
			snprintf(why, sizeof(why),
				 "%s%s%s%sCV %s %% over %lld runs at %lld commits (%s) → %d runs a "
				 "side for %g %% (power %.1f, α %g)",
				 nr_groups > 1 ? g->target : "", nr_groups > 1 ? " " : "",
				 nr_groups > 1 ? g->testcase : "", nr_groups > 1 ? ": " : "", cv,
				 x->runs, x->commits, x->metric, k, floor, ABTEST_POWER,
				 ABTEST_ALPHA);
			if (!strcmp(mode, "icount") && raw < lo)
				snprintf(why + strlen(why), sizeof(why) - strlen(why),
					 "; icount's spread is near zero: %.1f would do, %d is the "
					 "fewest with which the rank test can reach α %g",
					 raw, lo, ABTEST_ALPHA);
			else if (raw < lo)
				snprintf(why + strlen(why), sizeof(why) - strlen(why),
					 "; %.1f would do, %d is the fewest with which the rank "
					 "test can reach α %g",
					 raw, lo, ABTEST_ALPHA);
			else if (raw > k)
				snprintf(why + strlen(why), sizeof(why) - strlen(why),
					 "; the bound: %g %% would need %.0f", floor, raw);
		}
		free(nz);
	}
	if (!best) {
		best = ABTEST_DEFAULT_REPEAT;
		snprintf(why, sizeof(why),
			 "no history of this setup (no commit with repeated runs of it): the "
			 "default, %d runs a side",
			 ABTEST_DEFAULT_REPEAT);
	}
	*repeat = best;
	*why_out = xstrdup(why);
	*noise_out = noise;
	return 0;
}
