/* Typed reads of runs, commits, setups and metric names (see runs.h). */
#include "server/db/runs.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/pgval.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* column col of row, NULL for SQL NULL */
static const char *text_or_null(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col);
}

int db_dop(struct db_conn *c, enum db_stmt st, int n, const struct db_param *p, struct err *e)
{
	return db_query_do(c, db_stmt_def(st), n, p, e);
}

int db_runs_do(struct db_conn *c, enum db_stmt st, int n, const char *const *params, struct err *e)
{
	struct db_param p[DB_MAX_PARAMS];

	if (db_params_text(p, n, params, db_stmt_def(st)->name, e))
		return -1;
	return db_dop(c, st, n, p, e);
}

int db_first_idp(struct db_conn *c, enum db_stmt st, int n, const struct db_param *p, long long *id,
		 struct err *e)
{
	return db_query_first_id(c, db_stmt_def(st), n, p, id, e);
}

int db_first_id(struct db_conn *c, enum db_stmt st, int n, const char *const *params, long long *id,
		struct err *e)
{
	struct db_param p[DB_MAX_PARAMS];

	*id = 0;
	if (db_params_text(p, n, params, db_stmt_def(st)->name, e))
		return -1;
	return db_first_idp(c, st, n, p, id, e);
}

/* db_upsert_id() with db_param parameters */
static long long upsert_idp(struct db_conn *c, enum db_stmt insert_st, int n_insert,
			    enum db_stmt select_st, int n_select, const struct db_param *p,
			    struct err *e)
{
	long long id;

	for (int attempt = 0; attempt < 2; attempt++) {
		if (db_first_idp(c, insert_st, n_insert, p, &id, e) < 0)
			return -1;
		if (id > 0)
			return id;
		/* a new statement sees rows committed by concurrent inserts */
		if (db_first_idp(c, select_st, n_select, p, &id, e) < 0)
			return -1;
		if (id > 0)
			return id;
	}
	err_setc(e, ERR_DB, db_stmt_def(select_st)->name, "cannot find or create a row");
	return -1;
}

long long db_upsert_id(struct db_conn *c, int insert_st, int n_insert, int select_st, int n_select,
		       const char *const *params, struct err *e)
{
	struct db_param p[DB_MAX_PARAMS];
	int n = n_insert > n_select ? n_insert : n_select;

	if (db_params_text(p, n, params, db_stmt_def((enum db_stmt)insert_st)->name, e))
		return -1;
	return upsert_idp(c, (enum db_stmt)insert_st, n_insert, (enum db_stmt)select_st, n_select,
			  p, e);
}

int db_commit_resolve(struct db_conn *c, const char *prefix, struct arena *a, struct db_commit *out,
		      struct err *e)
{
	const char *p[1] = { prefix };
	PGresult *r = db_exec(c, ST_COMMIT_RESOLVE, 1, p, e);
	int n;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n > 0) {
		out->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		out->sha = arena_strdup(a, PQgetvalue(r, 0, 1));
		out->subject = PQgetisnull(r, 0, 2) ? NULL : arena_strdup(a, PQgetvalue(r, 0, 2));
	}
	PQclear(r);
	return n > 2 ? 2 : n;
}

int db_setup_get(struct db_conn *c, long long setup_id, struct db_setup *out, struct err *e)
{
	struct db_param p[1] = { db_int8(setup_id) };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_execp(c, ST_SETUP_GET, 1, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->testcase = PQgetvalue(r, 0, 0);
	out->params = PQgetvalue(r, 0, 1);
	out->kconfig = PQgetvalue(r, 0, 2);
	out->compiler = PQgetvalue(r, 0, 3);
	out->tbox_group = PQgetvalue(r, 0, 4);
	out->mode = PQgetvalue(r, 0, 5);
	out->monitors = PQgetvalue(r, 0, 6);
	out->res_ = db_res_of(r);
	return 1;
}

void db_setup_free(struct db_setup *s)
{
	PQclear(db_pgres(s->res_));
	memset(s, 0, sizeof(*s));
}

int db_run_get(struct db_conn *c, const char *run_id, struct db_run *out, struct err *e)
{
	const char *p[1] = { run_id };
	struct db_param vp[1];
	PGresult *r, *v;

	memset(out, 0, sizeof(*out));
	r = db_exec(c, ST_RUN_GET, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	vp[0] = db_int8(out->id);
	v = db_execp(c, ST_RUN_VALUES, 1, vp, 0, e);
	if (!v) {
		PQclear(r);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	out->run_id = text_or_null(r, 0, 1);
	out->commit = text_or_null(r, 0, 2);
	out->commit_subject = text_or_null(r, 0, 3);
	out->testcase = text_or_null(r, 0, 4);
	out->params = PQgetvalue(r, 0, 5);
	out->kconfig = text_or_null(r, 0, 6);
	out->compiler = text_or_null(r, 0, 7);
	out->tbox_group = text_or_null(r, 0, 8);
	out->mode = text_or_null(r, 0, 9);
	out->status = text_or_null(r, 0, 10);
	out->started_at = text_or_null(r, 0, 11);
	out->duration_s = pg_double(PQgetvalue(r, 0, 12));
	out->branch = text_or_null(r, 0, 13);
	out->tree = text_or_null(r, 0, 14);
	out->job_id = PQgetisnull(r, 0, 15) ? 0 : strtoll(PQgetvalue(r, 0, 15), NULL, 10);
	out->extra = PQgetvalue(r, 0, 16);
	out->received_at = text_or_null(r, 0, 17);
	out->hostname = text_or_null(r, 0, 18);
	out->arch = text_or_null(r, 0, 19);
	out->monitors = PQgetvalue(r, 0, 20);
	out->has_profile = PQgetvalue(r, 0, 21)[0] == 't';
	out->nr_metrics = (size_t)PQntuples(v);
	out->metrics = xcalloc(out->nr_metrics ? out->nr_metrics : 1, sizeof(*out->metrics));
	for (size_t i = 0; i < out->nr_metrics; i++) {
		out->metrics[i].name = PQgetvalue(v, (int)i, 0);
		out->metrics[i].values = PQgetvalue(v, (int)i, 1);
	}
	out->res_ = db_res_of(r);
	out->values_res_ = db_res_of(v);
	return 1;
}

void db_run_free(struct db_run *r)
{
	free(r->metrics);
	PQclear(db_pgres(r->res_));
	PQclear(db_pgres(r->values_res_));
	memset(r, 0, sizeof(*r));
}

int db_run_sha(struct db_conn *c, const char *run_id, char hash[65], struct err *e)
{
	const char *p[1] = { run_id };
	PGresult *r = db_exec(c, ST_RUN_SHA, 1, p, e);
	int found;

	hash[0] = '\0';
	if (!r)
		return -1;
	found = PQntuples(r) == 1;
	if (found)
		snprintf(hash, 65, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return found;
}

int db_metric_ids(struct db_conn *c, const char *names, struct db_metric_ids *out, struct err *e)
{
	const char *p[1] = { names };
	PGresult *r = db_exec(c, ST_METRIC_IDS, 1, p, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	out->nr = (size_t)PQntuples(r);
	out->rows = xcalloc(out->nr ? out->nr : 1, sizeof(*out->rows));
	for (size_t i = 0; i < out->nr; i++) {
		out->rows[i].id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		out->rows[i].name = PQgetvalue(r, (int)i, 1);
	}
	out->res_ = db_res_of(r);
	return 0;
}

void db_metric_ids_free(struct db_metric_ids *m)
{
	free(m->rows);
	PQclear(db_pgres(m->res_));
	memset(m, 0, sizeof(*m));
}

long long db_commit_upsert(struct db_conn *c, const char *sha, const char *commit_time,
			   const char *subject, long long tree_id, struct err *e)
{
	struct db_param p[4] = { db_text(sha), db_text(commit_time), db_text(subject),
				 db_id(tree_id) };

	return upsert_idp(c, ST_COMMIT_INSERT, 4, ST_COMMIT_ID, 1, p, e);
}

int db_commit_fill(struct db_conn *c, long long commit_id, const char *commit_time,
		   const char *subject, long long tree_id, struct err *e)
{
	struct db_param p[4] = { db_id(commit_id), db_text(commit_time), db_text(subject),
				 db_id(tree_id) };

	return db_dop(c, ST_COMMIT_FILL, 4, p, e);
}

long long db_testcase_upsert(struct db_conn *c, const char *name, struct err *e)
{
	const char *p[1] = { name };

	return db_upsert_id(c, ST_TESTCASE_INSERT, 1, ST_TESTCASE_ID, 1, p, e);
}

long long db_machine_upsert(struct db_conn *c, const struct db_run_machine *m, struct err *e)
{
	char cpus[24], mem[24];
	const char *p[6] = { m->hostname, m->arch, m->tbox_group, NULL, NULL, m->cpu_model };

	if (m->nr_cpus >= 0) {
		snprintf(cpus, sizeof(cpus), "%lld", m->nr_cpus);
		p[3] = cpus;
	}
	if (m->memory_mb >= 0) {
		snprintf(mem, sizeof(mem), "%lld", m->memory_mb);
		p[4] = mem;
	}
	return db_upsert_id(c, ST_MACHINE_INSERT, 6, ST_MACHINE_ID, 3, p, e);
}

/* testcase_id as text for its $1::integer parameter; NULL when 0 (none) */
static const char *int4_param(char buf[24], long long id)
{
	if (!id)
		return NULL;
	snprintf(buf, 24, "%lld", id);
	return buf;
}

long long db_setup_upsert(struct db_conn *c, const struct db_setup_new *s, struct err *e)
{
	char tc[24];
	const char *p[7] = { int4_param(tc, s->testcase_id),
			     s->params_key,
			     s->kconfig,
			     s->compiler,
			     s->tbox_group,
			     s->mode,
			     s->monitors };

	return db_upsert_id(c, ST_SETUP_INSERT, 7, ST_SETUP_ID, 7, p, e);
}

int db_run_insert(struct db_conn *c, const struct db_run_new *r, long long *id, struct err *e)
{
	char dur[32];
	struct db_param p[12] = { db_text(r->run_id),	  db_id(r->job_id),
				  db_id(r->commit_id),	  db_id(r->setup_id),
				  db_id(r->machine_id),	  db_id(r->tree_id),
				  db_text(r->branch),	  db_text(r->status),
				  db_text(r->started_at), db_text(NULL),
				  db_text(r->doc_sha256), db_text(r->extra) };

	if (!isnan(r->duration_s)) {
		snprintf(dur, sizeof(dur), "%.17g", r->duration_s);
		p[9] = db_text(dur);
	}
	return db_first_idp(c, ST_RUN_INSERT, 12, p, id, e);
}

int db_detect_enqueue(struct db_conn *c, long long setup_id, struct err *e)
{
	struct db_param p[1] = { db_id(setup_id) };

	return db_dop(c, ST_DETECT_ENQUEUE, 1, p, e);
}

int db_runs_recent_json(struct db_conn *c, const char *state, const char *limit, char **text,
			struct err *e)
{
	return db_json_list(c, ST_RUNS_RECENT_JSON, state, limit, text, e);
}
