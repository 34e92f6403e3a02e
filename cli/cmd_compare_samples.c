/*
 * regtrack compare-samples [options] A B
 *
 * A (base) and B (head): files of numbers, one per line (`#` comments) or
 * a JSON array. Prints one JSON object:
 *   {"n": [na, nb], "mean": [..], "median": [..], "stddev_pct": [..],
 *    "min": [..], "max": [..], "change_pct": p, "ci_pct": [lo, hi],
 *    "hl_pct": h, "shift": s, "moved": "up"|"down"|"none",
 *    "outliers": [oa, ob], "p_value": q, "welch_p": w, "min_p": m, "exact": bool,
 *    "log_scale": bool, "alpha": a, "floor_pct": f, "verdict": "...",
 *    "direction": "higher-is-better"|"lower-is-better"|"unknown",
 *    "change": "none"|"improvement"|"regression"|"unknown"}
 * Numbers that cannot be computed are null. change_pct is LKP's %change of
 * the means (signed base); the verdict's size is hl_pct and its direction
 * `moved` (the sign of the Hodges-Lehmann shift), which `change` follows;
 * outliers counts the runs of each side beyond median +- 5 * 1.4826 * MAD
 * (lib/stats/compare.h).
 *
 * Options: --alpha X (0.01), --floor PCT (1, or 5 for a monitor metric
 * named with --metric), --ci-level X (0.95), --metric NAME (direction and
 * floor from the metric registry), --gate higher|lower|auto: exit 1 when
 * the verdict is a regression for that direction (auto = from --metric),
 * 3 when it cannot decide (gate_exit(): need-more-runs, a change in an
 * unknown direction, or one constant value at both sides), one line on
 * stderr saying which. Exit 0 otherwise, 2 on usage or input errors.
 */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "stats/numlist.h"

#define MAX_FILE (64u << 20)

static int usage(void)
{
	fprintf(stderr,
		"usage: regtrack compare-samples [--alpha X] [--floor PCT] [--ci-level X]\n"
		"                                [--metric NAME] [--gate higher|lower|auto] A B\n"
		"A (base) and B (head): one sample per run, as numbers one per line ('#' starts\n"
		"a comment) or a JSON array. Prints one JSON object: n, mean, median,\n"
		"stddev_pct, change_pct (LKP's %%change of the means), hl_pct with ci_pct (the\n"
		"Hodges-Lehmann shift: the verdict's size), p_value (Mann-Whitney), verdict\n"
		"(different, same, need-more-runs) and change (regression, improvement, none).\n"
		"--alpha 0.01, --floor 1 (%%), --ci-level 0.95; --metric NAME: its direction and\n"
		"floor; --gate: exit 1 on a regression for that direction, 3 when undecided\n"
		"(need-more-runs, a change in an unknown direction, or one constant value at\n"
		"both sides). Exit 0, 1 (--gate), 2 usage or input error, 3 (--gate).\n");
	return 2;
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

static int load(const char *path, double **v, size_t *n)
{
	struct err e;

	if (numlist_load(path, MAX_FILE, v, n, &e)) {
		/* a file that cannot be read is named by its message; a line is not */
		if (e.id == ERR_NOT_FOUND || e.id == ERR_TOO_LARGE || e.id == ERR_IO)
			fprintf(stderr, "regtrack: %s\n", e.message);
		else
			fprintf(stderr, "regtrack: '%s': %s\n", path, e.message);
		return -1;
	}
	return 0;
}

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *pair(double a, double b)
{
	json_t *j = json_array();

	json_array_append_new(j, num(a));
	json_array_append_new(j, num(b));
	return j;
}

static const char *direction_name(int higher)
{
	return higher == 1 ? "higher-is-better" : higher == 0 ? "lower-is-better" : "unknown";
}

/*
 * The gate over one comparison r of a metric whose direction is higher
 * (1, 0, -1 unknown), the rule of README's "compare --gate" for one row:
 * CLI_EXIT_REGRESSION for a significant regression; CLI_EXIT_UNDECIDED
 * when both sides are one constant value (no evidence either way), when
 * the verdict is need-more-runs (a drop too few runs cannot decide never
 * passes) or when it changed in an unknown direction; else CLI_EXIT_OK.
 * One line on stderr for each but a pass.
 */
static int gate_exit(const struct compare_result *r, int higher)
{
	enum change_kind k = compare_change_kind(r, higher);

	if (k == CHANGE_REGRESSION) {
		fprintf(stderr,
			"regtrack: gate: regression: %+.1f%% (Hodges-Lehmann shift; means %+.1f%%; "
			"p %.2g)\n",
			r->hl_pct, r->change_pct, r->p_value);
		return CLI_EXIT_REGRESSION;
	}
	if (r->constant) {
		fputs("regtrack: gate: undecided: every run of both sides is one constant value: "
		      "no evidence\n",
		      stderr);
		return CLI_EXIT_UNDECIDED;
	}
	if (r->verdict == VERDICT_NEED_MORE_RUNS && (!r->a.n || !r->b.n)) {
		fprintf(stderr,
			"regtrack: gate: undecided: need-more-runs: %zu vs %zu runs: the %s has no "
			"runs\n",
			r->a.n, r->b.n, r->a.n ? "head" : "base");
		return CLI_EXIT_UNDECIDED;
	}
	if (r->verdict == VERDICT_NEED_MORE_RUNS && r->outliers_differ) {
		fprintf(stderr,
			"regtrack: gate: undecided: part of the runs moved: %zu of %zu head runs "
			"are outliers against %zu of %zu base runs (Hodges-Lehmann shift %+.1f%%; "
			"means %+.1f%%; p %.2g): not one shift, look at the runs\n",
			r->outliers_b, r->b.n, r->outliers_a, r->a.n, r->hl_pct, r->change_pct,
			r->p_value);
		return CLI_EXIT_UNDECIDED;
	}
	if (r->verdict == VERDICT_NEED_MORE_RUNS) {
		fprintf(stderr,
			"regtrack: gate: undecided: need-more-runs: %+.1f%% with %zu vs %zu runs "
			"(Hodges-Lehmann shift; means %+.1f%%; p %.2g, the least these runs can "
			"reach %.2g): run more at both sides\n",
			r->hl_pct, r->a.n, r->b.n, r->change_pct, r->p_value, r->min_p);
		return CLI_EXIT_UNDECIDED;
	}
	if (k == CHANGE_UNKNOWN) {
		fprintf(stderr,
			"regtrack: gate: undecided: %+.1f%% in a direction the metric does not "
			"know (Hodges-Lehmann shift; p %.2g): give --gate higher or lower\n",
			r->hl_pct, r->p_value);
		return CLI_EXIT_UNDECIDED;
	}
	return CLI_EXIT_OK;
}

int cmd_compare_samples(int argc, char **argv)
{
	struct compare_opts o;
	struct compare_result r;
	const char *files[2] = { NULL, NULL }, *metric = NULL, *gate = NULL;
	double *a = NULL, *b = NULL;
	size_t na, nb, nfiles = 0;
	int floor_set = 0, higher = -1, rc = 0;
	json_t *j;
	char *s;

	compare_opts_init(&o);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			usage();
			return 0;
		}
		if (!strcmp(arg, "--alpha") || !strcmp(arg, "--floor") ||
		    !strcmp(arg, "--ci-level") || !strcmp(arg, "--metric") ||
		    !strcmp(arg, "--gate")) {
			const char *val;

			if (i + 1 >= argc)
				return usage();
			val = argv[++i];
			if (!strcmp(arg, "--alpha") && parse_double(arg, val, &o.alpha))
				return 2;
			if (!strcmp(arg, "--floor")) {
				if (parse_double(arg, val, &o.floor_pct))
					return 2;
				o.monitor_floor_pct = o.floor_pct;
				floor_set = 1;
			}
			if (!strcmp(arg, "--ci-level") && parse_double(arg, val, &o.ci_level))
				return 2;
			if (!strcmp(arg, "--metric"))
				metric = val;
			if (!strcmp(arg, "--gate"))
				gate = val;
			continue;
		}
		if (arg[0] == '-' && arg[1]) {
			fprintf(stderr, "regtrack: compare-samples: unknown option '%s'\n", arg);
			return usage();
		}
		if (nfiles == 2)
			return usage();
		files[nfiles++] = arg;
	}
	if (nfiles != 2)
		return usage();
	if (!(o.alpha > 0 && o.alpha < 1) || !(o.ci_level > 0 && o.ci_level < 1) ||
	    !(o.floor_pct >= 0)) {
		fprintf(stderr,
			"regtrack: --alpha and --ci-level must lie in (0, 1), --floor >= 0\n");
		return 2;
	}
	if (gate && strcmp(gate, "higher") && strcmp(gate, "lower") && strcmp(gate, "auto"))
		return usage();
	if (gate && !strcmp(gate, "auto") && !metric) {
		fprintf(stderr, "regtrack: --gate auto needs --metric NAME\n");
		return 2;
	}
	if (metric) {
		higher = metric_higher_is_better(metric);
		if (!floor_set)
			o.floor_pct = compare_opts_floor(&o, metric);
	}
	if (gate && strcmp(gate, "auto"))
		higher = !strcmp(gate, "higher");
	if (load(files[0], &a, &na) || load(files[1], &b, &nb)) {
		free(a);
		return 2;
	}
	compare_samples(a, na, b, nb, &o, &r);

	j = json_object();
	json_object_set_new(j, "n", json_pack("[II]", (json_int_t)r.a.n, (json_int_t)r.b.n));
	json_object_set_new(j, "mean", pair(r.a.mean, r.b.mean));
	json_object_set_new(j, "median", pair(r.a.median, r.b.median));
	json_object_set_new(j, "stddev_pct", pair(r.a.stddev_pct, r.b.stddev_pct));
	json_object_set_new(j, "min", pair(r.a.min, r.b.min));
	json_object_set_new(j, "max", pair(r.a.max, r.b.max));
	json_object_set_new(j, "change_pct", num(r.change_pct));
	json_object_set_new(j, "ci_pct", pair(r.ci_lo_pct, r.ci_hi_pct));
	json_object_set_new(j, "ci_level", num(o.ci_level));
	json_object_set_new(j, "hl_pct", num(r.hl_pct));
	json_object_set_new(j, "shift", num(r.shift));
	json_object_set_new(j, "moved",
			    json_string(r.direction > 0 ? "up" :
					r.direction < 0 ? "down" :
							  "none"));
	json_object_set_new(j, "outliers",
			    json_pack("[II]", (json_int_t)r.outliers_a, (json_int_t)r.outliers_b));
	json_object_set_new(j, "outliers_differ", json_boolean(r.outliers_differ));
	json_object_set_new(j, "p_value", num(r.p_value));
	json_object_set_new(j, "welch_p", num(r.welch_p));
	json_object_set_new(j, "min_p", num(r.min_p));
	json_object_set_new(j, "exact", json_boolean(r.exact));
	json_object_set_new(j, "log_scale", json_boolean(r.log_scale));
	json_object_set_new(j, "alpha", num(o.alpha));
	json_object_set_new(j, "floor_pct", num(o.floor_pct));
	json_object_set_new(j, "verdict", json_string(verdict_name(r.verdict)));
	json_object_set_new(j, "direction", json_string(direction_name(higher)));
	json_object_set_new(j, "change",
			    json_string(change_kind_name(compare_change_kind(&r, higher))));
	s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	puts(s);
	free(s);
	json_decref(j);
	if (gate)
		rc = gate_exit(&r, higher);
	free(a);
	free(b);
	return rc;
}
