/*
 * Typed reads and writes of runs and what they name (commits, testcases,
 * machines, setups; see runs.h), and the statements they are made with;
 * a run's values and the metric names are run_values.c's.
 */
#include "server/db/runs.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/pgval.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum run_stmt {
	ST_COMMIT_FILL,
	ST_COMMIT_ID,
	ST_COMMIT_INSERT,
	ST_COMMIT_RESOLVE,
	ST_MACHINE_ID,
	ST_MACHINE_INSERT,
	ST_RUNS_RECENT_JSON,
	ST_RUN_GET,
	ST_RUN_INSERT,
	ST_RUN_STORED,
	ST_RUN_VALUES,
	ST_SETUP_GET,
	ST_SETUP_ID,
	ST_SETUP_INSERT,
	ST_TESTCASE_ID,
	ST_TESTCASE_INSERT,
	NR_RUN_STMTS
};

static const struct db_stmt_def stmts[NR_RUN_STMTS] = {
	[ST_COMMIT_FILL] = { "commit_fill",
			     "UPDATE commits SET commit_time = COALESCE(commit_time, $2::timestamptz), "
			     "subject = COALESCE(subject, $3), tree_id = COALESCE(tree_id, $4::bigint) "
			     "WHERE id = $1::bigint AND ((commit_time IS NULL AND $2::timestamptz IS NOT NULL) OR "
			     "(subject IS NULL AND $3::text IS NOT NULL) OR "
			     "(tree_id IS NULL AND $4::bigint IS NOT NULL))" },
	[ST_COMMIT_ID] = { "commit_id", "SELECT id FROM commits WHERE sha = $1" },
	[ST_COMMIT_INSERT] = { "commit_insert",
			       "INSERT INTO commits (sha, commit_time, subject, tree_id) "
			       "VALUES ($1, $2::timestamptz, $3, $4::bigint) "
			       "ON CONFLICT (sha) DO NOTHING RETURNING id" },
	[ST_COMMIT_RESOLVE] = { "commit_resolve",
				"SELECT id, sha, subject FROM commits WHERE sha >= $1 AND sha < $1 || 'g' "
				"ORDER BY sha LIMIT 2" },
	[ST_MACHINE_ID] = { "machine_id",
			    "SELECT id FROM machines WHERE hostname = $1 AND arch = $2 AND tbox_group = $3" },
	[ST_MACHINE_INSERT] = { "machine_insert",
				"INSERT INTO machines (hostname, arch, tbox_group, nr_cpus, memory_mb, cpu_model) "
				"VALUES ($1, $2, $3, $4::integer, $5::bigint, $6) "
				"ON CONFLICT (hostname, arch, tbox_group) DO NOTHING RETURNING id" },
	/* the newest runs ($2 at most; $1, a state filter, is unused): the overview's last results */
	[ST_RUNS_RECENT_JSON] = { "runs_recent_json",
				  "SELECT coalesce(json_agg(x ORDER BY x.id DESC), '[]')::text FROM ("
				  "SELECT r.id, r.run_id, r.status, r.received_at, r.job_id, c.sha AS commit, "
				  "c.subject, t.name AS testcase, s.params, s.kconfig, s.compiler, s.tbox_group, s.mode, "
				  "(SELECT count(*) FROM run_points(r.id, r.received_at)) AS metrics "
				  "FROM runs r JOIN commits c ON c.id = r.commit_id JOIN setups s ON s.id = r.setup_id "
				  "JOIN testcases t ON t.id = s.testcase_id WHERE $1::text IS NULL "
				  "ORDER BY r.id DESC LIMIT $2::integer) x" },
	[ST_RUN_GET] = { "run_get",
			 "SELECT r.id, r.run_id, c.sha, c.subject, t.name, s.params::text, s.kconfig, "
			 "s.compiler, s.tbox_group, s.mode, r.status, "
			 "to_char(r.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
			 "r.duration_s, r.branch, tr.name, r.job_id, r.extra::text, "
			 "to_char(r.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
			 "mc.hostname, mc.arch, s.monitors, "
			 "EXISTS (SELECT 1 FROM run_profiles p WHERE p.run_id = r.id) "
			 "FROM runs r JOIN commits c ON c.id = r.commit_id JOIN setups s ON s.id = r.setup_id "
			 "JOIN testcases t ON t.id = s.testcase_id LEFT JOIN trees tr ON tr.id = r.tree_id "
			 "LEFT JOIN machines mc ON mc.id = r.machine_id WHERE r.run_id = $1::uuid" },
	[ST_RUN_INSERT] = { "run_insert",
			    "INSERT INTO runs (run_id, job_id, commit_id, setup_id, machine_id, tree_id, branch, "
			    "status, started_at, duration_s, doc_sha256, extra) "
			    "VALUES ($1::uuid, $2::bigint, $3::bigint, $4::bigint, $5::bigint, $6::bigint, $7, $8, "
			    "$9::timestamptz, $10::float8, decode($11, 'hex'), $12::jsonb) "
			    "ON CONFLICT (run_id) DO NOTHING RETURNING id" },
	/*
	 * the stored document's hash, and what the run's values are now: how
	 * many metrics and numbers run_points() gives, and whether they are
	 * only its means (received before regtrack_raw_from(), sql/0039)
	 */
	[ST_RUN_STORED] = { "run_stored",
			    "SELECT encode(r.doc_sha256, 'hex'), count(v.metric_id), "
			    "coalesce(sum(cardinality(v.vals)), 0), "
			    "r.received_at < (SELECT regtrack_raw_from()) FROM runs r "
			    "LEFT JOIN LATERAL run_points(r.id, r.received_at) v ON true "
			    "WHERE r.run_id = $1::uuid GROUP BY r.id" },
	/*
	 * a run's values, one row per metric, each row with whether they are
	 * only the run's means and when its month's raw values were dropped:
	 * read in the one statement (one snapshot) with the values, so a
	 * retention pass that commits in between cannot make the page show
	 * means and say they are raw; one row with a NULL name for a run
	 * without metrics
	 */
	[ST_RUN_VALUES] = { "run_values",
			    "SELECT m.name, array_to_json(v.vals)::text, "
			    "r.received_at < (SELECT regtrack_raw_from()), "
			    "to_char(d.dropped_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') "
			    "FROM runs r LEFT JOIN LATERAL run_points(r.id, r.received_at) v ON true "
			    "LEFT JOIN metrics m ON m.id = v.metric_id "
			    "LEFT JOIN run_values_dropped d ON r.received_at < (SELECT regtrack_raw_from()) "
			    "AND d.month = date_trunc('month', r.received_at AT TIME ZONE 'UTC')::date "
			    "WHERE r.id = $1::bigint ORDER BY m.name" },
	[ST_SETUP_GET] = { "setup_get",
			   "SELECT t.name, s.params::text, s.kconfig, s.compiler, s.tbox_group, s.mode, "
			   "s.monitors FROM setups s JOIN testcases t ON t.id = s.testcase_id WHERE s.id = $1::bigint" },
	[ST_SETUP_ID] = { "setup_id",
			  "SELECT id FROM setups WHERE testcase_id = $1::integer AND params_key = $2 AND "
			  "kconfig = $3 AND compiler = $4 AND tbox_group = $5 AND mode = $6 AND monitors = $7" },
	[ST_SETUP_INSERT] = { "setup_insert",
			      "INSERT INTO setups (testcase_id, params, params_key, kconfig, compiler, tbox_group, mode, "
			      "monitors) VALUES ($1::integer, $2::text::jsonb, $2::text, $3, $4, $5, $6, $7) "
			      "ON CONFLICT (testcase_id, md5(params_key), kconfig, compiler, tbox_group, mode, "
			      "monitors) "
			      "DO NOTHING RETURNING id" },
	[ST_TESTCASE_ID] = { "testcase_id", "SELECT id FROM testcases WHERE name = $1" },
	[ST_TESTCASE_INSERT] = { "testcase_insert",
				 "INSERT INTO testcases (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id" },
};

const struct db_stmt_table db_stmts_runs = DB_STMT_TABLE(stmts);

/* column col of row, NULL for SQL NULL */
static const char *text_or_null(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col);
}

/*
 * Find-or-create: the id ins (n_insert of p; ON CONFLICT DO NOTHING
 * RETURNING id) returns, else the one sel (n_select of p) finds, twice;
 * -1 with e, ERR_DB when neither finds the row.
 */
static long long upsert_id(struct db_conn *c, enum run_stmt ins, int n_insert, enum run_stmt sel,
			   int n_select, const struct db_param *p, struct err *e)
{
	long long id;

	for (int attempt = 0; attempt < 2; attempt++) {
		if (db_query_first_id(c, &stmts[ins], n_insert, p, &id, e) < 0)
			return -1;
		if (id > 0)
			return id;
		/* a new statement sees rows committed by concurrent inserts */
		if (db_query_first_id(c, &stmts[sel], n_select, p, &id, e) < 0)
			return -1;
		if (id > 0)
			return id;
	}
	err_setc(e, ERR_DB, stmts[sel].name, "cannot find or create a row");
	return -1;
}

/* commits */

/* ST_COMMIT_RESOLVE's columns */
enum { RESOLVE_ID, RESOLVE_SHA, RESOLVE_SUBJECT };

int db_commit_resolve(struct db_conn *c, const char *prefix, struct arena *a, struct db_commit *out,
		      struct err *e)
{
	struct db_param p[1] = { db_text(prefix) };
	PGresult *r = db_query(c, &stmts[ST_COMMIT_RESOLVE], 1, p, 0, e);
	int n;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n > 0) {
		out->id = strtoll(PQgetvalue(r, 0, RESOLVE_ID), NULL, 10);
		out->sha = arena_strdup(a, PQgetvalue(r, 0, RESOLVE_SHA));
		out->subject = PQgetisnull(r, 0, RESOLVE_SUBJECT) ?
				       NULL :
				       arena_strdup(a, PQgetvalue(r, 0, RESOLVE_SUBJECT));
	}
	PQclear(r);
	return n > 2 ? 2 : n;
}

long long db_commit_id(struct db_conn *c, const char *sha, struct err *e)
{
	struct db_param p[1] = { db_text(sha) };
	long long id;

	if (db_query_first_id(c, &stmts[ST_COMMIT_ID], 1, p, &id, e) < 0)
		return -1;
	return id;
}

long long db_commit_upsert(struct db_conn *c, const char *sha, const char *commit_time,
			   const char *subject, long long tree_id, struct err *e)
{
	struct db_param p[4] = { db_text(sha), db_text(commit_time), db_text(subject),
				 db_id(tree_id) };

	return upsert_id(c, ST_COMMIT_INSERT, 4, ST_COMMIT_ID, 1, p, e);
}

int db_commit_fill(struct db_conn *c, long long commit_id, const char *commit_time,
		   const char *subject, long long tree_id, struct err *e)
{
	struct db_param p[4] = { db_id(commit_id), db_text(commit_time), db_text(subject),
				 db_id(tree_id) };

	return db_query_do(c, &stmts[ST_COMMIT_FILL], 4, p, e);
}

/* testcases, machines, setups */

long long db_testcase_upsert(struct db_conn *c, const char *name, struct err *e)
{
	struct db_param p[1] = { db_text(name) };

	return upsert_id(c, ST_TESTCASE_INSERT, 1, ST_TESTCASE_ID, 1, p, e);
}

long long db_machine_upsert(struct db_conn *c, const struct db_run_machine *m, struct err *e)
{
	/* nr_cpus is an integer in the SQL ($4::integer): sent as text */
	char cpus[24];
	struct db_param p[6] = { db_text(m->hostname),
				 db_text(m->arch),
				 db_text(m->tbox_group),
				 db_text(NULL),
				 m->memory_mb >= 0 ? db_int8(m->memory_mb) : db_text(NULL),
				 db_text(m->cpu_model) };

	if (m->nr_cpus >= 0) {
		snprintf(cpus, sizeof(cpus), "%lld", m->nr_cpus);
		p[3] = db_text(cpus);
	}
	return upsert_id(c, ST_MACHINE_INSERT, 6, ST_MACHINE_ID, 3, p, e);
}

long long db_setup_upsert(struct db_conn *c, const struct db_setup_new *s, struct err *e)
{
	/* the testcase id is an integer in the SQL ($1::integer): sent as text, NULL when 0 */
	char tc[24];
	struct db_param p[7] = { db_text(NULL),	       db_text(s->params_key), db_text(s->kconfig),
				 db_text(s->compiler), db_text(s->tbox_group), db_text(s->mode),
				 db_text(s->monitors) };

	if (s->testcase_id) {
		snprintf(tc, sizeof(tc), "%lld", s->testcase_id);
		p[0] = db_text(tc);
	}
	return upsert_id(c, ST_SETUP_INSERT, 7, ST_SETUP_ID, 7, p, e);
}

/* ST_SETUP_GET's columns */
enum {
	SETUP_TESTCASE,
	SETUP_PARAMS,
	SETUP_KCONFIG,
	SETUP_COMPILER,
	SETUP_TBOX_GROUP,
	SETUP_MODE,
	SETUP_MONITORS
};

int db_setup_get(struct db_conn *c, long long setup_id, struct db_setup *out, struct err *e)
{
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query_id(c, &stmts[ST_SETUP_GET], setup_id, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->testcase = PQgetvalue(r, 0, SETUP_TESTCASE);
	out->params = PQgetvalue(r, 0, SETUP_PARAMS);
	out->kconfig = PQgetvalue(r, 0, SETUP_KCONFIG);
	out->compiler = PQgetvalue(r, 0, SETUP_COMPILER);
	out->tbox_group = PQgetvalue(r, 0, SETUP_TBOX_GROUP);
	out->mode = PQgetvalue(r, 0, SETUP_MODE);
	out->monitors = PQgetvalue(r, 0, SETUP_MONITORS);
	out->res_ = db_res_of(r);
	return 1;
}

void db_setup_free(struct db_setup *s)
{
	PQclear(db_pgres(s->res_));
	memset(s, 0, sizeof(*s));
}

/* runs */

/* ST_RUN_GET's columns */
enum {
	RUN_ID,
	RUN_RUN_ID,
	RUN_COMMIT,
	RUN_COMMIT_SUBJECT,
	RUN_TESTCASE,
	RUN_PARAMS,
	RUN_KCONFIG,
	RUN_COMPILER,
	RUN_TBOX_GROUP,
	RUN_MODE,
	RUN_STATUS,
	RUN_STARTED_AT,
	RUN_DURATION_S,
	RUN_BRANCH,
	RUN_TREE,
	RUN_JOB_ID,
	RUN_EXTRA,
	RUN_RECEIVED_AT,
	RUN_HOSTNAME,
	RUN_ARCH,
	RUN_MONITORS,
	RUN_HAS_PROFILE
};
/* ST_RUN_VALUES's columns */
enum { VALUES_NAME, VALUES_VALUES, VALUES_MEANS_ONLY, VALUES_DROPPED_AT };

int db_run_get(struct db_conn *c, const char *run_id, struct db_run *out, struct err *e)
{
	struct db_param p[1] = { db_text(run_id) };
	PGresult *r, *v;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_RUN_GET], 1, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->id = strtoll(PQgetvalue(r, 0, RUN_ID), NULL, 10);
	v = db_query_id(c, &stmts[ST_RUN_VALUES], out->id, e);
	if (!v) {
		PQclear(r);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	out->run_id = text_or_null(r, 0, RUN_RUN_ID);
	out->commit = text_or_null(r, 0, RUN_COMMIT);
	out->commit_subject = text_or_null(r, 0, RUN_COMMIT_SUBJECT);
	out->testcase = text_or_null(r, 0, RUN_TESTCASE);
	out->params = PQgetvalue(r, 0, RUN_PARAMS);
	out->kconfig = text_or_null(r, 0, RUN_KCONFIG);
	out->compiler = text_or_null(r, 0, RUN_COMPILER);
	out->tbox_group = text_or_null(r, 0, RUN_TBOX_GROUP);
	out->mode = text_or_null(r, 0, RUN_MODE);
	out->status = text_or_null(r, 0, RUN_STATUS);
	out->started_at = text_or_null(r, 0, RUN_STARTED_AT);
	out->duration_s = pg_double(PQgetvalue(r, 0, RUN_DURATION_S));
	out->branch = text_or_null(r, 0, RUN_BRANCH);
	out->tree = text_or_null(r, 0, RUN_TREE);
	out->job_id = PQgetisnull(r, 0, RUN_JOB_ID) ?
			      0 :
			      strtoll(PQgetvalue(r, 0, RUN_JOB_ID), NULL, 10);
	out->extra = PQgetvalue(r, 0, RUN_EXTRA);
	out->received_at = text_or_null(r, 0, RUN_RECEIVED_AT);
	out->hostname = text_or_null(r, 0, RUN_HOSTNAME);
	out->arch = text_or_null(r, 0, RUN_ARCH);
	out->monitors = PQgetvalue(r, 0, RUN_MONITORS);
	out->has_profile = PQgetvalue(r, 0, RUN_HAS_PROFILE)[0] == 't';
	out->metrics = xcalloc((size_t)PQntuples(v) + 1, sizeof(*out->metrics));
	for (int i = 0; i < PQntuples(v); i++) {
		if (!i) {
			out->means_only = PQgetvalue(v, 0, VALUES_MEANS_ONLY)[0] == 't';
			out->raw_dropped_at = text_or_null(v, 0, VALUES_DROPPED_AT);
		}
		if (PQgetisnull(v, i, VALUES_NAME))
			continue; /* the one row of a run without metrics */
		out->metrics[out->nr_metrics].name = PQgetvalue(v, i, VALUES_NAME);
		out->metrics[out->nr_metrics++].values = PQgetvalue(v, i, VALUES_VALUES);
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

/* ST_RUN_STORED's columns */
enum { SHA_HEX, SHA_NR_METRICS, SHA_NR_VALUES, SHA_MEANS_ONLY };

int db_run_stored_get(struct db_conn *c, const char *run_id, struct db_run_stored *out,
		      struct err *e)
{
	struct db_param p[1] = { db_text(run_id) };
	PGresult *r = db_query(c, &stmts[ST_RUN_STORED], 1, p, 0, e);
	int found;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	found = PQntuples(r) == 1;
	if (found) {
		snprintf(out->sha256, sizeof(out->sha256), "%s", PQgetvalue(r, 0, SHA_HEX));
		out->nr_metrics = (size_t)strtoull(PQgetvalue(r, 0, SHA_NR_METRICS), NULL, 10);
		out->nr_values = (size_t)strtoull(PQgetvalue(r, 0, SHA_NR_VALUES), NULL, 10);
		out->means_only = PQgetvalue(r, 0, SHA_MEANS_ONLY)[0] == 't';
	}
	PQclear(r);
	return found;
}

int db_run_insert(struct db_conn *c, const struct db_run_new *r, long long *id, struct err *e)
{
	/* the duration is a float8 in the SQL ($10::float8): sent as text */
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
	return db_query_first_id(c, &stmts[ST_RUN_INSERT], 12, p, id, e);
}

int db_runs_recent_json(struct db_conn *c, const char *state, const char *limit, char **text,
			struct err *e)
{
	/* the limit is an integer in the SQL ($2::integer): sent as text */
	struct db_param p[2] = { db_text(state), db_text(limit) };

	return db_query_json(c, &stmts[ST_RUNS_RECENT_JSON], 2, p, text, e);
}
