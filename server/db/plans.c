/* Typed rows of test plans and what they scheduled; see plans.h. */
#include "server/db/plans.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_LEN 24

/* plans */

int db_plan_store(struct db_conn *c, const char *name, long long tree_id, const char *spec,
		  int enabled, int create_only, enum db_plan_change *change, struct err *e)
{
	char tid[ID_LEN];
	const char *p[5] = { name, tid, spec, enabled ? "true" : "false",
			     create_only ? "true" : "false" };
	PGresult *r;
	const char *v;

	snprintf(tid, sizeof(tid), "%lld", tree_id);
	r = db_exec(c, ST_PLAN_STORE, 5, p, e);
	if (!r)
		return -1;
	v = PQntuples(r) ? PQgetvalue(r, 0, 0) : "raced";
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
	const char *p[1] = { name };
	PGresult *r;
	int found;

	*cancelled = 0;
	if (db_begin(c, e))
		return -1;
	r = db_exec(c, ST_PLAN_CANCEL_QUEUED, 1, p, e);
	if (!r)
		goto fail;
	*cancelled = PQntuples(r);
	PQclear(r);
	r = db_exec(c, ST_PLAN_DELETE, 1, p, e);
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

/* st's JSON text: 1 and *text (new), 0 when there is no row, -1 with e */
static int plan_read_json(struct db_conn *c, enum db_stmt st, int n, const char *const *p,
			  char **text, struct err *e)
{
	PGresult *r;

	*text = NULL;
	r = db_exec(c, st, n, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0)) {
		PQclear(r);
		return 0;
	}
	*text = xstrdup(PQgetvalue(r, 0, 0));
	PQclear(r);
	return 1;
}

int db_plans_json(struct db_conn *c, char **text, struct err *e)
{
	return plan_read_json(c, ST_PLANS_JSON, 0, NULL, text, e);
}

int db_plan_json(struct db_conn *c, const char *name, char **text, struct err *e)
{
	const char *p[1] = { name };

	return plan_read_json(c, ST_PLAN_JSON, 1, p, text, e);
}

int db_plan_pushes_json(struct db_conn *c, const char *name, const char *limit, char **text,
			struct err *e)
{
	const char *p[2] = { name, limit };

	return plan_read_json(c, ST_PLAN_PUSHES_JSON, 2, p, text, e);
}

int db_plans_of_tree(struct db_conn *c, long long tree_id, struct db_plan_row **rows, size_t *n,
		     struct err *e)
{
	char tid[ID_LEN];
	const char *p[1] = { tid };
	PGresult *r;

	*rows = NULL;
	*n = 0;
	snprintf(tid, sizeof(tid), "%lld", tree_id);
	r = db_exec(c, ST_PLANS_OF_TREE, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r))
		*rows = xcalloc((size_t)PQntuples(r), sizeof(**rows));
	for (int i = 0; i < PQntuples(r); i++) {
		(*rows)[i].id = strtoll(PQgetvalue(r, i, 0), NULL, 10);
		(*rows)[i].name = xstrdup(PQgetvalue(r, i, 1));
		(*rows)[i].spec = xstrdup(PQgetvalue(r, i, 2));
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

int db_setup_plan_detect(struct db_conn *c, long long setup_id, char **plan, char **detect,
			 struct err *e)
{
	char sid[ID_LEN];
	const char *p[1] = { sid };
	PGresult *r;
	int got;

	*plan = *detect = NULL;
	snprintf(sid, sizeof(sid), "%lld", setup_id);
	r = db_exec(c, ST_SETUP_PLAN_DETECT, 1, p, e);
	if (!r)
		return -1;
	got = PQntuples(r) == 1 && !PQgetisnull(r, 0, 1);
	if (got) {
		*plan = xstrdup(PQgetvalue(r, 0, 0));
		*detect = xstrdup(PQgetvalue(r, 0, 1));
	}
	PQclear(r);
	return got;
}

/* scheduling */

int db_plan_head(struct db_conn *c, long long plan_id, const char *branch, char sha[41],
		 struct err *e)
{
	char pid[ID_LEN];
	const char *p[2] = { pid, branch };
	PGresult *r;
	int got;

	sha[0] = '\0';
	snprintf(pid, sizeof(pid), "%lld", plan_id);
	r = db_exec(c, ST_PLAN_HEAD, 2, p, e);
	if (!r)
		return -1;
	got = PQntuples(r) == 1;
	if (got)
		snprintf(sha, 41, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return got;
}

int db_plan_head_set(struct db_conn *c, long long plan_id, const char *branch, const char *sha,
		     struct err *e)
{
	char pid[ID_LEN];
	const char *p[3] = { pid, branch, sha };
	PGresult *r;

	snprintf(pid, sizeof(pid), "%lld", plan_id);
	r = db_exec(c, ST_PLAN_HEAD_SET, 3, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_plan_push_insert(struct db_conn *c, const struct db_plan_push *pp, struct err *e)
{
	char pid[ID_LEN], nc[ID_LEN], nq[ID_LEN], ns[ID_LEN];
	const char *p[11] = { pid,
			      pp->branch,
			      pp->old_sha,
			      pp->new_sha,
			      pp->base_sha,
			      pp->forced ? "true" : "false",
			      nc,
			      pp->tested,
			      nq,
			      pp->skipped,
			      ns };
	PGresult *r;

	snprintf(pid, sizeof(pid), "%lld", pp->plan_id);
	snprintf(nc, sizeof(nc), "%ld", pp->commits);
	snprintf(nq, sizeof(nq), "%ld", pp->jobs_queued);
	snprintf(ns, sizeof(ns), "%ld", pp->superseded);
	r = db_exec(c, ST_PLAN_PUSH_INSERT, 11, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}
