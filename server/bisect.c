/* The bisect coordinator thread and its db functions (see bisect.h). */
#include "server/bisect.h"
#include "server/db/pgval.h"
#include "server/api/api.h"
#include "server/gitmirror.h"
#include "server/ingest.h"
#include "server/lease.h"
#include "server/outbox.h"
#include "server/regressions.h"
#include "bisect/plan.h"
#include "xalloc.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "banned.h"

#define WORKER_WINDOW_S "90"

struct bisect_coord {
	struct server *srv;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int kicked, stopping, joined;
};

static const char *kconfig_arch(const char *kconfig)
{
	if (!strncmp(kconfig, "x86_64", 6))
		return "x86_64";
	if (!strncmp(kconfig, "arm64", 5) || !strncmp(kconfig, "aarch64", 7))
		return "aarch64";
	return NULL;
}

static long long row_id(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

long long bisect_create(PGconn *c, const struct bisect_spec *s, struct err *e)
{
	char tid[24], gid[24], bid[24], tcid[24], rps[24], rr[24], kk[24], reg[24], tok[24];
	const char *arch = s->arch;
	long long tree_id, good_id, bad_id, tc_id, id;
	PGresult *r;

	{
		const char *p[1] = { s->tree };
		r = db_exec(c, ST_TREE_GET, 1, p, e);
	}
	if (!r)
		return -1;
	tree_id = PQntuples(r) ? row_id(r, 0, 0) : 0;
	PQclear(r);
	if (!tree_id)
		return err_set(e, 404, "not_found", "tree",
			       "no tree '%s': register it with POST /api/v1/trees", s->tree);
	snprintf(tid, sizeof(tid), "%lld", tree_id);
	{
		const char *p[4] = { s->good, NULL, NULL, tid };
		good_id = db_upsert_id(c, ST_COMMIT_INSERT, 4, ST_COMMIT_ID, 1, p, e);
		p[0] = s->bad;
		bad_id = good_id < 0 ? -1 : db_upsert_id(c, ST_COMMIT_INSERT, 4, ST_COMMIT_ID, 1, p, e);
	}
	if (bad_id < 0)
		return -1;
	{
		const char *p[1] = { s->testcase };
		tc_id = db_upsert_id(c, ST_TESTCASE_INSERT, 1, ST_TESTCASE_ID, 1, p, e);
	}
	if (tc_id < 0)
		return -1;
	if (!arch && strcmp(s->kconfig, "host"))
		arch = kconfig_arch(s->kconfig);
	snprintf(gid, sizeof(gid), "%lld", good_id);
	snprintf(bid, sizeof(bid), "%lld", bad_id);
	snprintf(tcid, sizeof(tcid), "%lld", tc_id);
	snprintf(rps, sizeof(rps), "%d", s->runs_per_step);
	snprintf(rr, sizeof(rr), "%d", s->ref_runs);
	snprintf(kk, sizeof(kk), "%d", s->k);
	snprintf(reg, sizeof(reg), "%lld", s->regression_id);
	snprintf(tok, sizeof(tok), "%lld", s->token_id);
	{
		const char *p[15] = { tid, gid, bid, tcid, s->params, s->kconfig,
				      s->compiler ? s->compiler : "gcc-12", arch, s->tbox_group,
				      s->metric, rps, rr, kk, s->regression_id ? reg : NULL,
				      s->token_id ? tok : NULL };
		r = db_exec(c, ST_BISECT_INSERT, 15, p, e);
	}
	if (!r)
		return -1;
	id = row_id(r, 0, 0);
	PQclear(r);
	return id;
}

int bisect_cancel(PGconn *c, long long id, const char *reason, struct err *e)
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

/* --- one bisect ------------------------------------------------------------- */

/* what the locked row says */
struct brow {
	long long id;
	char state[16];
	int round;
	char *tree, *url, *branches, *good, *bad, *kconfig, *arch, *tbox, *measure, *metric;
	int runs_per_step, ref_runs, max_k, nr_candidates;
	long long regression_id, tree_id;
	int level;               /* 0: the first-parent chain; n: n merges descended into */
	char *level_good;        /* sha of the current level's good end (good at level 0) */
	long long level_good_id;
	char *descent;           /* level > 0: the level above, as recorded (JSON text) */
};

static void brow_release(struct brow *b)
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
	free(b->metric);
	free(b->level_good);
	free(b->descent);
	memset(b, 0, sizeof(*b));
}

static char *col_dup(PGresult *r, int c)
{
	return PQgetisnull(r, 0, c) ? NULL : xstrdup(PQgetvalue(r, 0, c));
}

/* locks and reads bisect id; 1 = locked, 0 = not active or held elsewhere, -1 = error */
static int brow_lock(PGconn *c, long long id, struct brow *b, struct err *e)
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
	b->round = (int)row_id(r, 0, 1);
	b->tree = col_dup(r, 2);
	b->url = col_dup(r, 3);
	b->branches = col_dup(r, 4);
	b->good = col_dup(r, 5);
	b->bad = col_dup(r, 6);
	b->kconfig = col_dup(r, 7);
	b->arch = col_dup(r, 8);
	b->tbox = col_dup(r, 9);
	b->measure = col_dup(r, 10);
	b->runs_per_step = (int)row_id(r, 0, 11);
	b->ref_runs = (int)row_id(r, 0, 12);
	b->max_k = (int)row_id(r, 0, 13);
	b->regression_id = row_id(r, 0, 14);
	b->tree_id = row_id(r, 0, 15);
	b->metric = col_dup(r, 16);
	b->nr_candidates = (int)row_id(r, 0, 17);
	b->level = (int)row_id(r, 0, 18);
	b->level_good = col_dup(r, 19);
	b->level_good_id = row_id(r, 0, 20);
	b->descent = col_dup(r, 21);
	PQclear(r);
	return 1;
}

/* ends bisect b (inside the caller's transaction) and moves its regression */
static int finish(struct server *srv, PGconn *c, struct brow *b, const char *state,
		  const char *outcome, long long first_bad, const char *cands, double confidence,
		  const char *reason, json_t *verification, json_t *model, struct err *e)
{
	char idb[24], fb[24], conf[32];
	char *vtext = verification ? json_dumps(verification, JSON_COMPACT) : NULL;
	char *mtext = model ? json_dumps(model, JSON_COMPACT) : NULL;
	const char *p[9] = { idb, state, outcome, first_bad ? fb : NULL, cands,
			     isfinite(confidence) ? conf : NULL, reason && *reason ? reason : NULL,
			     vtext, mtext };
	PGresult *r;
	long long reg;
	int ret = -1;

	snprintf(idb, sizeof(idb), "%lld", b->id);
	snprintf(fb, sizeof(fb), "%lld", first_bad);
	snprintf(conf, sizeof(conf), "%.17g", confidence);
	r = db_exec(c, ST_BISECT_FINISH, 9, p, e);
	if (!r)
		goto out;
	reg = PQntuples(r) ? row_id(r, 0, 0) : 0;
	PQclear(r);
	if (reg) {
		/* records of other metrics that shared this bisect follow it */
		const char *q[1] = { idb };
		PGresult *sib = db_exec(c, ST_BISECT_SIBLINGS_OF, 1, q, e);
		int found = !strcmp(state, "done") && first_bad;
		char snote[200];

		if (!sib)
			goto out;
		snprintf(snote, sizeof(snote), "bisect %lld (shared with regression %lld) %s", b->id,
			 reg, found ? "found the first bad commit" : "ended without a first bad commit");
		for (int i = 0; i < PQntuples(sib); i++) {
			if (regression_transition(c, row_id(sib, i, 0), found ? "bisected" : "confirmed",
						  "bisect", 0, snote, NULL, NULL, e)) {
				PQclear(sib);
				goto out;
			}
		}
		PQclear(sib);
	}
	if (reg) {
		char note[400];
		int found = !strcmp(state, "done") && first_bad;
		if (found)
			snprintf(note, sizeof(note), "bisect %lld found the first bad commit", b->id);
		else
			snprintf(note, sizeof(note), "bisect %lld ended %s%s%s: %.300s", b->id, state,
				 outcome ? " " : "", outcome ? outcome : "", reason ? reason : "");
		if (regression_transition(c, reg, found ? "bisected" : "confirmed", "bisect", 0, note,
					  NULL, NULL, e))
			goto out;
	}
	if (!reg && !strcmp(state, "done") && first_bad) {
		/* started by hand: record what it found, so it reports like an automatic one */
		const char *q[1] = { idb };
		r = db_exec(c, ST_BISECT_RECORD, 1, q, e);
		if (!r)
			goto out;
		PQclear(r);
	}
	if (!strcmp(state, "done") && first_bad) {
		/* what the first bad commit touched (sql/0007): the diffstat of
		 * GET /api/v1/bisects/{id} and of the mail, paths subscriptions;
		 * a git failure is logged (the mailer tries again), a db error is not */
		struct err ge;

		if (gitmirror_store_diffstat(c, srv->cfg->data_dir, b->tree, first_bad,
					     (int)srv->cfg->git_timeout_s, &ge) < 0) {
			if (PQtransactionStatus(c) != PQTRANS_INTRANS) {
				*e = ge;
				goto out;
			}
			fprintf(stderr, "regtrack-server: bisect %lld: diffstat of the first bad commit: "
				"%s\n", b->id, ge.message);
		}
	}
	if (!strcmp(state, "done") && first_bad && outbox_bisect_done(c, b->id, e))
		goto out;
	fprintf(stderr, "regtrack-server: bisect %lld %s%s%s\n", b->id, state, reason ? ": " : "",
		reason ? reason : "");
	ret = 0;
out:
	free(vtext);
	free(mtext);
	return ret;
}

/* queued -> running: mirror, import, candidates (slow: git runs outside any transaction) */
static int start_bisect(struct server *srv, PGconn *c, long long id, struct err *e)
{
	struct brow b;
	char dir[4096], idb[24], n1[24], n2[24];
	char **shas = NULL, *br = NULL, *save = NULL, *tok;
	const char *revs[64];
	size_t n = 0, nrevs = 0, nrange = 0, imported = 0;
	struct buf arr = BUF_INIT(0);
	struct err ge;
	int got, over = 0, gitok;
	PGresult *r;

	if (db_begin(c, e))
		return -1;
	got = brow_lock(c, id, &b, e);
	db_rollback(c);
	if (got <= 0 || strcmp(b.state, "queued")) {
		brow_release(&b);
		return got < 0 ? -1 : 0;
	}
	/* git: fetch (or clone), import, the candidates */
	gitok = !gitmirror_path(srv->cfg->data_dir, b.tree, dir, sizeof(dir), &ge) &&
		!gitmirror_sync(srv->cfg->data_dir, b.tree, b.url, (int)srv->cfg->git_timeout_s, &ge);
	if (gitok) {
		if (b.branches && *b.branches) {
			br = xstrdup(b.branches);
			for (tok = strtok_r(br, " ", &save); tok && nrevs < 62;
			     tok = strtok_r(NULL, " ", &save))
				revs[nrevs++] = tok;
		}
		revs[nrevs++] = b.bad;
		gitok = !gitmirror_import(c, dir, b.tree_id, revs, nrevs, (int)srv->cfg->git_timeout_s,
					  &imported, &ge) &&
			!gitmirror_first_parent(dir, b.good, b.bad, (int)srv->cfg->git_timeout_s, &shas,
						&n, &ge) &&
			!gitmirror_bisect_all(dir, b.good, b.bad, (int)srv->cfg->git_timeout_s, &nrange,
					      &ge);
		/* an import over branches that miss a revision fails: retry with the range alone */
		if (!gitok && !n && nrevs > 1) {
			revs[0] = b.bad;
			gitok = !gitmirror_import(c, dir, b.tree_id, revs, 1, (int)srv->cfg->git_timeout_s,
						  &imported, &ge) &&
				!gitmirror_first_parent(dir, b.good, b.bad, (int)srv->cfg->git_timeout_s,
							&shas, &n, &ge) &&
				!gitmirror_bisect_all(dir, b.good, b.bad, (int)srv->cfg->git_timeout_s,
						      &nrange, &ge);
		}
	}
	if (db_begin(c, e))
		goto fail;
	brow_release(&b);
	got = brow_lock(c, id, &b, e);
	if (got <= 0 || strcmp(b.state, "queued")) {
		db_rollback(c);
		goto done;
	}
	snprintf(idb, sizeof(idb), "%lld", id);
	{
		char cnt[24];
		const char *p[4] = { NULL, b.url, cnt, gitok ? NULL : ge.message };
		snprintf(n1, sizeof(n1), "%lld", b.tree_id);
		snprintf(cnt, sizeof(cnt), "%zu", imported);
		p[0] = n1;
		r = db_exec(c, ST_TREE_MIRROR_SET, 4, p, e);
		if (!r)
			goto rollback;
		PQclear(r);
	}
	if (!gitok) {
		char why[600];
		snprintf(why, sizeof(why), "%s%s%s", ge.message, ge.detail[0] ? ": " : "", ge.detail);
		if (finish(srv, c, &b, "failed", NULL, 0, NULL, NAN, why, NULL, NULL, e) ||
		    db_commit(c, e))
			goto rollback;
		goto done;
	}
	over |= buf_addch(&arr, '{');
	for (size_t i = 0; i < n; i++)
		over |= buf_addf(&arr, "%s%s", i ? "," : "", shas[i]);
	over |= buf_addch(&arr, '}');
	if (over)
		abort();
	{
		const char *p[3] = { idb, arr.data, "0" };
		r = db_exec(c, ST_BISECT_COMMITS_INSERT, 3, p, e);
		if (!r)
			goto rollback;
		if (strtoll(PQcmdTuples(r), NULL, 10) != (long long)n) {
			PQclear(r);
			if (finish(srv, c, &b, "failed", NULL, 0, NULL, NAN,
				   "commits of the range are missing from the commits table after import",
				   NULL, NULL, e) || db_commit(c, e))
				goto rollback;
			goto done;
		}
		PQclear(r);
	}
	snprintf(n1, sizeof(n1), "%zu", n);
	snprintf(n2, sizeof(n2), "%zu", nrange);
	{
		const char *p[3] = { idb, n1, n2 };
		r = db_exec(c, ST_BISECT_START, 3, p, e);
		if (!r)
			goto rollback;
		PQclear(r);
	}
	if (db_commit(c, e))
		goto rollback;
	fprintf(stderr, "regtrack-server: bisect %lld running: %zu candidates on the first-parent "
		"chain, %zu commits in the range, %zu imported\n", id, n, nrange, imported);
done:
	gitmirror_free_list(shas, n);
	free(br);
	buf_release(&arr);
	brow_release(&b);
	return 0;
rollback:
	db_rollback(c);
fail:
	gitmirror_free_list(shas, n);
	free(br);
	buf_release(&arr);
	brow_release(&b);
	return -1;
}

/* samples and flags of one candidate (or the good endpoint) */
struct cand {
	long long commit_id;
	char sha[41];
	double *v;
	size_t n, alloc;
	int skipped, ok_jobs, first_round, last_round;
	const char *fail_outcome;
};

static json_t *cmp_json(const struct compare_result *r)
{
	return json_pack("{s:o,s:o,s:o,s:s}", "change_pct", json_num(r->change_pct), "p_value",
			 json_num(r->p_value), "n", json_integer((json_int_t)r->b.n), "verdict",
			 verdict_name(r->verdict));
}

static json_t *model_json(const struct bisect_plan *p, int k)
{
	const struct bisect_model *m = &p->model;

	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:b,s:i,s:i,s:I,s:I,s:I,s:o}", "mu_good",
			 json_num(m->mu_good), "mu_bad", json_num(m->mu_bad), "sigma",
			 json_num(m->sigma), "separation", json_num(m->separation), "change_pct",
			 json_num(m->change_pct), "deterministic", m->deterministic, "refs_target",
			 m->refs_target, "k", k, "map", (json_int_t)p->map, "lo", (json_int_t)p->lo,
			 "hi", (json_int_t)p->hi, "p_map", json_num(p->post ? p->post[p->map] : NAN));
}

static int record_steps(PGconn *c, struct brow *b, const struct bisect_plan *plan,
			struct cand *cands, size_t n, struct err *e)
{
	char idb[24], rb[24];
	const char *q[2] = { idb, rb };
	PGresult *r;
	int have;

	snprintf(idb, sizeof(idb), "%lld", b->id);
	snprintf(rb, sizeof(rb), "%d", b->round);
	r = db_exec(c, ST_BISECT_STEPS_COUNT, 2, q, e);
	if (!r)
		return -1;
	have = (int)row_id(r, 0, 0);
	PQclear(r);
	if (have)
		return 0;
	for (long j = -1; j < (long)n; j++) {
		struct cand *cd = &cands[j + 1];
		struct bisect_evidence ev;
		struct buf sm = BUF_INIT(0);
		char cid[24], *evtext;
		const char *role;
		json_t *evj;
		int over = 0;

		if (cd->last_round != b->round)
			continue;
		bisect_plan_verdict(plan, j, &ev);
		role = j == BISECT_GOOD ? "good" : j == (long)n - 1 ? "bad"
		       : cd->first_round == b->round ? "probe" : "verify";
		evj = json_pack("{s:I,s:o,s:o,s:o,s:o,s:o}", "n", (json_int_t)ev.n, "mean",
				json_num(ev.mean), "llr", json_num(ev.llr), "p_bad",
				json_num(j == BISECT_GOOD ? 0 : ev.p_bad), "vs_good",
				cmp_json(&ev.vs_good), "vs_bad", cmp_json(&ev.vs_bad));
		if (cd->skipped)
			json_object_set_new(evj, "outcome", json_string(cd->fail_outcome ?
									 cd->fail_outcome : "no value"));
		evtext = json_dumps(evj, JSON_COMPACT);
		json_decref(evj);
		over |= buf_addch(&sm, '{');
		for (size_t i = 0; i < cd->n; i++)
			over |= buf_addf(&sm, "%s%.17g", i ? "," : "", cd->v[i]);
		over |= buf_addch(&sm, '}');
		snprintf(cid, sizeof(cid), "%lld", cd->commit_id);
		{
			const char *p[7] = { idb, cid, rb, role,
					     step_verdict_name(j == BISECT_GOOD && ev.verdict != STEP_SKIP
							       ? STEP_GOOD : ev.verdict),
					     sm.data, evtext };
			r = over ? NULL : db_exec(c, ST_BISECT_STEP_INSERT, 7, p, e);
		}
		free(evtext);
		buf_release(&sm);
		if (!r)
			return over ? err_set(e, 500, "too_large", "samples", "too many samples") : -1;
		PQclear(r);
	}
	return 0;
}

/* k for the next round: idle matching workers, capped (see bisect.h) */
static int probe_k(struct server *srv, PGconn *c, struct brow *b, const char *cap, struct err *e)
{
	const char *p[4] = { b->arch, b->tbox, cap, WORKER_WINDOW_S };
	PGresult *r = db_exec(c, ST_BISECT_WORKERS, 4, p, e);
	long idle, total, k, share;

	if (!r)
		return -1;
	idle = row_id(r, 0, 0);
	total = row_id(r, 0, 1);
	PQclear(r);
	k = idle;
	if (b->max_k > 0 && k > b->max_k)
		k = b->max_k;
	if (k > srv->cfg->bisect_max_k)
		k = srv->cfg->bisect_max_k;
	share = total * srv->cfg->bisect_share_pct / 100;
	if (k > share)
		k = share;
	return k < 1 ? 1 : (int)k;
}

/* the verification of a done decision: first bad cands[f + 1] vs cands[f] (new) */
static json_t *verification_json(const struct cand *cands, const struct bisect_decision *d,
				 double ref_change_pct)
{
	const struct compare_result *v = &d->verify;

	return json_pack("{s:s,s:s,s:[I,I],s:[o,o],s:o,s:[o,o],s:o,s:s,s:o}",
			 "parent", cands[d->first_bad].sha, "first_bad", cands[d->first_bad + 1].sha,
			 "n", (json_int_t)v->a.n, (json_int_t)v->b.n,
			 "mean", json_num(v->a.mean), json_num(v->b.mean),
			 "change_pct", json_num(v->change_pct),
			 "ci_pct", json_num(v->ci_lo_pct), json_num(v->ci_hi_pct),
			 "p_value", json_num(v->p_value), "verdict", verdict_name(v->verdict),
			 "ref_change_pct", json_num(ref_change_pct));
}

/* merges descended into, at most (each level is one merge's side branch) */
#define BISECT_MAX_LEVEL 16

/*
 * The first bad commit of this level, cands[f + 1], verified against its
 * parent: when it is a two-parent merge whose side branch has commits of
 * its own, the next level bisects that side branch (its first-parent
 * chain, oldest first, then the merge) with the merge's first parent as
 * the good end, in the caller's transaction. The merge and its first
 * parent keep their samples (the bisect's own jobs at those commits), so
 * the new level starts with its references measured. Returns 1 when it
 * descended, 0 when cands[f + 1] is the answer (not a merge, an octopus,
 * or git could not list the side: logged), -1 with e on a db error.
 */
static int descend(struct server *srv, PGconn *c, struct brow *b, const struct cand *cands,
		   size_t n, const struct bisect_decision *d, double ref_change_pct, struct err *e)
{
	const char *merge = cands[d->first_bad + 1].sha;
	char dir[4096], p1[41], idb[24], lv[24], gid[24], *etext;
	char **side = NULL;
	size_t ns = 0;
	struct buf arr = BUF_INIT(0);
	struct err ge;
	long long p1_id;
	json_t *ent;
	PGresult *r;
	int over = 0, ret = -1;

	if (gitmirror_path(srv->cfg->data_dir, b->tree, dir, sizeof(dir), &ge) ||
	    gitmirror_merge_side(dir, merge, b->good, (int)srv->cfg->git_timeout_s, p1, &side, &ns,
				 &ge)) {
		fprintf(stderr, "regtrack-server: bisect %lld: side branch of %.12s: %s (%s); the "
			"merge is the answer\n", b->id, merge, ge.message, ge.detail);
		return 0;
	}
	if (!ns)
		return 0;
	{
		const char *p[1] = { p1 };
		r = db_exec(c, ST_COMMIT_ID, 1, p, e);
	}
	if (!r)
		goto out;
	p1_id = PQntuples(r) ? row_id(r, 0, 0) : 0;
	PQclear(r);
	if (!p1_id) {
		ret = 0;
		goto out;
	}
	over |= buf_addch(&arr, '{');
	for (size_t i = 0; i < ns; i++)
		over |= buf_addf(&arr, "%s,", side[i]);
	over |= buf_addf(&arr, "%s}", merge);
	if (over) {
		err_set(e, 500, "too_large", "side", "side branch too long");
		goto out;
	}
	snprintf(idb, sizeof(idb), "%lld", b->id);
	snprintf(lv, sizeof(lv), "%d", b->level + 1);
	snprintf(gid, sizeof(gid), "%lld", p1_id);
	{
		const char *p[3] = { idb, arr.data, lv };
		r = db_exec(c, ST_BISECT_COMMITS_INSERT, 3, p, e);
	}
	if (!r)
		goto out;
	if (strtoll(PQcmdTuples(r), NULL, 10) != (long long)ns + 1) {
		/* side commits missing from the commits table: cannot descend; the rows of the
		 * level never entered are never read (the level does not change) */
		PQclear(r);
		fprintf(stderr, "regtrack-server: bisect %lld: side branch of %.12s not imported; the "
			"merge is the answer\n", b->id, merge);
		ret = 0;
		goto out;
	}
	PQclear(r);
	ent = json_pack("{s:i,s:s,s:s,s:s,s:s,s:I,s:I,s:i,s:o,s:o}",
			"level", b->level, "good", cands[0].sha, "bad", cands[n].sha,
			"merge", merge, "merge_parent", p1, "nr_candidates", (json_int_t)n,
			"side_commits", (json_int_t)ns, "round", b->round,
			"confidence", json_num(d->confidence), "verification",
			verification_json(cands, d, ref_change_pct));
	etext = json_dumps(ent, JSON_COMPACT);
	json_decref(ent);
	{
		const char *p[4] = { idb, lv, gid, etext };
		r = db_exec(c, ST_BISECT_DESCEND, 4, p, e);
	}
	free(etext);
	if (!r)
		goto out;
	PQclear(r);
	fprintf(stderr, "regtrack-server: bisect %lld: first bad on level %d is merge %.12s; "
		"descending into its %zu side-branch commits (good end %.12s)\n", b->id, b->level,
		merge, ns, p1);
	ret = 1;
out:
	gitmirror_free_list(side, ns);
	buf_release(&arr);
	return ret;
}

/* one coordinator step of a running bisect: 1 = step it again now (a level began), 0, -1 */
static int step_running(struct server *srv, PGconn *c, long long id, struct err *e)
{
	struct brow b;
	struct cand *cands = NULL;
	struct bisect_commit *bc = NULL;
	struct bisect_input in;
	struct bisect_opts o;
	struct bisect_plan plan;
	struct bisect_decision d;
	char idb[24], capbuf[64];
	const char *cap;
	PGresult *r;
	size_t n = 0;
	int got, k, busy = 0, ret = -1, queued_jobs = 0, again = 0;
	json_t *model = NULL;

	memset(&d, 0, sizeof(d));
	memset(&plan, 0, sizeof(plan));
	if (db_begin(c, e))
		return -1;
	got = brow_lock(c, id, &b, e);
	if (got <= 0 || strcmp(b.state, "running")) {
		db_rollback(c);
		brow_release(&b);
		return got < 0 ? -1 : 0;
	}
	snprintf(idb, sizeof(idb), "%lld", id);
	{
		const char *p[1] = { idb };
		r = db_exec(c, ST_BISECT_CANDIDATES, 1, p, e);
	}
	if (!r)
		goto rollback;
	n = (size_t)PQntuples(r);
	if (!n) {
		PQclear(r);
		err_set(e, 500, "db_error", "bisect", "running bisect %lld has no candidates", id);
		goto rollback;
	}
	cands = xcalloc(n + 1, sizeof(*cands));
	for (size_t i = 0; i < n; i++) {
		cands[i + 1].commit_id = row_id(r, (int)i, 1);
		snprintf(cands[i + 1].sha, sizeof(cands[i + 1].sha), "%s", PQgetvalue(r, (int)i, 2));
	}
	snprintf(cands[0].sha, sizeof(cands[0].sha), "%s", b.level_good);
	cands[0].commit_id = b.level_good_id;
	PQclear(r);
	{
		const char *p[1] = { idb };
		r = db_exec(c, ST_BISECT_JOBS, 1, p, e);
	}
	if (!r)
		goto rollback;
	/* jobs of the current level's commits (and its good end); any job still out keeps it busy */
	for (int i = 0; i < PQntuples(r); i++) {
		long long cid = row_id(r, i, 0);
		int round = (int)row_id(r, i, 1);
		const char *state = PQgetvalue(r, i, 2), *outcome = PQgetvalue(r, i, 3);
		struct cand *cd = NULL;

		if (!strcmp(state, "queued") || !strcmp(state, "leased"))
			busy = 1;
		for (size_t j = 0; j <= n && !cd; j++)
			if (cands[j].commit_id == cid)
				cd = &cands[j];
		if (!cd)
			continue;   /* a commit of a level above, not of this one */
		if (!cd->first_round || round < cd->first_round)
			cd->first_round = round;
		if (round > cd->last_round)
			cd->last_round = round;
		if (!strcmp(state, "done") && !strcmp(outcome, "ok")) {
			cd->ok_jobs++;
		} else if (strcmp(state, "queued") && strcmp(state, "leased")) {
			cd->skipped = 1;
			cd->fail_outcome = !strcmp(state, "done") ? (!strcmp(outcome, "build-failed")
					    ? "build-failed" : !strcmp(outcome, "boot-failed")
					    ? "boot-failed" : "run-failed")
					    : !strcmp(state, "failed") ? "lease-expired" : "cancelled";
		}
	}
	PQclear(r);
	if (busy) {
		db_rollback(c);
		ret = 0;
		goto out;
	}
	{
		const char *p[2] = { idb, srv->cfg->bisect_reuse_runs ? "true" : "false" };
		r = db_exec(c, ST_BISECT_SAMPLES, 2, p, e);
	}
	if (!r)
		goto rollback;
	for (int i = 0; i < PQntuples(r); i++) {
		long idx = strtol(PQgetvalue(r, i, 0), NULL, 10);
		struct cand *cd;
		if (idx < -1 || idx >= (long)n || PQgetisnull(r, i, 1))
			continue;
		cd = &cands[idx + 1];
		ALLOC_GROW(cd->v, cd->n + 1, cd->alloc);
		cd->v[cd->n++] = pg_double(PQgetvalue(r, i, 1));
	}
	PQclear(r);
	/* an ok job that left no value of the metric cannot be measured either */
	for (size_t j = 0; j <= n; j++)
		if (cands[j].ok_jobs && !cands[j].n && !cands[j].skipped)
			cands[j].skipped = 1;

	bc = xcalloc(n, sizeof(*bc));
	for (size_t j = 0; j < n; j++) {
		bc[j].samples = cands[j + 1].v;
		bc[j].n = cands[j + 1].n;
		bc[j].skipped = cands[j + 1].skipped;
	}
	memset(&in, 0, sizeof(in));
	in.n = n;
	in.c = bc;
	in.good = cands[0].v;
	in.n_good = cands[0].n;
	in.good_skipped = cands[0].skipped;
	in.bad_skipped = cands[n].skipped;
	in.round = b.round;

	if (!strcmp(b.kconfig, "host")) {
		cap = "host";
	} else {
		snprintf(capbuf, sizeof(capbuf), "qemu-%s", b.arch ? b.arch : "x86_64");
		cap = capbuf;
	}
	k = probe_k(srv, c, &b, cap, e);
	if (k < 0)
		goto rollback;
	bisect_opts_init(&o);
	o.k = k;
	o.runs_per_step = b.runs_per_step;
	o.ref_runs = b.ref_runs;
	o.max_runs = (int)srv->cfg->bisect_max_runs;
	o.probe_z = srv->cfg->bisect_probe_z;
	o.expect_deterministic = !strcmp(b.measure, "icount");
	if (o.ref_runs_min > o.ref_runs)
		o.ref_runs_min = o.ref_runs;
	bisect_plan_init(&plan, &o);
	bisect_plan_compute(&plan, &in);
	bisect_plan_next(&plan, &d);
	model = model_json(&plan, k);
	if (b.round > 0 && record_steps(c, &b, &plan, cands, n, e))
		goto rollback;

	switch (d.action) {
	case BISECT_PROBE: {
		char rb[24], pr[24], ma[24], rep[24], cid[24], *mtext;
		snprintf(rb, sizeof(rb), "%d", b.round + 1);
		snprintf(pr, sizeof(pr), "%ld", srv->cfg->bisect_priority);
		snprintf(ma, sizeof(ma), "%ld", srv->cfg->max_attempts);
		for (size_t i = 0; i < d.nr_probes; i++) {
			long idx = d.probes[i].idx;
			snprintf(rep, sizeof(rep), "%d", d.probes[i].runs);
			snprintf(cid, sizeof(cid), "%lld", cands[idx + 1].commit_id);
			{
				const char *p[7] = { idb, cid, cap, rep, pr, ma, rb };
				r = db_exec(c, ST_BISECT_JOB_INSERT, 7, p, e);
			}
			if (!r)
				goto rollback;
			PQclear(r);
			queued_jobs++;
		}
		mtext = json_dumps(model, JSON_COMPACT);
		{
			const char *p[4] = { idb, rb, d.phase, mtext };
			r = db_exec(c, ST_BISECT_ROUND, 4, p, e);
		}
		free(mtext);
		if (!r)
			goto rollback;
		PQclear(r);
		break;
	}
	case BISECT_DONE: {
		json_t *ver;
		int dr = 0;

		/* a merge found first bad: descend into its side branch (not into the merge that
		 * ends this level: every commit of its side branch was good) */
		if (b.level < BISECT_MAX_LEVEL && !(b.level > 0 && d.first_bad == (long)n - 1))
			dr = descend(srv, c, &b, cands, n, &d, plan.model.change_pct, e);
		if (dr < 0)
			goto rollback;
		if (dr > 0) {
			again = 1;
			break;
		}
		ver = verification_json(cands, &d, plan.model.change_pct);
		if (finish(srv, c, &b, "done", "found", cands[d.first_bad + 1].commit_id, NULL,
			   d.confidence, NULL, ver, model, e)) {
			json_decref(ver);
			goto rollback;
		}
		json_decref(ver);
		break;
	}
	case BISECT_AMBIGUOUS: {
		struct buf ids = BUF_INIT(0);
		int over = buf_addch(&ids, '{'), bad;
		for (long j = d.lo; j <= d.hi; j++)
			over |= buf_addf(&ids, "%s%lld", j > d.lo ? "," : "", cands[j + 1].commit_id);
		over |= buf_addch(&ids, '}');
		bad = over || finish(srv, c, &b, "done", "ambiguous", 0, ids.data, d.confidence,
				     d.reason, NULL, model, e);
		buf_release(&ids);
		if (bad)
			goto rollback;
		break;
	}
	case BISECT_FAILED:
		if (b.level > 0 && b.descent) {
			/* the side branch could not be narrowed (its change spread over several
			 * commits, or undecided): the merge stays the first bad commit of the chain
			 * above, verified there; say why it is not narrower */
			json_t *ent = json_loads(b.descent, 0, NULL);
			char why[sizeof(d.reason) + 200];
			int bad;

			snprintf(why, sizeof(why), "the merge is the first bad commit of the level above; "
				 "its side branch could not be narrowed: %s", d.reason);
			bad = !ent || finish(srv, c, &b, "done", "found", cands[n].commit_id, NULL,
					     json_number_value(json_object_get(ent, "confidence")), why,
					     json_object_get(ent, "verification"), model, e);
			json_decref(ent);
			if (bad) {
				if (!ent)
					err_set(e, 500, "db_error", "descents", "bad descents of bisect %lld",
						b.id);
				goto rollback;
			}
			break;
		}
		if (finish(srv, c, &b, "failed", NULL, 0, NULL, NAN, d.reason, NULL, model, e))
			goto rollback;
		break;
	}
	if (db_commit(c, e))
		goto rollback;
	if (queued_jobs)
		lease_queue_kick(srv->leases);
	ret = again;
	goto out;
rollback:
	db_rollback(c);
out:
	json_decref(model);
	bisect_decision_release(&d);
	bisect_plan_release(&plan);
	if (cands)
		for (size_t j = 0; j <= n; j++)
			free(cands[j].v);
	free(cands);
	free(bc);
	brow_release(&b);
	return ret;
}

/* --- the thread ------------------------------------------------------------- */

/* mirrors one tree whose mirror was never made from its current url */
static void sync_one_tree(struct server *srv, PGconn *c)
{
	struct err e, ge;
	PGresult *r = db_exec(c, ST_TREE_MIRROR_TODO, 0, NULL, &e);
	char *name, *url, *branches, *save = NULL, *tok, dir[4096], cnt[24];
	const char *revs[64];
	size_t nrevs = 0, imported = 0;
	long long tree_id;
	int ok;

	if (!r || !PQntuples(r)) {
		PQclear(r);
		return;
	}
	tree_id = row_id(r, 0, 0);
	name = xstrdup(PQgetvalue(r, 0, 1));
	url = xstrdup(PQgetvalue(r, 0, 2));
	branches = xstrdup(PQgetvalue(r, 0, 3));
	PQclear(r);
	for (tok = strtok_r(branches, " ", &save); tok && nrevs < 64; tok = strtok_r(NULL, " ", &save))
		revs[nrevs++] = tok;
	ok = !gitmirror_path(srv->cfg->data_dir, name, dir, sizeof(dir), &ge) &&
	     !gitmirror_sync(srv->cfg->data_dir, name, url, (int)srv->cfg->git_timeout_s, &ge) &&
	     !gitmirror_import(c, dir, tree_id, revs, nrevs, (int)srv->cfg->git_timeout_s, &imported,
			       &ge);
	snprintf(cnt, sizeof(cnt), "%zu", imported);
	{
		char tid[24];
		const char *p[4] = { tid, url, ok ? cnt : NULL, ok ? NULL : ge.message };
		snprintf(tid, sizeof(tid), "%lld", tree_id);
		r = db_exec(c, ST_TREE_MIRROR_SET, 4, p, &e);
		PQclear(r);
	}
	if (ok)
		fprintf(stderr, "regtrack-server: tree '%s' mirrored, %zu commits imported\n", name,
			imported);
	else
		fprintf(stderr, "regtrack-server: tree '%s': %s (%s)\n", name, ge.message, ge.detail);
	free(name);
	free(url);
	free(branches);
}

/* starts a bisect for one confirmed regression, if auto_bisect is on */
static void auto_bisect_one(struct server *srv, PGconn *c)
{
	struct err e;
	char minb[32], note[200], ids[2][24];
	const char *p[1] = { minb };
	PGresult *r;
	struct bisect_spec s;
	long long reg, bid;

	snprintf(minb, sizeof(minb), "%.17g", srv->cfg->auto_bisect_min_pct);
	if (db_begin(c, &e))
		return;
	r = db_exec(c, ST_BISECT_REG_TODO, 1, p, &e);
	if (!r || !PQntuples(r))
		goto rollback;
	memset(&s, 0, sizeof(s));
	reg = row_id(r, 0, 0);
	s.testcase = PQgetvalue(r, 0, 1);
	s.params = PQgetvalue(r, 0, 2);
	s.kconfig = PQgetvalue(r, 0, 3);
	s.compiler = PQgetvalue(r, 0, 4);
	s.tbox_group = PQgetvalue(r, 0, 5);
	s.metric = PQgetvalue(r, 0, 6);
	s.good = PQgetvalue(r, 0, 7);
	s.bad = PQgetvalue(r, 0, 8);
	s.tree = PQgetvalue(r, 0, 9);
	s.runs_per_step = 5;
	s.ref_runs = 10;
	s.regression_id = reg;
	{
		/* a sibling metric of the same setup and range is bisected already: share it */
		const char *q[1] = { PQgetvalue(r, 0, 0) };
		PGresult *sib = db_exec(c, ST_BISECT_SIBLING, 1, q, &e);
		if (!sib)
			goto rollback;
		bid = PQntuples(sib) ? row_id(sib, 0, 0) : 0;
		PQclear(sib);
	}
	if (!bid) {
		bid = bisect_create(c, &s, &e);
		if (bid < 0)
			goto rollback;
	}
	snprintf(ids[0], sizeof(ids[0]), "%lld", reg);
	snprintf(ids[1], sizeof(ids[1]), "%lld", bid);
	{
		const char *q[2] = { ids[0], ids[1] };
		PGresult *u = db_exec(c, ST_BISECT_REG_LINK, 2, q, &e);
		if (!u)
			goto rollback;
		PQclear(u);
	}
	snprintf(note, sizeof(note), "bisect %lld started (%.2f%%)", bid,
		 pg_double(PQgetvalue(r, 0, 10)));
	if (regression_transition(c, reg, "bisecting", "bisect", 0, note, NULL, NULL, &e) ||
	    db_commit(c, &e))
		goto rollback;
	fprintf(stderr, "regtrack-server: regression %lld: bisect %lld started\n", reg, bid);
	PQclear(r);
	return;
rollback:
	if (r && PQntuples(r))
		fprintf(stderr, "regtrack-server: auto bisect: %s (%s)\n", e.message, e.detail);
	PQclear(r);
	db_rollback(c);
}

static void *coord_thread(void *arg)
{
	struct bisect_coord *bc = arg;
	struct server *srv = bc->srv;
	struct err e;

	for (;;) {
		struct timespec ts;
		PGconn *c;
		PGresult *r;

		pthread_mutex_lock(&bc->lock);
		if (!bc->kicked && !bc->stopping) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += srv->cfg->bisect_poll_ms / 1000;
			ts.tv_nsec += (srv->cfg->bisect_poll_ms % 1000) * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&bc->cond, &bc->lock, &ts);
		}
		bc->kicked = 0;
		if (bc->stopping) {
			pthread_mutex_unlock(&bc->lock);
			break;
		}
		pthread_mutex_unlock(&bc->lock);

		c = db_conn(srv->db, &e);
		if (!c)
			continue;
		sync_one_tree(srv, c);
		if (srv->cfg->auto_bisect)
			auto_bisect_one(srv, c);
		r = db_exec(c, ST_BISECT_ACTIVE, 0, NULL, &e);
		if (!r) {
			fprintf(stderr, "regtrack-server: bisect: %s\n", e.message);
			continue;
		}
		for (int i = 0; i < PQntuples(r) && !bc->stopping; i++) {
			long long id = row_id(r, i, 0);
			int rc = start_bisect(srv, c, id, &e);
			while (!rc && (rc = step_running(srv, c, id, &e)) > 0 && !bc->stopping)
				rc = 0;
			if (rc < 0)
				fprintf(stderr, "regtrack-server: bisect %lld: %s (%s)\n", id, e.message,
					e.detail);
		}
		PQclear(r);
	}
	return NULL;
}

struct bisect_coord *bisect_coord_start(struct server *srv)
{
	struct bisect_coord *bc = xcalloc(1, sizeof(*bc));

	bc->srv = srv;
	pthread_mutex_init(&bc->lock, NULL);
	pthread_cond_init(&bc->cond, NULL);
	if (pthread_create(&bc->thread, NULL, coord_thread, bc)) {
		fprintf(stderr, "regtrack-server: cannot start the bisect thread\n");
		pthread_mutex_destroy(&bc->lock);
		pthread_cond_destroy(&bc->cond);
		free(bc);
		return NULL;
	}
	return bc;
}

void bisect_coord_kick(struct bisect_coord *bc)
{
	if (!bc)
		return;
	pthread_mutex_lock(&bc->lock);
	bc->kicked = 1;
	pthread_cond_signal(&bc->cond);
	pthread_mutex_unlock(&bc->lock);
}

void bisect_coord_halt(struct bisect_coord *bc)
{
	if (!bc || bc->joined)
		return;
	pthread_mutex_lock(&bc->lock);
	bc->stopping = 1;
	pthread_cond_signal(&bc->cond);
	pthread_mutex_unlock(&bc->lock);
	pthread_join(bc->thread, NULL);
	bc->joined = 1;
}

void bisect_coord_stop(struct bisect_coord *bc)
{
	if (!bc)
		return;
	bisect_coord_halt(bc);
	pthread_mutex_destroy(&bc->lock);
	pthread_cond_destroy(&bc->cond);
	free(bc);
}
