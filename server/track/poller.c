/* The tree poller and the writes of what plans schedule (see poller.h). */
#include "server/track/poller.h"
#include "clock.h"
#include "server/bgthread.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/db/jobs.h"
#include "server/db/plans.h"
#include "server/db/trees.h"
#include "server/track/gitmirror.h"
#include "server/db/runs.h"
#include "server/jobs/lease.h"
#include "server/log.h"
#include "server/track/plan.h"
#include "server/track/scheduler.h"
#include "server/server.h"
#include "attr.h"
#include "buf.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* most commits of one push read from the mirror (the newest of a longer one) */
#define MAX_RANGE 10000

struct poller {
	struct server *srv;
	pthread_mutex_t lock; /* guards t against a kick racing poller_halt */
	struct bgthread *t;   /* NULL once halted */
	atomic_int stopping;
};

/* What one plan needs while a tree's branches are scheduled. */
struct plan_ctx {
	const struct db_plan_row *row;
	json_t *spec;
	struct plan_setup *setups;
	size_t nr_setups;
	struct sched_rule rule;
	long priority;
	long left; /* commits this poll may still test, over all branches: max_per_push */
};

/* appends {commit, reason} for each pick to a JSON array text */
static char *picks_json(const struct sched_pick *picks, size_t n,
			const struct gitmirror_commit *range)
{
	json_t *a = json_array();
	char *text;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s,s:s}", "commit", range[picks[i].index].sha,
						   "reason", picks[i].reason));
	text = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return text;
}

/* queues the jobs of the picked commits x the plan's matrix; returns how many were new */
static long queue_jobs(struct server *srv, struct db_conn *c, long long tree_id,
		       const struct plan_ctx *pc, const char *branch,
		       const struct sched_result *res, const struct gitmirror_commit *range,
		       struct err *e)
{
	long queued = 0;

	for (size_t i = 0; i < res->nr_tested; i++) {
		long long commit_id = db_commit_upsert(c, range[res->tested[i].index].sha, NULL,
						       NULL, tree_id, e);

		if (commit_id < 0)
			return -1;
		for (size_t k = 0; k < pc->nr_setups; k++) {
			const struct plan_setup *s = &pc->setups[k];
			long long tc_id = db_testcase_upsert(c, s->testcase, e);
			struct db_job_new j = {
				.tree_id = tree_id,
				.commit_id = commit_id,
				.testcase_id = tc_id,
				.params = s->params,
				.kconfig = s->kconfig,
				.compiler = s->compiler,
				.arch = s->arch,
				.tbox_group = s->tbox_group,
				.capability = s->capability,
				.repeat = json_integer_value(json_object_get(pc->spec, "repeat")),
				.priority = pc->priority,
				.max_attempts = srv->cfg->max_attempts,
				.plan_id = pc->row->id,
				.track_key = s->key,
				.track_branch = branch,
				.monitors = s->monitors,
			};
			long long id;

			if (tc_id < 0)
				return -1;
			id = db_job_insert(c, &j, e);
			if (id < 0)
				return -1;
			queued += id > 0;
		}
	}
	return queued;
}

/*
 * Schedules one branch of one plan: its head moved from what the plan saw
 * (or the plan never saw the branch). The plan's max_per_push bounds the
 * commits one poll tests over all its branches (pc->left), so a push of
 * many branches at once queues no more than a push of one: a branch that
 * finds none left is not looked at now, its head not recorded, and the next
 * poll schedules it. Returns 0 or -1 with e (nothing of this branch
 * written).
 */
static int schedule_branch(struct server *srv, struct db_conn *c, long long tree_id,
			   const char *dir, struct plan_ctx *pc, const char *branch,
			   const char *head, struct err *e)
{
	struct sched_rule rule = pc->rule;
	int timeout = (int)srv->cfg->poll_timeout_s;
	char old[41], base[41] = "";
	struct gitmirror_commit *range = NULL;
	struct sched_commit *sc = NULL;
	struct sched_result res = { 0 };
	size_t n = 0;
	int got, first, forced = 0, ret = -1;
	long queued = 0, superseded = 0;
	char *tested = NULL, *skipped = NULL;

	got = db_plan_head(c, pc->row->id, branch, old, e);
	if (got < 0)
		return -1;
	if (got && !strcmp(old, head))
		return 0;
	first = !got;
	if (pc->left <= 0) {
		slog_info("plan '%s' branch '%s' %.12s: deferred to the next poll (max_per_push "
			  "%ld reached over this poll's branches)",
			  pc->row->name, branch, head, pc->rule.max_per_push);
		return 0;
	}
	if (!first) {
		got = gitmirror_merge_base(dir, old, head, timeout, base, e);
		if (got < 0)
			return -1;
		forced = !got || strcmp(base, old);
		if (got && gitmirror_range(dir, base, head, MAX_RANGE, timeout, &range, &n, e))
			return -1;
	}
	/* the baseline, a history without a common ancestor, or a branch moved back */
	if (!n) {
		gitmirror_range_free(range, n);
		range = NULL;
		if (gitmirror_range(dir, NULL, head, 1, timeout, &range, &n, e))
			goto out;
	}
	sc = xcalloc(n + 1, sizeof(*sc));
	for (size_t i = 0; i < n; i++)
		sc[i] = (struct sched_commit){ range[i].sha, (const char *const *)range[i].files,
					       range[i].nr_files };
	if (rule.max_per_push > pc->left)
		rule.max_per_push = pc->left;
	scheduler_plan(&rule, sc, n, first, &res);
	tested = picks_json(res.tested, res.nr_tested, range);
	skipped = picks_json(res.skipped, res.nr_skipped, range);
	if (db_begin(c, e))
		goto out;
	queued = queue_jobs(srv, c, tree_id, pc, branch, &res, range, e);
	if (queued > 0 && srv->cfg->track_queue_limit > 0)
		superseded = db_job_supersede(c, pc->row->id, branch, head,
					      srv->cfg->track_queue_limit, e);
	{
		struct db_plan_push pp = {
			.plan_id = pc->row->id,
			.branch = branch,
			.old_sha = first ? NULL : old,
			.new_sha = head,
			.base_sha = base[0] ? base : NULL,
			.forced = forced,
			.commits = first ? 0 : (long)n,
			.tested = tested,
			.jobs_queued = queued,
			.skipped = skipped,
			.superseded = superseded,
		};

		if (queued < 0 || superseded < 0 || db_plan_push_insert(c, &pp, e) ||
		    db_plan_head_set(c, pc->row->id, branch, head, e) || db_commit(c, e)) {
			db_rollback(c);
			goto out;
		}
	}
	pc->left -= (long)res.nr_tested;
	slog_info("plan '%s' branch '%s' %.12s: %zu commit(s)%s, %zu tested, %ld job(s) queued, "
		  "%zu skipped, %ld superseded",
		  pc->row->name, branch, head, first ? 0 : n, forced ? " (forced)" : "",
		  res.nr_tested, queued, res.nr_skipped, superseded);
	if (queued)
		lease_queue_kick(srv->leases);
	ret = 0;
out:
	free(tested);
	free(skipped);
	scheduler_result_release(&res);
	free(sc);
	gitmirror_range_free(range, n);
	return ret;
}

/*
 * Whether a stored plan still passes the checks a new one gets
 * (plan_normalize: the server's max_jobs_per_push and detect_window of
 * now): a plan stored before a check existed (more vcpus than its arch's
 * qemu machine takes) or before the limits were lowered would queue jobs
 * no worker can run. 0 when it does; -1 (logged with the field, until the
 * plan is mended) when it does not, and nothing of it is scheduled: its
 * branches' heads stay unseen, so the mended plan tests them.
 */
static int plan_still_valid(struct server *srv, const struct db_plan_row *row, const json_t *spec)
{
	json_t *again = NULL;
	struct err e;

	if (!plan_normalize(spec, row->name, srv->cfg->plan_max_jobs_per_push,
			    srv->cfg->detect_window, &again, &e)) {
		json_decref(again);
		return 0;
	}
	slog_warn("plan '%s' not scheduled: it does not pass the plan checks of this server: "
		  "%s: %s (PUT /api/v1/plans/%s with it mended)",
		  row->name, e.detail[0] ? e.detail : "plan", e.message, row->name);
	return -1;
}

/* the heads' names as a text[] literal (git allows '"' in a ref name: escaped) */
static char *heads_literal(const struct gitmirror_head *h, size_t n)
{
	struct buf b = BUF_INIT(0);
	int over = buf_addch(&b, '{');
	char *s;

	for (size_t i = 0; i < n; i++) {
		over |= buf_addstr(&b, i ? ",\"" : "\"");
		for (const char *q = h[i].branch; *q; q++) {
			if (*q == '"' || *q == '\\')
				over |= buf_addch(&b, '\\');
			over |= buf_addch(&b, *q);
		}
		over |= buf_addch(&b, '"');
	}
	over |= buf_addch(&b, '}');
	if (over)
		abort(); /* no cap was set: only out of memory, which is fatal anyway */
	s = xstrdup(b.data);
	buf_release(&b);
	return s;
}

static const struct db_tree_head *old_head(const struct db_tree_head *old, size_t n,
					   const char *branch)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(old[i].branch, branch))
			return &old[i];
	return NULL;
}

/*
 * After the fetch: imports the new commits, stores the heads, schedules
 * every plan of the tree. 0 or -1 with e; *imported counts commits read.
 */
static int track_tree(struct poller *pl, struct db_conn *c, long long tree_id, const char *dir,
		      size_t *imported, struct err *e)
{
	struct server *srv = pl->srv;
	int timeout = (int)srv->cfg->poll_timeout_s;
	struct gitmirror_head *heads = NULL;
	struct db_tree_head *old = NULL;
	struct db_plan_row *plans = NULL;
	size_t nh = 0, no = 0, np = 0, nrevs = 0;
	const char **revs = NULL;
	char **negs = NULL;
	char *lit = NULL;
	int ret = -1;

	*imported = 0;
	if (gitmirror_heads(dir, timeout, &heads, &nh, e) ||
	    db_tree_heads(c, tree_id, &old, &no, e))
		goto out;
	/* the new commits: reachable from a moved head and from no head seen before */
	revs = xcalloc(nh + no + 1, sizeof(*revs));
	negs = xcalloc(no + 1, sizeof(*negs));
	for (size_t i = 0; i < nh; i++) {
		const struct db_tree_head *o = old_head(old, no, heads[i].branch);

		if (!o || strcmp(o->sha, heads[i].sha))
			revs[nrevs++] = heads[i].sha;
	}
	if (nrevs) {
		long long base = 0;

		for (size_t i = 0; i < no; i++)
			if (gitmirror_has_commit(dir, old[i].sha, timeout)) {
				negs[i] = xstrfmt("^%s", old[i].sha);
				revs[nrevs++] = negs[i];
			}
		if ((no && db_tree_topo_max(c, tree_id, &base, e)) ||
		    gitmirror_import_from(c, dir, tree_id, revs, nrevs, base, timeout, imported, e))
			goto out;
	}
	for (size_t i = 0; i < nh; i++) {
		const struct db_tree_head *o = old_head(old, no, heads[i].branch);
		char mb[41];
		int forced = 0;

		if (o && !strcmp(o->sha, heads[i].sha))
			continue;
		if (o) {
			int got = gitmirror_merge_base(dir, o->sha, heads[i].sha, timeout, mb, e);

			if (got < 0)
				goto out;
			forced = !got || strcmp(mb, o->sha);
		}
		if (db_tree_head_set(c, tree_id, heads[i].branch, heads[i].sha, forced, e))
			goto out;
	}
	lit = heads_literal(heads, nh);
	if (db_tree_heads_prune(c, tree_id, lit, e) || db_plans_of_tree(c, tree_id, &plans, &np, e))
		goto out;
	for (size_t p = 0; p < np && !atomic_load(&pl->stopping); p++) {
		struct plan_ctx pc = { .row = &plans[p] };
		long prio;

		pc.spec = json_loads(plans[p].spec, 0, NULL);
		if (!pc.spec) {
			slog_warn("plan '%s': stored spec unreadable", plans[p].name);
			continue;
		}
		if (plan_still_valid(srv, &plans[p], pc.spec)) {
			json_decref(pc.spec);
			continue;
		}
		pc.nr_setups = plan_setups(pc.spec, &pc.setups);
		plan_rule(pc.spec, &pc.rule);
		pc.left = pc.rule.max_per_push;
		prio = srv->cfg->track_priority +
		       (long)json_integer_value(json_object_get(pc.spec, "priority"));
		pc.priority = prio < srv->cfg->bisect_priority ? prio :
								 srv->cfg->bisect_priority - 1;
		for (size_t i = 0; i < nh; i++) {
			struct err be;

			if (!plan_branch_match(pc.spec, heads[i].branch))
				continue;
			/* one branch failing (a git error) does not stop the others */
			if (schedule_branch(srv, c, tree_id, dir, &pc, heads[i].branch,
					    heads[i].sha, &be))
				slog_warn("plan '%s' branch '%s': %s (%s)", plans[p].name,
					  heads[i].branch, be.message, be.detail);
		}
		free((void *)pc.rule.paths);
		plan_setups_free(pc.setups, pc.nr_setups);
		json_decref(pc.spec);
	}
	ret = 0;
out:
	for (size_t i = 0; i < no; i++)
		free(negs ? negs[i] : NULL);
	free(negs);
	free(revs);
	free(lit);
	free(heads);
	free(old);
	db_plan_rows_free(plans, np);
	return ret;
}

/* one poll of a claimed tree: fetch, track, record the outcome */
static void poll_one(struct poller *pl, struct db_conn *c, long long id,
		     const struct db_tree_poll *t)
{
	struct server *srv = pl->srv;
	long long t0 = mono_ms();
	char dir[4096], msg[600];
	struct err ge, e;
	size_t imported = 0;
	int ok;

	ok = !gitmirror_path(srv->cfg->data_dir, t->name, dir, sizeof(dir), &ge) &&
	     !gitmirror_sync(srv->cfg->data_dir, t->name, t->url, (int)srv->cfg->poll_timeout_s,
			     &ge) &&
	     !track_tree(pl, c, id, dir, &imported, &ge);
	if (!ok)
		snprintf(msg, sizeof(msg), "%s%s%s", ge.message, ge.detail[0] ? ": " : "",
			 ge.detail);
	if (db_tree_poll_done(c, id, t->started, (long)(mono_ms() - t0), ok ? NULL : msg, &e))
		slog_warn("tree '%s': recording the poll: %s", t->name, e.message);
	/* the mirror is current with this url: the bisect thread need not sync it again */
	if (ok && db_tree_mirror_set(c, id, t->url, -1, NULL, &e))
		slog_warn("tree '%s': recording the mirror: %s", t->name, e.message);
	if (ok)
		slog_info("tree '%s' polled in %lld ms, %zu new commit(s)", t->name, mono_ms() - t0,
			  imported);
	else
		slog_warn("tree '%s': poll failed: %s", t->name, msg);
}

/* one pass (bgthread step): every due tree this server can lock */
static long poll_step(void *arg, int *fd UNUSED)
{
	struct poller *pl = arg;
	struct server *srv = pl->srv;
	struct err e;
	struct db_conn *c = db_conn(srv->db, &e);
	long long *ids;
	size_t n;

	if (!c)
		return srv->cfg->poll_tick_ms;
	if (db_tree_poll_due(c, &ids, &n, &e)) {
		slog_warn("poller: %s", e.message);
		return srv->cfg->poll_tick_ms;
	}
	for (size_t i = 0; i < n && !atomic_load(&pl->stopping); i++) {
		struct db_tree_poll t;
		int got = db_tree_poll_lock(c, ids[i], &e);

		if (got <= 0)
			continue; /* another server polls it */
		got = db_tree_poll_claim(c, ids[i], &t, &e);
		if (got > 0)
			poll_one(pl, c, ids[i], &t);
		db_tree_poll_release(&t);
		db_tree_poll_unlock(c, ids[i]);
	}
	free(ids);
	return srv->cfg->poll_tick_ms;
}

struct poller *poller_start(struct server *srv)
{
	struct poller *pl = xcalloc(1, sizeof(*pl));
	struct err e;

	pl->srv = srv;
	pthread_mutex_init(&pl->lock, NULL);
	pl->t = bgthread_start("poller", poll_step, pl, &e);
	if (!pl->t) {
		slog_error("%s", e.message);
		pthread_mutex_destroy(&pl->lock);
		free(pl);
		return NULL;
	}
	return pl;
}

void poller_kick(struct poller *pl)
{
	if (!pl)
		return;
	pthread_mutex_lock(&pl->lock);
	bgthread_kick(pl->t);
	pthread_mutex_unlock(&pl->lock);
}

void poller_halt(struct poller *pl)
{
	struct bgthread *t;

	if (!pl)
		return;
	atomic_store(&pl->stopping, 1);
	pthread_mutex_lock(&pl->lock);
	t = pl->t;
	pl->t = NULL;
	pthread_mutex_unlock(&pl->lock);
	bgthread_stop(t);
}

void poller_stop(struct poller *pl)
{
	if (!pl)
		return;
	poller_halt(pl);
	pthread_mutex_destroy(&pl->lock);
	free(pl);
}
