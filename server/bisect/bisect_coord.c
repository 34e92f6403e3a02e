/* The bisect coordinator's thread (see bisect_coord.h). */
#include "server/bisect/bisect_coord.h"
#include "attr.h"
#include "server/bgthread.h"
#include "server/bisect/bisect.h"
#include "server/bisect/bisect_step.h"
#include "server/config.h"
#include "server/db/bisects.h"
#include "server/db/db.h"
#include "server/db/trees.h"
#include "server/track/gitmirror.h"
#include "server/log.h"
#include "server/detect/regressions.h"
#include "server/server.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bisect_coord {
	struct server *srv;
	pthread_mutex_t lock; /* guards t against a kick racing bisect_coord_halt */
	struct bgthread *t;   /* NULL once halted */
	atomic_int stopping;  /* set by halt: a long pass gives up between bisects */
};

/* mirrors one tree whose mirror was never made from its current url */
static void sync_one_tree(struct server *srv, struct db_conn *c)
{
	struct db_tree_mirror_todo t;
	struct err e, ge;
	char dir[4096], *save = NULL, *tok;
	const char *revs[64];
	size_t nrevs = 0, imported = 0;
	int ok;

	if (db_tree_mirror_todo(c, &t, &e) <= 0)
		return;
	for (tok = strtok_r(t.branches, " ", &save); tok && nrevs < 64;
	     tok = strtok_r(NULL, " ", &save))
		revs[nrevs++] = tok;
	ok = !gitmirror_path(srv->cfg->data_dir, t.name, dir, sizeof(dir), &ge) &&
	     !gitmirror_sync(srv->cfg->data_dir, t.name, t.url, (int)srv->cfg->git_timeout_s,
			     &ge) &&
	     !gitmirror_import(c, dir, t.tree_id, revs, nrevs, (int)srv->cfg->git_timeout_s,
			       &imported, &ge);
	/* a failure to record it is retried with the next pass */
	if (db_tree_mirror_set(c, t.tree_id, t.url, ok ? (long long)imported : -1,
			       ok ? NULL : ge.message, &e))
		slog_warn("tree '%s': recording the mirror: %s", t.name, e.message);
	if (ok)
		slog_info("tree '%s' mirrored, %zu commits imported", t.name, imported);
	else
		slog_warn("tree '%s': %s (%s)", t.name, ge.message, ge.detail);
	db_tree_mirror_todo_release(&t);
}

void bisect_spec_of_todo(const struct db_bisect_reg_todo *t, struct bisect_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->tree = t->tree;
	s->good = t->good;
	s->bad = t->bad;
	s->testcase = t->testcase;
	s->params = t->params;
	s->kconfig = t->kconfig;
	s->compiler = t->compiler;
	s->tbox_group = t->tbox_group;
	s->metric = t->metric;
	s->runs_per_step = 5;
	s->ref_runs = 10;
	s->regression_id = t->id;
}

/* starts a bisect for one confirmed regression (auto_bisect), or shares a sibling's */
static void auto_bisect_one(struct server *srv, struct db_conn *c)
{
	struct db_bisect_reg_todo t;
	struct bisect_spec s;
	struct err e;
	char note[200];
	long long bid;
	int got;

	if (db_begin(c, &e))
		return;
	got = db_bisect_reg_todo(c, srv->cfg->auto_bisect_min_pct, &t, &e);
	if (got <= 0)
		goto rollback;
	bisect_spec_of_todo(&t, &s);
	/* a sibling metric of the same setup and range is bisected already: share it */
	bid = db_bisect_sibling(c, t.id, &e);
	if (!bid)
		bid = bisect_create(c, &s, &e);
	if (bid < 0 || db_bisect_reg_link(c, t.id, bid, &e))
		goto rollback;
	snprintf(note, sizeof(note), "bisect %lld started (%.2f%%)", bid, t.size_pct);
	if (regression_transition(c, t.id, "bisecting", "bisect", 0, note, NULL, NULL, &e) ||
	    db_commit(c, &e))
		goto rollback;
	slog_info("regression %lld: bisect %lld started", t.id, bid);
	db_bisect_reg_todo_release(&t);
	return;
rollback:
	if (got > 0)
		slog_warn("auto bisect: %s (%s)", e.message, e.detail);
	db_bisect_reg_todo_release(&t);
	db_rollback(c);
}

/* starts or steps bisect id until it waits for jobs */
static void drive(struct bisect_coord *bc, struct db_conn *c, long long id)
{
	struct err e;
	int rc = bisect_start(bc->srv, c, id, &e);

	while (!rc && (rc = bisect_step_running(bc->srv, c, id, &e)) > 0 &&
	       !atomic_load(&bc->stopping))
		rc = 0;
	if (rc < 0)
		slog_warn("bisect %lld: %s (%s)", id, e.message, e.detail);
}

/* one pass (bgthread step): the next pass after bisect_poll_ms, or when kicked */
static long coord_step(void *arg, int *fd UNUSED)
{
	struct bisect_coord *bc = arg;
	struct server *srv = bc->srv;
	long long *ids;
	size_t n;
	struct err e;
	struct db_conn *c = db_conn(srv->db, &e);

	if (!c)
		return srv->cfg->bisect_poll_ms;
	sync_one_tree(srv, c);
	if (srv->cfg->auto_bisect)
		auto_bisect_one(srv, c);
	if (db_bisect_active(c, &ids, &n, &e)) {
		slog_warn("bisect: %s", e.message);
		return srv->cfg->bisect_poll_ms;
	}
	for (size_t i = 0; i < n && !atomic_load(&bc->stopping); i++)
		drive(bc, c, ids[i]);
	free(ids);
	return srv->cfg->bisect_poll_ms;
}

struct bisect_coord *bisect_coord_start(struct server *srv)
{
	struct bisect_coord *bc = xcalloc(1, sizeof(*bc));
	struct err e;

	bc->srv = srv;
	pthread_mutex_init(&bc->lock, NULL);
	bc->t = bgthread_start("bisect", coord_step, bc, &e);
	if (!bc->t) {
		slog_error("%s", e.message);
		pthread_mutex_destroy(&bc->lock);
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
	bgthread_kick(bc->t);
	pthread_mutex_unlock(&bc->lock);
}

void bisect_coord_halt(struct bisect_coord *bc)
{
	struct bgthread *t;

	if (!bc)
		return;
	atomic_store(&bc->stopping, 1);
	pthread_mutex_lock(&bc->lock);
	t = bc->t;
	bc->t = NULL;
	pthread_mutex_unlock(&bc->lock);
	bgthread_stop(t);
}

void bisect_coord_stop(struct bisect_coord *bc)
{
	if (!bc)
		return;
	bisect_coord_halt(bc);
	pthread_mutex_destroy(&bc->lock);
	free(bc);
}
