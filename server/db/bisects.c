/* The bisects' rows as typed values (see db/bisects.h). */
#include "server/db/bisects.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/pgval.h"
#include "buf.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- helpers --------------------------------------------------------------- */

static long long get_id(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static char *get_dup(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : xstrdup(PQgetvalue(r, row, col));
}

/* runs st for its effect only */
static int run(struct db_conn *c, enum db_stmt st, int n, const char *const *p, struct err *e)
{
	PGresult *r = db_exec(c, st, n, p, e);

	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

/* runs st and returns its first row's first column as an id (0 without a row) */
static long long run_id(struct db_conn *c, enum db_stmt st, int n, const char *const *p,
			struct err *e)
{
	PGresult *r = db_exec(c, st, n, p, e);
	long long id;

	if (!r)
		return -1;
	id = PQntuples(r) ? get_id(r, 0, 0) : 0;
	PQclear(r);
	return id;
}

/* every row's first column as an id */
static int run_ids(struct db_conn *c, enum db_stmt st, int np, const char *const *p,
		   long long **out, size_t *n, struct err *e)
{
	PGresult *r = db_exec(c, st, np, p, e);

	*out = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*out = xcalloc((size_t)PQntuples(r), sizeof(**out));
		for (int i = 0; i < PQntuples(r); i++)
			(*out)[i] = get_id(r, i, 0);
		*n = (size_t)PQntuples(r);
	}
	PQclear(r);
	return 0;
}

/* --- the bisect row --------------------------------------------------------- */

int db_bisect_lock(struct db_conn *c, long long id, struct db_bisect_row *b, struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };
	PGresult *r;

	memset(b, 0, sizeof(*b));
	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_BISECT_LOCK, 1, p, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	b->id = id;
	snprintf(b->state, sizeof(b->state), "%s", PQgetvalue(r, 0, 0));
	b->round = (int)get_id(r, 0, 1);
	b->tree = get_dup(r, 0, 2);
	b->url = get_dup(r, 0, 3);
	b->branches = get_dup(r, 0, 4);
	b->good = get_dup(r, 0, 5);
	b->bad = get_dup(r, 0, 6);
	b->kconfig = get_dup(r, 0, 7);
	b->arch = get_dup(r, 0, 8);
	b->tbox = get_dup(r, 0, 9);
	b->measure = get_dup(r, 0, 10);
	b->runs_per_step = (int)get_id(r, 0, 11);
	b->ref_runs = (int)get_id(r, 0, 12);
	b->max_k = (int)get_id(r, 0, 13);
	b->regression_id = get_id(r, 0, 14);
	b->tree_id = get_id(r, 0, 15);
	b->metric = get_dup(r, 0, 16);
	b->nr_candidates = (int)get_id(r, 0, 17);
	b->level = (int)get_id(r, 0, 18);
	b->level_good = get_dup(r, 0, 19);
	b->level_good_id = get_id(r, 0, 20);
	b->descent = get_dup(r, 0, 21);
	b->params = get_dup(r, 0, 22);
	PQclear(r);
	return 1;
}

void db_bisect_row_release(struct db_bisect_row *b)
{
	free(b->tree);
	free(b->url);
	free(b->branches);
	free(b->good);
	free(b->bad);
	free(b->kconfig);
	free(b->arch);
	free(b->tbox);
	free(b->measure);
	free(b->params);
	free(b->metric);
	free(b->level_good);
	free(b->descent);
	memset(b, 0, sizeof(*b));
}

long long db_bisect_insert(struct db_conn *c, const struct db_bisect_new *b, struct err *e)
{
	char tid[24], gid[24], bid[24], tcid[24], rps[24], rr[24], kk[24], reg[24], tok[24];
	const char *p[15] = { tid,
			      gid,
			      bid,
			      tcid,
			      b->params,
			      b->kconfig,
			      b->compiler,
			      b->arch,
			      b->tbox_group,
			      b->metric,
			      rps,
			      rr,
			      kk,
			      b->regression_id ? reg : NULL,
			      b->token_id ? tok : NULL };

	snprintf(tid, sizeof(tid), "%lld", b->tree_id);
	snprintf(gid, sizeof(gid), "%lld", b->good_id);
	snprintf(bid, sizeof(bid), "%lld", b->bad_id);
	snprintf(tcid, sizeof(tcid), "%lld", b->testcase_id);
	snprintf(rps, sizeof(rps), "%d", b->runs_per_step);
	snprintf(rr, sizeof(rr), "%d", b->ref_runs);
	snprintf(kk, sizeof(kk), "%d", b->k);
	snprintf(reg, sizeof(reg), "%lld", b->regression_id);
	snprintf(tok, sizeof(tok), "%lld", b->token_id);
	return run_id(c, ST_BISECT_INSERT, 15, p, e);
}

int db_bisect_cancel(struct db_conn *c, long long id, const char *reason, struct err *e)
{
	char idb[24];
	const char *p[2] = { idb, reason };
	PGresult *r;
	int n;

	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_BISECT_CANCEL, 2, p, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	PQclear(r);
	return n ? 1 : 0;
}

int db_bisect_finish(struct db_conn *c, const struct db_bisect_end *end, long long *regression_id,
		     struct err *e)
{
	char idb[24], fb[24], conf[32];
	const char *p[9] = { idb,
			     end->state,
			     end->outcome,
			     end->first_bad ? fb : NULL,
			     end->candidates,
			     isfinite(end->confidence) ? conf : NULL,
			     end->reason && *end->reason ? end->reason : NULL,
			     end->verification,
			     end->model };
	long long reg;

	snprintf(idb, sizeof(idb), "%lld", end->id);
	snprintf(fb, sizeof(fb), "%lld", end->first_bad);
	snprintf(conf, sizeof(conf), "%.17g", end->confidence);
	reg = run_id(c, ST_BISECT_FINISH, 9, p, e);
	if (reg < 0)
		return -1;
	*regression_id = reg;
	return 0;
}

int db_bisect_siblings_of(struct db_conn *c, long long id, long long **out, size_t *n,
			  struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };

	snprintf(idb, sizeof(idb), "%lld", id);
	return run_ids(c, ST_BISECT_SIBLINGS_OF, 1, p, out, n, e);
}

int db_bisect_record(struct db_conn *c, long long id, struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };

	snprintf(idb, sizeof(idb), "%lld", id);
	return run(c, ST_BISECT_RECORD, 1, p, e);
}

/* --- levels and rounds ------------------------------------------------------ */

long long db_bisect_commits_insert(struct db_conn *c, long long id, const char *const *shas,
				   size_t n, int level, struct err *e)
{
	char idb[24], lv[24];
	struct buf arr = BUF_INIT(0);
	const char *p[3] = { idb, NULL, lv };
	PGresult *r;
	long long stored;
	int over = buf_addch(&arr, '{');

	for (size_t i = 0; i < n; i++)
		over |= buf_addf(&arr, "%s%s", i ? "," : "", shas[i]);
	over |= buf_addch(&arr, '}');
	if (over) {
		buf_release(&arr);
		return err_setc(e, ERR_INTERNAL, "shas", "too many commits");
	}
	snprintf(idb, sizeof(idb), "%lld", id);
	snprintf(lv, sizeof(lv), "%d", level);
	p[1] = arr.data;
	r = db_exec(c, ST_BISECT_COMMITS_INSERT, 3, p, e);
	buf_release(&arr);
	if (!r)
		return -1;
	stored = strtoll(PQcmdTuples(r), NULL, 10);
	PQclear(r);
	return stored;
}

int db_bisect_start(struct db_conn *c, long long id, size_t nr_candidates, size_t nr_range,
		    struct err *e)
{
	char idb[24], n1[24], n2[24];
	const char *p[3] = { idb, n1, n2 };

	snprintf(idb, sizeof(idb), "%lld", id);
	snprintf(n1, sizeof(n1), "%zu", nr_candidates);
	snprintf(n2, sizeof(n2), "%zu", nr_range);
	return run(c, ST_BISECT_START, 3, p, e);
}

int db_bisect_descend(struct db_conn *c, long long id, int level, long long good_id,
		      const char *descent, struct err *e)
{
	char idb[24], lv[24], gid[24];
	const char *p[4] = { idb, lv, gid, descent };

	snprintf(idb, sizeof(idb), "%lld", id);
	snprintf(lv, sizeof(lv), "%d", level);
	snprintf(gid, sizeof(gid), "%lld", good_id);
	return run(c, ST_BISECT_DESCEND, 4, p, e);
}

int db_bisect_round(struct db_conn *c, long long id, int round, const char *phase,
		    const char *model, struct err *e)
{
	char idb[24], rb[24];
	const char *p[4] = { idb, rb, phase, model };

	snprintf(idb, sizeof(idb), "%lld", id);
	snprintf(rb, sizeof(rb), "%d", round);
	return run(c, ST_BISECT_ROUND, 4, p, e);
}

int db_bisect_candidates(struct db_conn *c, long long id, struct db_bisect_candidate **out,
			 size_t *n, struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };
	PGresult *r;

	*out = NULL;
	*n = 0;
	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_BISECT_CANDIDATES, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*n = (size_t)PQntuples(r);
		*out = xcalloc(*n, sizeof(**out));
		for (size_t i = 0; i < *n; i++) {
			(*out)[i].commit_id = get_id(r, (int)i, 1);
			snprintf((*out)[i].sha, sizeof((*out)[i].sha), "%s",
				 PQgetvalue(r, (int)i, 2));
		}
	}
	PQclear(r);
	return 0;
}

int db_bisect_jobs(struct db_conn *c, long long id, struct db_bisect_job **out, size_t *n,
		   struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };
	PGresult *r;

	*out = NULL;
	*n = 0;
	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_BISECT_JOBS, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r)) {
		*n = (size_t)PQntuples(r);
		*out = xcalloc(*n, sizeof(**out));
		for (size_t i = 0; i < *n; i++) {
			struct db_bisect_job *j = &(*out)[i];

			j->commit_id = get_id(r, (int)i, 0);
			j->round = (int)get_id(r, (int)i, 1);
			snprintf(j->state, sizeof(j->state), "%s", PQgetvalue(r, (int)i, 2));
			snprintf(j->outcome, sizeof(j->outcome), "%s", PQgetvalue(r, (int)i, 3));
			snprintf(j->image_sha256, sizeof(j->image_sha256), "%s",
				 PQgetvalue(r, (int)i, 4));
			snprintf(j->same_image_as, sizeof(j->same_image_as), "%s",
				 PQgetvalue(r, (int)i, 5));
		}
	}
	PQclear(r);
	return 0;
}

int db_bisect_samples(struct db_conn *c, long long id, int reuse, struct db_bisect_sample **out,
		      size_t *n, struct err *e)
{
	char idb[24];
	const char *p[2] = { idb, reuse ? "true" : "false" };
	PGresult *r;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_BISECT_SAMPLES, 2, p, e);
	if (!r)
		return -1;
	if (PQntuples(r))
		*out = xcalloc((size_t)PQntuples(r), sizeof(**out));
	for (int i = 0; i < PQntuples(r); i++) {
		if (PQgetisnull(r, i, 1))
			continue;
		(*out)[k].idx = strtol(PQgetvalue(r, i, 0), NULL, 10);
		(*out)[k].value = pg_double(PQgetvalue(r, i, 1));
		k++;
	}
	*n = k;
	PQclear(r);
	return 0;
}

long long db_bisect_steps_count(struct db_conn *c, long long id, int round, struct err *e)
{
	char idb[24], rb[24];
	const char *p[2] = { idb, rb };

	snprintf(idb, sizeof(idb), "%lld", id);
	snprintf(rb, sizeof(rb), "%d", round);
	return run_id(c, ST_BISECT_STEPS_COUNT, 2, p, e);
}

int db_bisect_step_insert(struct db_conn *c, const struct db_bisect_step *s, struct err *e)
{
	char idb[24], cid[24], rb[24];
	struct buf sm = BUF_INIT(0);
	const char *p[7] = { idb, cid, rb, s->role, s->verdict, NULL, s->evidence };
	int over = buf_addch(&sm, '{'), ret;

	for (size_t i = 0; i < s->n; i++)
		over |= buf_addf(&sm, "%s%.17g", i ? "," : "", s->samples[i]);
	over |= buf_addch(&sm, '}');
	if (over) {
		buf_release(&sm);
		return err_setc(e, ERR_INTERNAL, "samples", "too many samples");
	}
	snprintf(idb, sizeof(idb), "%lld", s->bisect_id);
	snprintf(cid, sizeof(cid), "%lld", s->commit_id);
	snprintf(rb, sizeof(rb), "%d", s->round);
	p[5] = sm.data;
	ret = run(c, ST_BISECT_STEP_INSERT, 7, p, e);
	buf_release(&sm);
	return ret;
}

/* --- probes ---------------------------------------------------------------- */

int db_bisect_workers(struct db_conn *c, const char *arch, const char *tbox, const char *cap,
		      const char *window_s, long *idle, long *total, struct err *e)
{
	const char *p[4] = { arch, tbox, cap, window_s };
	PGresult *r = db_exec(c, ST_BISECT_WORKERS, 4, p, e);

	if (!r)
		return -1;
	*idle = (long)get_id(r, 0, 0);
	*total = (long)get_id(r, 0, 1);
	PQclear(r);
	return 0;
}

int db_bisect_job_insert(struct db_conn *c, long long id, long long commit_id, const char *cap,
			 int repeat, long priority, long max_attempts, int round, struct err *e)
{
	char idb[24], cid[24], rep[24], pr[24], ma[24], rb[24];
	const char *p[7] = { idb, cid, cap, rep, pr, ma, rb };

	snprintf(idb, sizeof(idb), "%lld", id);
	snprintf(cid, sizeof(cid), "%lld", commit_id);
	snprintf(rep, sizeof(rep), "%d", repeat);
	snprintf(pr, sizeof(pr), "%ld", priority);
	snprintf(ma, sizeof(ma), "%ld", max_attempts);
	snprintf(rb, sizeof(rb), "%d", round);
	return run(c, ST_BISECT_JOB_INSERT, 7, p, e);
}

/* --- the coordinator's queues ----------------------------------------------- */

int db_bisect_active(struct db_conn *c, long long **out, size_t *n, struct err *e)
{
	return run_ids(c, ST_BISECT_ACTIVE, 0, NULL, out, n, e);
}

static int reg_row(struct db_conn *c, enum db_stmt st, const char *arg,
		   struct db_bisect_reg_todo *t, struct err *e);

int db_bisect_reg_todo(struct db_conn *c, double min_pct, struct db_bisect_reg_todo *t,
		       struct err *e)
{
	char minb[32];

	snprintf(minb, sizeof(minb), "%.17g", min_pct);
	return reg_row(c, ST_BISECT_REG_TODO, minb, t, e);
}

int db_bisect_reg_one(struct db_conn *c, long long id, struct db_bisect_reg_todo *t, struct err *e)
{
	char idb[24];

	snprintf(idb, sizeof(idb), "%lld", id);
	return reg_row(c, ST_BISECT_REG_ONE, idb, t, e);
}

/* the row of st (one parameter, arg) into t: 1, 0 when none, -1 with e */
static int reg_row(struct db_conn *c, enum db_stmt st, const char *arg,
		   struct db_bisect_reg_todo *t, struct err *e)
{
	const char *p[1] = { arg };
	PGresult *r;

	memset(t, 0, sizeof(*t));
	r = db_exec(c, st, 1, p, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	t->id = get_id(r, 0, 0);
	t->testcase = xstrdup(PQgetvalue(r, 0, 1));
	t->params = xstrdup(PQgetvalue(r, 0, 2));
	t->kconfig = xstrdup(PQgetvalue(r, 0, 3));
	t->compiler = xstrdup(PQgetvalue(r, 0, 4));
	t->tbox_group = xstrdup(PQgetvalue(r, 0, 5));
	t->metric = xstrdup(PQgetvalue(r, 0, 6));
	t->good = xstrdup(PQgetvalue(r, 0, 7));
	t->bad = xstrdup(PQgetvalue(r, 0, 8));
	t->tree = xstrdup(PQgetvalue(r, 0, 9));
	t->size_pct = pg_double(PQgetvalue(r, 0, 10));
	PQclear(r);
	return 1;
}

void db_bisect_reg_todo_release(struct db_bisect_reg_todo *t)
{
	free(t->testcase);
	free(t->params);
	free(t->kconfig);
	free(t->compiler);
	free(t->tbox_group);
	free(t->metric);
	free(t->good);
	free(t->bad);
	free(t->tree);
	memset(t, 0, sizeof(*t));
}

long long db_bisect_sibling(struct db_conn *c, long long reg_id, struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };

	snprintf(idb, sizeof(idb), "%lld", reg_id);
	return run_id(c, ST_BISECT_SIBLING, 1, p, e);
}

int db_bisect_reg_link(struct db_conn *c, long long reg_id, long long bisect_id, struct err *e)
{
	char rb[24], bb[24];
	const char *p[2] = { rb, bb };

	snprintf(rb, sizeof(rb), "%lld", reg_id);
	snprintf(bb, sizeof(bb), "%lld", bisect_id);
	return run(c, ST_BISECT_REG_LINK, 2, p, e);
}

/* --- commits --------------------------------------------------------------- */

long long db_bisect_commit_id(struct db_conn *c, const char *sha, struct err *e)
{
	const char *p[1] = { sha };

	return run_id(c, ST_COMMIT_ID, 1, p, e);
}

int db_bisects_json(struct db_conn *c, const char *state, const char *limit, char **text,
		    struct err *e)
{
	return db_json_list(c, ST_BISECTS_JSON, state, limit, text, e);
}

int db_bisect_json(struct db_conn *c, long long id, char **text, struct err *e)
{
	return db_json_by_id(c, ST_BISECT_JSON, id, text, e);
}

int db_bisect_exists(struct db_conn *c, long long id, struct err *e)
{
	char idb[24];

	snprintf(idb, sizeof(idb), "%lld", id);
	return db_row_exists(c, ST_BISECT_EXISTS, idb, e);
}

int db_regression_bisect_of(struct db_conn *c, long long regression_id, long long *bisect_id,
			    struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };

	snprintf(idb, sizeof(idb), "%lld", regression_id);
	return db_one_int8(c, ST_BISECT_REG_OF, 1, p, bisect_id, e);
}

int db_bisect_regression_match(struct db_conn *c, const struct db_bisect_reg_key *k,
			       long long *regression_id, struct err *e)
{
	const char *p[8] = { k->good,	 k->bad,      k->testcase,   k->metric,
			     k->kconfig, k->compiler, k->tbox_group, k->params };

	return db_one_int8(c, ST_BISECT_REG_MATCH, 8, p, regression_id, e);
}
