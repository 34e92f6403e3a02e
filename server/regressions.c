#include "server/regressions.h"
#include "server/db/db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

const char *const regression_states[] = {
	"new", "confirmed", "bisecting", "bisected", "reported", "fixed", "invalid", "wontfix",
	NULL
};

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

int regression_kind_valid(const char *s)
{
	return find(kinds, s) != NULL;
}

int regression_transition(PGconn *c, long long id, const char *state, const char *who,
			  long long token_id, const char *note, const char **from, const char **to,
			  struct err *e)
{
	char idb[24], tokb[24];
	const char *p[2] = { idb, state };
	const char *f, *t;
	PGresult *r;

	if (from)
		*from = "";
	if (to)
		*to = "";
	if (state && !regression_state_valid(state))
		return err_set(e, 400, "invalid_field", "state", "'%s' is not a regression state",
			       state);
	snprintf(idb, sizeof(idb), "%lld", id);
	snprintf(tokb, sizeof(tokb), "%lld", token_id);
	r = db_exec(c, ST_REGR_SET_STATE, 2, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return err_set(e, 404, "not_found", "id", "no regression %lld", id);
	}
	f = find(regression_states, PQgetvalue(r, 0, 0));
	t = find(regression_states, PQgetvalue(r, 0, 1));
	PQclear(r);
	{
		const char *h[6] = { idb, who, token_id ? tokb : NULL, f, t, note };
		r = db_exec(c, ST_REGR_HISTORY_ADD, 6, h, e);
	}
	if (!r)
		return -1;
	PQclear(r);
	if (from)
		*from = f ? f : "";
	if (to)
		*to = t ? t : "";
	return 0;
}

static json_t *num_or_null(PGresult *r, int row, int col)
{
	double v;

	if (PQgetisnull(r, row, col))
		return json_null();
	v = strtod(PQgetvalue(r, row, col), NULL);
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *regression_change_points(PGconn *c, long long setup_id, const char *metric,
				 const char *const *shas, size_t nr_shas, struct err *e)
{
	char idb[24];
	const char *p[2] = { idb, metric };
	PGresult *r;
	json_t *out;

	snprintf(idb, sizeof(idb), "%lld", setup_id);
	r = db_exec(c, ST_SERIES_CHANGE_POINTS, 2, p, e);
	if (!r)
		return NULL;
	out = json_array();
	for (int i = 0; i < PQntuples(r); i++) {
		const char *bad = PQgetvalue(r, i, 1);
		size_t idx = (size_t)-1;

		for (size_t k = 0; k < nr_shas; k++)
			if (shas[k] && !strcmp(shas[k], bad)) {
				idx = k;
				break;
			}
		if (idx == (size_t)-1)
			continue;
		json_array_append_new(out, json_pack("{s:I,s:s,s:s,s:o,s:o,s:o,s:o,s:I,s:s,s:s}",
			"index", (json_int_t)idx, "commit", bad, "good_commit", PQgetvalue(r, i, 2),
			"before", num_or_null(r, i, 3), "after", num_or_null(r, i, 4),
			"change_pct", num_or_null(r, i, 5), "p_value", num_or_null(r, i, 6),
			"regression_id", (json_int_t)strtoll(PQgetvalue(r, i, 0), NULL, 10),
			"kind", PQgetvalue(r, i, 7), "state", PQgetvalue(r, i, 8)));
	}
	PQclear(r);
	return out;
}
