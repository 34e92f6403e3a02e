#ifndef REGTRACK_SERVER_DB_TREES_H
#define REGTRACK_SERVER_DB_TREES_H

#include <libpq-fe.h>
#include <stddef.h>

#include "err.h"

/*
 * Typed rows of trees and of what their mirrors store about commits (the
 * statements of db/stmts_trees.c, and the diffstat pair of stmts_mail.c
 * that gitmirror.c runs). Every function that fails returns -1 with e
 * filled by db_exec(): 503 "db_unavailable", 409 "conflict", 500
 * "db_error".
 */

/* commits */

/*
 * One batch of commit metadata into the commits table (ST_COMMITS_IMPORT):
 * cols are the text[] literals of shas, parents (space-separated per
 * commit), authors, commit times and subjects, in that order, one element
 * per commit; topo_order counts on from base. Borrowed. 0 or -1 with e.
 */
int db_commits_import(PGconn *c, const char *const cols[5], long long tree_id, long long base,
		      struct err *e) __attribute__((warn_unused_result));

/*
 * Commit id's sha (sha, 41 bytes) and whether its diffstat was collected
 * (*stored 1/0) (ST_MAIL_DIFFSTAT_LOOKUP): 1, 0 when there is no such
 * commit, -1 with e.
 */
int db_commit_diffstat_state(PGconn *c, long long id, char sha[41], int *stored, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Stores commit id's diffstat (ST_MAIL_DIFFSTAT_STORE): files is the JSON
 * array [{path, ins, del}] (borrowed), then the totals. The first writer
 * wins. 0 or -1 with e.
 */
int db_commit_diffstat_store(PGconn *c, long long id, const char *files, size_t nr_files,
			     long long insertions, long long deletions, struct err *e)
	__attribute__((warn_unused_result));

/* trees */

/* A tracked tree by name (ST_TREE_GET). */
struct db_tree {
	long long id;
	char *url; /* new copy (db_tree_release); NULL when it has none */
};
/* Tree `name`: 1 with *t filled, 0 when there is none (*t zeroed), -1 with e. */
int db_tree_get(PGconn *c, const char *name, struct db_tree *t, struct err *e)
	__attribute__((warn_unused_result));
void db_tree_release(struct db_tree *t);

/*
 * Every tree as the JSON array GET /api/v1/trees replies (ST_TREES_JSON):
 * 0 with *text a new NUL-terminated copy of its *len bytes (caller frees),
 * -1 with e.
 */
int db_trees_json(PGconn *c, char **text, size_t *len, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Adds tree name or updates its url (NULL: keep) and branches (a text[]
 * literal) (ST_TREE_UPSERT). Returns its id (> 0) or -1 with e.
 */
long long db_tree_upsert(PGconn *c, const char *name, const char *url, const char *branches,
			 struct err *e) __attribute__((warn_unused_result));

#endif
