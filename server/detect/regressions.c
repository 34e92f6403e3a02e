#include "server/detect/regressions.h"
#include "server/db/regressions.h"
#include "evidence.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const regression_states[] = { "new",   "confirmed", "bisecting", "bisected", "reported",
					  "fixed", "invalid",	"wontfix",   NULL };

static const char *const kinds[] = { "regression", "improvement", "change", NULL };

static const char *find(const char *const *list, const char *s)
{
	for (; s && *list; list++)
		if (!strcmp(*list, s))
			return *list;
	return NULL;
}

int regression_state_valid(const char *s)
{
	return find(regression_states, s) != NULL;
}

int regression_state_label(const char *s)
{
	static const char *const true_change[] = { "confirmed", "bisecting", "bisected", "reported",
						   "fixed",	"wontfix",   NULL };

	if (find(true_change, s))
		return 1;
	if (s && !strcmp(s, "invalid"))
		return -1;
	return 0;
}

int regression_kind_valid(const char *s)
{
	return find(kinds, s) != NULL;
}

/* rec's number at key (null or missing: NAN) */
static double num_at(const json_t *rec, const char *key)
{
	const json_t *v = json_object_get(rec, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* x as JSON, null when not finite */
static json_t *real_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

json_t *regression_evidence_json(const json_t *rec)
{
	const json_t *ci = json_object_get(rec, "ci_pct");
	struct evidence ev;
	struct buf text = BUF_INIT(1024);
	double n = num_at(rec, "commits_after");
	json_t *o;

	evidence_init(&ev);
	ev.commits_after = n > 0 ? (size_t)n : 0;
	ev.shift_pct = num_at(rec, "hl_pct");
	if (json_is_number(json_array_get(ci, 0)) && json_is_number(json_array_get(ci, 1))) {
		ev.ci_lo_pct = json_number_value(json_array_get(ci, 0));
		ev.ci_hi_pct = json_number_value(json_array_get(ci, 1));
	}
	ev.shift = num_at(rec, "shift");
	ev.before = num_at(rec, "mean_before");
	ev.after = num_at(rec, "mean_after");
	ev.noise_sigma = num_at(rec, "noise_sigma");
	ev.noise_cycle = num_at(rec, "noise_cycle") > 0 ? (size_t)num_at(rec, "noise_cycle") : 0;
	if (evidence_text(&ev, &text))
		abort(); /* a sentence of a few dozen bytes: the 1 KiB cap is never reached */
	o = json_pack("{s:I, s:o, s:[o, o], s:o, s:o, s:o}", "commits_after",
		      (json_int_t)ev.commits_after, "shift_pct", real_or_null(ev.shift_pct),
		      "ci_pct", real_or_null(ev.ci_lo_pct), real_or_null(ev.ci_hi_pct), "shift",
		      real_or_null(ev.shift), "noise_sigma", real_or_null(ev.noise_sigma),
		      "spread_ratio", real_or_null(evidence_spread_ratio(&ev)));
	json_object_set_new(o, "noise_cycle", json_integer((json_int_t)ev.noise_cycle));
	json_object_set_new(o, "text", text.len ? json_stringn(text.data, text.len) : json_null());
	buf_release(&text);
	return o;
}

int regression_transition(struct db_conn *c, long long id, const char *state, const char *who,
			  long long token_id, const char *note, const char **from, const char **to,
			  struct err *e)
{
	char before[16], after[16];
	const char *f, *t;
	int got;

	if (from)
		*from = "";
	if (to)
		*to = "";
	if (state && !regression_state_valid(state))
		return err_setc(e, ERR_INVALID_FIELD, "state", "'%s' is not a regression state",
				state);
	got = db_regr_set_state(c, id, state, before, after, e);
	if (got < 0)
		return -1;
	if (!got)
		return err_setc(e, ERR_NOT_FOUND, "id", "no regression %lld", id);
	f = find(regression_states, before);
	t = find(regression_states, after);
	if (db_regr_history_add(c, id, who, token_id, f, t, note, e))
		return -1;
	if (from)
		*from = f ? f : "";
	if (to)
		*to = t ? t : "";
	return 0;
}

/* the note of record id's newest history row into `state` (NULL: none); *out a new string */
static int newest_note(struct db_conn *c, long long id, const char *state, char **out,
		       struct err *e)
{
	json_t *h, *row;
	const char *note = NULL;
	int got = db_regression_history_json(c, id, &h, e);

	*out = NULL;
	if (got < 0)
		return -1;
	if (!got)
		return 0;
	for (size_t i = json_array_size(h); i-- > 0;) {
		row = json_array_get(h, i);
		if (!strcmp(json_string_value(json_object_get(row, "to")) ?: "", state)) {
			note = json_string_value(json_object_get(row, "note"));
			break;
		}
	}
	*out = note ? xstrdup(note) : NULL;
	json_decref(h);
	return 0;
}

int regression_triage(struct db_conn *c, long long id, const char *state, long long token_id,
		      const char *note, int *written, struct err *e)
{
	char before[16], after[16], *had = NULL;
	int got, same;

	*written = 0;
	if (state && !regression_state_valid(state))
		return err_setc(e, ERR_INVALID_FIELD, "state", "'%s' is not a regression state",
				state);
	/* the row locked and its state read, so two clicks at once see each other */
	got = db_regr_set_state(c, id, NULL, before, after, e);
	if (got < 0)
		return -1;
	if (!got)
		return err_setc(e, ERR_NOT_FOUND, "id", "no regression %lld", id);
	if (state && !strcmp(before, state)) {
		if (!note || !note[strspn(note, " \t\r\n\f\v")])
			return 0; /* the same state, nothing to add (the page's form unchanged) */
		if (newest_note(c, id, state, &had, e))
			return -1;
		same = had && !strcmp(had, note);
		free(had);
		if (same)
			return 0;
		state = NULL; /* a new note on the state it has: a note alone */
	}
	*written = 1;
	return regression_transition(c, id, state, NULL, token_id, note, NULL, NULL, e);
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *regression_change_points(struct db_conn *c, long long setup_id, const char *metric,
				 const char *const *shas, size_t nr_shas, struct err *e)
{
	struct db_change_point *cps;
	size_t n;
	json_t *out;

	if (db_series_change_points(c, setup_id, metric, &cps, &n, e))
		return NULL;
	out = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct db_change_point *cp = &cps[i];
		size_t idx = (size_t)-1;

		for (size_t k = 0; k < nr_shas; k++)
			if (shas[k] && !strcmp(shas[k], cp->commit)) {
				idx = k;
				break;
			}
		if (idx == (size_t)-1)
			continue;
		json_array_append_new(out,
				      json_pack("{s:I,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:s,s:s}",
						"index", (json_int_t)idx, "commit", cp->commit,
						"good_commit", cp->good_commit, "before",
						num_or_null(cp->before), "after",
						num_or_null(cp->after), "change_pct",
						num_or_null(cp->change_pct), "p_value",
						num_or_null(cp->p_value), "hl_pct",
						num_or_null(cp->hl_pct), "direction",
						cp->direction ? json_integer(cp->direction) :
								json_null(),
						"regression_id", (json_int_t)cp->regression_id,
						"kind", cp->kind, "state", cp->state));
	}
	free(cps);
	return out;
}
