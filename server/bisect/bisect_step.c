/* One coordinator step of a running bisect (see bisect_step.h; the rules in bisect.h). */
#include "server/bisect/bisect_step.h"
#include "server/jsonout.h"
#include "server/server.h"
#include "server/bisect/bisect.h"
#include "server/config.h"
#include "server/db/bisects.h"
#include "server/db/db.h"
#include "server/db/profiles.h"
#include "server/db/runs.h"
#include "server/track/gitmirror.h"
#include "server/jobs/lease.h"
#include "server/log.h"
#include "server/server.h"
#include "bisect/plan.h"
#include "buf.h"
#include "vmspec.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a machine counts as available when seen this recently (seconds) */
#define WORKER_WINDOW_S "90"
/* merges descended into, at most (each level is one merge's side branch) */
#define BISECT_MAX_LEVEL 16

/* samples and flags of one candidate (or the good endpoint) */
struct cand {
	long long commit_id;
	char sha[41];
	double *v;
	size_t n, alloc;
	int skipped, ok_jobs, first_round, last_round;
	const char *fail_outcome;
	char image[65]; /* the image its jobs built (sql/0022), "" unknown */
	int image_id;	/* 1 + the first cand of that image; 0 unknown (plan.h: image) */
	int same_image; /* a job of it ended same-image: built, not run */
};

/* everything one step reads and decides; cands[0] is the level's good end, cands[1..n] its candidates */
struct step {
	struct server *srv;
	struct db_conn *c;
	struct db_bisect_row b;
	struct cand *cands;
	size_t n;
	struct bisect_commit *bc;
	struct bisect_input in; /* borrowed by plan */
	struct bisect_plan plan;
	struct bisect_decision d;
	char cap[64]; /* the probes' need_capability */
	int k;
	json_t *model;
	int profile_queued; /* the profile round's jobs were queued in this step */
};

/* --- reports ---------------------------------------------------------------- */

/*
 * A comparison's figures. change_pct is LKP's %change of the means;
 * hl_pct (Hodges-Lehmann shift, %) and direction (its sign, +1 = higher)
 * are what the verdict's size and direction are (stats/compare.h).
 */
static json_t *cmp_json(const struct compare_result *r)
{
	return json_pack("{s:o,s:o,s:i,s:o,s:o,s:s}", "change_pct", json_num(r->change_pct),
			 "hl_pct", json_num(r->hl_pct), "direction", r->direction, "p_value",
			 json_num(r->p_value), "n", json_integer((json_int_t)r->b.n), "verdict",
			 verdict_name(r->verdict));
}

/* the fit; "refs" is the references' own comparison (the size the bisect chases) */
static json_t *model_json(const struct bisect_plan *p, int k)
{
	const struct bisect_model *m = &p->model;

	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:b,s:i,s:i,s:I,s:I,s:I,s:o,s:o}", "mu_good",
			 json_num(m->mu_good), "mu_bad", json_num(m->mu_bad), "sigma",
			 json_num(m->sigma), "separation", json_num(m->separation), "change_pct",
			 json_num(m->change_pct), "deterministic", m->deterministic, "refs_target",
			 m->refs_target, "k", k, "map", (json_int_t)p->map, "lo", (json_int_t)p->lo,
			 "hi", (json_int_t)p->hi, "p_map",
			 json_num(p->post ? p->post[p->map] : NAN), "refs", cmp_json(&m->refs));
}

/*
 * The verification of a done decision: first bad cands[f + 1] vs cands[f]
 * (new). ref_change_pct: the references' HL shift (model.refs.hl_pct, the
 * change the verification must reproduce), not the refitted levels'.
 */
static json_t *verification_json(const struct cand *cands, const struct bisect_decision *d,
				 double ref_change_pct)
{
	const struct compare_result *v = &d->verify;

	return json_pack("{s:s,s:s,s:[I,I],s:[o,o],s:o,s:o,s:i,s:[I,I],s:[o,o],s:o,s:s,s:o}",
			 "parent", cands[d->first_bad].sha, "first_bad",
			 cands[d->first_bad + 1].sha, "n", (json_int_t)v->a.n, (json_int_t)v->b.n,
			 "mean", json_num(v->a.mean), json_num(v->b.mean), "change_pct",
			 json_num(v->change_pct), "hl_pct", json_num(v->hl_pct), "direction",
			 v->direction, "outliers", (json_int_t)v->outliers_a,
			 (json_int_t)v->outliers_b, "ci_pct", json_num(v->ci_lo_pct),
			 json_num(v->ci_hi_pct), "p_value", json_num(v->p_value), "verdict",
			 verdict_name(v->verdict), "ref_change_pct", json_num(ref_change_pct));
}

/*
 * The evidence behind one verdict, as bisect_steps.evidence (new). A
 * commit that took another's runs (identical image) says whose:
 * "same_image_as" (that commit's sha) beside its "image_sha256".
 */
static json_t *evidence_json(const struct cand *cands, const struct cand *cd, long j,
			     const struct bisect_evidence *ev)
{
	json_t *evj = json_pack("{s:I,s:o,s:o,s:o,s:o,s:o}", "n", (json_int_t)ev->n, "mean",
				json_num(ev->mean), "llr", json_num(ev->llr), "p_bad",
				json_num(j == BISECT_GOOD ? 0 : ev->p_bad), "vs_good",
				cmp_json(&ev->vs_good), "vs_bad", cmp_json(&ev->vs_bad));

	if (cd->skipped)
		json_object_set_new(evj, "outcome",
				    json_string(cd->fail_outcome ? cd->fail_outcome : "no value"));
	if (cd->image[0])
		json_object_set_new(evj, "image_sha256", json_string(cd->image));
	if (ev->has_stand_in)
		json_object_set_new(evj, "same_image_as", json_string(cands[ev->stand_in + 1].sha));
	(void)j;
	return evj;
}

/* one bisect_steps row per commit measured in the round that ended (once per round) */
static int record_steps(struct step *st, struct err *e)
{
	const struct db_bisect_row *b = &st->b;
	long long have = db_bisect_steps_count(st->c, b->id, b->round, e);

	if (have < 0)
		return -1;
	if (have)
		return 0;
	for (long j = -1; j < (long)st->n; j++) {
		struct cand *cd = &st->cands[j + 1];
		struct bisect_evidence ev;
		struct db_bisect_step row;
		char *evtext;
		json_t *evj;
		int bad;

		if (cd->last_round != b->round)
			continue;
		bisect_plan_verdict(&st->plan, j, &ev);
		evj = evidence_json(st->cands, cd, j, &ev);
		evtext = json_dumps(evj, JSON_COMPACT);
		json_decref(evj);
		row.bisect_id = b->id;
		row.commit_id = cd->commit_id;
		row.round = b->round;
		row.role = j == BISECT_GOOD	       ? "good" :
			   j == (long)st->n - 1	       ? "bad" :
			   cd->first_round == b->round ? "probe" :
							 "verify";
		row.verdict = step_verdict_name(
			j == BISECT_GOOD && ev.verdict != STEP_SKIP ? STEP_GOOD : ev.verdict);
		row.samples = cd->v;
		row.n = cd->n;
		row.evidence = evtext;
		bad = db_bisect_step_insert(st->c, &row, e);
		free(evtext);
		if (bad)
			return -1;
	}
	return 0;
}

/* --- reading the round ------------------------------------------------------ */

static int load_candidates(struct step *st, struct err *e)
{
	struct db_bisect_candidate *rows;
	size_t n;

	if (db_bisect_candidates(st->c, st->b.id, &rows, &n, e))
		return -1;
	if (!n)
		return err_setc(e, ERR_DB, "bisect", "running bisect %lld has no candidates",
				st->b.id);
	st->n = n;
	st->cands = xcalloc(n + 1, sizeof(*st->cands));
	for (size_t i = 0; i < n; i++) {
		st->cands[i + 1].commit_id = rows[i].commit_id;
		memcpy(st->cands[i + 1].sha, rows[i].sha, sizeof(rows[i].sha));
	}
	snprintf(st->cands[0].sha, sizeof(st->cands[0].sha), "%s", st->b.level_good);
	st->cands[0].commit_id = st->b.level_good_id;
	free(rows);
	return 0;
}

/* why a job that did not end ok leaves its commit unmeasured */
static const char *fail_outcome(const struct db_bisect_job *j)
{
	if (!strcmp(j->state, "done"))
		return !strcmp(j->outcome, "build-failed") ? "build-failed" :
		       !strcmp(j->outcome, "boot-failed")  ? "boot-failed" :
							     "run-failed";
	return !strcmp(j->state, "failed") ? "lease-expired" : "cancelled";
}

/*
 * The jobs of the current level's commits (and its good end): their rounds,
 * ok jobs and failures. *busy = 1 when a job is still out.
 */
static int tally_jobs(struct step *st, int *busy, struct err *e)
{
	struct db_bisect_job *jobs;
	size_t nj;

	*busy = 0;
	if (db_bisect_jobs(st->c, st->b.id, &jobs, &nj, e))
		return -1;
	for (size_t i = 0; i < nj; i++) {
		const struct db_bisect_job *j = &jobs[i];
		int out = !strcmp(j->state, "queued") || !strcmp(j->state, "leased");
		struct cand *cd = NULL;

		if (out)
			*busy = 1;
		for (size_t k = 0; k <= st->n && !cd; k++)
			if (st->cands[k].commit_id == j->commit_id)
				cd = &st->cands[k];
		if (!cd)
			continue; /* a commit of a level above, not of this one */
		if (!cd->first_round || j->round < cd->first_round)
			cd->first_round = j->round;
		if (j->round > cd->last_round)
			cd->last_round = j->round;
		if (j->image_sha256[0])
			memcpy(cd->image, j->image_sha256, sizeof(cd->image));
		if (!strcmp(j->state, "done") && !strcmp(j->outcome, "ok")) {
			cd->ok_jobs++;
		} else if (!strcmp(j->state, "done") && !strcmp(j->outcome, "same-image")) {
			cd->same_image = 1;
		} else if (!out) {
			cd->skipped = 1;
			cd->fail_outcome = fail_outcome(j);
		}
	}
	free(jobs);
	return 0;
}

/*
 * Image ids for the planner: cands of one image hash share 1 + the index
 * of the first of them. A same-image commit whose image has no measured
 * commit in this level (its twin is of a level above) is skipped: the
 * planner could not take runs for it, and probing it again would only
 * build it again.
 */
static void image_ids(struct step *st)
{
	for (size_t j = 0; j <= st->n; j++) {
		struct cand *cd = &st->cands[j];
		int measured = 0;

		if (!cd->image[0])
			continue;
		for (size_t i = 0; i <= st->n; i++)
			if (!strcmp(st->cands[i].image, cd->image)) {
				if (!cd->image_id)
					cd->image_id = (int)i + 1;
				measured |= st->cands[i].n > 0;
			}
		if (cd->same_image && !cd->n && !measured && !cd->skipped) {
			cd->skipped = 1;
			cd->fail_outcome = "same image as a commit outside this level";
		}
	}
}

static int load_samples(struct step *st, struct err *e)
{
	struct db_bisect_sample *s;
	size_t ns;

	if (db_bisect_samples(st->c, st->b.id, st->srv->cfg->bisect_reuse_runs != 0, &s, &ns, e))
		return -1;
	for (size_t i = 0; i < ns; i++) {
		struct cand *cd;

		if (s[i].idx < -1 || s[i].idx >= (long)st->n)
			continue;
		cd = &st->cands[s[i].idx + 1];
		ALLOC_GROW(cd->v, cd->n + 1, cd->alloc);
		cd->v[cd->n++] = s[i].value;
	}
	free(s);
	/* an ok job that left no value of the metric cannot be measured either */
	for (size_t j = 0; j <= st->n; j++)
		if (st->cands[j].ok_jobs && !st->cands[j].n && !st->cands[j].skipped)
			st->cands[j].skipped = 1;
	image_ids(st);
	return 0;
}

/* --- planning --------------------------------------------------------------- */

/* k for the next round: idle matching workers, capped (see bisect.h) */
static int probe_k(struct step *st, struct err *e)
{
	const struct config *cfg = st->srv->cfg;
	long idle, total, k, share;

	if (db_bisect_workers(st->c, st->b.arch, st->b.tbox, st->cap, WORKER_WINDOW_S, &idle,
			      &total, e))
		return -1;
	k = idle;
	if (st->b.max_k > 0 && k > st->b.max_k)
		k = st->b.max_k;
	if (k > cfg->bisect_max_k)
		k = cfg->bisect_max_k;
	share = total * cfg->bisect_share_pct / 100;
	if (k > share)
		k = share;
	return k < 1 ? 1 : (int)k;
}

/* the planner's input: borrowed views of cands */
static void plan_input(struct step *st)
{
	size_t n = st->n;

	st->bc = xcalloc(n, sizeof(*st->bc));
	for (size_t j = 0; j < n; j++) {
		st->bc[j].samples = st->cands[j + 1].v;
		st->bc[j].n = st->cands[j + 1].n;
		st->bc[j].skipped = st->cands[j + 1].skipped;
		st->bc[j].image = st->cands[j + 1].image_id;
	}
	memset(&st->in, 0, sizeof(st->in));
	st->in.n = n;
	st->in.c = st->bc;
	st->in.good = st->cands[0].v;
	st->in.n_good = st->cands[0].n;
	st->in.good_skipped = st->cands[0].skipped;
	st->in.good_image = st->cands[0].image_id;
	st->in.bad_skipped = st->cands[n].skipped;
	st->in.round = st->b.round;
}

/* asks the planner what next: st->d, st->model, st->k */
static int plan(struct step *st, struct err *e)
{
	const struct config *cfg = st->srv->cfg;
	struct bisect_opts o;

	vmspec_job_capability(st->b.kconfig, st->b.arch, st->b.params, st->cap, sizeof(st->cap));
	st->k = probe_k(st, e);
	if (st->k < 0)
		return -1;
	plan_input(st);
	bisect_opts_init(&o);
	o.k = st->k;
	o.runs_per_step = st->b.runs_per_step;
	o.ref_runs = st->b.ref_runs;
	o.max_runs = (int)cfg->bisect_max_runs;
	o.probe_z = cfg->bisect_probe_z;
	o.expect_deterministic = !strcmp(st->b.measure, "icount");
	if (o.ref_runs_min > o.ref_runs)
		o.ref_runs_min = o.ref_runs;
	bisect_plan_init(&st->plan, &o);
	bisect_plan_compute(&st->plan, &st->in);
	bisect_plan_next(&st->plan, &st->d);
	st->model = model_json(&st->plan, st->k);
	return 0;
}

/* --- acting on the decision ------------------------------------------------- */

/* BISECT_PROBE: queues the next round's jobs; returns how many, or -1 */
static int queue_probes(struct step *st, struct err *e)
{
	const struct config *cfg = st->srv->cfg;
	int round = st->b.round + 1, bad;
	char *mtext;

	for (size_t i = 0; i < st->d.nr_probes; i++) {
		long idx = st->d.probes[i].idx;

		if (db_bisect_job_insert(st->c, st->b.id, st->cands[idx + 1].commit_id, st->cap,
					 st->d.probes[i].runs, cfg->bisect_priority,
					 cfg->max_attempts, round, e))
			return -1;
	}
	mtext = json_dumps(st->model, JSON_COMPACT);
	bad = db_bisect_round(st->c, st->b.id, round, st->d.phase, mtext, e);
	free(mtext);
	return bad ? -1 : (int)st->d.nr_probes;
}

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
static int descend(struct step *st, struct err *e)
{
	const struct db_bisect_row *b = &st->b;
	const struct bisect_decision *d = &st->d;
	const char *merge = st->cands[d->first_bad + 1].sha;
	char dir[4096], p1[41], *etext;
	char **side = NULL;
	const char **shas = NULL;
	size_t ns = 0;
	struct err ge;
	long long p1_id, stored;
	json_t *ent;
	int ret = -1;

	if (gitmirror_path(st->srv->cfg->data_dir, b->tree, dir, sizeof(dir), &ge) ||
	    gitmirror_merge_side(dir, merge, b->good, (int)st->srv->cfg->git_timeout_s, p1, &side,
				 &ns, &ge)) {
		slog_warn("bisect %lld: side branch of %.12s: %s (%s); the merge is the answer",
			  b->id, merge, ge.message, ge.detail);
		return 0;
	}
	if (!ns)
		return 0;
	p1_id = db_commit_id(st->c, p1, e);
	if (p1_id <= 0) {
		ret = p1_id < 0 ? -1 : 0;
		goto out;
	}
	shas = xcalloc(ns + 1, sizeof(*shas));
	for (size_t i = 0; i < ns; i++)
		shas[i] = side[i];
	shas[ns] = merge;
	stored = db_bisect_commits_insert(st->c, b->id, shas, ns + 1, b->level + 1, e);
	if (stored < 0)
		goto out;
	if (stored != (long long)ns + 1) {
		/* side commits missing from the commits table: cannot descend; the rows of the
		 * level never entered are never read (the level does not change) */
		slog_warn("bisect %lld: side branch of %.12s not imported; the merge is the answer",
			  b->id, merge);
		ret = 0;
		goto out;
	}
	ent = json_pack("{s:i,s:s,s:s,s:s,s:s,s:I,s:I,s:i,s:o,s:o}", "level", b->level, "good",
			st->cands[0].sha, "bad", st->cands[st->n].sha, "merge", merge,
			"merge_parent", p1, "nr_candidates", (json_int_t)st->n, "side_commits",
			(json_int_t)ns, "round", b->round, "confidence", json_num(d->confidence),
			"verification",
			verification_json(st->cands, d, st->plan.model.refs.hl_pct));
	etext = json_dumps(ent, JSON_COMPACT);
	json_decref(ent);
	ret = db_bisect_descend(st->c, b->id, b->level + 1, p1_id, etext, e);
	free(etext);
	if (ret)
		goto out;
	slog_info("bisect %lld: first bad on level %d is merge %.12s; descending into its %zu "
		  "side-branch commits (good end %.12s)",
		  b->id, b->level, merge, ns, p1);
	ret = 1;
out:
	free(shas);
	gitmirror_free_list(side, ns);
	return ret;
}

/*
 * The profile round (sql/0018): once the answer is found, the first bad
 * commit and its parent get runs with the bisect's monitors (perf-profile
 * unless the bisect was given others, or [] for none) before the bisect
 * finishes, so every bisect that found its commit has a profile diff (GET
 * /api/v1/bisects/{id}/profile-diff). The runs that decided stay
 * unprofiled: perf perturbs the case, and the profiled runs are of another
 * setup (monitors are in its key), never read back as samples
 * (db_bisect_samples()) nor tallied as the round's jobs (db_bisect_jobs()).
 * Each pass plans again from the same samples; the round is queued once
 * (PROFILE_RUNS_MIN runs or runs_per_step, whichever is more: 5 vs 5 is the
 * least that can reach p 0.01, lib/profdiff.c), waited for, and its
 * failures do not fail the bisect (its diff has fewer runs). Returns 1
 * while the round is out, 0 to finish, -1 with e.
 */
#define PROFILE_RUNS_MIN 5
static int profile_round(struct step *st, struct err *e)
{
	const struct config *cfg = st->srv->cfg;
	long long pid = st->cands[st->d.first_bad].commit_id;
	long long fid = st->cands[st->d.first_bad + 1].commit_id;
	int runs = st->b.runs_per_step > PROFILE_RUNS_MIN ? st->b.runs_per_step : PROFILE_RUNS_MIN;
	long long total, out;
	char mon[32], *mtext;
	int bad;

	if (db_bisect_monitors(st->c, st->b.id, mon, e))
		return -1;
	if (!*mon)
		return 0;
	if (db_bisect_profile_jobs(st->c, st->b.id, pid, fid, &total, &out, e))
		return -1;
	if (total)
		return out ? 1 : 0;
	if (db_bisect_profile_job_insert(st->c, st->b.id, pid, st->cap, runs, cfg->bisect_priority,
					 cfg->max_attempts, st->b.round, e) ||
	    db_bisect_profile_job_insert(st->c, st->b.id, fid, st->cap, runs, cfg->bisect_priority,
					 cfg->max_attempts, st->b.round, e))
		return -1;
	mtext = json_dumps(st->model, JSON_COMPACT);
	bad = db_bisect_round(st->c, st->b.id, st->b.round, "profile", mtext, e);
	free(mtext);
	if (bad)
		return -1;
	slog_info("bisect %lld: first bad %.12s found; profile round queued (%s, %d runs of it "
		  "and of its parent %.12s)",
		  st->b.id, st->cands[st->d.first_bad + 1].sha, mon, runs,
		  st->cands[st->d.first_bad].sha);
	st->profile_queued = 1;
	return 1;
}

/* BISECT_DONE: descend into a merge, or finish with the first bad commit; 1 = a level began */
static int on_done(struct step *st, struct err *e)
{
	const struct bisect_decision *d = &st->d;
	json_t *ver;
	int dr = 0, bad;

	/* a merge found first bad: descend into its side branch (not into the merge that
	 * ends this level: every commit of its side branch was good) */
	if (st->b.level < BISECT_MAX_LEVEL && !(st->b.level > 0 && d->first_bad == (long)st->n - 1))
		dr = descend(st, e);
	if (dr)
		return dr;
	dr = profile_round(st, e);
	if (dr)
		return dr < 0 ? -1 : 0;
	ver = verification_json(st->cands, d, st->plan.model.refs.hl_pct);
	bad = bisect_finish(st->srv, st->c, &st->b, "done", "found",
			    st->cands[d->first_bad + 1].commit_id, NULL, d->confidence, NULL, ver,
			    st->model, e);
	json_decref(ver);
	return bad ? -1 : 0;
}

/* BISECT_AMBIGUOUS: done with the candidates left */
static int on_ambiguous(struct step *st, struct err *e)
{
	const struct bisect_decision *d = &st->d;
	struct buf ids = BUF_INIT(0);
	int over = buf_addch(&ids, '{'), bad;

	for (long j = d->lo; j <= d->hi; j++)
		over |= buf_addf(&ids, "%s%lld", j > d->lo ? "," : "", st->cands[j + 1].commit_id);
	over |= buf_addch(&ids, '}');
	bad = over || bisect_finish(st->srv, st->c, &st->b, "done", "ambiguous", 0, ids.data,
				    d->confidence, d->reason, NULL, st->model, e);
	buf_release(&ids);
	return bad ? -1 : 0;
}

/*
 * BISECT_FAILED. Below level 0 the side branch could not be narrowed (its
 * change spread over several commits, or undecided): the merge stays the
 * first bad commit of the chain above, verified there; say why it is not
 * narrower.
 */
static int on_failed(struct step *st, struct err *e)
{
	const struct bisect_decision *d = &st->d;
	char why[sizeof(d->reason) + 200];
	json_t *ent;
	int bad;

	if (!(st->b.level > 0 && st->b.descent))
		return bisect_finish(st->srv, st->c, &st->b, "failed", NULL, 0, NULL, NAN,
				     d->reason, NULL, st->model, e);
	ent = json_loads(st->b.descent, 0, NULL);
	snprintf(why, sizeof(why),
		 "the merge is the first bad commit of the level above; its side "
		 "branch could not be narrowed: %s",
		 d->reason);
	bad = !ent ||
	      bisect_finish(st->srv, st->c, &st->b, "done", "found", st->cands[st->n].commit_id,
			    NULL, json_number_value(json_object_get(ent, "confidence")), why,
			    json_object_get(ent, "verification"), st->model, e);
	json_decref(ent);
	if (!ent)
		err_setc(e, ERR_DB, "descents", "bad descents of bisect %lld", st->b.id);
	return bad ? -1 : 0;
}

/*
 * BISECT_ENVIRONMENT: the change lies between identical images; no commit is
 * named (outcome "environment", the candidates of that image kept)
 */
static int on_environment(struct step *st, struct err *e)
{
	const struct bisect_decision *d = &st->d;
	struct buf ids = BUF_INIT(0);
	int over = buf_addch(&ids, '{'), bad;

	for (long j = d->lo - 1; j <= d->hi; j++)
		over |= buf_addf(&ids, "%s%lld", j > d->lo - 1 ? "," : "",
				 st->cands[j + 1].commit_id);
	over |= buf_addch(&ids, '}');
	bad = over || bisect_finish(st->srv, st->c, &st->b, "done", "environment", 0, ids.data,
				    d->confidence, d->reason, NULL, st->model, e);
	buf_release(&ids);
	return bad ? -1 : 0;
}

/* acts on st->d; 1 = a level began, 0, -1; *queued = probe jobs queued */
static int act(struct step *st, int *queued, struct err *e)
{
	*queued = 0;
	switch (st->d.action) {
	case BISECT_PROBE:
		*queued = queue_probes(st, e);
		return *queued < 0 ? -1 : 0;
	case BISECT_DONE:
		return on_done(st, e);
	case BISECT_AMBIGUOUS:
		return on_ambiguous(st, e);
	case BISECT_FAILED:
		return on_failed(st, e);
	case BISECT_ENVIRONMENT:
		return on_environment(st, e);
	}
	return 0;
}

/* --- the step --------------------------------------------------------------- */

static void step_release(struct step *st)
{
	json_decref(st->model);
	bisect_decision_release(&st->d);
	bisect_plan_release(&st->plan);
	if (st->cands)
		for (size_t j = 0; j <= st->n; j++)
			free(st->cands[j].v);
	free(st->cands);
	free(st->bc);
	db_bisect_row_release(&st->b);
}

int bisect_step_running(struct server *srv, struct db_conn *c, long long id, struct err *e)
{
	struct step st;
	int got, busy, queued = 0, ret;

	memset(&st, 0, sizeof(st));
	st.srv = srv;
	st.c = c;
	if (db_begin(c, e))
		return -1;
	got = db_bisect_lock(c, id, &st.b, e);
	if (got <= 0 || strcmp(st.b.state, "running")) {
		db_rollback(c);
		step_release(&st);
		return got < 0 ? -1 : 0;
	}
	if (load_candidates(&st, e) || tally_jobs(&st, &busy, e))
		goto rollback;
	if (busy) {
		db_rollback(c);
		step_release(&st);
		return 0;
	}
	if (load_samples(&st, e) || plan(&st, e))
		goto rollback;
	if (st.b.round > 0 && record_steps(&st, e))
		goto rollback;
	ret = act(&st, &queued, e);
	if (ret < 0 || db_commit(c, e))
		goto rollback;
	if (queued || st.profile_queued)
		lease_queue_kick(srv->leases);
	step_release(&st);
	return ret;
rollback:
	db_rollback(c);
	step_release(&st);
	return -1;
}
