#ifndef REGTRACK_SERVER_DB_PLANS_H
#define REGTRACK_SERVER_DB_PLANS_H

#include <stddef.h>

#include "err.h"
#include "server/db/db.h"

/*
 * Typed reads and writes of test plans and of what they scheduled (the
 * statements beside them in db/plans.c, sql/0014). Every function that fails
 * returns -1 with e filled as the store fills it (db.h): ERR_DB_UNAVAILABLE, ERR_CONFLICT,
 * ERR_DB.
 */

/* plans */

/* What db_plan_store() did. */
enum db_plan_change {
	DB_PLAN_CREATED,
	DB_PLAN_UPDATED,
	DB_PLAN_UNCHANGED, /* the stored spec is the same JSON value */
	DB_PLAN_EXISTS,	   /* create_only, and a plan of that name exists */
};
/*
 * Stores plan `name` of tree_id with spec (the normalized plan JSON text,
 * borrowed) and enabled (ST_PLAN_STORE): a new plan, or (unless
 * create_only) the new spec of the plan of that name. A new or changed
 * plan makes its tree due for a poll. 0 with *change, -1 with e; a plan
 * created by another writer between the read and the insert is
 * ERR_CONFLICT.
 */
int db_plan_store(struct db_conn *c, const char *name, long long tree_id, const char *spec,
		  int enabled, int create_only, enum db_plan_change *change, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Deletes plan `name`, cancelling its queued jobs first (their count in
 * *cancelled); jobs it made keep their rows with plan NULL. One
 * transaction. 1 deleted, 0 no such plan, -1 with e.
 */
int db_plan_delete(struct db_conn *c, const char *name, long *cancelled, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The plan reads, as JSON text: every plan by name (db_plans_json()), the
 * spec of the plan named name (db_plan_json()), and its pushes, newest
 * first, limit (decimal text) at most (db_plan_pushes_json()). 1 with
 * *text a new NUL-terminated copy (caller frees), 0 when there is no row
 * (no such plan), -1 with e.
 */
int db_plans_json(struct db_conn *c, char **text, struct err *e)
	__attribute__((warn_unused_result));
int db_plan_json(struct db_conn *c, const char *name, char **text, struct err *e)
	__attribute__((warn_unused_result));
int db_plan_pushes_json(struct db_conn *c, const char *name, const char *limit, char **text,
			struct err *e) __attribute__((warn_unused_result));

/* One enabled plan of a tree (ST_PLANS_OF_TREE). */
struct db_plan_row {
	long long id;
	char *name; /* new copies, freed by db_plan_rows_free() */
	char *spec; /* the plan's JSON text */
};
/* tree_id's enabled plans, oldest first: 0 with *rows a new array of *n, -1 with e. */
int db_plans_of_tree(struct db_conn *c, long long tree_id, struct db_plan_row **rows, size_t *n,
		     struct err *e) __attribute__((warn_unused_result));
void db_plan_rows_free(struct db_plan_row *rows, size_t n);

/*
 * The detector settings detection uses for setup_id (ST_SETUP_PLAN_DETECT):
 * among the plans whose jobs put runs into the setup, the first by name
 * that carries a "detect" object (server/detect/plan_detect.h). 1 with *plan and
 * *detect new copies (caller frees: the plan's name, the object as JSON
 * text), 0 when no such plan (both NULL), -1 with e.
 */
int db_setup_plan_detect(struct db_conn *c, long long setup_id, char **plan, char **detect,
			 struct err *e) __attribute__((warn_unused_result));

/* scheduling */

/*
 * The head plan_id scheduled up to on branch (ST_PLAN_HEAD): 1 with sha
 * (41 bytes), 0 when the plan never looked at the branch, -1 with e.
 */
int db_plan_head(struct db_conn *c, long long plan_id, const char *branch, char sha[41],
		 struct err *e) __attribute__((warn_unused_result));
/* Moves it to sha (ST_PLAN_HEAD_SET). 0 or -1 with e. */
int db_plan_head_set(struct db_conn *c, long long plan_id, const char *branch, const char *sha,
		     struct err *e) __attribute__((warn_unused_result));

/* One push as a plan scheduled it (ST_PLAN_PUSH_INSERT). Strings borrowed. */
struct db_plan_push {
	long long plan_id;
	const char *branch;
	const char *old_sha; /* NULL: the plan's first look at the branch */
	const char *new_sha;
	const char *base_sha; /* merge base of old and new; NULL: none */
	int forced;
	long commits;	    /* first-parent commits in base..new */
	const char *tested; /* JSON [{commit, reason}] */
	long jobs_queued;
	const char *skipped; /* JSON [{commit, reason}] */
	long superseded;     /* older queued jobs of the branch cancelled */
};
int db_plan_push_insert(struct db_conn *c, const struct db_plan_push *p, struct err *e)
	__attribute__((warn_unused_result));

#endif
