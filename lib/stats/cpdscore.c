#include "stats/cpdscore.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/numlist.h"
#include "xalloc.h"

#define MAX_FILE (256u << 20)

/* ---- sets of positions -------------------------------------------------- */

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return (a > b) - (a < b);
}

/* x[0..n) (and 0 when add0) as a new sorted set; *out_n its size. */
static size_t *to_set(const size_t *x, size_t n, int add0, size_t *out_n)
{
	size_t *s = xmalloc((n + 1) * sizeof(*s)), m = 0;

	if (n)
		memcpy(s, x, n * sizeof(*s));
	if (add0)
		s[n++] = 0;
	qsort(s, n, sizeof(*s), cmp_size);
	for (size_t i = 0; i < n; i++)
		if (!m || s[i] != s[m - 1])
			s[m++] = s[i];
	*out_n = m;
	return s;
}

/* true_positives on sets (sorted, distinct) t and x. */
static size_t tp_sets(const size_t *t, size_t nt, const size_t *x, size_t nx, size_t margin)
{
	unsigned char *used = xcalloc(nx ? nx : 1, 1);
	size_t tp = 0, lo = 0;

	for (size_t i = 0; i < nt; i++) {
		size_t tau = t[i], from = tau > margin ? tau - margin : 0, best = nx, bd = 0;

		while (lo < nx && x[lo] < from)
			lo++;
		for (size_t j = lo; j < nx && x[j] <= tau + margin; j++) {
			size_t d = x[j] > tau ? x[j] - tau : tau - x[j];

			/* ascending x: a tie keeps the smaller x, as metrics.py's sort */
			if (!used[j] && (best == nx || d < bd)) {
				best = j;
				bd = d;
			}
		}
		if (best < nx) {
			used[best] = 1;
			tp++;
		}
	}
	free(used);
	return tp;
}

size_t cpdscore_true_positives(const size_t *truth, size_t ntruth, const size_t *pred, size_t npred,
			       size_t margin)
{
	size_t nt, nx, tp;
	size_t *t = to_set(truth, ntruth, 0, &nt), *x = to_set(pred, npred, 0, &nx);

	tp = tp_sets(t, nt, x, nx, margin);
	free(t);
	free(x);
	return tp;
}

double cpdscore_f1(const struct cpdscore_points *annot, size_t nannot, const size_t *pred,
		   size_t npred, size_t margin, double *precision, double *recall)
{
	size_t nx, nall = 0, nstar, *all, *star, *x = to_set(pred, npred, 1, &nx);
	double p, r = 0;

	for (size_t k = 0; k < nannot; k++)
		nall += annot[k].n;
	all = xmalloc((nall + 1) * sizeof(*all));
	nall = 0;
	for (size_t k = 0; k < nannot; k++) {
		size_t nt, *t = to_set(annot[k].at, annot[k].n, 1, &nt);

		r += (double)tp_sets(t, nt, x, nx, margin) / (double)nt;
		if (annot[k].n)
			memcpy(all + nall, annot[k].at, annot[k].n * sizeof(*all));
		nall += annot[k].n;
		free(t);
	}
	r = nannot ? r / (double)nannot : 0;
	star = to_set(all, nall, 1, &nstar);
	p = (double)tp_sets(star, nstar, x, nx, margin) / (double)nx;
	free(star);
	free(all);
	free(x);
	if (precision)
		*precision = p;
	if (recall)
		*recall = r;
	return p + r > 0 ? 2 * p * r / (p + r) : 0;
}

/* The segment bounds of a set of change points over [0, n): 0, the points in (0, n), n. */
static size_t *bounds(const size_t *cp, size_t ncp, size_t n, size_t *nb)
{
	size_t m, *s = to_set(cp, ncp, 1, &m), k = 0;

	/* s[0] is 0; keep the points below n, then n */
	while (k < m && s[k] < n)
		k++;
	s = xrealloc(s, (k + 1) * sizeof(*s));
	s[k] = n;
	*nb = k + 1;
	return s;
}

/* Arbelaez's C(S', S) for interval partitions: S bounds a[0..na), S' bounds b[0..nb). */
static double cover_single(const size_t *a, size_t na, const size_t *b, size_t nb, size_t n)
{
	double c = 0;
	size_t j = 0;

	for (size_t i = 0; i + 1 < na; i++) {
		size_t r0 = a[i], r1 = a[i + 1];
		double best = 0;

		while (j + 2 < nb && b[j + 1] <= r0)
			j++;
		for (size_t k = j; k + 1 < nb && b[k] < r1; k++) {
			size_t lo = r0 > b[k] ? r0 : b[k], hi = r1 < b[k + 1] ? r1 : b[k + 1];
			size_t in = hi > lo ? hi - lo : 0, un = (r1 - r0) + (b[k + 1] - b[k]) - in;
			double jac = (double)in / (double)un;

			if (jac > best)
				best = jac;
		}
		c += (double)(r1 - r0) * best;
	}
	return c / (double)n;
}

double cpdscore_cover(const struct cpdscore_points *annot, size_t nannot, const size_t *pred,
		      size_t npred, size_t n)
{
	size_t nb, *b;
	double c = 0;

	if (!n || !nannot)
		return NAN;
	b = bounds(pred, npred, n, &nb);
	for (size_t k = 0; k < nannot; k++) {
		size_t na, *a = bounds(annot[k].at, annot[k].n, n, &na);

		c += cover_single(a, na, b, nb, n);
		free(a);
	}
	free(b);
	return c / (double)nannot;
}

size_t cpdscore_far(const size_t *alerts, size_t nalerts, const size_t *pred, size_t npred,
		    size_t dist)
{
	size_t far = 0;

	for (size_t i = 0; i < npred; i++) {
		int near = 0;

		for (size_t j = 0; j < nalerts && !near; j++)
			near = (pred[i] > alerts[j] ? pred[i] - alerts[j] : alerts[j] - pred[i]) <=
			       dist;
		far += !near;
	}
	return far;
}

size_t cpdscore_far_early(const size_t *alerts, size_t nalerts, const size_t *pred, size_t npred,
			  size_t dist, size_t before)
{
	size_t early = 0;

	for (size_t i = 0; i < npred; i++) {
		int near = 0, ahead = 0;

		for (size_t j = 0; j < nalerts; j++) {
			size_t d = pred[i] > alerts[j] ? pred[i] - alerts[j] : alerts[j] - pred[i];

			near |= d <= dist;
			ahead |= pred[i] < alerts[j] && d <= before;
		}
		early += !near && ahead;
	}
	return early;
}

void cpdscore_series_score(const struct cpdscore_series *s, const size_t *pred, size_t npred,
			   struct cpdscore_result *r)
{
	memset(r, 0, sizeof(*r));
	r->n = s->n;
	r->npred = npred;
	r->f1 = cpdscore_f1(s->annot, s->nannot, pred, npred, CPDSCORE_MARGIN, &r->precision,
			    &r->recall);
	r->cover = cpdscore_cover(s->annot, s->nannot, pred, npred, s->n);
	r->zero_f1 = cpdscore_f1(s->annot, s->nannot, NULL, 0, CPDSCORE_MARGIN, NULL, NULL);
	r->zero_cover = cpdscore_cover(s->annot, s->nannot, NULL, 0, s->n);
	if (!s->has_alerts)
		return;
	r->nchanges = s->annot[0].n;
	r->found = cpdscore_true_positives(s->annot[0].at, s->annot[0].n, pred, npred,
					   CPDSCORE_MARGIN);
	r->found_wide = cpdscore_true_positives(s->annot[0].at, s->annot[0].n, pred, npred,
						CPDSCORE_MARGIN_WIDE);
	r->far = cpdscore_far(s->alerts.at, s->alerts.n, pred, npred, CPDSCORE_FAR);
	r->far_early = cpdscore_far_early(s->alerts.at, s->alerts.n, pred, npred, CPDSCORE_FAR,
					  CPDSCORE_MARGIN_WIDE);
}

int cpdscore_paper_excluded(const char *name)
{
	return !strncmp(name, "quality_control_", 16) || !strcmp(name, "uk_coal_employ");
}

void cpdscore_total_init(struct cpdscore_total *t)
{
	memset(t, 0, sizeof(*t));
}

void cpdscore_total_add(struct cpdscore_total *t, const struct cpdscore_series *s,
			const struct cpdscore_result *r)
{
	t->nseries++;
	if (!cpdscore_paper_excluded(s->name)) {
		t->naveraged++;
		t->f1 += r->f1;
		t->cover += r->cover;
		t->zero_f1 += r->zero_f1;
		t->zero_cover += r->zero_cover;
	}
	if (s->has_alerts) {
		t->alert_series++;
		t->alert_points += r->n;
		t->alert_npred += r->npred;
		t->nchanges += r->nchanges;
		t->found += r->found;
		t->found_wide += r->found_wide;
		t->far += r->far;
		t->far_early += r->far_early;
	}
}

/* ---- detection ---------------------------------------------------------- */

int cpdscore_detect(const struct cpdscore_series *s, const struct detect_opts *o, size_t **pred,
		    size_t *npred, struct err *e)
{
	/* finite values only, each with its commit's rank among the commits that have one */
	double *v = xmalloc((s->nvalues + 1) * sizeof(*v));
	size_t *pos = xmalloc((s->nvalues + 1) * sizeof(*pos));
	size_t *rank = xmalloc((s->n + 1) * sizeof(*rank)), *of_rank;
	size_t m = 0, nc = 0;
	struct detect_series ds;
	int rc;

	/* commit position of each value */
	for (size_t i = 0; i < s->nvalues; i++) {
		size_t c = i;

		if (!isfinite(s->values[i]))
			continue;
		if (s->groups) {
			const size_t *at = bsearch(&s->groups[i], s->commit_group, s->n,
						   sizeof(size_t), cmp_size);

			c = (size_t)(at - s->commit_group);
		}
		v[m] = s->values[i];
		pos[m++] = c;
	}
	for (size_t c = 0; c < s->n; c++)
		rank[c] = (size_t)-1;
	for (size_t i = 0; i < m; i++)
		rank[pos[i]] = 0;
	of_rank = xmalloc((s->n + 1) * sizeof(*of_rank));
	for (size_t c = 0; c < s->n; c++)
		if (rank[c] == 0) {
			of_rank[nc] = c;
			rank[c] = nc++;
		}
	/* groups 0..nc-1 with no gap: the detector's commit position is the rank */
	for (size_t i = 0; i < m; i++)
		pos[i] = rank[pos[i]];
	rc = detect_values(v, pos, m, o, &ds, e);
	*pred = xmalloc((rc ? 1 : ds.ncp + 1) * sizeof(**pred));
	*npred = 0;
	if (!rc) {
		for (size_t j = 0; j < ds.ncp; j++)
			if (ds.cp[j].index < nc)
				(*pred)[(*npred)++] = of_rank[ds.cp[j].index];
		detect_series_release(&ds);
	}
	free(of_rank);
	free(rank);
	free(pos);
	free(v);
	return rc;
}

/* ---- readers ------------------------------------------------------------ */

void cpdscore_series_release(struct cpdscore_series *s)
{
	free(s->name);
	free(s->values);
	free(s->groups);
	free(s->commit_group);
	for (size_t k = 0; k < s->nannot; k++)
		free(s->annot[k].at);
	free(s->annot);
	free(s->alerts.at);
	memset(s, 0, sizeof(*s));
}

/* Sorts and dedups p in place. */
static void points_finish(struct cpdscore_points *p)
{
	size_t n, *s = to_set(p->at, p->n, 0, &n);

	free(p->at);
	p->at = s;
	p->n = n;
}

/* The commit position of label index idx, or -1 (e filled, naming what). */
static int position_of(const struct cpdscore_series *s, json_int_t idx, const char *what,
		       size_t *out, struct err *e)
{
	size_t g = (size_t)idx;

	if (idx < 0)
		return err_setc(e, ERR_INVALID_FIELD, what, "%s is negative", what);
	if (s->groups) {
		const size_t *at = bsearch(&g, s->commit_group, s->n, sizeof(size_t), cmp_size);

		if (!at)
			return err_setc(e, ERR_INVALID_FIELD, what,
					"%s names group %zu, which has no value", what, g);
		*out = (size_t)(at - s->commit_group);
		return 0;
	}
	if (g >= s->n)
		return err_setc(e, ERR_INVALID_FIELD, what,
				"%s is %zu, past the last value (%zu values)", what, g, s->n);
	*out = g;
	return 0;
}

/* A JSON array of label indices into p (sorted, distinct). */
static int json_points(const struct cpdscore_series *s, json_t *a, const char *field,
		       struct cpdscore_points *p, struct err *e)
{
	size_t i;
	json_t *x;

	if (!json_is_array(a))
		return err_setc(e, ERR_INVALID_FIELD, field, "\"%s\" is not an array", field);
	p->at = xmalloc((json_array_size(a) + 1) * sizeof(*p->at));
	p->n = 0;
	json_array_foreach (a, i, x) {
		char what[128];

		snprintf(what, sizeof(what), "%s[%zu]", field, i);
		if (!json_is_integer(x))
			return err_setc(e, ERR_INVALID_FIELD, what, "%s is not an integer", what);
		if (position_of(s, json_integer_value(x), what, &p->at[p->n], e))
			return -1;
		p->n++;
	}
	points_finish(p);
	return 0;
}

static struct cpdscore_points *add_annotator(struct cpdscore_series *s)
{
	s->annot = xrealloc(s->annot, (s->nannot + 1) * sizeof(*s->annot));
	memset(&s->annot[s->nannot], 0, sizeof(*s->annot));
	return &s->annot[s->nannot++];
}

/* Commits from groups: s->commit_group (sorted distinct group numbers), s->n. */
static void commits_of_groups(struct cpdscore_series *s)
{
	size_t n;

	s->commit_group = to_set(s->groups, s->nvalues, 0, &n);
	s->n = n;
}

static int known_key(const char *key)
{
	static const char *const keys[] = { "values", "annotations", "changes", "alerts",
					    "groups", "name",	     "longname" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(key, keys[i]))
			return 1;
	return 0;
}

static int parse_json(const char *text, size_t len, const char *name, struct cpdscore_series *s,
		      struct err *e)
{
	json_error_t je;
	/* a key given twice would be read as its last copy, silently */
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), *values, *groups, *ann,
	       *chg, *alerts, *x;
	json_t *nm;
	const char *key;
	size_t i;
	int rc = -1;

	if (!doc)
		return err_setc(e, ERR_INVALID_JSON, "", "invalid JSON at line %d: %s", je.line,
				je.text);
	/* a misspelt key ("alert") would drop what it labels without a word */
	json_object_foreach (doc, key, x)
		if (!known_key(key)) {
			err_setc(e, ERR_INVALID_FIELD, key,
				 "unknown key '%s' (a labelled series has values, annotations or "
				 "changes, alerts, groups, name, longname)",
				 key);
			goto out;
		}
	values = json_object_get(doc, "values");
	groups = json_object_get(doc, "groups");
	ann = json_object_get(doc, "annotations");
	chg = json_object_get(doc, "changes");
	alerts = json_object_get(doc, "alerts");
	nm = json_object_get(doc, "name");
	s->name = xstrdup(json_is_string(nm) ? json_string_value(nm) : name);
	if (!json_is_array(values) || !json_array_size(values)) {
		err_setc(e, ERR_INVALID_FIELD, "values",
			 "expected {\"values\": [..], ..} with values");
		goto out;
	}
	if (!ann == !chg) {
		err_setc(e, ERR_INVALID_FIELD, "changes",
			 "expected the labels as \"changes\": [..] or \"annotations\": {..}, "
			 "one of them");
		goto out;
	}
	s->nvalues = json_array_size(values);
	s->values = xmalloc(s->nvalues * sizeof(*s->values));
	json_array_foreach (values, i, x) {
		if (json_is_null(x))
			s->values[i] = NAN;
		else if (json_is_number(x) && fabs(json_number_value(x)) <= NUMLIST_MAX_ABS)
			s->values[i] = json_number_value(x);
		else if (json_is_number(x)) {
			err_setc(e, ERR_INVALID_FIELD, "values",
				 "values[%zu] is out of range (numbers must lie within +-2^63)", i);
			goto out;
		} else {
			err_setc(e, ERR_INVALID_FIELD, "values",
				 "values[%zu] is neither a number nor null", i);
			goto out;
		}
	}
	s->n = s->nvalues;
	if (groups) {
		if (!json_is_array(groups) || json_array_size(groups) != s->nvalues) {
			err_setc(e, ERR_INVALID_FIELD, "groups",
				 "\"groups\" is not an array as long as \"values\"");
			goto out;
		}
		s->groups = xmalloc(s->nvalues * sizeof(*s->groups));
		json_array_foreach (groups, i, x) {
			if (!json_is_integer(x) || json_integer_value(x) < 0) {
				err_setc(e, ERR_INVALID_FIELD, "groups",
					 "groups[%zu] is not an integer >= 0", i);
				goto out;
			}
			s->groups[i] = (size_t)json_integer_value(x);
		}
		commits_of_groups(s);
	}
	if (chg) {
		if (json_points(s, chg, "changes", add_annotator(s), e))
			goto out;
	} else if (json_is_object(ann) && json_object_size(ann)) {
		json_object_foreach (ann, key, x) {
			char field[160];

			snprintf(field, sizeof(field), "annotations.%s", key);
			if (json_points(s, x, field, add_annotator(s), e))
				goto out;
		}
	} else if (json_is_array(ann)) {
		if (json_points(s, ann, "annotations", add_annotator(s), e))
			goto out;
	} else {
		err_setc(e, ERR_INVALID_FIELD, "annotations",
			 "\"annotations\" is not an object of arrays of indices (one per "
			 "annotator) nor an array");
		goto out;
	}
	if (alerts) {
		struct cpdscore_points *c = &s->annot[0];

		if (s->nannot != 1) {
			err_setc(e, ERR_INVALID_FIELD, "alerts",
				 "\"alerts\" goes with one annotator's \"changes\", not %zu",
				 s->nannot);
			goto out;
		}
		if (json_points(s, alerts, "alerts", &s->alerts, e))
			goto out;
		/* a true change is an alert too */
		s->alerts.at = xrealloc(s->alerts.at, (s->alerts.n + c->n + 1) * sizeof(size_t));
		if (c->n)
			memcpy(s->alerts.at + s->alerts.n, c->at, c->n * sizeof(size_t));
		s->alerts.n += c->n;
		points_finish(&s->alerts);
		s->has_alerts = 1;
	}
	rc = 0;
out:
	json_decref(doc);
	return rc;
}

/* The labels of the text form: is it a true change, an alert. */
static const struct {
	const char *label;
	int change, alert;
} labels[] = {
	{ "TP", 1, 1 }, /* an alert engineers kept */
	{ "FN", 1, 1 }, /* an alert made by hand (the detector missed it) */
	{ "SP", 0, 1 }, /* an alert left untriaged */
	{ "FP", 0, 1 }, /* an alert marked invalid */
	{ "TN", 0, 0 }, /* no alert */
};

static int parse_text(const char *text, size_t len, const char *name, struct cpdscore_series *s,
		      struct err *e)
{
	size_t valloc = 0, calloc_ = 0, aalloc = 0, line = 0;
	struct cpdscore_points *chg;
	const char *p = text, *end = text + len;

	s->name = xstrdup(name);
	chg = add_annotator(s);
	s->has_alerts = 1;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q;
		char buf[128], *after;
		size_t ll, k;
		double v;

		eol = eol ? eol : end;
		line++;
		q = p;
		while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q == eol || *q == '#') {
			p = eol + 1;
			continue;
		}
		ll = (size_t)(eol - q);
		if (ll >= sizeof(buf))
			return err_setc(e, ERR_INVALID_FIELD, "", "line %zu: longer than %zu bytes",
					line, sizeof(buf) - 1);
		memcpy(buf, q, ll);
		buf[ll] = 0;
		while (ll && (buf[ll - 1] == ' ' || buf[ll - 1] == '\t' || buf[ll - 1] == '\r'))
			buf[--ll] = 0;
		errno = 0;
		v = strtod(buf, &after);
		if (after == buf || (*after != ' ' && *after != '\t'))
			return err_setc(e, ERR_INVALID_FIELD, "",
					"line %zu: expected 'value label', got '%s'", line, buf);
		/* nan alone marks a missing value; inf, 1e400 and past 2^63 are refused as
		 * numlist_parse() refuses them */
		if (!isnan(v) && (errno == ERANGE || fabs(v) > NUMLIST_MAX_ABS))
			return err_setc(e, ERR_INVALID_FIELD, "",
					"line %zu: '%.*s' is out of range (numbers must lie within "
					"+-2^63; nan marks a missing value)",
					line, (int)(after - buf), buf);
		while (*after == ' ' || *after == '\t')
			after++;
		for (k = 0; k < ARRAY_SIZE(labels) && strcmp(after, labels[k].label); k++)
			;
		if (k == ARRAY_SIZE(labels))
			return err_setc(e, ERR_INVALID_FIELD, "",
					"line %zu: label '%s' is none of TP, FN, SP, FP, TN", line,
					after);
		ALLOC_GROW(s->values, s->nvalues + 1, valloc);
		s->values[s->nvalues] = v;
		if (labels[k].change) {
			ALLOC_GROW(chg->at, chg->n + 1, calloc_);
			chg->at[chg->n++] = s->nvalues;
		}
		if (labels[k].alert) {
			ALLOC_GROW(s->alerts.at, s->alerts.n + 1, aalloc);
			s->alerts.at[s->alerts.n++] = s->nvalues;
		}
		s->nvalues++;
		p = eol + 1;
	}
	if (!s->nvalues)
		return err_setc(e, ERR_INVALID_FIELD, "", "no 'value label' lines");
	s->n = s->nvalues;
	return 0;
}

int cpdscore_series_parse(const char *text, size_t len, const char *name, struct cpdscore_series *s,
			  struct err *e)
{
	size_t start = numlist_skip_comments(text, len);

	memset(s, 0, sizeof(*s));
	if (start >= len) /* not read as either form: each would name what it missed */
		return err_setc(e, ERR_INVALID_FIELD, "values",
				"no values: the file is empty (or only comments)");
	if (text[start] == '{' ? parse_json(text + start, len - start, name, s, e) :
				 parse_text(text, len, name, s, e))
		return -1;
	/* a series with nothing measured would score as perfectly as its labels allow */
	for (size_t i = 0; i < s->nvalues; i++)
		if (isfinite(s->values[i]))
			return 0;
	return err_setc(e, ERR_INVALID_FIELD, "values",
			"no values: every value is missing (null or nan)");
}

int cpdscore_series_load(const char *path, struct cpdscore_series *s, struct err *e)
{
	const char *base = strrchr(path, '/'), *dot;
	char *text, *name;
	size_t len;
	int rc;

	memset(s, 0, sizeof(*s));
	if (numlist_read_file(path, MAX_FILE, &text, &len, e))
		return -1;
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	name = dot && dot != base ? xstrndup(base, (size_t)(dot - base)) : xstrdup(base);
	rc = cpdscore_series_parse(text, len, name, s, e);
	if (rc) {
		char msg[sizeof(e->message)], detail[sizeof(e->detail)];

		snprintf(msg, sizeof(msg), "%s", e->message);
		snprintf(detail, sizeof(detail), "%s", e->detail);
		err_setc(e, e->id, detail, "'%s': %s", path, msg);
	}
	free(name);
	free(text);
	return rc;
}
