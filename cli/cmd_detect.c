/*
 * regtrack detect [options] FILE
 *
 * FILE: one number per line (`#` comments), a JSON array of numbers, or a
 * JSON object {"values": [..], "ids": [..]} / {"values": [..], "groups":
 * [..]} where ids (strings or integers) or groups (integers >= 0) name the
 * commit of each value: values of one commit are several runs of it.
 * Commits are ordered by group number, or by first appearance of an id.
 * The labelled text --score reads (`value label` lines, Perfherder's
 * alerts) is read too, its labels checked and then ignored: a value nan is
 * missing, left out with its index (its line among the value lines) still
 * counted; inf or a value past +-2^63 is refused by its line.
 * Prints {"change_points": [{"index": i, "id": ..., "before": m1,
 * "after": m2, "change_pct": p, "direction": "up"|"down", "p_value": q,
 * "mw_p": .., "window_p": .., "noise_sigma": s, "noise_rho": r, "noise_raised": f,
 * "noise_cycle": P}],
 * "n_values": n, "n_commits": c}; `index` is the first commit after the
 * change (the value index when each value is its own commit; the group
 * number with "groups"; the commit's position with "ids", whose id is
 * then given as "id"). change_pct is LKP's %change (signed base, 1e-100 for
 * a base of 0); "direction" is the sign of after - before; noise_sigma and
 * noise_rho are the noise model before the change (lib/stats/detect.h),
 * noise_raised the factor (>= 1) sigma was raised by because the series'
 * history moved more than that model allowed (1: not raised), noise_cycle
 * P > 0 where p and that model are those of the values net of a cycle of
 * P commits in the history (detect.h 2c; 0: as they are).
 * Only change points whose final estimates pass --p-max and --min-change
 * are printed. With --tail N it adds "tail_check", the online
 * CUSUM check of the last N commits against the window before them
 * (detect_series_check_tail: from the last change point before the
 * tail; one at the tail's first commit compares the tail with the
 * segment before it): {"commits", "alarm", "reference_commits",
 * "reference_median" (null with no reference commit), "change_pct"}.
 * With none, "none_because" names the strongest candidate split of the
 * detector's trace and the rule that dropped it (detect_reason_text; its
 * "best_split" carries noise_raised, and where p or min_effect dropped it
 * with sigma raised the message says "sigma x2.1: the history moves more
 * than its noise model allowed").
 * --explain adds "explain": every candidate the detector considered
 * (struct detect_candidate: "stage" "window" for the window scan, "final"
 * for an accepted split's final estimate; "window" [start, end) in the
 * numbers of "index" (cand_window); "index" as a change point's; before,
 * after, change_pct, p_value, noise_sigma, noise_rho, noise_raised, effect
 * in noise sigmas, "kept" and "reason" in words), the same one per line on
 * stderr ("sigma unknown" for an effect with no noise estimate; "0.9 sigma
 * (sigma x2.1: the history moves more than its noise model allowed)" where
 * noise_raised > 1: the model checked against the history, detect.h 2a);
 * both written by cmd_detect_explain.c.
 *
 * Options: --window W (64), --p-max P (0.001), --min-seg M (3),
 * --min-change PCT (0), --min-effect SIGMAS (0), each bounded as a plan's
 * detect key
 * (lib/stats/detect_keys.h), --tail N, --explain. Exit 0, or 2 on usage or
 * input errors (a file with no values among them).
 *
 * regtrack detect --score FILE|DIR [--json] [the options above]: instead,
 * scores the detector against human labels (cmd_detect_score.c): each
 * labelled series (the TCPD JSON, the `value label` text of Perfherder's
 * alerts, or {"values", "changes", "alerts", "groups"}: lib/stats/cpdscore.h)
 * gets n, its change points, TCPDBench's F1 (margin 5) and covering beside
 * those of no detection, and with alert labels the true changes found
 * within +-5 and +-20 and the detections more than 5 from every alert;
 * then the averages (TCPD's quality_control_* and uk_coal_employ left out,
 * as the paper's) and the alert figures summed (far per 1000 points).
 */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/cpdscore.h"
#include "stats/detect.h"
#include "stats/detect_keys.h"
#include "stats/numlist.h"
#include "xalloc.h"

#define MAX_FILE (256u << 20)

static int usage(void)
{
	fprintf(stderr,
		"usage: regtrack detect [--window W] [--p-max P] [--min-seg M]\n"
		"                       [--min-change PCT] [--min-effect S] [--tail N] [--explain] FILE\n"
		"FILE: one value per commit in commit order, as numbers one per line\n"
		"('#' starts a comment) or a JSON array; several runs per commit as a JSON object\n"
		"{\"values\": [...], \"ids\": [commit of each value]} (commits in order of first\n"
		"appearance) or {\"values\": [...], \"groups\": [commit number of each value]};\n"
		"or a labelled series --score reads (labels ignored; a value nan or null is missing).\n"
		"Prints {change_points: [{index, id, before, after, change_pct, direction, p_value,\n"
		"...}], n_values, n_commits}; with none, \"none_because\" says why (the strongest\n"
		"candidate split and the rule that dropped it). --window 64, --p-max 0.001,\n"
		"--min-seg 3, --min-change 0 (%%), --min-effect 0 (noise sigmas), each bounded as a\n"
		"plan's detect key (min-seg at most half the window; the server's own default\n"
		"min_change_pct is its detect_min_change_pct, 1), --tail N: an online check of the\n"
		"last N commits against those since the last change point before them\n"
		"(\"tail_check\"),\n"
		"--explain: every candidate split, its p, size in noise sigmas (and sigma's raise,\n"
		"noise_raised, where the series' history moved more than its noise model allowed)\n"
		"and the rule that kept or dropped it (\"explain\" in the JSON, one line each on\n"
		"stderr). Exit 0, 2 usage or input error.\n"
		"\n"
		"regtrack detect --score FILE|DIR [--json] [options above]: the detector scored\n"
		"against labels, per series and overall: TCPDBench F1 (margin 5) and covering\n"
		"beside no detection's; with alert labels, true changes found within +-5 and +-20\n"
		"and detections more than 5 from every alert per 1000 points. A labelled series:\n"
		"TCPD JSON {\"values\": [..], \"annotations\": {\"id\": [i, ..], ..}}, text lines\n"
		"'value label' (TP, FN: a true change; SP, FP: an alert only; TN), or\n"
		"{\"values\": [..], \"changes\": [i, ..], \"alerts\": [i, ..], \"groups\": [..]}.\n");
	return 2;
}

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

struct idkey {
	char *key;
	size_t first; /* index of the first value with this id */
	size_t i;
};

static int cmp_key(const void *x, const void *y)
{
	const struct idkey *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	if (c)
		return c;
	return (a->i > b->i) - (a->i < b->i);
}

static int cmp_first(const void *x, const void *y)
{
	const struct idkey *a = x, *b = y;

	return (a->first > b->first) - (a->first < b->first);
}

/*
 * ids[i] -> group numbers in order of first appearance. *idvals gets, per
 * group, the json id (borrowed from ids). Returns -1 on a bad id.
 */
static int group_ids(json_t *ids, size_t n, size_t *group, json_t ***idvals)
{
	struct idkey *k = xcalloc(n ? n : 1, sizeof(*k));
	size_t ng = 0;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		json_t *v = json_array_get(ids, i);

		if (json_is_string(v))
			k[i].key = xstrfmt("s%s", json_string_value(v));
		else if (json_is_integer(v))
			k[i].key = xstrfmt("i%lld", (long long)json_integer_value(v));
		else
			rc = -1;
		k[i].i = i;
	}
	if (!rc) {
		qsort(k, n, sizeof(*k), cmp_key);
		for (size_t i = 0; i < n; i++)
			k[i].first = i && !strcmp(k[i].key, k[i - 1].key) ? k[i - 1].first : k[i].i;
		/* distinct ids ordered by first appearance */
		qsort(k, n, sizeof(*k), cmp_first);
		*idvals = xcalloc(n ? n : 1, sizeof(**idvals));
		for (size_t i = 0; i < n; i++) {
			if (!i || k[i].first != k[i - 1].first)
				(*idvals)[ng++] = json_array_get(ids, k[i].first);
			group[k[i].i] = ng - 1;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(k[i].key);
	free(k);
	return rc;
}

static int parse_size(const char *opt, const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *end || errno || s[0] == '-') {
		fprintf(stderr, "regtrack: %s: '%s' is not a count\n", opt, s);
		return -1;
	}
	*out = (size_t)v;
	return 0;
}

static int parse_double(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(*out)) {
		fprintf(stderr, "regtrack: %s: '%s' is not a number\n", opt, s);
		return -1;
	}
	return 0;
}

/*
 * Is text (after its leading comment lines) the labelled text form that
 * --score reads (Perfherder's `value label` lines)? Its first line is a
 * number, blanks, then a word that is no `#` comment.
 */
static int labelled_text(const char *text, size_t len)
{
	const char *eol = memchr(text, '\n', len), *q;
	char buf[128], *after;
	size_t ll = eol ? (size_t)(eol - text) : len;

	if (ll >= sizeof(buf))
		ll = sizeof(buf) - 1;
	memcpy(buf, text, ll);
	buf[ll] = '\0';
	(void)strtod(buf, &after);
	if (after == buf || (*after != ' ' && *after != '\t'))
		return 0;
	for (q = after; *q == ' ' || *q == '\t' || *q == '\r'; q++)
		;
	return *q && *q != '#';
}

/*
 * The values of a labelled series, the forms --score reads (lib/stats/
 * cpdscore.h parses them and checks each value and label; the labels are
 * not used here). A missing value (nan, JSON null) is left out: then *group
 * gives each value its position (its line, its index in "values"), so the
 * indices printed still count every position, as the labels' do; with
 * "groups", each value's group. 0, or -1 with the message on stderr.
 */
static int load_labelled(const char *path, const char *text, size_t len, double **v, size_t *n,
			 size_t **group)
{
	struct cpdscore_series ls;
	struct err e;
	size_t m = 0;

	if (cpdscore_series_parse(text, len, path, &ls, &e)) {
		fprintf(stderr, "regtrack: '%s': %s\n", path, e.message);
		cpdscore_series_release(&ls);
		return -1;
	}
	*v = xmalloc((ls.nvalues ? ls.nvalues : 1) * sizeof(**v));
	*group = xmalloc((ls.nvalues ? ls.nvalues : 1) * sizeof(**group));
	/* the reader refused every value but nan by its line (+-2^63 as numlist_parse) */
	for (size_t i = 0; i < ls.nvalues; i++) {
		if (!isfinite(ls.values[i]))
			continue;
		(*v)[m] = ls.values[i];
		(*group)[m++] = ls.groups ? ls.groups[i] : i;
	}
	/* the reader refused a series with every value missing */
	if (m == ls.nvalues && !ls.groups) {
		free(*group);
		*group = NULL;
	}
	*n = m;
	cpdscore_series_release(&ls);
	return 0;
}

/* Loads the input; *group NULL when each value is its own commit. */
static int load(const char *path, double **v, size_t *n, size_t **group, json_t **doc,
		json_t ***idvals)
{
	struct err e;
	char *text;
	size_t len, start;
	json_error_t je;
	json_t *values, *ids, *groups, *x;
	size_t i;

	*group = NULL;
	*doc = NULL;
	*idvals = NULL;
	if (numlist_read_file(path, MAX_FILE, &text, &len, &e)) {
		fprintf(stderr, "regtrack: %s\n", e.message);
		return -1;
	}
	start = numlist_skip_comments(text, len);
	if (start < len && text[start] != '{' && labelled_text(text + start, len - start)) {
		int rc = load_labelled(path, text, len, v, n, group);

		free(text);
		return rc;
	}
	if (start >= len || text[start] != '{') {
		int rc = numlist_parse(text, len, v, n, &e);

		if (rc)
			fprintf(stderr, "regtrack: '%s': %s\n", path, e.message);
		free(text);
		return rc;
	}
	*doc = json_loadb(text + start, len - start, 0, &je);
	/* a labelled series explained straight from its file, null values and all */
	if (json_is_object(*doc) && !json_object_get(*doc, "ids") &&
	    (json_object_get(*doc, "annotations") || json_object_get(*doc, "changes") ||
	     json_object_get(*doc, "alerts"))) {
		int rc = load_labelled(path, text, len, v, n, group);

		json_decref(*doc);
		*doc = NULL;
		free(text);
		return rc;
	}
	free(text);
	if (!*doc) {
		fprintf(stderr, "regtrack: '%s': invalid JSON at line %d: %s\n", path, je.line,
			je.text);
		return -1;
	}
	values = json_object_get(*doc, "values");
	ids = json_object_get(*doc, "ids");
	groups = json_object_get(*doc, "groups");
	if (!json_is_array(values) || (ids && !json_is_array(ids)) ||
	    (groups && !json_is_array(groups)) || (ids && groups)) {
		fprintf(stderr,
			"regtrack: '%s': expected {\"values\": [..]} with optional "
			"\"ids\" or \"groups\" arrays\n",
			path);
		return -1;
	}
	*n = json_array_size(values);
	if ((ids && json_array_size(ids) != *n) || (groups && json_array_size(groups) != *n)) {
		fprintf(stderr, "regtrack: '%s': \"values\" and \"%s\" differ in length\n", path,
			ids ? "ids" : "groups");
		return -1;
	}
	*v = xmalloc((*n ? *n : 1) * sizeof(**v));
	json_array_foreach (values, i, x) {
		if (!json_is_number(x)) {
			fprintf(stderr, "regtrack: '%s': values[%zu] is not a number\n", path, i);
			return -1;
		}
		(*v)[i] = json_number_value(x);
		/* numlist_parse()'s bound, the API's */
		if (fabs((*v)[i]) > 9223372036854775808.0) {
			fprintf(stderr,
				"regtrack: '%s': values[%zu] is out of range (numbers must lie "
				"within +-2^63)\n",
				path, i);
			return -1;
		}
	}
	if (groups) {
		*group = xmalloc((*n ? *n : 1) * sizeof(**group));
		json_array_foreach (groups, i, x) {
			if (!json_is_integer(x) || json_integer_value(x) < 0) {
				fprintf(stderr,
					"regtrack: '%s': groups[%zu] is not an integer >= 0\n",
					path, i);
				return -1;
			}
			(*group)[i] = (size_t)json_integer_value(x);
		}
	} else if (ids) {
		*group = xmalloc((*n ? *n : 1) * sizeof(**group));
		if (group_ids(ids, *n, *group, idvals)) {
			fprintf(stderr, "regtrack: '%s': ids must be strings or integers\n", path);
			return -1;
		}
	}
	return 0;
}

/*
 * The options a plan's "detect" and a backtest's "set" bound too, checked
 * by the same table (lib/stats/detect_keys.h): what the API refuses is
 * refused here. 0, or -1 with the message on stderr.
 */
static int check_opts(const struct detect_opts *o)
{
	static const struct {
		const char *key, *opt;
	} opt_of[] = {
		{ "window", "--window" },	  { "min_seg", "--min-seg" },
		{ "p_max", "--p-max" },		  { "min_change_pct", "--min-change" },
		{ "min_effect", "--min-effect" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(opt_of); i++) {
		const struct detect_key *k = detect_key_find(opt_of[i].key);
		double x = detect_key_get(o, k);

		if (!detect_key_in_bounds(k, x)) {
			fprintf(stderr, "regtrack: detect: %s %g is outside %g..%g\n",
				opt_of[i].opt, x, k->min, k->max);
			return -1;
		}
	}
	if (!detect_keys_seg_fits(o)) {
		fprintf(stderr,
			"regtrack: detect: --min-seg %zu is more than half of --window %zu (a split "
			"needs that many commits on each side within one window)\n",
			o->min_seg, o->window);
		return -1;
	}
	return 0;
}

int cmd_detect(int argc, char **argv)
{
	struct detect_opts o;
	struct detect_series s;
	struct err e;
	const char *path = NULL;
	int json = 0, score = 0;
	double *v = NULL;
	size_t n = 0, *group = NULL, tail = 0;
	json_t *doc = NULL, **idvals = NULL, *out, *cps, *ex;
	int rc = 2, want_explain = 0;
	char *txt;

	detect_opts_init(&o);
	o.explain = 1; /* the trace also says why nothing was found */
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val;
		int bad = 0;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			usage();
			return 0;
		}
		if (!strcmp(arg, "--json")) {
			json = 1;
			continue;
		}
		if (!strcmp(arg, "--explain")) {
			want_explain = 1;
			continue;
		}
		/* a mode, its FILE|DIR the one path wherever it stands: --score --json DIR */
		if (!strcmp(arg, "--score")) {
			score = 1;
			continue;
		}
		if (arg[0] != '-' || !arg[1]) {
			if (path) {
				fprintf(stderr,
					"regtrack: detect: one FILE (with --score: one FILE or DIR), "
					"not '%s' and '%s'\n",
					path, arg);
				return 2;
			}
			path = arg;
			continue;
		}
		if (i + 1 >= argc)
			return usage();
		val = argv[++i];
		if (!strcmp(arg, "--window"))
			bad = parse_size(arg, val, &o.window);
		else if (!strcmp(arg, "--min-seg"))
			bad = parse_size(arg, val, &o.min_seg);
		else if (!strcmp(arg, "--tail"))
			bad = parse_size(arg, val, &tail);
		else if (!strcmp(arg, "--p-max"))
			bad = parse_double(arg, val, &o.p_max);
		else if (!strcmp(arg, "--min-change"))
			bad = parse_double(arg, val, &o.min_change_pct);
		else if (!strcmp(arg, "--min-effect"))
			bad = parse_double(arg, val, &o.min_effect);
		else {
			fprintf(stderr, "regtrack: detect: unknown option '%s'\n", arg);
			return usage();
		}
		if (bad)
			return 2;
	}
	if (score && want_explain) {
		fprintf(stderr, "regtrack: detect: --explain is for one series; --score prints "
				"each series' figures (explain one with: regtrack detect --explain "
				"FILE)\n");
		return 2;
	}
	if (score && tail) {
		fprintf(stderr, "regtrack: detect: --tail checks one series' last commits; --score "
				"scores the whole of each series\n");
		return 2;
	}
	if (!score && json) {
		fprintf(stderr, "regtrack: detect: --json is for --score (detect prints JSON)\n");
		return 2;
	}
	if (!path)
		return usage();
	if (check_opts(&o))
		return 2;
	if (score)
		return cmd_detect_score(path, &o, json);
	if (load(path, &v, &n, &group, &doc, &idvals))
		goto out;
	if (!n) {
		fprintf(stderr, "regtrack: '%s': no values\n", path);
		goto out;
	}
	if (detect_values(v, group, n, &o, &s, &e)) {
		fprintf(stderr, "regtrack: '%s': %s\n", path, e.message);
		goto out;
	}
	out = json_object();
	cps = json_array();
	for (size_t j = 0; j < s.ncp; j++) {
		const struct change_point *c = &s.cp[j];
		json_t *cp = json_object();

		json_object_set_new(cp, "index",
				    json_integer((json_int_t)(idvals ? c->index : c->id)));
		if (idvals)
			json_object_set(cp, "id", idvals[c->id]);
		json_object_set_new(cp, "before", num(c->before));
		json_object_set_new(cp, "after", num(c->after));
		json_object_set_new(cp, "change_pct", num(c->change_pct));
		json_object_set_new(cp, "direction", json_string(c->direction > 0 ? "up" : "down"));
		json_object_set_new(cp, "p_value", num(c->p_value));
		json_object_set_new(cp, "mw_p", num(c->mw_p));
		json_object_set_new(cp, "window_p", num(c->window_p));
		json_object_set_new(cp, "noise_sigma", num(c->noise_sigma));
		json_object_set_new(cp, "noise_rho", num(c->noise_rho));
		json_object_set_new(cp, "noise_raised", num(c->noise_raised));
		json_object_set_new(cp, "noise_cycle", json_integer((json_int_t)c->noise_cycle));
		json_array_append_new(cps, cp);
	}
	json_object_set_new(out, "change_points", cps);
	/* the candidates' lines on stderr before the verdict's */
	ex = want_explain ? cmd_detect_explain(&s, idvals) : NULL;
	if (!s.ncp)
		json_object_set_new(out, "none_because", cmd_detect_none_because(&s, &o, idvals));
	if (ex)
		json_object_set_new(out, "explain", ex);
	json_object_set_new(out, "n_values", json_integer((json_int_t)n));
	json_object_set_new(out, "n_commits", json_integer((json_int_t)s.n));
	if (tail) {
		struct detect_online chk;
		json_t *t = json_object();

		detect_series_check_tail(&s, tail, &chk);
		json_object_set_new(t, "commits",
				    json_integer((json_int_t)(tail < s.n ? tail : s.n)));
		json_object_set_new(t, "alarm", json_integer(chk.alarm));
		json_object_set_new(t, "reference_commits", json_integer((json_int_t)chk.nref));
		json_object_set_new(t, "reference_median", num(chk.center));
		json_object_set_new(t, "change_pct", num(chk.change_pct));
		json_object_set_new(out, "tail_check", t);
	}
	txt = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	puts(txt);
	free(txt);
	json_decref(out);
	detect_series_release(&s);
	rc = 0;
out:
	free(v);
	free(group);
	free(idvals);
	json_decref(doc);
	return rc;
}
