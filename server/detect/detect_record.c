/*
 * The records detection writes (detect_int.h): a record's kind and
 * comparison fields, its history, the kept ids, the sides of a series and
 * their comparison by the setup's A/A spread. Used by detect.c (the step
 * detector's records) and detect_tip.c (the reports at the tip).
 */
#include "server/detect/detect_int.h"
#include "server/db/db.h"
#include "buf.h"
#include "evidence.h"
#include "xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the record's kind: a direction (+1 rose, -1 fell) for a metric with hib (1, 0, -1 unknown) */
const char *detect_kind_of(int direction, int hib)
{
	switch (change_kind_of(direction, hib)) {
	case CHANGE_REGRESSION:
		return "regression";
	case CHANGE_IMPROVEMENT:
		return "improvement";
	default:
		return "change";
	}
}

/* samples of series positions [lo, hi) as one borrowed range of vals */
const double *detect_side(const struct series *s, size_t lo, size_t hi, size_t *n)
{
	*n = hi > lo ? s->first[hi - 1] + s->count[hi - 1] - s->first[lo] : 0;
	return s->vals + (hi > lo ? s->first[lo] : 0);
}

/*
 * A % in a note that no person reads: infinite or NaN (the HL shift of a
 * base of zeros), or 1e9 and past (LKP's %change of a zero base, 1e-100,
 * has a hundred digits). The number at note[i] (a sign, digits, "inf" or
 * "nan", not inside a word) followed by '%': 1 with *len its length with
 * the '%', and *v.
 */
static int odd_pct(const char *note, size_t i, size_t *len, double *v)
{
	char *end;

	if (i && (isalnum((unsigned char)note[i - 1]) || note[i - 1] == '.'))
		return 0;
	if (!strchr("+-0123456789in", note[i]) || !note[i])
		return 0;
	*v = strtod(note + i, &end);
	if (end == note + i || *end != '%' || (isfinite(*v) && fabs(*v) < 1e9))
		return 0;
	*len = (size_t)(end - (note + i)) + 1;
	return 1;
}

/*
 * note with its odd %s (odd_pct) in words, appended to out: the first one
 * followed by parenthesised figures ("+inf% (CI +inf% .. +inf%; means
 * +4992855...%)") becomes, with them, the levels of record id's two sides,
 * "moved from 0 to 5 (the base is 0: no %change)"; another infinite one
 * "the base is 0: no %change", a finite one 3 significant digits. 1 when
 * note had one (out the note to write), 0 when it is left as it is, -1
 * with e (reading the record).
 */
static int note_in_words(struct db_conn *c, long long id, const char *note, struct buf *out,
			 struct err *e)
{
	double v, before = NAN, after = NAN;
	size_t len, depth, i;
	json_t *rec, *b, *a;
	int got, full = 0, said_levels = 0, any = 0;
	char lo[32], hi[32];

	for (i = 0; note[i] && !any; i++)
		any = odd_pct(note, i, &len, &v);
	if (!any)
		return 0;
	got = db_regression_json(c, id, &rec, e);
	if (got < 0)
		return -1;
	if (got) {
		b = json_object_get(rec, "mean_before");
		a = json_object_get(rec, "mean_after");
		before = json_is_number(b) ? json_number_value(b) : NAN;
		after = json_is_number(a) ? json_number_value(a) : NAN;
		json_decref(rec);
	}
	for (i = 0; note[i];) {
		if (!odd_pct(note, i, &len, &v)) {
			full |= buf_addch(out, note[i++]);
			continue;
		}
		i += len;
		if (!said_levels && isfinite(before) && isfinite(after) &&
		    !strncmp(note + i, " (", 2)) {
			said_levels = 1;
			evidence_level(before, lo);
			evidence_level(after, hi);
			full |= buf_addf(out, "moved from %s to %s%s", lo, hi,
					 before == 0 ? " (the base is 0: no %change)" : "");
			/* the figures that went with it */
			for (depth = 0, i++; note[i]; i++) {
				depth += note[i] == '(';
				depth -= note[i] == ')';
				if (!depth) {
					i++;
					break;
				}
			}
		} else if (isfinite(v)) {
			full |= buf_addf(out, "%+.3g%%", v);
		} else {
			full |= buf_addstr(out, "the base is 0: no %change");
		}
	}
	return full ? 0 : 1; /* a note of a few hundred bytes: out's 4 KiB are never full */
}

int detect_history(struct db_conn *c, long long id, const char *from, const char *to,
		   const char *note, struct err *e)
{
	struct buf words = BUF_INIT(4096);
	int rc = note ? note_in_words(c, id, note, &words, e) : 0;

	if (rc >= 0)
		rc = db_regr_history_add(c, id, "detector", 0, from, to,
					 rc && words.len ? words.data : note, e);
	buf_release(&words);
	return rc;
}

int detect_covering(struct db_conn *c, const struct triaged *t, long long setup_id,
		    long long metric_id, long long good, long long bad, long long *id,
		    struct err *e)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->metric[mid] < metric_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->n || t->metric[lo] != metric_id)
		return 0;
	return db_regr_covering(c, setup_id, metric_id, good, bad, id, e);
}

void detect_kept_add(struct kept *k, long long id)
{
	ALLOC_GROW(k->ids, k->n + 1, k->alloc);
	k->ids[k->n++] = id;
}

/*
 * The fields of a record that come from its comparisons: seg, the runs of
 * the segments either side (the record's size and verdict), and pair, the
 * last good commit's runs against the first bad one's (shown beside it).
 */
void detect_upsert_from(struct db_regr_upsert *u, const struct compare_result *seg,
			const struct compare_result *pair)
{
	u->change_pct = seg->change_pct;
	u->hl_pct = seg->hl_pct;
	u->shift = seg->shift;
	u->ci_lo_pct = seg->ci_lo_pct;
	u->ci_hi_pct = seg->ci_hi_pct;
	u->p_value = seg->p_value;
	u->verdict = verdict_name(seg->verdict);
	u->mean_before = seg->a.mean;
	u->mean_after = seg->b.mean;
	u->n_before = seg->a.n;
	u->n_after = seg->b.n;
	u->outliers_before = seg->outliers_a;
	u->outliers_after = seg->outliers_b;
	u->pair_change_pct = pair->change_pct;
	u->pair_hl_pct = pair->hl_pct;
	u->pair_direction = pair->direction;
	u->pair_p_value = pair->p_value;
	u->pair_verdict = verdict_name(pair->verdict);
}

/*
 * Compares a with b as compare_deterministic() with the setup's A/A spread
 * of the metric from aa (server/detect/aa_history.h; none measured in wall-clock
 * setups: the rank test), the runs of commits before and after (the pair
 * either side of the step) left out of the spread.
 */
void detect_compare_sides(const struct aa_history *aa, long long setup_id, long long metric_id,
			  long long before, long long after, const double *a, size_t na,
			  const double *b, size_t nb, const struct compare_opts *co,
			  struct compare_result *r)
{
	struct aa_spread sp;

	aa_history_spread(aa, setup_id, metric_id, before, after, &sp);
	compare_deterministic(a, na, b, nb, co, aa_spread_usable(&sp), r);
}
