/* The regression records and the detection queue as typed values (see db/regressions.h). */
#include "server/db/regressions.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "buf.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- helpers --------------------------------------------------------------- */

static int run(struct db_conn *c, enum db_stmt st, int n, const char *const *p, struct err *e)
{
	PGresult *r = db_exec(c, st, n, p, e);

	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

static long long get_ll(PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static double get_num(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NAN : strtod(PQgetvalue(r, row, col), NULL);
}

/* a float8 parameter: NULL for NAN and infinities */
static const char *num_param(char *b, size_t sz, double v)
{
	if (!isfinite(v))
		return NULL;
	snprintf(b, sz, "%.17g", v);
	return b;
}

/* --- the detection queue ---------------------------------------------------- */

int db_detect_claim(struct db_conn *c, long long *queue_id, long long *setup_id, struct err *e)
{
	PGresult *r = db_exec(c, ST_DETECT_CLAIM, 0, NULL, e);

	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	*queue_id = get_ll(r, 0, 0);
	*setup_id = get_ll(r, 0, 1);
	PQclear(r);
	return 1;
}

static int queue_run(struct db_conn *c, enum db_stmt st, long long queue_id, struct err *e)
{
	char qid[24];
	const char *p[1] = { qid };

	snprintf(qid, sizeof(qid), "%lld", queue_id);
	return run(c, st, 1, p, e);
}

int db_detect_done(struct db_conn *c, long long queue_id, struct err *e)
{
	return queue_run(c, ST_DETECT_DONE, queue_id, e);
}

int db_detect_release(struct db_conn *c, long long queue_id, struct err *e)
{
	return queue_run(c, ST_DETECT_RELEASE, queue_id, e);
}

int db_detect_listen(struct db_conn *c, struct err *e)
{
	/* the channel of detect_queue's trigger (sql/0003_regressions.sql) */
	return db_cmd(c, "LISTEN regtrack_detect", e);
}

int db_detect_requeue_stale(struct db_conn *c, struct err *e)
{
	return run(c, ST_DETECT_REQUEUE_STALE, 0, NULL, e);
}

/* --- records ---------------------------------------------------------------- */

int db_regr_covering(struct db_conn *c, long long setup_id, long long metric_id,
		     long long good_commit, long long bad_commit, long long *id, struct err *e)
{
	char ids[4][24];
	const char *p[4] = { ids[0], ids[1], ids[2], ids[3] };
	PGresult *r;
	int found;

	snprintf(ids[0], 24, "%lld", setup_id);
	snprintf(ids[1], 24, "%lld", metric_id);
	snprintf(ids[2], 24, "%lld", good_commit);
	snprintf(ids[3], 24, "%lld", bad_commit);
	r = db_exec(c, ST_REGR_COVERING, 4, p, e);
	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		*id = get_ll(r, 0, 0);
	PQclear(r);
	return found;
}

int db_regr_triaged_metrics(struct db_conn *c, long long setup_id, long long **ids, size_t *n,
			    struct err *e)
{
	char sb[24];
	const char *p[1] = { sb };
	PGresult *r;

	*ids = NULL;
	*n = 0;
	snprintf(sb, sizeof(sb), "%lld", setup_id);
	r = db_exec(c, ST_REGR_TRIAGED_METRICS, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*ids = xmalloc((size_t)PQntuples(r) * sizeof(**ids));
		for (int i = 0; i < PQntuples(r); i++)
			(*ids)[i] = get_ll(r, i, 0);
		*n = (size_t)PQntuples(r);
	}
	PQclear(r);
	return 0;
}

int db_regr_upsert(struct db_conn *c, const struct db_regr_upsert *u, struct db_regr_upserted *out,
		   struct err *e)
{
	char ids[4][24], nums[23][32];
	const char *p[31];
	PGresult *r;

	snprintf(ids[0], 24, "%lld", u->setup_id);
	snprintf(ids[1], 24, "%lld", u->metric_id);
	snprintf(ids[2], 24, "%lld", u->good_commit);
	snprintf(ids[3], 24, "%lld", u->bad_commit);
	p[0] = ids[0];
	p[1] = ids[1];
	p[2] = ids[2];
	p[3] = ids[3];
	p[4] = u->kind;
	p[5] = num_param(nums[0], 32, u->change_pct);
	p[6] = num_param(nums[1], 32, u->ci_lo_pct);
	p[7] = num_param(nums[2], 32, u->ci_hi_pct);
	p[8] = num_param(nums[3], 32, u->p_value);
	p[9] = u->verdict;
	p[10] = num_param(nums[4], 32, u->mean_before);
	p[11] = num_param(nums[5], 32, u->mean_after);
	p[12] = num_param(nums[6], 32, (double)u->n_before);
	p[13] = num_param(nums[7], 32, (double)u->n_after);
	p[14] = num_param(nums[8], 32, (double)u->commits_after);
	p[15] = num_param(nums[9], 32, u->pair_change_pct);
	p[16] = num_param(nums[10], 32, u->pair_p_value);
	p[17] = u->pair_verdict;
	p[18] = num_param(nums[11], 32, u->det_before);
	p[19] = num_param(nums[12], 32, u->det_after);
	p[20] = num_param(nums[13], 32, u->det_change_pct);
	p[21] = num_param(nums[14], 32, u->det_p_value);
	p[22] = u->confirm ? "t" : "f";
	p[23] = num_param(nums[15], 32, u->hl_pct);
	p[24] = num_param(nums[16], 32, u->shift);
	p[25] = num_param(nums[17], 32, (double)u->direction);
	p[26] = num_param(nums[18], 32, (double)u->outliers_before);
	p[27] = num_param(nums[19], 32, (double)u->outliers_after);
	p[28] = num_param(nums[20], 32, u->pair_hl_pct);
	p[29] = num_param(nums[21], 32, (double)u->pair_direction);
	p[30] = num_param(nums[22], 32, u->noise_sigma);
	r = db_exec(c, ST_REGR_UPSERT, 31, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return err_setc(e, ERR_DB, "regr_upsert", "upsert returned no row");
	}
	out->id = get_ll(r, 0, 0);
	out->created = PQgetisnull(r, 0, 1);
	snprintf(out->old_state, sizeof(out->old_state), "%s", PQgetvalue(r, 0, 1));
	snprintf(out->new_state, sizeof(out->new_state), "%s", PQgetvalue(r, 0, 2));
	PQclear(r);
	return 0;
}

int db_regr_undetect(struct db_conn *c, long long setup_id, const long long *kept, size_t n,
		     size_t *withdrawn, size_t *undetected, struct err *e)
{
	char idb[24];
	struct buf ids = BUF_INIT(0);
	const char *p[2] = { idb, NULL };
	PGresult *r;
	int over = buf_addch(&ids, '{');

	for (size_t i = 0; i < n; i++)
		over |= buf_addf(&ids, "%s%lld", i ? "," : "", kept[i]);
	over |= buf_addch(&ids, '}');
	if (over)
		abort(); /* no cap: only out of memory, which xalloc makes fatal anyway */
	snprintf(idb, sizeof(idb), "%lld", setup_id);
	p[1] = ids.data;
	r = db_exec(c, ST_REGR_UNDETECT, 2, p, e);
	buf_release(&ids);
	if (!r)
		return -1;
	*withdrawn = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
	*undetected = strtoull(PQgetvalue(r, 0, 1), NULL, 10);
	PQclear(r);
	return 0;
}

int db_regr_set_state(struct db_conn *c, long long id, const char *state, char *from, char *to,
		      struct err *e)
{
	char idb[24];
	const char *p[2] = { idb, state };
	PGresult *r;

	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_REGR_SET_STATE, 2, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	snprintf(from, 16, "%s", PQgetvalue(r, 0, 0));
	snprintf(to, 16, "%s", PQgetvalue(r, 0, 1));
	PQclear(r);
	return 1;
}

int db_regr_history_add(struct db_conn *c, long long id, const char *who, long long token_id,
			const char *from, const char *to, const char *note, struct err *e)
{
	char idb[24], tokb[24];
	const char *p[6] = { idb, who, token_id ? tokb : NULL, from, to, note };

	snprintf(idb, sizeof(idb), "%lld", id);
	snprintf(tokb, sizeof(tokb), "%lld", token_id);
	return run(c, ST_REGR_HISTORY_ADD, 6, p, e);
}

int db_series_change_points(struct db_conn *c, long long setup_id, const char *metric,
			    struct db_change_point **out, size_t *n, struct err *e)
{
	char idb[24];
	const char *p[2] = { idb, metric };
	PGresult *r;

	*out = NULL;
	*n = 0;
	snprintf(idb, sizeof(idb), "%lld", setup_id);
	r = db_exec(c, ST_SERIES_CHANGE_POINTS, 2, p, e);
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*n = (size_t)PQntuples(r);
		*out = xcalloc(*n, sizeof(**out));
	}
	for (int i = 0; i < PQntuples(r); i++) {
		struct db_change_point *cp = &(*out)[i];

		cp->regression_id = get_ll(r, i, 0);
		snprintf(cp->commit, sizeof(cp->commit), "%s", PQgetvalue(r, i, 1));
		snprintf(cp->good_commit, sizeof(cp->good_commit), "%s", PQgetvalue(r, i, 2));
		cp->before = get_num(r, i, 3);
		cp->after = get_num(r, i, 4);
		cp->change_pct = get_num(r, i, 5);
		cp->p_value = get_num(r, i, 6);
		snprintf(cp->kind, sizeof(cp->kind), "%s", PQgetvalue(r, i, 7));
		snprintf(cp->state, sizeof(cp->state), "%s", PQgetvalue(r, i, 8));
		cp->hl_pct = get_num(r, i, 9);
		cp->direction = PQgetisnull(r, i, 10) ? 0 : (int)get_ll(r, i, 10);
	}
	PQclear(r);
	return 0;
}

/* --- the API's JSON ---------------------------------------------------------- */

json_t *db_regressions_json(struct db_conn *c, const char *state, const char *kind,
			    const char *testcase, const char *metric, long long limit, int leaders,
			    struct err *e)
{
	char lim[24];
	const char *p[6] = { state, kind, testcase, metric, lim, leaders ? "t" : NULL };
	PGresult *r;
	json_t *j;

	snprintf(lim, sizeof(lim), "%lld", limit);
	r = db_exec(c, ST_REGRESSIONS_JSON, 6, p, e);
	if (!r)
		return NULL;
	j = json_loads(PQgetvalue(r, 0, 0), 0, NULL);
	PQclear(r);
	if (!j)
		err_setc(e, ERR_DB, "", "bad JSON from the database");
	return j;
}

static int one_json(struct db_conn *c, enum db_stmt st, const char *id, json_t **out, struct err *e)
{
	const char *p[1] = { id };
	PGresult *r = db_exec(c, st, 1, p, e);

	*out = NULL;
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	*out = json_loads(PQgetvalue(r, 0, 0), 0, NULL);
	PQclear(r);
	if (!*out)
		return err_setc(e, ERR_DB, db_stmt_def(st)->name, "bad JSON from the database");
	return 1;
}

int db_regression_json(struct db_conn *c, const char *id, json_t **out, struct err *e)
{
	return one_json(c, ST_REGRESSION_JSON, id, out, e);
}

int db_regression_group_json(struct db_conn *c, const char *id, json_t **out, struct err *e)
{
	return one_json(c, ST_REGRESSION_GROUP_JSON, id, out, e);
}

int db_regression_history_json(struct db_conn *c, const char *id, json_t **out, struct err *e)
{
	return one_json(c, ST_REGRESSION_HISTORY_JSON, id, out, e);
}

int db_regression_story_json(struct db_conn *c, const char *id, json_t **out, struct err *e)
{
	return one_json(c, ST_REGRESSION_STORY_JSON, id, out, e);
}

/* ST_REGRESSION_ALSO_SEEN's columns */
enum { AS_SELF_ARCH, AS_ARCH, AS_REGRESSION_ID, AS_HL_PCT, AS_CHANGE_PCT, AS_BISECT, AS_SAME_FB };

int db_regression_story(struct db_conn *c, long long id, struct db_story *out, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };
	PGresult *r;
	int n;

	memset(out, 0, sizeof(*out));
	r = db_execp(c, ST_REGRESSION_ALSO_SEEN, 1, p, 0, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	if (!n) {
		PQclear(r);
		return 0;
	}
	out->res = db_res_of(r);
	out->arch = PQgetisnull(r, 0, AS_SELF_ARCH) ? NULL : PQgetvalue(r, 0, AS_SELF_ARCH);
	out->also = xcalloc((size_t)n, sizeof(*out->also));
	for (int i = 0; i < n; i++) {
		struct db_also_seen *a = &out->also[out->nr_also];

		if (PQgetisnull(r, i, AS_ARCH))
			continue; /* the one row of a record seen nowhere else */
		a->arch = PQgetvalue(r, i, AS_ARCH);
		a->regression_id = get_ll(r, i, AS_REGRESSION_ID);
		a->hl_pct = get_num(r, i, AS_HL_PCT);
		a->change_pct = get_num(r, i, AS_CHANGE_PCT);
		a->bisect_id = PQgetisnull(r, i, AS_BISECT) ? 0 : get_ll(r, i, AS_BISECT);
		a->same_first_bad = PQgetvalue(r, i, AS_SAME_FB)[0] == 't';
		out->nr_also++;
	}
	return 1;
}

void db_story_free(struct db_story *s)
{
	PQclear(db_pgres(s->res));
	free(s->also);
	memset(s, 0, sizeof(*s));
}

int db_tip_job(struct db_conn *c, long long setup_id, long long commit_id, long long *job_id,
	       char *branch, size_t size, struct err *e)
{
	char ids[2][24];
	const char *p[2] = { ids[0], ids[1] };
	PGresult *r;
	int found;

	snprintf(ids[0], 24, "%lld", setup_id);
	snprintf(ids[1], 24, "%lld", commit_id);
	r = db_exec(c, ST_TIP_JOB, 2, p, e);
	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found) {
		*job_id = get_ll(r, 0, 0);
		snprintf(branch, size, "%s", PQgetvalue(r, 0, 1));
	}
	PQclear(r);
	return found;
}

long db_tip_request(struct db_conn *c, long long job_id, long long prev, long long tip, long runs,
		    struct err *e)
{
	char ids[4][24];
	const char *p[4] = { ids[0], ids[1], ids[2], ids[3] };

	snprintf(ids[0], 24, "%lld", job_id);
	snprintf(ids[1], 24, "%lld", prev);
	snprintf(ids[2], 24, "%lld", tip);
	snprintf(ids[3], 24, "%ld", runs);
	return (long)db_rows(c, ST_TIP_REQUEST, 4, p, e);
}

int db_tip_records(struct db_conn *c, long long setup_id, long long commit_id, long long **metric,
		   long long **id, size_t *n, struct err *e)
{
	char ids[2][24];
	const char *p[2] = { ids[0], ids[1] };
	PGresult *r;

	*metric = *id = NULL;
	*n = 0;
	snprintf(ids[0], 24, "%lld", setup_id);
	snprintf(ids[1], 24, "%lld", commit_id);
	r = db_exec(c, ST_TIP_RECORD, 2, p, e);
	if (!r)
		return -1;
	*n = (size_t)PQntuples(r);
	*metric = xcalloc(*n + 1, sizeof(**metric));
	*id = xcalloc(*n + 1, sizeof(**id));
	for (size_t i = 0; i < *n; i++) {
		(*metric)[i] = get_ll(r, (int)i, 0);
		(*id)[i] = get_ll(r, (int)i, 1);
	}
	PQclear(r);
	return 0;
}

int db_tip_commits(struct db_conn *c, long long setup_id, long long **ids, size_t *n, struct err *e)
{
	char b[24];
	const char *p[1] = { b };
	PGresult *r;

	*ids = NULL;
	*n = 0;
	snprintf(b, sizeof(b), "%lld", setup_id);
	r = db_exec(c, ST_TIP_COMMITS, 1, p, e);
	if (!r)
		return -1;
	*n = (size_t)PQntuples(r);
	*ids = xcalloc(*n + 1, sizeof(**ids));
	for (size_t i = 0; i < *n; i++)
		(*ids)[i] = get_ll(r, (int)i, 0);
	PQclear(r);
	return 0;
}

int db_regr_set_environment(struct db_conn *c, long long id, const char *env, struct err *e)
{
	char b[24];
	const char *p[2] = { b, env };
	PGresult *r;

	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_REGR_ENVIRONMENT, 2, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}
