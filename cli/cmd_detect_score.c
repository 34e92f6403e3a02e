/*
 * regtrack detect --score FILE|DIR [--json] (cmd_detect.c's options too)
 *
 * Runs the detector with the given options on each labelled series (FILE,
 * or every *.json and *.txt of DIR in name order) and scores its change
 * points against the labels with lib/stats/cpdscore.h: per series n, the
 * predictions, TCPDBench's F1 (margin 5) and covering, the same for no
 * prediction at all; for series with alert labels (the `value label` form,
 * or "alerts" in our JSON) the true changes found within +-5 and +-20 and
 * the detections more than 5 from every alert. Overall: F1 and cover
 * averaged over the series (leaving out TCPD's quality_control_* and
 * uk_coal_employ, as the paper's averages of its 25 datasets here), the
 * no-detection baseline's, and the alert figures summed (far per 1000
 * points). Margins and distances count commits (positions in commit
 * order), also with "groups"; the JSON's predictions are given as the labels
 * name commits (group numbers with "groups"). Text table, or with --json one
 * object (documented in README, "regtrack detect --score"), printed once
 * every series is read and scored. Exit 0, or 2 on a usage or input error
 * (then nothing on stdout).
 */
#include "cli.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stats/cpdscore.h"
#include "xalloc.h"

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcmp(s + n - m, suf);
}

/* The files to score: path itself, or DIR's *.json and *.txt sorted. New, caller frees. */
static char **list_files(const char *path, size_t *n)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char **f = NULL;
	size_t alloc = 0;

	*n = 0;
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		f = xmalloc(sizeof(*f));
		f[(*n)++] = xstrdup(path);
		return f;
	}
	d = opendir(path);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (!has_suffix(de->d_name, ".json") && !has_suffix(de->d_name, ".txt")))
			continue;
		ALLOC_GROW(f, *n + 1, alloc);
		f[(*n)++] = xstrfmt("%s/%s", path, de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(f, *n, sizeof(*f), cmp_str);
	return f;
}

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static double ratio(size_t a, size_t b)
{
	return b ? (double)a / (double)b : NAN;
}

static json_t *series_json(const char *file, const struct cpdscore_series *s,
			   const struct cpdscore_result *r, const size_t *pred)
{
	json_t *o = json_object(), *p = json_array();

	/* in the labels' terms: group numbers with groups, else positions */
	for (size_t j = 0; j < r->npred; j++)
		json_array_append_new(p,
				      json_integer((json_int_t)(s->commit_group ?
									s->commit_group[pred[j]] :
									pred[j])));
	json_object_set_new(o, "name", json_string(s->name));
	json_object_set_new(o, "file", json_string(file));
	json_object_set_new(o, "n", json_integer((json_int_t)r->n));
	json_object_set_new(o, "predictions", p);
	json_object_set_new(o, "f1", num(r->f1));
	json_object_set_new(o, "precision", num(r->precision));
	json_object_set_new(o, "recall", num(r->recall));
	json_object_set_new(o, "cover", num(r->cover));
	json_object_set_new(o, "zero_f1", num(r->zero_f1));
	json_object_set_new(o, "zero_cover", num(r->zero_cover));
	json_object_set_new(o, "averaged", json_boolean(!cpdscore_paper_excluded(s->name)));
	if (s->has_alerts)
		json_object_set_new(o, "alerts",
				    json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}", "changes",
					      (json_int_t)r->nchanges, "found_5",
					      (json_int_t)r->found, "found_20",
					      (json_int_t)r->found_wide, "far", (json_int_t)r->far,
					      "far_early", (json_int_t)r->far_early, "far_per_1000",
					      num(1000 * ratio(r->far, r->n))));
	return o;
}

/*
 * The text table's row of one series after its label (new, caller frees): the
 * label waits for every name, since two series of one name are told apart by file
 */
static char *row_text(const struct cpdscore_series *s, const struct cpdscore_result *r)
{
	char *row = xstrfmt("%s %6zu %5zu  %.3f  %.3f   %.3f  %.3f",
			    cpdscore_paper_excluded(s->name) ? "*" : " ", r->n, r->npred, r->f1,
			    r->cover, r->zero_f1, r->zero_cover);

	if (s->has_alerts) {
		char *a = xstrfmt("%s   %7zu %4zu %4zu %4zu %5zu", row, r->nchanges, r->found,
				  r->found_wide, r->far, r->far_early);

		free(row);
		row = a;
	}
	return row;
}

/* x as "%.3f" into buf, or "-" when it is no number (a ratio of nothing: no true change) */
static const char *fig(char *buf, size_t size, double x)
{
	if (!isfinite(x))
		return "-";
	snprintf(buf, size, "%.3f", x);
	return buf;
}

static json_t *overall(const struct cpdscore_total *t, json_t *left_out, int json)
{
	size_t na = t->naveraged;
	json_t *o = json_object(), *a = json_null();

	if (!json) {
		char b[4][32];

		printf("\naverage over %zu series", na);
		if (json_array_size(left_out))
			printf(" (* left out, as the TCPD paper's averages: quality_control_*, "
			       "uk_coal_employ)");
		printf(": F1 %s cover %s; no detection: F1 %s cover %s\n",
		       fig(b[0], sizeof(b[0]), na ? t->f1 / (double)na : NAN),
		       fig(b[1], sizeof(b[1]), na ? t->cover / (double)na : NAN),
		       fig(b[2], sizeof(b[2]), na ? t->zero_f1 / (double)na : NAN),
		       fig(b[3], sizeof(b[3]), na ? t->zero_cover / (double)na : NAN));
		if (t->alert_series)
			printf("alert labels, %zu series, %zu points: %zu of %zu true changes found "
			       "within +-%d (%s), %zu within +-%d (%s); %zu of %zu detections "
			       "more than %d from every alert, %.2f per 1000 points (%zu of them "
			       "at most %d before an alert: a step found before its alert)\n",
			       t->alert_series, t->alert_points, t->found, t->nchanges,
			       CPDSCORE_MARGIN,
			       fig(b[0], sizeof(b[0]), ratio(t->found, t->nchanges)), t->found_wide,
			       CPDSCORE_MARGIN_WIDE,
			       fig(b[1], sizeof(b[1]), ratio(t->found_wide, t->nchanges)), t->far,
			       t->alert_npred, CPDSCORE_FAR, 1000 * ratio(t->far, t->alert_points),
			       t->far_early, CPDSCORE_MARGIN_WIDE);
		json_decref(o);
		return NULL;
	}
	json_object_set_new(o, "n_series", json_integer((json_int_t)na));
	json_object_set_new(o, "left_out", json_incref(left_out));
	json_object_set_new(o, "f1", num(na ? t->f1 / (double)na : NAN));
	json_object_set_new(o, "cover", num(na ? t->cover / (double)na : NAN));
	json_object_set_new(o, "zero_f1", num(na ? t->zero_f1 / (double)na : NAN));
	json_object_set_new(o, "zero_cover", num(na ? t->zero_cover / (double)na : NAN));
	if (t->alert_series)
		a = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:I, s:I, s:o}", "series",
			      (json_int_t)t->alert_series, "points", (json_int_t)t->alert_points,
			      "predictions", (json_int_t)t->alert_npred, "changes",
			      (json_int_t)t->nchanges, "found_5", (json_int_t)t->found, "found_20",
			      (json_int_t)t->found_wide, "recall_5",
			      num(ratio(t->found, t->nchanges)), "recall_20",
			      num(ratio(t->found_wide, t->nchanges)), "far", (json_int_t)t->far,
			      "far_early", (json_int_t)t->far_early, "far_per_1000",
			      num(1000 * ratio(t->far, t->alert_points)));
	return json_pack("{s:o, s:o}", "average", o, "alerts", a);
}

int cmd_detect_score(const char *path, const struct detect_opts *o, int json)
{
	size_t nf;
	char **files = list_files(path, &nf);
	struct cpdscore_total t;
	json_t *series = json_array(), *left_out = json_array(), *out;
	/* the text table's rows, printed once every series is read: a bad file prints no table */
	char **rows = NULL, **names = NULL;
	size_t nrows = 0;
	int rc = 2;

	if (!files || !nf) {
		fprintf(stderr, "regtrack: detect --score: no .json or .txt file in '%s'\n", path);
		goto out;
	}
	cpdscore_total_init(&t);
	rows = xcalloc(nf, sizeof(*rows));
	names = xcalloc(nf, sizeof(*names));
	for (size_t i = 0; i < nf; i++) {
		struct cpdscore_series s;
		struct cpdscore_result r;
		struct err e;
		size_t *pred, npred;

		if (cpdscore_series_load(files[i], &s, &e) ||
		    cpdscore_detect(&s, o, &pred, &npred, &e)) {
			fprintf(stderr, "regtrack: detect --score: %s\n", e.message);
			cpdscore_series_release(&s);
			goto out;
		}
		cpdscore_series_score(&s, pred, npred, &r);
		cpdscore_total_add(&t, &s, &r);
		if (cpdscore_paper_excluded(s.name))
			json_array_append_new(left_out, json_string(s.name));
		if (json)
			json_array_append_new(series, series_json(files[i], &s, &r, pred));
		else {
			names[nrows] = xstrdup(s.name);
			rows[nrows++] = row_text(&s, &r);
		}
		free(pred);
		cpdscore_series_release(&s);
	}
	if (!json) {
		printf("%-23s %6s %5s  %5s  %5s   %-14s %s\n", "series", "n", "pred", "F1", "cover",
		       "no-detect F1/cover", "changes +-5 +-20  far early");
		for (size_t i = 0; i < nrows; i++) {
			const char *label = names[i], *slash;

			for (size_t j = 0; j < nrows; j++)
				if (j != i && !strcmp(names[j], names[i])) {
					slash = strrchr(files[i], '/');
					label = slash ? slash + 1 : files[i];
					break;
				}
			printf("%-22s%s\n", label, rows[i]);
		}
	}
	out = overall(&t, left_out, json);
	if (out) {
		char *txt;

		json_object_set_new(out, "series", json_incref(series));
		json_object_set_new(out, "options",
				    json_pack("{s:I, s:f, s:I, s:f}", "window",
					      (json_int_t)o->window, "p_max", o->p_max, "min_seg",
					      (json_int_t)o->min_seg, "min_change_pct",
					      o->min_change_pct));
		json_object_set_new(out, "margin", json_integer(CPDSCORE_MARGIN));
		json_object_set_new(out, "margin_wide", json_integer(CPDSCORE_MARGIN_WIDE));
		json_object_set_new(out, "far_distance", json_integer(CPDSCORE_FAR));
		txt = json_dumps(out,
				 JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		puts(txt);
		free(txt);
		json_decref(out);
	}
	rc = 0;
out:
	for (size_t i = 0; i < nrows; i++) {
		free(rows[i]);
		free(names[i]);
	}
	free(rows);
	free(names);
	for (size_t i = 0; files && i < nf; i++)
		free(files[i]);
	free(files);
	json_decref(series);
	json_decref(left_out);
	return rc;
}
