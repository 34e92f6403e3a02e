/*
 * Typed rows of test plans and what they scheduled (plans.h; api/plans.c,
 * track/plan.c, track/poller.c), and the statements they are made with.
 */
#include "server/db/plans.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_LEN 24

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum plan_stmt {
	ST_PLANS_JSON,
	ST_PLANS_OF_TREE,
	ST_PLAN_CANCEL_QUEUED,
	ST_PLAN_DELETE,
	ST_PLAN_HEAD,
	ST_PLAN_HEAD_SET,
	ST_PLAN_JSON,
	ST_PLAN_PUSHES_JSON,
	ST_PLAN_PUSH_INSERT,
	ST_PLAN_STORE,
	ST_SETUP_PLAN_DETECT,
	NR_PLAN_STMTS
};

/* what GET /api/v1/plans/{name}/pushes lists of one push */
#define PUSH_JSON                                                                                    \
	"json_build_object('id', pp.id, 'branch', pp.branch, 'old', pp.old_sha, 'new', pp.new_sha, " \
	"'base', pp.base_sha, 'forced', pp.forced, 'commits', pp.commits, 'tested', pp.tested, "     \
	"'jobs_queued', pp.jobs_queued, 'superseded', pp.superseded, 'skipped', pp.skipped, "        \
	"'at', pp.at)"

static const struct db_stmt_def stmts[NR_PLAN_STMTS] = {
	[ST_PLANS_JSON] = { "plans_json",
			    "SELECT coalesce(json_agg(spec ORDER BY name), '[]')::text FROM plans" },
	/* $1 plan: its queued jobs are cancelled before it goes */
	[ST_PLAN_CANCEL_QUEUED] = { "plan_cancel_queued",
				    "UPDATE jobs SET state = 'cancelled', phase = 'cancelled', finished_at = now(), "
				    "fail_reason = 'plan deleted', phase_history = phase_history || jsonb_build_array("
				    "jsonb_build_object('phase', 'cancelled', 'at', now(), 'why', 'plan deleted')) "
				    "WHERE state = 'queued' AND plan_id = (SELECT id FROM plans WHERE name = $1) RETURNING id" },
	[ST_PLAN_DELETE] = { "plan_delete", "DELETE FROM plans WHERE name = $1 RETURNING id" },
	/* $1 plan id $2 branch: the head the plan scheduled up to */
	[ST_PLAN_HEAD] = { "plan_head",
			   "SELECT sha FROM plan_branches WHERE plan_id = $1::bigint AND branch = $2" },
	[ST_PLAN_HEAD_SET] = { "plan_head_set",
			       "INSERT INTO plan_branches (plan_id, branch, sha) VALUES ($1::bigint, $2, $3) "
			       "ON CONFLICT (plan_id, branch) DO UPDATE SET sha = EXCLUDED.sha, updated_at = now()" },
	[ST_PLAN_JSON] = { "plan_json", "SELECT spec::text FROM plans WHERE name = $1" },
	/* $1 plan $2 limit; no row when there is no such plan */
	[ST_PLAN_PUSHES_JSON] = { "plan_pushes_json",
				  "SELECT (SELECT coalesce(json_agg(x.o ORDER BY x.id DESC), '[]') FROM (SELECT pp.id, " PUSH_JSON
				  " AS o FROM plan_pushes pp WHERE pp.plan_id = p.id "
				  "ORDER BY pp.id DESC LIMIT $2::integer) x)::text FROM plans p WHERE p.name = $1" },
	/* $1 plan $2 branch $3 old head $4 new head $5 merge base $6 forced $7 commits in range
	 * $8 tested [{commit, reason}] $9 jobs queued $10 skipped [{commit, reason}]
	 * $11 older queued jobs superseded */
	[ST_PLAN_PUSH_INSERT] = { "plan_push_insert",
				  "INSERT INTO plan_pushes (plan_id, branch, old_sha, new_sha, base_sha, forced, commits, "
				  "tested, jobs_queued, skipped, superseded) VALUES ($1::bigint, $2, $3, $4, $5, "
				  "$6::boolean, $7::integer, $8::jsonb, $9::integer, $10::jsonb, $11::integer)" },
	/*
	 * $1 setup: the plan whose detector settings its detection uses, the first by
	 * name of those with "detect" whose jobs put runs into it (plan_detect.h)
	 */
	[ST_SETUP_PLAN_DETECT] = { "setup_plan_detect",
				   "SELECT p.name, (p.spec->'detect')::text FROM plans p "
				   "WHERE p.spec->'detect' IS NOT NULL AND EXISTS (SELECT 1 FROM runs r "
				   "JOIN jobs j ON j.id = r.job_id WHERE r.setup_id = $1::bigint AND j.plan_id = p.id) "
				   "ORDER BY p.name LIMIT 1" },
	/* $1 tree: the plans the poller schedules for */
	[ST_PLANS_OF_TREE] = { "plans_of_tree",
			       "SELECT id, name, spec::text FROM plans WHERE tree_id = $1::bigint AND enabled ORDER BY id" },
	/*
	 * $1 name $2 tree $3 spec $4 enabled $5 create only: 'created', 'updated',
	 * 'unchanged' (the same spec, as jsonb compares), 'exists' (create only)
	 * or 'raced' (created by another writer meanwhile). A plan moved to
	 * another tree forgets its branch heads; a new or changed plan makes
	 * its tree due for a poll.
	 */
	[ST_PLAN_STORE] = { "plan_store",
			    "WITH old AS (SELECT id, spec, tree_id FROM plans WHERE name = $1 FOR UPDATE), "
			    "ins AS (INSERT INTO plans (name, tree_id, spec, enabled) SELECT $1, $2::bigint, "
			    "$3::jsonb, $4::boolean WHERE NOT EXISTS (SELECT 1 FROM old) "
			    "ON CONFLICT (name) DO NOTHING RETURNING id), "
			    "upd AS (UPDATE plans p SET tree_id = $2::bigint, spec = $3::jsonb, enabled = $4::boolean, "
			    "updated_at = now() FROM old WHERE p.id = old.id AND NOT $5::boolean "
			    "AND old.spec IS DISTINCT FROM $3::jsonb RETURNING p.id), "
			    "clr AS (DELETE FROM plan_branches b USING old WHERE b.plan_id = old.id "
			    "AND old.tree_id <> $2::bigint AND NOT $5::boolean), "
			    "due AS (UPDATE trees SET next_poll_at = now() WHERE id = $2::bigint AND "
			    "(EXISTS (SELECT 1 FROM ins) OR EXISTS (SELECT 1 FROM upd))) "
			    "SELECT CASE WHEN EXISTS (SELECT 1 FROM ins) THEN 'created' "
			    "WHEN EXISTS (SELECT 1 FROM upd) THEN 'updated' "
			    "WHEN EXISTS (SELECT 1 FROM old) THEN CASE WHEN $5::boolean THEN 'exists' "
			    "ELSE 'unchanged' END ELSE 'raced' END" },
};

const struct db_stmt_table db_stmts_plans = DB_STMT_TABLE(stmts);

/* plans */

/* ST_PLAN_STORE's one column */
enum { STORE_CHANGE };

int db_plan_store(struct db_conn *c, const char *name, long long tree_id, const char *spec,
		  int enabled, int create_only, enum db_plan_change *change, struct err *e)
{
	struct db_param p[5] = { db_text(name), db_int8(tree_id), db_text(spec),
				 db_text(enabled ? "true" : "false"),
				 db_text(create_only ? "true" : "false") };
	PGresult *r;
	const char *v;

	r = db_query(c, &stmts[ST_PLAN_STORE], 5, p, 0, e);
	if (!r)
		return -1;
	v = PQntuples(r) ? PQgetvalue(r, 0, STORE_CHANGE) : "raced";
	if (!strcmp(v, "created"))
		*change = DB_PLAN_CREATED;
	else if (!strcmp(v, "updated"))
		*change = DB_PLAN_UPDATED;
	else if (!strcmp(v, "unchanged"))
		*change = DB_PLAN_UNCHANGED;
	else if (!strcmp(v, "exists"))
		*change = DB_PLAN_EXISTS;
	else {
		PQclear(r);
		return err_setc(e, ERR_CONFLICT, "name", "plan '%s' was created meanwhile", name);
	}
	PQclear(r);
	return 0;
}

int db_plan_delete(struct db_conn *c, const char *name, long *cancelled, struct err *e)
{
	struct db_param p[1] = { db_text(name) };
	PGresult *r;
	int found;

	*cancelled = 0;
	if (db_begin(c, e))
		return -1;
	r = db_query(c, &stmts[ST_PLAN_CANCEL_QUEUED], 1, p, 0, e);
	if (!r)
		goto fail;
	*cancelled = PQntuples(r);
	PQclear(r);
	r = db_query(c, &stmts[ST_PLAN_DELETE], 1, p, 0, e);
	if (!r)
		goto fail;
	found = PQntuples(r) > 0;
	PQclear(r);
	if (db_commit(c, e))
		goto fail;
	return found;
fail:
	db_rollback(c);
	return -1;
}

/* st's JSON text (its one column): 1 and *text (new), 0 when there is no row, -1 with e */
static int plan_read_json(struct db_conn *c, enum plan_stmt st, int n, const struct db_param *p,
			  char **text, struct err *e)
{
	enum { JSON_TEXT };
	PGresult *r;

	*text = NULL;
	r = db_query(c, &stmts[st], n, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1 || PQgetisnull(r, 0, JSON_TEXT)) {
		PQclear(r);
		return 0;
	}
	*text = xstrdup(PQgetvalue(r, 0, JSON_TEXT));
	PQclear(r);
	return 1;
}

int db_plans_json(struct db_conn *c, char **text, struct err *e)
{
	return plan_read_json(c, ST_PLANS_JSON, 0, NULL, text, e);
}

int db_plan_json(struct db_conn *c, const char *name, char **text, struct err *e)
{
	struct db_param p[1] = { db_text(name) };

	return plan_read_json(c, ST_PLAN_JSON, 1, p, text, e);
}

int db_plan_pushes_json(struct db_conn *c, const char *name, const char *limit, char **text,
			struct err *e)
{
	/* limit is an integer in the SQL ($2::integer): sent as text */
	struct db_param p[2] = { db_text(name), db_text(limit) };

	return plan_read_json(c, ST_PLAN_PUSHES_JSON, 2, p, text, e);
}

/* ST_PLANS_OF_TREE's columns */
enum { TREE_PLAN_ID, TREE_PLAN_NAME, TREE_PLAN_SPEC };

int db_plans_of_tree(struct db_conn *c, long long tree_id, struct db_plan_row **rows, size_t *n,
		     struct err *e)
{
	PGresult *r;

	*rows = NULL;
	*n = 0;
	r = db_query_id(c, &stmts[ST_PLANS_OF_TREE], tree_id, e);
	if (!r)
		return -1;
	if (PQntuples(r))
		*rows = xcalloc((size_t)PQntuples(r), sizeof(**rows));
	for (int i = 0; i < PQntuples(r); i++) {
		(*rows)[i].id = strtoll(PQgetvalue(r, i, TREE_PLAN_ID), NULL, 10);
		(*rows)[i].name = xstrdup(PQgetvalue(r, i, TREE_PLAN_NAME));
		(*rows)[i].spec = xstrdup(PQgetvalue(r, i, TREE_PLAN_SPEC));
	}
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

void db_plan_rows_free(struct db_plan_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].name);
		free(rows[i].spec);
	}
	free(rows);
}

/* ST_SETUP_PLAN_DETECT's columns */
enum { DETECT_PLAN, DETECT_SETTINGS };

int db_setup_plan_detect(struct db_conn *c, long long setup_id, char **plan, char **detect,
			 struct err *e)
{
	PGresult *r;
	int got;

	*plan = *detect = NULL;
	r = db_query_id(c, &stmts[ST_SETUP_PLAN_DETECT], setup_id, e);
	if (!r)
		return -1;
	got = PQntuples(r) == 1 && !PQgetisnull(r, 0, DETECT_SETTINGS);
	if (got) {
		*plan = xstrdup(PQgetvalue(r, 0, DETECT_PLAN));
		*detect = xstrdup(PQgetvalue(r, 0, DETECT_SETTINGS));
	}
	PQclear(r);
	return got;
}

/* scheduling */

/* ST_PLAN_HEAD's one column */
enum { HEAD_SHA };

int db_plan_head(struct db_conn *c, long long plan_id, const char *branch, char sha[41],
		 struct err *e)
{
	struct db_param p[2] = { db_int8(plan_id), db_text(branch) };
	PGresult *r;
	int got;

	sha[0] = '\0';
	r = db_query(c, &stmts[ST_PLAN_HEAD], 2, p, 0, e);
	if (!r)
		return -1;
	got = PQntuples(r) == 1;
	if (got)
		snprintf(sha, 41, "%s", PQgetvalue(r, 0, HEAD_SHA));
	PQclear(r);
	return got;
}

int db_plan_head_set(struct db_conn *c, long long plan_id, const char *branch, const char *sha,
		     struct err *e)
{
	struct db_param p[3] = { db_int8(plan_id), db_text(branch), db_text(sha) };

	return db_query_do(c, &stmts[ST_PLAN_HEAD_SET], 3, p, e);
}

int db_plan_push_insert(struct db_conn *c, const struct db_plan_push *pp, struct err *e)
{
	/* the counts are integers in the SQL ($n::integer): sent as text */
	char nc[ID_LEN], nq[ID_LEN], ns[ID_LEN];
	struct db_param p[11] = { db_int8(pp->plan_id),
				  db_text(pp->branch),
				  db_text(pp->old_sha),
				  db_text(pp->new_sha),
				  db_text(pp->base_sha),
				  db_text(pp->forced ? "true" : "false"),
				  db_text(nc),
				  db_text(pp->tested),
				  db_text(nq),
				  db_text(pp->skipped),
				  db_text(ns) };

	snprintf(nc, sizeof(nc), "%ld", pp->commits);
	snprintf(nq, sizeof(nq), "%ld", pp->jobs_queued);
	snprintf(ns, sizeof(ns), "%ld", pp->superseded);
	return db_query_do(c, &stmts[ST_PLAN_PUSH_INSERT], 11, p, e);
}
