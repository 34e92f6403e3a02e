/*
 * An A/B request's result mail as typed rows (request_mail.h), and the
 * statements it is read with.
 */
#include "server/db/request_mail.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum request_mail_stmt {
	ST_REQUEST_MAIL,
	ST_REQUEST_MAIL_GROUPS,
	ST_REQUEST_MAIL_ROWS,
	ST_REQUEST_MAIL_TARGETS,
	ST_REQUEST_MAIL_LOCAL,
	NR_REQUEST_MAIL_STMTS
};

/*
 * The result mail's reads (request_mail.c): a JSON value of a request's
 * spec or result as a typed column, NULL (0 for JINT) when it is not of
 * that type.
 */
#define JSTR(X) "CASE WHEN jsonb_typeof(" X ") = 'string' THEN (" X ") #>> '{}' END"
#define JNUM(X) "CASE WHEN jsonb_typeof(" X ") = 'number' THEN (" X ")::text::float8 END"
#define JINT(X)                                                                      \
	"CASE WHEN jsonb_typeof(" X ") = 'number' AND (" X ")::text ~ '^-?[0-9]+$' " \
	"THEN (" X ")::text::bigint ELSE 0 END"
/* the elements x.v of array X of request $1 in their order (a non-array: none) */
#define REQ_ELEMENTS(X, FN)                                                            \
	"FROM requests rq, " FN "(CASE WHEN jsonb_typeof(" X ") = 'array' THEN " X " " \
	"ELSE '[]'::jsonb END) WITH ORDINALITY x(v, i) WHERE rq.id = $1::bigint ORDER BY x.i"

/* the newest ok run of group x.i's base side (jobs.ab_group: the group's index as text) */
#define GROUP_BASE_RUN                                                                               \
	"FROM jobs j JOIN runs r ON r.job_id = j.id AND r.status = 'ok' WHERE j.request_id = rq.id " \
	"AND j.ab_group = (x.i - 1)::text AND j.ab_side = 'base' ORDER BY r.id DESC LIMIT 1"

static const struct db_stmt_def stmts[NR_REQUEST_MAIL_STMTS] = {
	/* clang-format off */
	/* $1 request: what its result mail says (request_mail.h), one row */
	[ST_REQUEST_MAIL] = { "request_mail",
		"SELECT " REQ_STATE ", rq.verdict, rq.fail_reason, tr.name, "
		"rq.base_ref, rq.base_sha, rq.head_ref, rq.head_sha, "
		"(rq.patches IS NOT NULL)::integer, coalesce(rq.nr_patches, 0), "
		JSTR("rq.spec->'patch_subject'") ", "
		JSTR("coalesce(to_jsonb(rq.patch_id), " REQ_HEAD_RUN("patch_id") ")") ", "
		JSTR("rq.spec->'compiler'") ", "
		JINT("rq.spec->'repeat'") ", "
		JSTR("rq.spec->'repeat_why'") ", "
		"rq.label, rq.notify, "
		JSTR("rq.spec->'reproduce'") " "
		"FROM requests rq JOIN trees tr ON tr.id = rq.tree_id WHERE rq.id = $1::bigint" },
	/* $1 request: its groups in order: target, testcase, kconfig, params (JSON object text),
	 * the setup and commit of its newest ok base run (the machine the mail names) */
	[ST_REQUEST_MAIL_GROUPS] = { "request_mail_groups",
		"SELECT " JSTR("x.v->'target'") ", "
		JSTR("x.v->'testcase'") ", "
		JSTR("x.v->'kconfig'") ", "
		"CASE WHEN jsonb_typeof(x.v->'params') = 'object' THEN (x.v->'params')::text END, "
		"(SELECT r.setup_id " GROUP_BASE_RUN "), (SELECT r.commit_id " GROUP_BASE_RUN ") "
		REQ_ELEMENTS("rq.spec->'groups'", "jsonb_array_elements") },
	/* $1 request: its verdict's rows in order (abtest_verdict()'s) */
	[ST_REQUEST_MAIL_ROWS] = { "request_mail_rows",
		"SELECT " JINT("x.v->'group'") ", "
		JSTR("x.v->'target'") ", "
		JSTR("x.v->'metric'") ", "
		JSTR("x.v->'change'") ", "
		"coalesce(x.v->'monitor' = 'true'::jsonb, false)::integer, "
		JNUM("x.v->'hl_pct'") ", "
		JNUM("x.v->'mean'->0") ", "
		JNUM("x.v->'mean'->1") ", "
		JNUM("x.v->'stddev_pct'->0") ", "
		JNUM("x.v->'stddev_pct'->1") " "
		REQ_ELEMENTS("rq.result->'rows'", "jsonb_array_elements") },
	/* $1 request: its targets in order */
	[ST_REQUEST_MAIL_TARGETS] = { "request_mail_targets",
		"SELECT x.v " REQ_ELEMENTS("rq.spec->'targets'", "jsonb_array_elements_text") },
	/* $1 request: the commands that run its data points again (abtest_reproduce_local()'s) */
	[ST_REQUEST_MAIL_LOCAL] = { "request_mail_local",
		"SELECT " JSTR("x.v->'target'") ", "
		JSTR("x.v->'testcase'") ", "
		JSTR("x.v->'side'") ", "
		JSTR("x.v->'command'") ", "
		JSTR("x.v->'curl'") " "
		REQ_ELEMENTS("rq.spec->'reproduce_local'", "jsonb_array_elements") },
	/* clang-format on */
};

const struct db_stmt_table db_stmts_request_mail = DB_STMT_TABLE(stmts);

/* ST_REQUEST_MAIL's columns */
enum {
	MAIL_STATE,
	MAIL_VERDICT,
	MAIL_FAIL_REASON,
	MAIL_TREE,
	MAIL_BASE_REF,
	MAIL_BASE_SHA,
	MAIL_HEAD_REF,
	MAIL_HEAD_SHA,
	MAIL_HAS_PATCHES,
	MAIL_NR_PATCHES,
	MAIL_PATCH_SUBJECT,
	MAIL_PATCH_ID,
	MAIL_COMPILER,
	MAIL_REPEAT,
	MAIL_REPEAT_WHY,
	MAIL_LABEL,
	MAIL_NOTIFY,
	MAIL_REPRODUCE
};

/* ST_REQUEST_MAIL_GROUPS' columns */
enum {
	GROUP_TARGET,
	GROUP_TESTCASE,
	GROUP_KCONFIG,
	GROUP_PARAMS,
	GROUP_BASE_SETUP,
	GROUP_BASE_COMMIT
};

/* ST_REQUEST_MAIL_ROWS' columns */
enum {
	ROW_GROUP,
	ROW_TARGET,
	ROW_METRIC,
	ROW_CHANGE,
	ROW_MONITOR,
	ROW_HL_PCT,
	ROW_BASE_MEAN,
	ROW_HEAD_MEAN,
	ROW_BASE_STDDEV_PCT,
	ROW_HEAD_STDDEV_PCT
};

/* ST_REQUEST_MAIL_TARGETS' one column */
enum { TARGET_NAME };

/* ST_REQUEST_MAIL_LOCAL's columns */
enum { LOCAL_TARGET, LOCAL_TESTCASE, LOCAL_SIDE, LOCAL_COMMAND, LOCAL_CURL };

/* column c of row i: NULL for SQL NULL */
static const char *str(const PGresult *r, int i, int c)
{
	return PQgetisnull(r, i, c) ? NULL : PQgetvalue(r, i, c);
}

/* a bigint or integer column: 0 for SQL NULL */
static long long int8(const PGresult *r, int i, int c)
{
	return PQgetisnull(r, i, c) ? 0 : strtoll(PQgetvalue(r, i, c), NULL, 10);
}

/* a float8 column: NAN for SQL NULL */
static double float8(const PGresult *r, int i, int c)
{
	return PQgetisnull(r, i, c) ? NAN : strtod(PQgetvalue(r, i, c), NULL);
}

/* Runs st with parameter request_id; the result kept in m->res[slot]. */
static PGresult *read_into(struct db_conn *c, enum request_mail_stmt st, long long request_id,
			   struct db_request_mail *m, int slot, struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[st], request_id, e);

	if (r)
		m->res[slot] = db_res_of(r);
	return r;
}

static void fill_request(struct db_request_mail *m, const PGresult *r)
{
	m->state = str(r, 0, MAIL_STATE);
	m->verdict = str(r, 0, MAIL_VERDICT);
	m->fail_reason = str(r, 0, MAIL_FAIL_REASON);
	m->tree = str(r, 0, MAIL_TREE);
	m->base_ref = str(r, 0, MAIL_BASE_REF);
	m->base_sha = str(r, 0, MAIL_BASE_SHA);
	m->head_ref = str(r, 0, MAIL_HEAD_REF);
	m->head_sha = str(r, 0, MAIL_HEAD_SHA);
	m->patches = int8(r, 0, MAIL_HAS_PATCHES) != 0;
	m->nr_patches = int8(r, 0, MAIL_NR_PATCHES);
	m->patch_subject = str(r, 0, MAIL_PATCH_SUBJECT);
	m->patch_id = str(r, 0, MAIL_PATCH_ID);
	m->compiler = str(r, 0, MAIL_COMPILER);
	m->repeat = int8(r, 0, MAIL_REPEAT);
	m->repeat_why = str(r, 0, MAIL_REPEAT_WHY);
	m->label = str(r, 0, MAIL_LABEL);
	m->notify = str(r, 0, MAIL_NOTIFY);
	m->reproduce = str(r, 0, MAIL_REPRODUCE);
}

static void fill_groups(struct db_request_mail *m, const PGresult *r)
{
	int n = PQntuples(r);

	m->nr_groups = (size_t)n;
	m->groups = n ? xcalloc((size_t)n, sizeof(*m->groups)) : NULL;
	for (int i = 0; i < n; i++)
		m->groups[i] = (struct db_request_mail_group){
			str(r, i, GROUP_TARGET),      str(r, i, GROUP_TESTCASE),
			str(r, i, GROUP_KCONFIG),     str(r, i, GROUP_PARAMS),
			int8(r, i, GROUP_BASE_SETUP), int8(r, i, GROUP_BASE_COMMIT)
		};
}

static void fill_rows(struct db_request_mail *m, const PGresult *r)
{
	int n = PQntuples(r);

	m->nr_rows = (size_t)n;
	m->rows = n ? xcalloc((size_t)n, sizeof(*m->rows)) : NULL;
	for (int i = 0; i < n; i++)
		m->rows[i] = (struct abmail_row){
			.group = (int)int8(r, i, ROW_GROUP),
			.target = str(r, i, ROW_TARGET),
			.metric = str(r, i, ROW_METRIC),
			.change = str(r, i, ROW_CHANGE),
			.monitor = int8(r, i, ROW_MONITOR) != 0,
			.hl_pct = float8(r, i, ROW_HL_PCT),
			.base_mean = float8(r, i, ROW_BASE_MEAN),
			.head_mean = float8(r, i, ROW_HEAD_MEAN),
			.base_stddev_pct = float8(r, i, ROW_BASE_STDDEV_PCT),
			.head_stddev_pct = float8(r, i, ROW_HEAD_STDDEV_PCT)
		};
}

static void fill_targets(struct db_request_mail *m, const PGresult *r)
{
	int n = PQntuples(r);

	m->nr_targets = (size_t)n;
	m->targets = n ? xcalloc((size_t)n, sizeof(*m->targets)) : NULL;
	for (int i = 0; i < n; i++)
		m->targets[i] = str(r, i, TARGET_NAME);
}

static void fill_local(struct db_request_mail *m, const PGresult *r)
{
	int n = PQntuples(r);

	m->nr_local = (size_t)n;
	m->local = n ? xcalloc((size_t)n, sizeof(*m->local)) : NULL;
	for (int i = 0; i < n; i++)
		m->local[i] = (struct abmail_command){
			str(r, i, LOCAL_TARGET), str(r, i, LOCAL_TESTCASE), str(r, i, LOCAL_SIDE),
			str(r, i, LOCAL_COMMAND), str(r, i, LOCAL_CURL)
		};
}

int db_request_mail(struct db_conn *c, long long request_id, struct db_request_mail *out,
		    struct err *e)
{
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = read_into(c, ST_REQUEST_MAIL, request_id, out, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		db_request_mail_free(out);
		return 0;
	}
	fill_request(out, r);
	if (!(r = read_into(c, ST_REQUEST_MAIL_GROUPS, request_id, out, 1, e)))
		goto fail;
	fill_groups(out, r);
	if (!(r = read_into(c, ST_REQUEST_MAIL_ROWS, request_id, out, 2, e)))
		goto fail;
	fill_rows(out, r);
	if (!(r = read_into(c, ST_REQUEST_MAIL_TARGETS, request_id, out, 3, e)))
		goto fail;
	fill_targets(out, r);
	if (!(r = read_into(c, ST_REQUEST_MAIL_LOCAL, request_id, out, 4, e)))
		goto fail;
	fill_local(out, r);
	return 1;
fail:
	db_request_mail_free(out);
	return -1;
}

void db_request_mail_free(struct db_request_mail *m)
{
	for (size_t i = 0; i < sizeof(m->res) / sizeof(m->res[0]); i++)
		if (m->res[i])
			PQclear(db_pgres(m->res[i]));
	free(m->groups);
	free(m->rows);
	free(m->targets);
	free(m->local);
	memset(m, 0, sizeof(*m));
}
