/*
 * Typed rows of A/B requests (requests.h; api/requests.c, abtest.c,
 * track/resolve), and the statements they are made with (sql/0016). The
 * result mail's reads sit in request_mail.c.
 */
#include "server/db/requests.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_LEN 24

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum request_stmt {
	ST_REQUESTS_JSON,
	ST_REQUEST_CANCEL_JOBS,
	ST_REQUEST_EXISTS,
	ST_REQUEST_FINISH,
	ST_REQUEST_INSERT,
	ST_REQUEST_JOB_INSERT,
	ST_REQUEST_JSON,
	ST_REQUEST_LOCK,
	ST_REQUEST_OF_JOB,
	ST_REQUEST_PATCHES,
	ST_REQUEST_SAMPLES,
	ST_REQUEST_SET_CANCELLED,
	ST_REQUEST_TBOX_ARCH,
	ST_REQUEST_NOISE,
	ST_REQUESTS_RESOLVING,
	ST_REQUEST_SUBMISSION,
	ST_REQUEST_RESOLVED,
	ST_REQUEST_RESOLVE_FAILED,
	NR_REQUEST_STMTS
};

#define REQ_SUMMARY                                                                                                          \
	"'id', rq.id, 'state', " REQ_STATE ", 'tree', tr.name, "                                                             \
	"'base', json_build_object('ref', rq.base_ref, 'sha', rq.base_sha), "                                                \
	"'head', json_build_object('ref', rq.head_ref, 'sha', rq.head_sha), "                                                \
	"'patches', CASE WHEN rq.patches IS NULL THEN NULL ELSE json_build_object("                                          \
	"'mbox_url', '/api/v1/requests/' || rq.id || '/mbox', "                                                              \
	"'count', rq.nr_patches, 'bytes', octet_length(rq.patches), 'subject', rq.spec->'patch_subject', "                   \
	"'patch_id', coalesce(to_jsonb(rq.patch_id), " REQ_HEAD_RUN(                                                         \
		"patch_id") "), "                                                                                            \
			    "'patch_ids', coalesce(rq.patch_ids, " REQ_HEAD_RUN(                                             \
				    "patch_ids") ")) END, "                                                                  \
						 "'targets', rq.spec->'targets', 'testcases', rq.spec->'testcases', "        \
						 "'verdict', rq.verdict, 'fail_reason', rq.fail_reason, 'label', rq.label, " \
						 "'url', '/api/v1/requests/' || rq.id, 'created_at', rq.created_at, "        \
						 "'finished_at', rq.finished_at, 'plan', rq.spec->'plan'"

static const struct db_stmt_def stmts[NR_REQUEST_STMTS] = {
	/* $1 request: cancels its jobs not yet finished (queued or leased) */
	[ST_REQUEST_CANCEL_JOBS] = { "request_cancel_jobs",
				     "UPDATE jobs SET state = 'cancelled', finished_at = now(), phase = 'cancelled', "
				     "lease_expires_at = NULL, fail_reason = 'the request was cancelled', "
				     "phase_history = phase_history || jsonb_build_array(jsonb_build_object("
				     "'phase', 'cancelled', 'at', now())) "
				     "WHERE request_id = $1::bigint AND state IN ('queued', 'leased') RETURNING id" },
	[ST_REQUEST_EXISTS] = { "request_exists", "SELECT 1 FROM requests WHERE id = $1::bigint" },
	/* $1 request $2 state $3 verdict $4 result (jsonb) $5 fail reason $6 head sha (NULL: keep):
	 * only a request not final yet changes */
	[ST_REQUEST_FINISH] = { "request_finish",
				"UPDATE requests SET state = $2, verdict = $3, result = $4::jsonb, fail_reason = $5, "
				"head_sha = coalesce($6, head_sha), finished_at = now(), "
				"patch_id = (SELECT x.v FROM (SELECT " REQ_HEAD_RUN(
					"patch_id") " #>> '{}' AS v "
						    "FROM requests rq WHERE rq.id = $1::bigint) x WHERE x.v ~ '^[0-9a-f]{40}$'), "
						    "patch_ids = (SELECT x.v FROM (SELECT " REQ_HEAD_RUN(
							    "patch_ids") " AS v "
									 "FROM requests rq WHERE rq.id = $1::bigint) x WHERE jsonb_typeof(x.v) = 'array') "
									 "WHERE id = $1::bigint AND state IN ('resolving', 'queued', 'running') RETURNING id" },
	/* $1 tree $2 base ref $3 base sha $4 head ref $5 head sha $6 patches $7 nr_patches
	 * $8 spec $9 notify $10 label $11 token; no base sha: stored to be resolved */
	[ST_REQUEST_INSERT] = { "request_insert",
				"INSERT INTO requests (tree_id, base_ref, base_sha, head_ref, head_sha, patches, "
				"nr_patches, spec, notify, label, submitted_by, state) VALUES ($1::bigint, $2, $3, "
				"$4, $5, $6, $7::integer, $8::jsonb, $9, $10, $11::bigint, "
				"CASE WHEN $3::text IS NULL THEN 'resolving' ELSE 'queued' END) RETURNING id" },
	/* the requests waiting for their refs, oldest first: id, tree id, tree name */
	[ST_REQUESTS_RESOLVING] = { "requests_resolving",
				    "SELECT rq.id, rq.tree_id, tr.name FROM requests rq "
				    "JOIN trees tr ON tr.id = rq.tree_id WHERE rq.state = 'resolving' "
				    "ORDER BY rq.id LIMIT 200" },
	/* $1 request waiting for its refs: the submission as checked, its patches, its token */
	[ST_REQUEST_SUBMISSION] = { "request_submission",
				    "SELECT spec::text, patches, submitted_by FROM requests "
				    "WHERE id = $1::bigint AND state = 'resolving'" },
	/* $1 request $2 base sha $3 head sha (NULL: patches) $4 spec: resolved, queued */
	[ST_REQUEST_RESOLVED] = { "request_resolved",
				  "UPDATE requests SET base_sha = $2, head_sha = $3, spec = $4::jsonb, "
				  "state = 'queued' WHERE id = $1::bigint AND state = 'resolving' RETURNING id" },
	/* $1 tree $2 first $3 last request id $4 reason: those of the tree still resolving fail */
	[ST_REQUEST_RESOLVE_FAILED] = { "request_resolve_failed",
					"UPDATE requests SET state = 'failed', fail_reason = $4, finished_at = now() "
					"WHERE tree_id = $1::bigint AND id BETWEEN $2::bigint AND $3::bigint "
					"AND state = 'resolving' RETURNING id" },
	/* ST_JOB_INSERT's $1..$13, then $14 request $15 side $16 round $17 group */
	[ST_REQUEST_JOB_INSERT] = { "request_job_insert",
				    "INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, compiler, arch, "
				    "tbox_group, need_capability, repeat, priority, max_attempts, submitted_by, request_id, "
				    "ab_side, ab_pair, ab_group) VALUES ($1::bigint, $2::bigint, $3::integer, $4::jsonb, "
				    "$5, $6, $7, $8, $9, $10::integer, $11::integer, $12::integer, $13::bigint, "
				    "$14::bigint, $15, $16::integer, $17) RETURNING id" },
	/* $1 request: one object with the summary, the jobs, what waits for a worker, the result */
	[ST_REQUEST_JSON] = { "request_json",
			      "SELECT json_build_object(" REQ_SUMMARY ", "
			      "'kconfig', rq.spec->'kconfig', 'compiler', rq.spec->'compiler', "
			      "'repeat', rq.spec->'repeat', 'rounds', rq.spec->'rounds', "
			      "'repeat_why', rq.spec->'repeat_why', 'noise', rq.spec->'noise', "
			      "'min_change_pct', rq.spec->'min_change_pct', 'measure', rq.spec->'measure', "
			      "'notify', rq.notify, 'groups', rq.spec->'groups', "
			      "'progress', (SELECT json_object_agg(s.side, json_build_object('jobs', s.jobs, "
			      "'finished', s.finished, 'runs', s.runs, 'runs_needed', s.needed)) FROM ("
			      "SELECT j.ab_side AS side, count(*) AS jobs, "
			      "count(*) FILTER (WHERE j.state IN ('done', 'failed', 'cancelled')) AS finished, "
			      "sum(j.repeat) AS needed, (SELECT count(*) FROM runs r JOIN jobs k ON k.id = r.job_id "
			      "WHERE k.request_id = rq.id AND k.ab_side = j.ab_side) AS runs "
			      "FROM jobs j WHERE j.request_id = rq.id GROUP BY j.ab_side) s), "
			      "'jobs', (SELECT coalesce(json_agg(json_build_object('id', j.id, 'side', j.ab_side, "
			      "'round', j.ab_pair, 'group', j.ab_group::integer, 'state', j.state, 'phase', j.phase, "
			      "'outcome', j.outcome, 'arch', j.arch, 'tbox_group', j.tbox_group, "
			      "'kconfig', j.kconfig, 'repeat', j.repeat, 'machine', m.hostname, "
			      "'fail_reason', j.fail_reason, 'progress', j.progress, 'leased_at', j.leased_at, "
			      "'finished_at', j.finished_at, 'runs', (SELECT count(*) FROM runs r WHERE r.job_id = j.id)) "
			      "ORDER BY j.id), '[]') FROM jobs j "
			      "LEFT JOIN machines m ON m.id = j.leased_by WHERE j.request_id = rq.id), "
			      "'waiting_for', (SELECT coalesce(json_agg(DISTINCT w.target), '[]') FROM ("
			      "SELECT coalesce(j.tbox_group, j.arch, 'any') || ' (' || j.need_capability || ')' AS target "
			      "FROM jobs j WHERE j.request_id = rq.id AND j.state = 'queued' AND NOT EXISTS ("
			      "SELECT 1 FROM machines m WHERE (j.arch IS NULL OR m.arch = j.arch) "
			      "AND (j.tbox_group IS NULL OR m.tbox_group = j.tbox_group) "
			      "AND j.need_capability = ANY (m.capabilities))) w), "
			      "'samples', (SELECT coalesce(json_agg(json_build_object('group', x.g, 'side', x.side, "
			      "'metric', x.name, 'values', x.vals) ORDER BY x.g, x.name, x.side), '[]') FROM ("
			      "SELECT j.ab_group::integer AS g, j.ab_side AS side, mt.name, array_agg(v.mean ORDER BY r.id) AS vals "
			      "FROM jobs j JOIN runs r ON r.job_id = j.id AND r.status = 'ok' "
			      "JOIN LATERAL run_points(r.id, r.received_at) v ON true JOIN metrics mt ON mt.id = v.metric_id "
			      "WHERE j.request_id = rq.id AND v.mean IS NOT NULL AND NOT mt.is_monitor GROUP BY 1, 2, 3) x), "
			      "'result', rq.result, 'reproduce', rq.spec->'reproduce', "
			      "'reproduce_local', rq.spec->'reproduce_local')::text "
			      "FROM requests rq JOIN trees tr ON tr.id = rq.tree_id WHERE rq.id = $1::bigint" },
	/* $1 request: the row locked, the jobs' tally, the first failure, the derived head */
	[ST_REQUEST_LOCK] = { "request_lock",
			      "SELECT rq.state, rq.spec::text, "
			      "(SELECT count(*) FROM jobs j WHERE j.request_id = rq.id), "
			      "(SELECT count(*) FROM jobs j WHERE j.request_id = rq.id "
			      "AND j.state IN ('done', 'failed', 'cancelled')), "
			      "(SELECT count(*) FROM jobs j WHERE j.request_id = rq.id "
			      "AND (j.state = 'failed' OR (j.state = 'done' AND j.outcome <> 'ok'))), "
			      "(SELECT format('%s job %s (round %s, %s): %s%s', k.ab_side, k.id, k.ab_pair, "
			      "coalesce(k.tbox_group, k.arch, 'any'), CASE WHEN k.state = 'done' THEN k.outcome "
			      "ELSE k.state END, coalesce(': ' || nullif(k.fail_reason, ''), '') "
			      "|| coalesce(': ' || right(nullif(k.log_tail, ''), 400), '')) "
			      "FROM jobs k WHERE k.request_id = rq.id AND (k.state = 'failed' "
			      "OR (k.state = 'done' AND k.outcome <> 'ok')) ORDER BY k.id LIMIT 1), "
			      "(SELECT c.sha FROM runs r JOIN jobs k ON k.id = r.job_id JOIN commits c ON c.id = r.commit_id "
			      "WHERE k.request_id = rq.id AND k.ab_side = 'head' ORDER BY r.id LIMIT 1) "
			      "FROM requests rq WHERE rq.id = $1::bigint FOR UPDATE" },
	/* the request job $1 belongs to (no row: none) */
	[ST_REQUEST_OF_JOB] = { "request_of_job",
				"SELECT request_id FROM jobs WHERE id = $1::bigint AND request_id IS NOT NULL" },
	/* $1 request: its mbox as submitted (NULL for a head commit; no row: no request) */
	[ST_REQUEST_PATCHES] = { "request_patches",
				 "SELECT patches FROM requests WHERE id = $1::bigint" },
	/* $1 request: each (group, side, metric)'s per-run means, runs in id order */
	[ST_REQUEST_SAMPLES] = { "request_samples",
				 "SELECT j.ab_group::integer, j.ab_side = 'head', mt.name, "
				 "coalesce(mt.higher_is_better::integer, -1), mt.is_monitor::integer, "
				 "array_agg(v.mean ORDER BY r.id)::text "
				 "FROM jobs j JOIN runs r ON r.job_id = j.id AND r.status = 'ok' "
				 "JOIN LATERAL run_points(r.id, r.received_at) v ON true JOIN metrics mt ON mt.id = v.metric_id "
				 "WHERE j.request_id = $1::bigint AND v.mean IS NOT NULL "
				 "GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 3, 2" },
	/* $1 request: cancelled unless final already */
	[ST_REQUEST_SET_CANCELLED] = { "request_set_cancelled",
				       "UPDATE requests SET state = 'cancelled', finished_at = now() "
				       "WHERE id = $1::bigint AND state IN ('resolving', 'queued', 'running') RETURNING id" },
	/* $1 state (NULL = any), $2 limit: newest first */
	[ST_REQUESTS_JSON] = { "requests_json",
			       "SELECT coalesce(json_agg(x.o ORDER BY x.id DESC), '[]')::text FROM ("
			       "SELECT rq.id, json_build_object(" REQ_SUMMARY
			       ") AS o FROM requests rq "
			       "JOIN trees tr ON tr.id = rq.tree_id WHERE $1::text IS NULL OR " REQ_STATE
			       " = $1 "
			       "ORDER BY rq.id DESC LIMIT $2::integer) x" },
	/*
	 * The measured noise of a setup's history: per
	 * metric, the within-commit spread of run means at every commit with 2 or
	 * more ok runs, pooled: sqrt(sum((n_i - 1) s_i^2 / m_i^2) / sum(n_i - 1)) as
	 * percent (the pooled coefficient of variation), with its degrees of
	 * freedom, runs and commits. $1 testcase $2 params (jsonb, measure
	 * included) $3 kconfig $4 compiler $5 mode $6 tbox_group (NULL: any
	 * tbox_group whose machines are of arch $7)
	 */
	[ST_REQUEST_NOISE] = { "request_noise",
			       "SELECT m.name, m.is_monitor::integer, sum(x.n - 1)::bigint, "
			       "sqrt(sum((x.n - 1) * x.var / (x.mean * x.mean)) / sum(x.n - 1)) * 100, "
			       "sum(x.n)::bigint, count(*) FROM ("
			       "SELECT v.metric_id, r.setup_id, r.commit_id, count(*) AS n, var_samp(v.mean) AS var, "
			       "avg(v.mean) AS mean FROM setups s JOIN testcases t ON t.id = s.testcase_id "
			       "JOIN runs r ON r.setup_id = s.id AND r.status = 'ok' "
			       "JOIN LATERAL run_points(r.id, r.received_at) v ON true "
			       "WHERE t.name = $1 AND s.params = $2::jsonb AND s.kconfig = $3 AND s.compiler = $4 "
			       "AND s.mode = $5 AND (s.tbox_group = $6 OR ($6::text IS NULL AND s.tbox_group IN ("
			       "SELECT tbox_group FROM machines WHERE arch = $7))) AND v.mean IS NOT NULL "
			       "GROUP BY 1, 2, 3 HAVING count(*) >= 2 AND avg(v.mean) <> 0) x "
			       "JOIN metrics m ON m.id = x.metric_id GROUP BY m.name, m.is_monitor ORDER BY m.name" },
	/* the arch the machines of tbox_group $1 have (NULL when none registered) */
	[ST_REQUEST_TBOX_ARCH] = { "request_tbox_arch",
				   "SELECT arch FROM machines WHERE tbox_group = $1 ORDER BY last_seen DESC LIMIT 1" },
};

const struct db_stmt_table db_stmts_requests = DB_STMT_TABLE(stmts);

/* ST_REQUESTS_RESOLVING's columns */
enum { RESOLVING_ID, RESOLVING_TREE_ID, RESOLVING_TREE };

/* ST_REQUEST_SUBMISSION's columns */
enum { SUBMISSION_SPEC, SUBMISSION_PATCHES, SUBMISSION_TOKEN };

/* ST_REQUEST_LOCK's columns */
enum {
	LOCK_STATE,
	LOCK_SPEC,
	LOCK_JOBS,
	LOCK_FINISHED,
	LOCK_FAILED,
	LOCK_FIRST_FAILURE,
	LOCK_HEAD_SHA
};

/* ST_REQUEST_SAMPLES' columns */
enum {
	SAMPLE_GROUP,
	SAMPLE_HEAD,
	SAMPLE_METRIC,
	SAMPLE_HIGHER_IS_BETTER,
	SAMPLE_IS_MONITOR,
	SAMPLE_VALUES
};

/* ST_REQUEST_NOISE's columns */
enum { NOISE_METRIC, NOISE_IS_MONITOR, NOISE_DF, NOISE_CV_PCT, NOISE_RUNS, NOISE_COMMITS };

/* the one column of ST_REQUEST_TBOX_ARCH, ST_REQUEST_JSON and ST_REQUEST_PATCHES */
enum { ONLY_COL };

long long db_request_insert(struct db_conn *c, const struct db_request_new *q, struct err *e)
{
	char np[ID_LEN];
	struct db_param p[11] = { db_int8(q->tree_id),
				  db_text(q->base_ref),
				  db_text(q->base_sha),
				  db_text(q->head_ref),
				  db_text(q->head_sha),
				  db_text(q->patches),
				  db_text(q->patches ? np : NULL),
				  db_text(q->spec),
				  db_text(q->notify),
				  db_text(q->label),
				  db_id(q->token_id) };
	long long id;

	/* $7 is an integer column: its value goes as text */
	snprintf(np, sizeof(np), "%ld", q->nr_patches);
	return db_query_first_id(c, &stmts[ST_REQUEST_INSERT], 11, p, &id, e) < 0 ? -1 : id;
}

long db_requests_resolving(struct db_conn *c, struct db_request_resolving **out, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_REQUESTS_RESOLVING], 0, NULL, 0, e);
	long n;

	*out = NULL;
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*out = xcalloc((size_t)n, sizeof(**out));
	for (long i = 0; i < n; i++) {
		int row = (int)i;

		(*out)[i].id = strtoll(PQgetvalue(r, row, RESOLVING_ID), NULL, 10);
		(*out)[i].tree_id = strtoll(PQgetvalue(r, row, RESOLVING_TREE_ID), NULL, 10);
		snprintf((*out)[i].tree, sizeof((*out)[i].tree), "%s",
			 PQgetvalue(r, row, RESOLVING_TREE));
	}
	PQclear(r);
	return n;
}

int db_request_submission(struct db_conn *c, long long id, char **spec, char **patches,
			  long long *token_id, struct err *e)
{
	PGresult *r;

	*spec = *patches = NULL;
	*token_id = 0;
	r = db_query_id(c, &stmts[ST_REQUEST_SUBMISSION], id, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	*spec = xstrdup(PQgetvalue(r, 0, SUBMISSION_SPEC));
	if (!PQgetisnull(r, 0, SUBMISSION_PATCHES))
		*patches = xstrdup(PQgetvalue(r, 0, SUBMISSION_PATCHES));
	if (!PQgetisnull(r, 0, SUBMISSION_TOKEN))
		*token_id = strtoll(PQgetvalue(r, 0, SUBMISSION_TOKEN), NULL, 10);
	PQclear(r);
	return 1;
}

int db_request_resolved(struct db_conn *c, long long id, const char *base_sha, const char *head_sha,
			const char *spec, struct err *e)
{
	struct db_param p[4] = { db_int8(id), db_text(base_sha), db_text(head_sha), db_text(spec) };
	long long rows = db_query_rows(c, &stmts[ST_REQUEST_RESOLVED], 4, p, e);

	return rows < 0 ? -1 : rows > 0;
}

long db_request_resolve_failed(struct db_conn *c, long long tree_id, long long first,
			       long long last, const char *reason, struct err *e)
{
	struct db_param p[4] = { db_int8(tree_id), db_int8(first), db_int8(last), db_text(reason) };

	return (long)db_query_rows(c, &stmts[ST_REQUEST_RESOLVE_FAILED], 4, p, e);
}

/*
 * The ids ($1 tree, $2 commit, $13 token, $14 request) go as int8; the
 * integer columns (testcase, repeat, priority, max_attempts, round) and
 * the group as text, which their casts parse.
 */
long long db_request_job_insert(struct db_conn *c, const struct db_job_new *j, long long request_id,
				const char *side, int round, int group, struct err *e)
{
	char tc[ID_LEN], rep[ID_LEN], prio[ID_LEN], max[ID_LEN], rnd[ID_LEN], grp[ID_LEN];
	struct db_param p[17] = { db_id(j->tree_id),
				  db_int8(j->commit_id),
				  db_text(tc),
				  db_text(j->params),
				  db_text(j->kconfig),
				  db_text(j->compiler),
				  db_text(j->arch),
				  db_text(j->tbox_group),
				  db_text(j->capability),
				  db_text(rep),
				  db_text(prio),
				  db_text(max),
				  db_id(j->token_id),
				  db_int8(request_id),
				  db_text(side),
				  db_text(rnd),
				  db_text(grp) };
	long long id;

	snprintf(tc, sizeof(tc), "%lld", j->testcase_id);
	snprintf(rep, sizeof(rep), "%lld", j->repeat);
	snprintf(prio, sizeof(prio), "%lld", j->priority);
	snprintf(max, sizeof(max), "%lld", j->max_attempts);
	snprintf(rnd, sizeof(rnd), "%d", round);
	snprintf(grp, sizeof(grp), "%d", group);
	if (db_query_first_id(c, &stmts[ST_REQUEST_JOB_INSERT], 17, p, &id, e) < 0)
		return -1;
	if (id > 0 && db_job_set_monitors(c, id, j->monitors, e))
		return -1;
	return id;
}

int db_request_of_job(struct db_conn *c, long long job_id, long long *id, struct err *e)
{
	struct db_param p[1] = { db_int8(job_id) };

	if (db_query_first_id(c, &stmts[ST_REQUEST_OF_JOB], 1, p, id, e) < 0)
		return -1;
	return *id > 0;
}

int db_request_lock(struct db_conn *c, long long id, struct db_request_lock *out, struct err *e)
{
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query_id(c, &stmts[ST_REQUEST_LOCK], id, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	snprintf(out->state, sizeof(out->state), "%s", PQgetvalue(r, 0, LOCK_STATE));
	out->spec = xstrdup(PQgetvalue(r, 0, LOCK_SPEC));
	out->jobs = strtol(PQgetvalue(r, 0, LOCK_JOBS), NULL, 10);
	out->finished = strtol(PQgetvalue(r, 0, LOCK_FINISHED), NULL, 10);
	out->failed = strtol(PQgetvalue(r, 0, LOCK_FAILED), NULL, 10);
	if (!PQgetisnull(r, 0, LOCK_FIRST_FAILURE))
		out->first_failure = xstrdup(PQgetvalue(r, 0, LOCK_FIRST_FAILURE));
	if (!PQgetisnull(r, 0, LOCK_HEAD_SHA))
		snprintf(out->head_sha, sizeof(out->head_sha), "%s",
			 PQgetvalue(r, 0, LOCK_HEAD_SHA));
	PQclear(r);
	return 1;
}

void db_request_lock_release(struct db_request_lock *l)
{
	free(l->spec);
	free(l->first_failure);
	memset(l, 0, sizeof(*l));
}

/* "{1.5,2,NULL}" (PostgreSQL's float8[] text) -> new array of its finite values */
static double *parse_array(const char *s, size_t *n)
{
	size_t cap = 8;
	double *v = xmalloc(cap * sizeof(*v));
	char *end;

	*n = 0;
	if (*s == '{')
		s++;
	while (*s && *s != '}') {
		double x = strtod(s, &end);

		if (end == s) { /* NULL, NaN spelled out: skip the element */
			while (*s && *s != ',' && *s != '}')
				s++;
		} else {
			if (*n == cap)
				v = xrealloc(v, (cap *= 2) * sizeof(*v));
			v[(*n)++] = x;
			s = end;
		}
		if (*s == ',')
			s++;
	}
	return v;
}

long db_request_samples(struct db_conn *c, long long id, struct db_request_sample **out,
			struct err *e)
{
	PGresult *r;
	long n;

	*out = NULL;
	r = db_query_id(c, &stmts[ST_REQUEST_SAMPLES], id, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*out = xcalloc((size_t)n, sizeof(**out));
	for (long i = 0; i < n; i++) {
		struct db_request_sample *s = &(*out)[i];
		int row = (int)i;

		s->group = (int)strtol(PQgetvalue(r, row, SAMPLE_GROUP), NULL, 10);
		s->head = PQgetvalue(r, row, SAMPLE_HEAD)[0] == 't';
		s->metric = xstrdup(PQgetvalue(r, row, SAMPLE_METRIC));
		s->higher_is_better = (int)strtol(PQgetvalue(r, row, SAMPLE_HIGHER_IS_BETTER), NULL,
						  10);
		s->is_monitor = (int)strtol(PQgetvalue(r, row, SAMPLE_IS_MONITOR), NULL, 10);
		s->values = parse_array(PQgetvalue(r, row, SAMPLE_VALUES), &s->n);
	}
	PQclear(r);
	return n;
}

void db_request_samples_free(struct db_request_sample *s, long n)
{
	for (long i = 0; i < n; i++) {
		free(s[i].metric);
		free(s[i].values);
	}
	free(s);
}

int db_request_finish(struct db_conn *c, long long id, const char *state, const char *verdict,
		      const char *result, const char *fail_reason, const char *head_sha,
		      struct err *e)
{
	struct db_param p[6] = { db_int8(id),	  db_text(state),	db_text(verdict),
				 db_text(result), db_text(fail_reason), db_text(head_sha) };
	long long rows = db_query_rows(c, &stmts[ST_REQUEST_FINISH], 6, p, e);

	return rows < 0 ? -1 : rows > 0;
}

int db_request_cancel(struct db_conn *c, long long id, long *jobs, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };
	long long rows;

	*jobs = 0;
	rows = db_query_rows(c, &stmts[ST_REQUEST_SET_CANCELLED], 1, p, e);
	if (rows <= 0)
		return rows < 0 ? -1 : 0;
	return db_request_cancel_jobs(c, id, jobs, e) < 0 ? -1 : 1;
}

int db_request_cancel_jobs(struct db_conn *c, long long id, long *jobs, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };
	long long rows = db_query_rows(c, &stmts[ST_REQUEST_CANCEL_JOBS], 1, p, e);

	if (rows < 0)
		return -1;
	*jobs = (long)rows;
	return 0;
}

int db_request_tbox_arch(struct db_conn *c, const char *tbox_group, char *arch, size_t n,
			 struct err *e)
{
	struct db_param p[1] = { db_text(tbox_group) };
	PGresult *r = db_query(c, &stmts[ST_REQUEST_TBOX_ARCH], 1, p, 0, e);
	int got;

	if (!r)
		return -1;
	got = PQntuples(r) == 1;
	if (got)
		snprintf(arch, n, "%s", PQgetvalue(r, 0, ONLY_COL));
	PQclear(r);
	return got;
}

long db_request_noise(struct db_conn *c, const char *testcase, const char *params,
		      const char *kconfig, const char *compiler, const char *mode,
		      const char *tbox_group, const char *arch, struct db_noise **out,
		      struct err *e)
{
	struct db_param p[7] = { db_text(testcase), db_text(params), db_text(kconfig),
				 db_text(compiler), db_text(mode),   db_text(tbox_group),
				 db_text(arch) };
	PGresult *r = db_query(c, &stmts[ST_REQUEST_NOISE], 7, p, 0, e);
	long n;

	*out = NULL;
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*out = xcalloc((size_t)n, sizeof(**out));
	for (int i = 0; i < (int)n; i++) {
		struct db_noise *x = &(*out)[i];

		snprintf(x->metric, sizeof(x->metric), "%s", PQgetvalue(r, i, NOISE_METRIC));
		x->is_monitor = PQgetvalue(r, i, NOISE_IS_MONITOR)[0] == '1';
		x->df = strtoll(PQgetvalue(r, i, NOISE_DF), NULL, 10);
		x->cv_pct = strtod(PQgetvalue(r, i, NOISE_CV_PCT), NULL);
		x->runs = strtoll(PQgetvalue(r, i, NOISE_RUNS), NULL, 10);
		x->commits = strtoll(PQgetvalue(r, i, NOISE_COMMITS), NULL, 10);
	}
	PQclear(r);
	return n;
}

int db_request_json(struct db_conn *c, long long id, char **text, struct err *e)
{
	PGresult *r;
	int got;

	*text = NULL;
	r = db_query_id(c, &stmts[ST_REQUEST_JSON], id, e);
	if (!r)
		return -1;
	got = PQntuples(r) == 1 && !PQgetisnull(r, 0, ONLY_COL);
	if (got)
		*text = xstrdup(PQgetvalue(r, 0, ONLY_COL));
	PQclear(r);
	return got;
}

int db_request_patches(struct db_conn *c, long long id, char **text, struct err *e)
{
	PGresult *r;
	int got;

	*text = NULL;
	r = db_query_id(c, &stmts[ST_REQUEST_PATCHES], id, e);
	if (!r)
		return -1;
	got = PQntuples(r) == 1;
	if (got && !PQgetisnull(r, 0, ONLY_COL))
		*text = xstrdup(PQgetvalue(r, 0, ONLY_COL));
	PQclear(r);
	return got;
}

int db_requests_json(struct db_conn *c, const char *state, const char *limit, char **text,
		     struct err *e)
{
	struct db_param p[2] = { db_text(state), db_text(limit) };

	return db_query_json(c, &stmts[ST_REQUESTS_JSON], 2, p, text, e);
}

int db_request_exists(struct db_conn *c, long long id, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };
	long long rows = db_query_rows(c, &stmts[ST_REQUEST_EXISTS], 1, p, e);

	return rows < 0 ? -1 : rows > 0;
}
