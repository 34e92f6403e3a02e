/* Typed rows of trees and commit imports; see trees.h. */
#include "server/db/trees.h"
#include "server/db/db.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* commits */

int db_commits_import(PGconn *c, const char *const cols[5], long long tree_id, long long base,
		      struct err *e)
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

int db_commit_diffstat_state(PGconn *c, long long id, char sha[41], int *stored, struct err *e)
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

int db_commit_diffstat_store(PGconn *c, long long id, const char *files, size_t nr_files,
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

int db_tree_get(PGconn *c, const char *name, struct db_tree *t, struct err *e)
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

int db_trees_json(PGconn *c, char **text, size_t *len, struct err *e)
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

long long db_tree_upsert(PGconn *c, const char *name, const char *url, const char *branches,
			 struct err *e)
{
	const char *p[3] = { name, url, branches };
	PGresult *r = db_exec(c, ST_TREE_UPSERT, 3, p, e);
	long long id;

	if (!r)
		return -1;
	id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return id;
}
