/* A bisect's lifecycle: create, start (queued -> running), cancel, finish (see bisect.h). */
#include "server/bisect/bisect.h"
#include "arch.h"
#include "server/config.h"
#include "server/db/bisects.h"
#include "server/db/db.h"
#include "server/db/trees.h"
#include "server/track/gitmirror.h"
#include "server/jobs/ingest.h"
#include "server/log.h"
#include "server/mail/outbox.h"
#include "server/detect/regressions.h"
#include "server/server.h"
#include "vmspec.h"
#include "xalloc.h"

#include "server/db/profiles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * params (JSON object text) with its machine shape in its one spelling
 * (vmspec_canonical()), as the results of the bisect's jobs are stored: a
 * setup stored with pin "true" before results were written so is bisected in
 * the setup its jobs' runs land in (the steps find their runs by params).
 * NULL when nothing changes: the text as it is, so that the other params
 * keep their exact text (a real read back from a setup), or a shape that
 * vmspec_parse() refuses, which only a setup stored before results were
 * checked can have (the bisect runs as that setup was asked for). Caller
 * free()s.
 */
static char *canonical_params(const char *params)
{
	json_t *p = params && *params ? json_loads(params, 0, NULL) : NULL;
	json_t *q = p ? json_deep_copy(p) : NULL;
	struct err ignored;
	char *text = NULL;

	if (q && !vmspec_canonical(q, "", &ignored) && !json_equal(p, q))
		text = json_dumps(q, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(p);
	json_decref(q);
	return text;
}

long long bisect_create(struct db_conn *c, const struct bisect_spec *s, struct err *e)
{
	struct db_bisect_new nb;
	long long tree_id;
	char *params;

	tree_id = db_tree_id(c, s->tree, e);
	if (tree_id < 0)
		return -1;
	if (!tree_id)
		return err_setc(e, ERR_NOT_FOUND, "tree",
				"no tree '%s': register it with POST /api/v1/trees", s->tree);
	memset(&nb, 0, sizeof(nb));
	nb.tree_id = tree_id;
	nb.good_id = db_commit_upsert(c, s->good, NULL, NULL, tree_id, e);
	nb.bad_id = nb.good_id < 0 ? -1 : db_commit_upsert(c, s->bad, NULL, NULL, tree_id, e);
	if (nb.bad_id < 0)
		return -1;
	nb.testcase_id = db_testcase_upsert(c, s->testcase, e);
	if (nb.testcase_id < 0)
		return -1;
	nb.arch = s->arch;
	if (!nb.arch && strcmp(s->kconfig, "host"))
		nb.arch = arch_of_kconfig(s->kconfig);
	params = canonical_params(s->params);
	nb.params = params ? params : s->params;
	nb.kconfig = s->kconfig;
	nb.compiler = s->compiler ? s->compiler : "gcc-12";
	nb.tbox_group = s->tbox_group;
	nb.metric = s->metric;
	nb.runs_per_step = s->runs_per_step;
	nb.ref_runs = s->ref_runs;
	nb.k = s->k;
	nb.regression_id = s->regression_id;
	nb.token_id = s->token_id;
	{
		long long id = db_bisect_insert(c, &nb, e);

		free(params);
		/* the column's default is perf-profile (sql/0018) */
		if (id > 0 && s->monitors && db_bisect_set_monitors(c, id, s->monitors, e))
			return -1;
		return id;
	}
}

int bisect_cancel(struct db_conn *c, long long id, const char *reason, struct err *e)
{
	return db_bisect_cancel(c, id, reason, e);
}

/* --- finish ----------------------------------------------------------------- */

/* the records of other metrics that shared bisect b follow it */
static int move_siblings(struct db_conn *c, const struct db_bisect_row *b, long long reg, int found,
			 struct err *e)
{
	char note[200];
	long long *ids;
	size_t n;
	int ret = 0;

	if (db_bisect_siblings_of(c, b->id, &ids, &n, e))
		return -1;
	snprintf(note, sizeof(note), "bisect %lld (shared with regression %lld) %s", b->id, reg,
		 found ? "found the first bad commit" : "ended without a first bad commit");
	for (size_t i = 0; i < n && !ret; i++)
		ret = regression_transition(c, ids[i], found ? "bisected" : "confirmed", "bisect",
					    0, note, NULL, NULL, e);
	free(ids);
	return ret;
}

/* its own record: bisected, or back to confirmed with a note */
static int move_regression(struct db_conn *c, const struct db_bisect_row *b, long long reg,
			   int found, const char *state, const char *outcome, const char *reason,
			   struct err *e)
{
	char note[400];

	if (found)
		snprintf(note, sizeof(note), "bisect %lld found the first bad commit", b->id);
	else
		snprintf(note, sizeof(note), "bisect %lld ended %s%s%s: %.300s", b->id, state,
			 outcome ? " " : "", outcome ? outcome : "", reason ? reason : "");
	return regression_transition(c, reg, found ? "bisected" : "confirmed", "bisect", 0, note,
				     NULL, NULL, e);
}

/*
 * What the first bad commit touched (sql/0007): the diffstat of GET
 * /api/v1/bisects/{id} and of the mail, paths subscriptions; a git failure
 * is logged (the mailer tries again), a db error is not.
 */
static int store_diffstat(struct server *srv, struct db_conn *c, const struct db_bisect_row *b,
			  long long first_bad, struct err *e)
{
	struct err ge;

	if (gitmirror_store_diffstat(c, srv->cfg->data_dir, b->tree, first_bad,
				     (int)srv->cfg->git_timeout_s, &ge) >= 0)
		return 0;
	if (!db_in_transaction(c)) {
		*e = ge;
		return -1;
	}
	slog_warn("bisect %lld: diffstat of the first bad commit: %s", b->id, ge.message);
	return 0;
}

int bisect_finish(struct server *srv, struct db_conn *c, const struct db_bisect_row *b,
		  const char *state, const char *outcome, long long first_bad, const char *cands,
		  double confidence, const char *reason, json_t *verification, json_t *model,
		  struct err *e)
{
	char *vtext = verification ? json_dumps(verification, JSON_COMPACT) : NULL;
	char *mtext = model ? json_dumps(model, JSON_COMPACT) : NULL;
	struct db_bisect_end end = { b->id,	 state,	 outcome, first_bad, cands,
				     confidence, reason, vtext,	  mtext };
	int found = !strcmp(state, "done") && first_bad;
	long long reg;
	int ret = -1;

	if (db_bisect_finish(c, &end, &reg, e))
		goto out;
	if (reg && (move_siblings(c, b, reg, found, e) ||
		    move_regression(c, b, reg, found, state, outcome, reason, e)))
		goto out;
	/* started by hand: record what it found, so it reports like an automatic one */
	if (!reg && found && db_bisect_record(c, b->id, e))
		goto out;
	if (found && (store_diffstat(srv, c, b, first_bad, e) || outbox_bisect_done(c, b->id, e)))
		goto out;
	slog_info("bisect %lld %s%s%s", b->id, state, reason ? ": " : "", reason ? reason : "");
	ret = 0;
out:
	free(vtext);
	free(mtext);
	return ret;
}

/* --- start ------------------------------------------------------------------ */

/* what git said about a queued bisect's range */
struct range {
	char **shas; /* the first-parent chain good..bad, oldest first */
	size_t n, nrange, imported;
	struct err ge; /* when it failed */
};

static int import_and_list(struct server *srv, struct db_conn *c, const struct db_bisect_row *b,
			   const char *dir, const char *const *revs, size_t nrevs, struct range *g)
{
	int to = (int)srv->cfg->git_timeout_s;

	return !gitmirror_import(c, dir, b->tree_id, revs, nrevs, to, &g->imported, &g->ge) &&
	       !gitmirror_first_parent(dir, b->good, b->bad, to, &g->shas, &g->n, &g->ge) &&
	       !gitmirror_bisect_all(dir, b->good, b->bad, to, &g->nrange, &g->ge);
}

/* git: fetch (or clone), import the tree's branches and the range, list the candidates; 1 = ok */
static int git_range(struct server *srv, struct db_conn *c, const struct db_bisect_row *b,
		     struct range *g)
{
	char dir[4096], *br = NULL, *save = NULL, *tok;
	const char *revs[64];
	size_t nrevs = 0;
	int ok;

	ok = !gitmirror_path(srv->cfg->data_dir, b->tree, dir, sizeof(dir), &g->ge) &&
	     !gitmirror_sync(srv->cfg->data_dir, b->tree, b->url, (int)srv->cfg->git_timeout_s,
			     &g->ge);
	if (!ok)
		return 0;
	if (b->branches && *b->branches) {
		br = xstrdup(b->branches);
		for (tok = strtok_r(br, " ", &save); tok && nrevs < 62;
		     tok = strtok_r(NULL, " ", &save))
			revs[nrevs++] = tok;
	}
	revs[nrevs++] = b->bad;
	ok = import_and_list(srv, c, b, dir, revs, nrevs, g);
	/* an import over branches that miss a revision fails: retry with the range alone */
	if (!ok && !g->n && nrevs > 1) {
		revs[0] = b->bad;
		ok = import_and_list(srv, c, b, dir, revs, 1, g);
	}
	free(br);
	return ok;
}

/* with b locked again: records the sync and the candidates, or fails the bisect */
static int store_range(struct server *srv, struct db_conn *c, const struct db_bisect_row *b,
		       int gitok, const struct range *g, struct err *e)
{
	char why[600];
	long long stored;

	if (db_tree_mirror_set(c, b->tree_id, b->url, (long long)g->imported,
			       gitok ? NULL : g->ge.message, e))
		return -1;
	if (!gitok) {
		snprintf(why, sizeof(why), "%s%s%s", g->ge.message, g->ge.detail[0] ? ": " : "",
			 g->ge.detail);
		return bisect_finish(srv, c, b, "failed", NULL, 0, NULL, NAN, why, NULL, NULL, e);
	}
	stored = db_bisect_commits_insert(c, b->id, (const char *const *)g->shas, g->n, 0, e);
	if (stored < 0)
		return -1;
	if (stored != (long long)g->n)
		return bisect_finish(srv, c, b, "failed", NULL, 0, NULL, NAN,
				     "commits of the range are missing from the commits table after "
				     "import",
				     NULL, NULL, e);
	if (db_bisect_start(c, b->id, g->n, g->nrange, e))
		return -1;
	slog_info("bisect %lld running: %zu candidates on the first-parent chain, %zu commits in "
		  "the range, %zu imported",
		  b->id, g->n, g->nrange, g->imported);
	return 0;
}

int bisect_start(struct server *srv, struct db_conn *c, long long id, struct err *e)
{
	struct db_bisect_row b;
	struct range g;
	int got, gitok, ret = 0;

	memset(&g, 0, sizeof(g));
	if (db_begin(c, e))
		return -1;
	got = db_bisect_lock(c, id, &b, e);
	db_rollback(c);
	if (got <= 0 || strcmp(b.state, "queued")) {
		db_bisect_row_release(&b);
		return got < 0 ? -1 : 0;
	}
	gitok = git_range(srv, c, &b, &g);
	db_bisect_row_release(&b);
	if (db_begin(c, e)) {
		ret = -1;
		goto out;
	}
	got = db_bisect_lock(c, id, &b, e);
	if (got <= 0 || strcmp(b.state, "queued")) {
		/* a lock error is not reported: the next pass tries again */
		db_rollback(c);
		goto out;
	}
	if (store_range(srv, c, &b, gitok, &g, e) || db_commit(c, e)) {
		db_rollback(c);
		ret = -1;
	}
out:
	gitmirror_free_list(g.shas, g.n);
	db_bisect_row_release(&b);
	return ret;
}
