#ifndef REGTRACK_SERVER_DB_TREES_H
#define REGTRACK_SERVER_DB_TREES_H

#include <stddef.h>

#include "err.h"

struct db_conn;

/*
 * Typed rows of trees and of what their mirrors store about commits (the
 * statements beside them in db/trees.c, the commits' diffstat among them,
 * which gitmirror.c collects). Every function that fails returns -1 with e
 * filled as the store fills it (db.h): 503 "db_unavailable", 409 "conflict", 500
 * "db_error".
 */

/* commits */

/*
 * One batch of commit metadata into the commits table (ST_COMMITS_IMPORT):
 * cols are the text[] literals of shas, parents (space-separated per
 * commit), authors, commit times and subjects, in that order, one element
 * per commit; topo_order counts on from base. Borrowed. 0 or -1 with e.
 */
int db_commits_import(struct db_conn *c, const char *const cols[5], long long tree_id,
		      long long base, struct err *e) __attribute__((warn_unused_result));

/*
 * Commit id's sha (sha, 41 bytes) and whether its diffstat was collected
 * (*stored 1/0) (trees.c): 1, 0 when there is no such
 * commit, -1 with e.
 */
int db_commit_diffstat_state(struct db_conn *c, long long id, char sha[41], int *stored,
			     struct err *e) __attribute__((warn_unused_result));
/*
 * Stores commit id's diffstat (trees.c): files is the JSON
 * array [{path, ins, del}] (borrowed), then the totals. The first writer
 * wins. 0 or -1 with e.
 */
int db_commit_diffstat_store(struct db_conn *c, long long id, const char *files, size_t nr_files,
			     long long insertions, long long deletions, struct err *e)
	__attribute__((warn_unused_result));

/* trees */

/* A tracked tree by name (ST_TREE_GET). */
struct db_tree {
	long long id;
	char *url; /* new copy (db_tree_release); NULL when it has none */
};
/* Tree `name`: 1 with *t filled, 0 when there is none (*t zeroed), -1 with e. */
int db_tree_get(struct db_conn *c, const char *name, struct db_tree *t, struct err *e)
	__attribute__((warn_unused_result));
void db_tree_release(struct db_tree *t);
/* The id of tree `name` (ST_TREE_ID): > 0, 0 when there is no such tree, or -1 with e. */
long long db_tree_id(struct db_conn *c, const char *name, struct err *e)
	__attribute__((warn_unused_result));
/*
 * The tree (trees.id) named `name`, created with no url when new
 * (ST_TREE_INSERT, then ST_TREE_ID for one a concurrent writer created;
 * twice): its id, or -1 with e (ERR_DB when neither finds the row).
 */
long long db_tree_name_upsert(struct db_conn *c, const char *name, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Every tree as the JSON array GET /api/v1/trees replies (ST_TREES_JSON):
 * 0 with *text a new NUL-terminated copy of its *len bytes (caller frees),
 * -1 with e.
 */
int db_trees_json(struct db_conn *c, char **text, size_t *len, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Adds tree name or updates its url (NULL: keep), branches (a text[]
 * literal) and poll_s (seconds between polls, 0 = only when asked; < 0:
 * keep, 300 for a new tree) (ST_TREE_UPSERT). Returns its id (> 0) or -1
 * with e.
 */
long long db_tree_upsert(struct db_conn *c, const char *name, const char *url, const char *branches,
			 long poll_s, struct err *e) __attribute__((warn_unused_result));

/* mirrors (tree_mirrors; bisect/bisect_coord.c, track/poller.c) */

/* A tree whose mirror was never made from its current url; heap copies. */
struct db_tree_mirror_todo {
	long long tree_id;
	char *name, *url, *branches; /* branches space-separated */
};
/* Reads one such tree into *t (ST_TREE_MIRROR_TODO): 1, 0 when there is none, -1 with e. */
int db_tree_mirror_todo(struct db_conn *c, struct db_tree_mirror_todo *t, struct err *e)
	__attribute__((warn_unused_result));
void db_tree_mirror_todo_release(struct db_tree_mirror_todo *t);
/*
 * Records a mirror sync of tree_id from url: `commits` imported (< 0 =
 * keep the count stored), error NULL when it worked (ST_TREE_MIRROR_SET).
 * 0 or -1 with e.
 */
int db_tree_mirror_set(struct db_conn *c, long long tree_id, const char *url, long long commits,
		       const char *error, struct err *e) __attribute__((warn_unused_result));

/* branch heads (sql/0014 tree_branches) */

/* The last head seen of one branch of a tree. */
struct db_tree_head {
	char branch[256];
	char sha[41];
};
/*
 * Every branch head stored for tree_id (ST_TREE_HEADS), by branch name:
 * 0 with *heads a new array of *n (caller frees; NULL when none), -1 with e.
 */
int db_tree_heads(struct db_conn *c, long long tree_id, struct db_tree_head **heads, size_t *n,
		  struct err *e) __attribute__((warn_unused_result));
/*
 * Stores branch's head sha (borrowed), keeping the one it replaces as
 * previous_sha; forced: the move was not a fast-forward (ST_TREE_HEAD_SET).
 * 0 or -1 with e.
 */
int db_tree_head_set(struct db_conn *c, long long tree_id, const char *branch, const char *sha,
		     int forced, struct err *e) __attribute__((warn_unused_result));
/* Forgets the heads of branches not in `branches` (a text[] literal). 0 or -1 with e. */
int db_tree_heads_prune(struct db_conn *c, long long tree_id, const char *branches, struct err *e)
	__attribute__((warn_unused_result));
/* The largest topo_order of tree_id's commits (0 when none) in *max. 0 or -1 with e. */
int db_tree_topo_max(struct db_conn *c, long long tree_id, long long *max, struct err *e)
	__attribute__((warn_unused_result));

/* polls (sql/0014; server/track/poller.c) */

/*
 * The trees due for a poll, most overdue first, at most 32
 * (ST_TREE_POLL_DUE): 0 with *ids a new array of *n (caller frees; NULL
 * when none), -1 with e.
 */
int db_tree_poll_due(struct db_conn *c, long long **ids, size_t *n, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Takes the session's advisory lock of tree id's poll, without waiting
 * (ST_TREE_POLL_LOCK): 1 taken, 0 another session holds it, -1 with e.
 * Held until db_tree_poll_unlock() or the connection's end.
 */
int db_tree_poll_lock(struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));
/* Gives the lock back; failures only logged (the connection's end frees it too). */
void db_tree_poll_unlock(struct db_conn *c, long long id);
/* A tree claimed for a poll (ST_TREE_POLL_CLAIM). */
struct db_tree_poll {
	char *name; /* new copies (db_tree_poll_release) */
	char *url;
	char started[64]; /* now() as the database prints a timestamptz */
};
/* With the lock held: 1 when tree id is still due (*t filled), 0 when not, -1 with e. */
int db_tree_poll_claim(struct db_conn *c, long long id, struct db_tree_poll *t, struct err *e)
	__attribute__((warn_unused_result));
void db_tree_poll_release(struct db_tree_poll *t);
/*
 * Records a poll of tree id that began at `started` (from the claim) and
 * took ms milliseconds; error NULL for success, else the message shown on
 * the tree, and the next poll is backed off (ST_TREE_POLL_DONE). 0 or -1
 * with e.
 */
int db_tree_poll_done(struct db_conn *c, long long id, const char *started, long ms,
		      const char *error, struct err *e) __attribute__((warn_unused_result));
/*
 * Asks for a poll of tree `name` now (ST_TREE_POLL_REQUEST): 1 with *id and
 * *has_url, 0 when there is no such tree, -1 with e.
 */
int db_tree_poll_request(struct db_conn *c, const char *name, long long *id, int *has_url,
			 struct err *e) __attribute__((warn_unused_result));

#endif
