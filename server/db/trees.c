/* Typed rows of trees and commit imports; see trees.h. */
#include "server/db/trees.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* commits */

int db_commits_import(struct db_conn *c, const char *const cols[5], long long tree_id,
		      long long base, struct err *e)
{
	char tid[24], off[24];
	const char *p[7] = { cols[0], cols[1], cols[2], cols[3], cols[4], tid, off };
	PGresult *r;

	snprintf(tid, sizeof(tid), "%lld", tree_id);
	snprintf(off, sizeof(off), "%lld", base);
	r = db_exec(c, ST_COMMITS_IMPORT, 7, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_commit_diffstat_state(struct db_conn *c, long long id, char sha[41], int *stored,
			     struct err *e)
{
	char b[24];
	const char *p[1] = { b };
	PGresult *r;

	sha[0] = '\0';
	*stored = 0;
	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_MAIL_DIFFSTAT_LOOKUP, 1, p, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	snprintf(sha, 41, "%s", PQgetvalue(r, 0, 0));
	*stored = PQgetvalue(r, 0, 1)[0] == 't';
	PQclear(r);
	return 1;
}

int db_commit_diffstat_store(struct db_conn *c, long long id, const char *files, size_t nr_files,
			     long long insertions, long long deletions, struct err *e)
{
	char b[24], nf[24], ins[24], del[24];
	const char *p[5] = { b, files, nf, ins, del };
	PGresult *r;

	snprintf(b, sizeof(b), "%lld", id);
	snprintf(nf, sizeof(nf), "%zu", nr_files);
	snprintf(ins, sizeof(ins), "%lld", insertions);
	snprintf(del, sizeof(del), "%lld", deletions);
	r = db_exec(c, ST_MAIL_DIFFSTAT_STORE, 5, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

/* trees */

int db_tree_get(struct db_conn *c, const char *name, struct db_tree *t, struct err *e)
{
	const char *p[1] = { name };
	PGresult *r;

	memset(t, 0, sizeof(*t));
	r = db_exec(c, ST_TREE_GET, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	t->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	t->url = PQgetisnull(r, 0, 1) ? NULL : xstrdup(PQgetvalue(r, 0, 1));
	PQclear(r);
	return 1;
}

void db_tree_release(struct db_tree *t)
{
	free(t->url);
	t->url = NULL;
}

int db_trees_json(struct db_conn *c, char **text, size_t *len, struct err *e)
{
	PGresult *r = db_exec(c, ST_TREES_JSON, 0, NULL, e);

	if (!r)
		return -1;
	*len = (size_t)PQgetlength(r, 0, 0);
	*text = xmalloc(*len + 1);
	memcpy(*text, PQgetvalue(r, 0, 0), *len + 1);
	PQclear(r);
	return 0;
}

long long db_tree_upsert(struct db_conn *c, const char *name, const char *url, const char *branches,
			 long poll_s, struct err *e)
{
	char ps[24];
	const char *p[4] = { name, url, branches, poll_s < 0 ? NULL : ps };
	PGresult *r;
	long long id;

	snprintf(ps, sizeof(ps), "%ld", poll_s);
	r = db_exec(c, ST_TREE_UPSERT, 4, p, e);
	if (!r)
		return -1;
	id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return id;
}

/* branch heads */

/* Runs st with the one id parameter id; NULL with e on failure. */
static PGresult *exec_id(struct db_conn *c, enum db_stmt st, long long id, struct err *e)
{
	char b[24];
	const char *p[1] = { b };

	snprintf(b, sizeof(b), "%lld", id);
	return db_exec(c, st, 1, p, e);
}

/* Runs a statement whose result is only success or failure: 0 or -1 with e. */
static int run(struct db_conn *c, enum db_stmt st, int n, const char *const *p, struct err *e)
{
	PGresult *r = db_exec(c, st, n, p, e);

	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_tree_heads(struct db_conn *c, long long tree_id, struct db_tree_head **heads, size_t *n,
		  struct err *e)
{
	PGresult *r = exec_id(c, ST_TREE_HEADS, tree_id, e);

	*heads = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r))
		*heads = xcalloc((size_t)PQntuples(r), sizeof(**heads));
	for (int i = 0; i < PQntuples(r); i++) {
		snprintf((*heads)[i].branch, sizeof((*heads)[i].branch), "%s", PQgetvalue(r, i, 0));
		snprintf((*heads)[i].sha, sizeof((*heads)[i].sha), "%s", PQgetvalue(r, i, 1));
	}
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

int db_tree_head_set(struct db_conn *c, long long tree_id, const char *branch, const char *sha,
		     int forced, struct err *e)
{
	char tid[24];
	const char *p[4] = { tid, branch, sha, forced ? "true" : "false" };

	snprintf(tid, sizeof(tid), "%lld", tree_id);
	return run(c, ST_TREE_HEAD_SET, 4, p, e);
}

int db_tree_heads_prune(struct db_conn *c, long long tree_id, const char *branches, struct err *e)
{
	char tid[24];
	const char *p[2] = { tid, branches };

	snprintf(tid, sizeof(tid), "%lld", tree_id);
	return run(c, ST_TREE_HEADS_PRUNE, 2, p, e);
}

int db_tree_topo_max(struct db_conn *c, long long tree_id, long long *max, struct err *e)
{
	PGresult *r = exec_id(c, ST_TREE_TOPO_MAX, tree_id, e);

	*max = 0;
	if (!r)
		return -1;
	if (PQntuples(r))
		*max = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return 0;
}

/* polls */

int db_tree_poll_due(struct db_conn *c, long long **ids, size_t *n, struct err *e)
{
	PGresult *r = db_exec(c, ST_TREE_POLL_DUE, 0, NULL, e);

	*ids = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r))
		*ids = xcalloc((size_t)PQntuples(r), sizeof(**ids));
	for (int i = 0; i < PQntuples(r); i++)
		(*ids)[i] = strtoll(PQgetvalue(r, i, 0), NULL, 10);
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

int db_tree_poll_lock(struct db_conn *c, long long id, struct err *e)
{
	PGresult *r = exec_id(c, ST_TREE_POLL_LOCK, id, e);
	int got;

	if (!r)
		return -1;
	got = PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
	PQclear(r);
	return got;
}

void db_tree_poll_unlock(struct db_conn *c, long long id)
{
	struct err e;
	PGresult *r = exec_id(c, ST_TREE_POLL_UNLOCK, id, &e);

	PQclear(r);
}

int db_tree_poll_claim(struct db_conn *c, long long id, struct db_tree_poll *t, struct err *e)
{
	PGresult *r = exec_id(c, ST_TREE_POLL_CLAIM, id, e);

	memset(t, 0, sizeof(*t));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	t->name = xstrdup(PQgetvalue(r, 0, 0));
	t->url = xstrdup(PQgetvalue(r, 0, 1));
	snprintf(t->started, sizeof(t->started), "%s", PQgetvalue(r, 0, 2));
	PQclear(r);
	return 1;
}

void db_tree_poll_release(struct db_tree_poll *t)
{
	free(t->name);
	free(t->url);
	memset(t, 0, sizeof(*t));
}

int db_tree_poll_done(struct db_conn *c, long long id, const char *started, long ms,
		      const char *error, struct err *e)
{
	char tid[24], msb[24];
	const char *p[4] = { tid, started, msb, error };

	snprintf(tid, sizeof(tid), "%lld", id);
	snprintf(msb, sizeof(msb), "%ld", ms);
	return run(c, ST_TREE_POLL_DONE, 4, p, e);
}

int db_tree_poll_request(struct db_conn *c, const char *name, long long *id, int *has_url,
			 struct err *e)
{
	const char *p[1] = { name };
	PGresult *r = db_exec(c, ST_TREE_POLL_REQUEST, 1, p, e);

	*id = 0;
	*has_url = 0;
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	*has_url = PQgetvalue(r, 0, 1)[0] == 't';
	PQclear(r);
	return 1;
}
