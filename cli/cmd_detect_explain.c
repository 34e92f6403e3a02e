/*
 * regtrack detect's reasons (cli.h, cmd_detect.c's top comment): why each
 * candidate split of the detector's trace was kept or dropped, in JSON and
 * one line each on stderr, and why nothing was found ("none_because").
 */
#include "cli.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats/detect.h"
#include "xalloc.h"

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* a candidate's split as the change points name it: its position with ids, else its group */
static json_int_t cand_index(const struct detect_candidate *d, json_t **idvals)
{
	return (json_int_t)(idvals ? d->index : d->id);
}

/*
 * A candidate's window [start, end) in the numbers its index is given in
 * (cand_index): group numbers when the detector numbered its commits by
 * group (a `value label` file's line indices, counting its nan lines, or
 * "groups"), else commit positions; [first, last + 1) of its commits.
 */
static void cand_window(const struct detect_series *s, const struct detect_candidate *d,
			json_int_t *lo, json_int_t *hi)
{
	*lo = (json_int_t)d->start;
	*hi = (json_int_t)d->end;
	if (s->ids && d->start < d->end && d->end <= s->n) {
		*lo = (json_int_t)s->ids[d->start];
		*hi = (json_int_t)s->ids[d->end - 1] + 1;
	}
}

/*
 * Where the check against the history raised sigma (detect.h 2a): "sigma x2.13:
 * ...", "" when it did not (new, caller frees). The words say why a split the
 * noise model alone would have passed was not flagged.
 */
static char *raised_text(const struct detect_candidate *d)
{
	if (!(d->noise_raised > 1))
		return xstrdup("");
	return xstrfmt("sigma x%.2f: the history moves more than its noise model allowed",
		       d->noise_raised);
}

/*
 * "%.3g sigma" of an effect, or "sigma unknown" where the noise was not
 * estimated (null); " (sigma x2.13: ...)" after it where sigma was raised
 */
static char *effect_text(const struct detect_candidate *d)
{
	char *why = raised_text(d), *out;

	if (!isfinite(d->effect))
		out = xstrdup("sigma unknown");
	else if (*why)
		out = xstrfmt("%.3g sigma (%s)", d->effect, why);
	else
		out = xstrfmt("%.3g sigma", d->effect);
	free(why);
	return out;
}

/*
 * The strongest candidate of the trace: the final estimate (stage 1) with the
 * least p when a split was accepted, else the window candidate with the least
 * p; ties to the larger effect. NULL when the trace is empty.
 */
static const struct detect_candidate *strongest(const struct detect_series *s)
{
	const struct detect_candidate *b = NULL;

	for (size_t i = 0; i < s->ntrace; i++) {
		const struct detect_candidate *d = &s->trace[i];

		if (!b || d->stage > b->stage ||
		    (d->stage == b->stage && (d->p_value < b->p_value ||
					      (d->p_value == b->p_value && d->effect > b->effect))))
			b = d;
	}
	return b;
}

/*
 * the option behind a rule, in brackets, for a message ("" when none); for the
 * rules sigma decides, the raise of sigma (raised_text) too
 */
static char *rule_detail(const struct detect_candidate *d, const struct detect_opts *o)
{
	char *why = raised_text(d), *out;

	switch (d->reason) {
	case DETECT_WEAK:
		out = xstrfmt(" (p %.3g, --p-max %g%s%s)", d->p_value, o->p_max, *why ? "; " : "",
			      why);
		break;
	case DETECT_SMALL:
		out = xstrfmt(" (%+.2f %%, --min-change %g)", d->change_pct, o->min_change_pct);
		break;
	case DETECT_IN_NOISE:
		out = xstrfmt(" (%.3g sigma, min_effect %g%s%s)", d->effect, o->min_effect,
			      *why ? "; " : "", why);
		break;
	default:
		out = xstrdup("");
	}
	free(why);
	return out;
}

/*
 * Why nothing was found: the strongest candidate of the detector's trace
 * (strongest()) and the rule that dropped it. Also on stderr, one line.
 */
json_t *cmd_detect_none_because(const struct detect_series *s, const struct detect_opts *o,
				json_t **idvals)
{
	const struct detect_candidate *d = strongest(s);
	json_t *out = json_object(), *b;
	json_int_t lo, hi;
	char *msg, *detail;

	json_object_set_new(out, "p_max", json_real(o->p_max));
	if (!d) {
		msg = s->n < 2 * o->min_seg ?
			      xstrfmt("too few commits (%zu) for a split with --min-seg %zu on "
				      "each side",
				      s->n, o->min_seg) :
			      xstrfmt("no split was tested (%zu commits, no two levels)", s->n);
		fprintf(stderr, "regtrack: detect: no change point: %s\n", msg);
		json_object_set_new(out, "message", json_string(msg));
		free(msg);
		return out;
	}
	cand_window(s, d, &lo, &hi);
	b = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:[I,I], s:s, s:s}", "index",
		      cand_index(d, idvals), "before", num(d->before), "after", num(d->after),
		      "change_pct", num(d->change_pct), "p_value", num(d->p_value), "effect",
		      num(d->effect), "noise_raised", num(d->noise_raised), "window", lo, hi,
		      "stage", d->stage ? "final" : "window", "reason",
		      detect_reason_text(d->reason));
	if (idvals)
		json_object_set(b, "id", idvals[d->id]);
	json_object_set_new(out, "best_split", b);
	detail = rule_detail(d, o);
	msg = xstrfmt("the strongest candidate (%s, split before commit %lld: median %.6g -> "
		      "%.6g, %+.2f %%, p %.3g) was dropped: %s%s",
		      d->stage ? "final estimate" : "window scan", (long long)cand_index(d, idvals),
		      d->before, d->after, d->change_pct, d->p_value, detect_reason_text(d->reason),
		      detail);
	fprintf(stderr, "regtrack: detect: no change point: %s\n", msg);
	json_object_set_new(out, "message", json_string(msg));
	free(detail);
	free(msg);
	return out;
}

/*
 * --explain: every candidate of the trace, one line each on stderr
 * ("explain: ..."), and the same as the JSON array returned (new).
 */
json_t *cmd_detect_explain(const struct detect_series *s, json_t **idvals)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < s->ntrace; i++) {
		const struct detect_candidate *d = &s->trace[i];
		json_int_t lo, hi;
		json_t *j;
		char *eff = effect_text(d);
		/* a final estimate's levels are as they are, its p and sigma net of the cycle */
		char *cyc = d->cycle ? xstrfmt(" (%snet of a cycle of %zu commits)",
					       d->stage ? "p " : "", d->cycle) :
				       xstrdup("");

		cand_window(s, d, &lo, &hi);
		j = json_pack("{s:s, s:[I,I], s:I}", "stage", d->stage ? "final" : "window",
			      "window", lo, hi, "index", cand_index(d, idvals));

		if (idvals)
			json_object_set(j, "id", idvals[d->id]);
		json_object_set_new(j, "excursion", json_boolean(d->excursion));
		if (d->cycle)
			json_object_set_new(j, "cycle", json_integer((json_int_t)d->cycle));
		json_object_set_new(j, "before", num(d->before));
		json_object_set_new(j, "after", num(d->after));
		json_object_set_new(j, "change_pct", num(d->change_pct));
		json_object_set_new(j, "p_value", num(d->p_value));
		json_object_set_new(j, "noise_sigma", num(d->noise_sigma));
		json_object_set_new(j, "noise_rho", num(d->noise_rho));
		json_object_set_new(j, "noise_raised", num(d->noise_raised));
		json_object_set_new(j, "effect", num(d->effect));
		json_object_set_new(j, "kept", json_boolean(d->reason == DETECT_REPORTED));
		json_object_set_new(j, "reason", json_string(detect_reason_text(d->reason)));
		json_array_append_new(arr, j);
		fprintf(stderr,
			"explain: %s [%lld, %lld) split before commit %lld%s%s: %.6g -> %.6g "
			"(%+.2f %%), p %.3g, %s: %s\n",
			d->stage ? "final estimate" : "window", (long long)lo, (long long)hi,
			(long long)cand_index(d, idvals), d->excursion ? " (excursion)" : "", cyc,
			d->before, d->after, d->change_pct, d->p_value, eff,
			detect_reason_text(d->reason));
		free(eff);
		free(cyc);
	}
	return arr;
}
