#ifndef REGTRACK_SERVER_GITMIRROR_H
#define REGTRACK_SERVER_GITMIRROR_H

#include <stddef.h>

#include "err.h"

struct db_conn;

/*
 * The server's bare mirror of each tracked tree, under
 * DATA_DIR/mirrors/NAME.git, and what the bisect needs from it. Every git
 * command goes through lib/runcmd.h (argv, no shell, a timeout, its own
 * process group); revisions given here are checked to be 40-hex shas or
 * names that cannot be read as options.
 *
 * Errors of every function (-1, e filled): ERR_INVALID_FIELD for a bad
 * tree name, sha or url; ERR_GIT (502) when git exits non-zero or times
 * out (message: what was run and how it ended, detail: the last line git
 * printed on stderr); ERR_SPAWN (500) when git cannot be started;
 * ERR_INTERNAL when a path or a batch outgrows its buffer.
 */

/* Writes DATA_DIR/mirrors/NAME.git into dst (n bytes). -1 with e when it does not fit. */
int gitmirror_path(const char *data_dir, const char *tree, char *dst, size_t n, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Makes the mirror current: `git clone --mirror -- URL DIR` the first time
 * (into a temporary name, renamed when complete), `git fetch --prune` after
 * that, first pointing the mirror's origin at url (`git remote set-url`)
 * when it was cloned from another: the database's url is the tree's.
 * timeout_s bounds each git command, and the wait for another thread's
 * sync of the same tree (one at a time per tree): past it ERR_BUSY (409),
 * detail "tree". Directories are created as needed.
 */
int gitmirror_sync(const char *data_dir, const char *tree, const char *url, int timeout_s,
		   struct err *e) __attribute__((warn_unused_result));

/*
 * Whether ref can be handed to git as a ref or sha, without git: 0, or -1
 * with e (ERR_INVALID_FIELD, detail `field`) when it is empty, starts with
 * '-', holds ".." or a control character or a space.
 */
int gitmirror_ref_check(const char *ref, const char *field, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The commit `ref` (a sha, a branch, a tag) names in the bare mirror dir:
 * `git rev-parse -q --verify --end-of-options REF^{commit}`. 1 with sha
 * (41 bytes) filled, 0 when the mirror does not have it, -1 with e
 * (ERR_SPAWN: git cannot start; ERR_INVALID_FIELD, detail `field`: a ref
 * that starts with '-' or holds a control character or "..").
 */
int gitmirror_rev_parse(const char *dir, const char *ref, const char *field, int timeout_s,
			char sha[41], struct err *e) __attribute__((warn_unused_result));

/*
 * refs[0..n) (each a sha, a branch or a tag) as the commits they name in
 * tree's mirror, into shas[i] (40 lowercase hex digits and a NUL): the
 * ref resolution of A/B requests, jobs and compare. The mirror is cloned
 * when missing and fetched once when it lacks one of the refs. 0, or -1
 * with e: ERR_INVALID_FIELD detail "tree" when url is NULL or empty (a tree
 * with no url), detail fields[i] when refs[i] is not a ref (see
 * gitmirror_rev_parse) or not a commit of the tree even after the fetch;
 * the errors of gitmirror_sync(). All arguments borrowed.
 */
int gitmirror_resolve(const char *data_dir, const char *tree, const char *url, int timeout_s,
		      size_t n, const char *const *refs, const char *const *fields,
		      char (*shas)[41], struct err *e) __attribute__((warn_unused_result));

/*
 * The first-parent chain of bad back to good, oldest first:
 * `git rev-list --first-parent --reverse GOOD..BAD`. On success *shas is a
 * new array of *n new 40-hex strings (caller frees each and the array with
 * gitmirror_free_list); its last entry is bad. An empty range (bad is an
 * ancestor of good or equal) is an error: 400 "invalid_field" detail "bad".
 */
int gitmirror_first_parent(const char *dir, const char *good, const char *bad, int timeout_s,
			   char ***shas, size_t *n, struct err *e)
	__attribute__((warn_unused_result));

/*
 * How many commits `git rev-list --bisect-all GOOD..BAD` lists (merges and
 * side branches included): the size of the whole range, beside the chain
 * the bisect walks.
 */
int gitmirror_bisect_all(const char *dir, const char *good, const char *bad, int timeout_s,
			 size_t *n, struct err *e) __attribute__((warn_unused_result));

/*
 * The side branch a two-parent merge brought in, for the bisect's descent
 * into a merge found first bad on a first-parent chain. `git rev-list
 * --parents -n 1 MERGE` gives the parents; for exactly two (P1 the
 * mainline, P2 the merged side),
 * `git rev-list --first-parent --reverse P2 ^P1 [^GOOD]` lists the side
 * branch's own first-parent chain, oldest first: the commits reachable from
 * P2 and from neither P1 nor good (a sha, or NULL: the bisect's good end,
 * known good with everything it reaches, which matters when it is not an
 * ancestor of P1). On success, p1 (41 bytes) receives P1 and *shas
 * a new array of *n new 40-hex strings (free with gitmirror_free_list);
 * *n = 0 (and *shas NULL) when merge has one parent or more than two
 * (octopus merges are not descended into: the merge itself is the answer)
 * or when P2 is already reachable from P1. Errors as above.
 */
int gitmirror_merge_side(const char *dir, const char *merge, const char *good, int timeout_s,
			 char p1[41], char ***shas, size_t *n, struct err *e)
	__attribute__((warn_unused_result));

/* 1 when sha names a commit in the mirror (`git cat-file -e SHA^{commit}`). */
int gitmirror_has_commit(const char *dir, const char *sha, int timeout_s);

/*
 * Imports commit metadata into the commits table: sha, parents, subject,
 * author ("Name <email>"), commit time and topo_order, from
 * `git log --topo-order --reverse` over `revs` (branch names or shas; NULL
 * or empty = --all), so that series follow the tree's history. topo_order
 * counts from 1 in that listing; rows that exist keep their first tree_id,
 * subject and commit time and get parents and topo_order. Batched, one
 * statement per 2000 commits, inside one transaction. *imported (may be
 * NULL) receives the number of commits listed.
 */
int gitmirror_import(struct db_conn *c, const char *dir, long long tree_id, const char *const *revs,
		     size_t nr_revs, int timeout_s, size_t *imported, struct err *e)
	__attribute__((warn_unused_result));

/*
 * gitmirror_import() with topo_order counting on from base (the tree's
 * last, db_tree_topo_max()), for the commits a poll brings: revs then name
 * the new heads and "^SHA" for each head seen before, so only new commits
 * are listed and numbered after the ones stored.
 */
int gitmirror_import_from(struct db_conn *c, const char *dir, long long tree_id,
			  const char *const *revs, size_t nr_revs, long long base, int timeout_s,
			  size_t *imported, struct err *e) __attribute__((warn_unused_result));

/* One branch of the mirror and its head. */
struct gitmirror_head {
	char branch[256]; /* without refs/heads/ */
	char sha[41];
};
/*
 * Every branch of the mirror (`git for-each-ref refs/heads/`), by name:
 * *heads a new array of *n (caller frees; NULL when none). Branches whose
 * name is 256 bytes or longer are left out.
 */
int gitmirror_heads(const char *dir, int timeout_s, struct gitmirror_head **heads, size_t *n,
		    struct err *e) __attribute__((warn_unused_result));

/*
 * The best common ancestor of shas a and b (`git merge-base A B`): 1 with
 * base (41 bytes), 0 when they have none (unrelated histories, or an
 * object gone from the mirror), -1 with e.
 */
int gitmirror_merge_base(const char *dir, const char *a, const char *b, int timeout_s,
			 char base[41], struct err *e) __attribute__((warn_unused_result));

/* A commit of a pushed range and the paths it touched against its first parent. */
struct gitmirror_commit {
	char sha[41];
	char **files; /* new strings in a new array of nr_files */
	size_t nr_files;
};
/*
 * The first-parent chain base..head (base NULL: head alone), oldest first,
 * with the files each commit touched (`git log --first-parent --reverse
 * --name-only --diff-merges=first-parent`), at most the newest max
 * commits. *list is a new array of *n (free with gitmirror_range_free);
 * its last entry is head unless the range is empty (head reachable from
 * base).
 */
int gitmirror_range(const char *dir, const char *base, const char *head, size_t max, int timeout_s,
		    struct gitmirror_commit **list, size_t *n, struct err *e)
	__attribute__((warn_unused_result));
void gitmirror_range_free(struct gitmirror_commit *list, size_t n);

/* Frees a list from gitmirror_first_parent. */
void gitmirror_free_list(char **list, size_t n);

/*
 * What one commit touched, against its first parent (a root commit: against
 * the empty tree), from
 *   git -C DIR log -1 --no-renames --diff-merges=first-parent --numstat -z
 *       --format= SHA
 * (a rename is a delete plus an add). files[] is in git's order (sorted by
 * path); insertions/deletions of a binary file are -1 and not summed. The
 * totals are what `git diff --shortstat PARENT SHA` prints.
 */
struct gitmirror_file {
	char *path; /* new, as git stores it (bytes, not quoted) */
	long insertions, deletions;
};
struct gitmirror_diffstat {
	struct gitmirror_file *files; /* new array of nr_files */
	size_t nr_files;
	long long insertions, deletions;
};

/* Fills d (which the caller releases with gitmirror_diffstat_release, also on error). */
int gitmirror_diffstat(const char *dir, const char *sha, int timeout_s,
		       struct gitmirror_diffstat *d, struct err *e)
	__attribute__((warn_unused_result));
void gitmirror_diffstat_release(struct gitmirror_diffstat *d);

/*
 * Collects commit `commit_id`'s diffstat from tree `tree`'s mirror under
 * data_dir and stores it in commit_diffstat / commit_files (sql/0007), once:
 * a commit already collected is left alone (0 returned, git not run).
 * Returns 1 stored, 0 already there, -1 with e: the errors above (no mirror,
 * unknown commit: ERR_GIT), ERR_NOT_FOUND for an unknown commit id,
 * the store's errors (db.h). Runs inside the caller's transaction, if any; a git
 * failure leaves the transaction usable, a database error does not.
 */
int gitmirror_store_diffstat(struct db_conn *c, const char *data_dir, const char *tree,
			     long long commit_id, int timeout_s, struct err *e)
	__attribute__((warn_unused_result));

#endif
