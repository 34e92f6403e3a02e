/* Typed rows of A/B requests; see requests.h. */
#include "server/db/requests.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_LEN 24

static long long first_id(PGresult *r)
{
	long long id = PQntuples(r) ? strtoll(PQgetvalue(r, 0, 0), NULL, 10) : 0;

	PQclear(r);
	return id;
}

long long db_request_insert(struct db_conn *c, const struct db_request_new *q, struct err *e)
{
	char tree[ID_LEN], np[ID_LEN], tok[ID_LEN];
	const char *p[11] = { tree,
			      q->base_ref,
			      q->base_sha,
			      q->head_ref,
			      q->head_sha,
			      q->patches,
			      q->patches ? np : NULL,
			      q->spec,
			      q->notify,
			      q->label,
			      q->token_id ? tok : NULL };
	PGresult *r;

	snprintf(tree, sizeof(tree), "%lld", q->tree_id);
	snprintf(np, sizeof(np), "%ld", q->nr_patches);
	snprintf(tok, sizeof(tok), "%lld", q->token_id);
	r = db_exec(c, ST_REQUEST_INSERT, 11, p, e);
	return r ? first_id(r) : -1;
}

long db_requests_resolving(struct db_conn *c, struct db_request_resolving **out, struct err *e)
{
	PGresult *r = db_exec(c, ST_REQUESTS_RESOLVING, 0, NULL, e);
	long n;

	*out = NULL;
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*out = xcalloc((size_t)n, sizeof(**out));
	for (long i = 0; i < n; i++) {
		(*out)[i].id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		(*out)[i].tree_id = strtoll(PQgetvalue(r, (int)i, 1), NULL, 10);
		snprintf((*out)[i].tree, sizeof((*out)[i].tree), "%s", PQgetvalue(r, (int)i, 2));
	}
	PQclear(r);
	return n;
}

int db_request_submission(struct db_conn *c, long long id, char **spec, char **patches,
			  long long *token_id, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;

	*spec = *patches = NULL;
	*token_id = 0;
	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_REQUEST_SUBMISSION, 1, p, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	*spec = xstrdup(PQgetvalue(r, 0, 0));
	if (!PQgetisnull(r, 0, 1))
		*patches = xstrdup(PQgetvalue(r, 0, 1));
	if (!PQgetisnull(r, 0, 2))
		*token_id = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
	PQclear(r);
	return 1;
}

int db_request_resolved(struct db_conn *c, long long id, const char *base_sha, const char *head_sha,
			const char *spec, struct err *e)
{
	char b[ID_LEN];
	const char *p[4] = { b, base_sha, head_sha, spec };
	long long rows;

	snprintf(b, sizeof(b), "%lld", id);
	rows = db_rows(c, ST_REQUEST_RESOLVED, 4, p, e);
	return rows < 0 ? -1 : rows > 0;
}

long db_request_resolve_failed(struct db_conn *c, long long tree_id, long long first,
			       long long last, const char *reason, struct err *e)
{
	char t[ID_LEN], f[ID_LEN], l[ID_LEN];
	const char *p[4] = { t, f, l, reason };

	snprintf(t, sizeof(t), "%lld", tree_id);
	snprintf(f, sizeof(f), "%lld", first);
	snprintf(l, sizeof(l), "%lld", last);
	return (long)db_rows(c, ST_REQUEST_RESOLVE_FAILED, 4, p, e);
}

long long db_request_job_insert(struct db_conn *c, const struct db_job_new *j, long long request_id,
				const char *side, int round, int group, struct err *e)
{
	char tree[ID_LEN], commit[ID_LEN], tc[ID_LEN], rep[ID_LEN], prio[ID_LEN], max[ID_LEN],
		tok[ID_LEN], req[ID_LEN], rnd[ID_LEN], grp[ID_LEN];
	const char *p[17] = { j->tree_id ? tree : NULL,
			      commit,
			      tc,
			      j->params,
			      j->kconfig,
			      j->compiler,
			      j->arch,
			      j->tbox_group,
			      j->capability,
			      rep,
			      prio,
			      max,
			      j->token_id ? tok : NULL,
			      req,
			      side,
			      rnd,
			      grp };
	PGresult *r;
	snprintf(tree, sizeof(tree), "%lld", j->tree_id);
	snprintf(commit, sizeof(commit), "%lld", j->commit_id);
	snprintf(tc, sizeof(tc), "%lld", j->testcase_id);
	snprintf(rep, sizeof(rep), "%lld", j->repeat);
	snprintf(prio, sizeof(prio), "%lld", j->priority);
	snprintf(max, sizeof(max), "%lld", j->max_attempts);
	snprintf(tok, sizeof(tok), "%lld", j->token_id);
	snprintf(req, sizeof(req), "%lld", request_id);
	snprintf(rnd, sizeof(rnd), "%d", round);
	snprintf(grp, sizeof(grp), "%d", group);
	long long id;

	r = db_exec(c, ST_REQUEST_JOB_INSERT, 17, p, e);
	id = r ? first_id(r) : -1;
	if (id > 0 && db_job_set_monitors(c, id, j->monitors, e))
		return -1;
	return id;
}

int db_request_of_job(struct db_conn *c, long long job_id, long long *id, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;

	snprintf(b, sizeof(b), "%lld", job_id);
	r = db_exec(c, ST_REQUEST_OF_JOB, 1, p, e);
	if (!r)
		return -1;
	*id = first_id(r);
	return *id > 0;
}

int db_request_lock(struct db_conn *c, long long id, struct db_request_lock *out, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_REQUEST_LOCK, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	snprintf(out->state, sizeof(out->state), "%s", PQgetvalue(r, 0, 0));
	out->spec = xstrdup(PQgetvalue(r, 0, 1));
	out->jobs = strtol(PQgetvalue(r, 0, 2), NULL, 10);
	out->finished = strtol(PQgetvalue(r, 0, 3), NULL, 10);
	out->failed = strtol(PQgetvalue(r, 0, 4), NULL, 10);
	if (!PQgetisnull(r, 0, 5))
		out->first_failure = xstrdup(PQgetvalue(r, 0, 5));
	if (!PQgetisnull(r, 0, 6))
		snprintf(out->head_sha, sizeof(out->head_sha), "%s", PQgetvalue(r, 0, 6));
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
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;
	long n;

	*out = NULL;
	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_REQUEST_SAMPLES, 1, p, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*out = xcalloc((size_t)n, sizeof(**out));
	for (long i = 0; i < n; i++) {
		struct db_request_sample *s = &(*out)[i];

		s->group = (int)strtol(PQgetvalue(r, (int)i, 0), NULL, 10);
		s->head = PQgetvalue(r, (int)i, 1)[0] == 't';
		s->metric = xstrdup(PQgetvalue(r, (int)i, 2));
		s->higher_is_better = (int)strtol(PQgetvalue(r, (int)i, 3), NULL, 10);
		s->is_monitor = (int)strtol(PQgetvalue(r, (int)i, 4), NULL, 10);
		s->values = parse_array(PQgetvalue(r, (int)i, 5), &s->n);
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
	char b[ID_LEN];
	const char *p[6] = { b, state, verdict, result, fail_reason, head_sha };
	long long rows;

	snprintf(b, sizeof(b), "%lld", id);
	rows = db_rows(c, ST_REQUEST_FINISH, 6, p, e);
	return rows < 0 ? -1 : rows > 0;
}

int db_request_cancel(struct db_conn *c, long long id, long *jobs, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	long long rows;

	*jobs = 0;
	snprintf(b, sizeof(b), "%lld", id);
	rows = db_rows(c, ST_REQUEST_SET_CANCELLED, 1, p, e);
	if (rows <= 0)
		return rows < 0 ? -1 : 0;
	return db_request_cancel_jobs(c, id, jobs, e) < 0 ? -1 : 1;
}

int db_request_cancel_jobs(struct db_conn *c, long long id, long *jobs, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	long long rows;

	snprintf(b, sizeof(b), "%lld", id);
	rows = db_rows(c, ST_REQUEST_CANCEL_JOBS, 1, p, e);
	if (rows < 0)
		return -1;
	*jobs = (long)rows;
	return 0;
}

int db_request_tbox_arch(struct db_conn *c, const char *tbox_group, char *arch, size_t n,
			 struct err *e)
{
	const char *p[1] = { tbox_group };
	PGresult *r = db_exec(c, ST_REQUEST_TBOX_ARCH, 1, p, e);
	int got;

	if (!r)
		return -1;
	got = PQntuples(r) == 1;
	if (got)
		snprintf(arch, n, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return got;
}

long db_request_noise(struct db_conn *c, const char *testcase, const char *params,
		      const char *kconfig, const char *compiler, const char *mode,
		      const char *tbox_group, const char *arch, struct db_noise **out,
		      struct err *e)
{
	const char *p[7] = { testcase, params, kconfig, compiler, mode, tbox_group, arch };
	PGresult *r = db_exec(c, ST_REQUEST_NOISE, 7, p, e);
	long n;

	*out = NULL;
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*out = xcalloc((size_t)n, sizeof(**out));
	for (int i = 0; i < (int)n; i++) {
		struct db_noise *x = &(*out)[i];

		snprintf(x->metric, sizeof(x->metric), "%s", PQgetvalue(r, i, 0));
		x->is_monitor = PQgetvalue(r, i, 1)[0] == '1';
		x->df = strtoll(PQgetvalue(r, i, 2), NULL, 10);
		x->cv_pct = strtod(PQgetvalue(r, i, 3), NULL);
		x->runs = strtoll(PQgetvalue(r, i, 4), NULL, 10);
		x->commits = strtoll(PQgetvalue(r, i, 5), NULL, 10);
	}
	PQclear(r);
	return n;
}

int db_request_json(struct db_conn *c, long long id, char **text, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;
	int got;

	*text = NULL;
	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_REQUEST_JSON, 1, p, e);
	if (!r)
		return -1;
	got = PQntuples(r) == 1 && !PQgetisnull(r, 0, 0);
	if (got)
		*text = xstrdup(PQgetvalue(r, 0, 0));
	PQclear(r);
	return got;
}

int db_request_patches(struct db_conn *c, long long id, char **text, struct err *e)
{
	char b[ID_LEN];
	const char *p[1] = { b };
	PGresult *r;
	int got;

	*text = NULL;
	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_REQUEST_PATCHES, 1, p, e);
	if (!r)
		return -1;
	got = PQntuples(r) == 1;
	if (got && !PQgetisnull(r, 0, 0))
		*text = xstrdup(PQgetvalue(r, 0, 0));
	PQclear(r);
	return got;
}

int db_requests_json(struct db_conn *c, const char *state, const char *limit, char **text,
		     struct err *e)
{
	return db_json_list(c, ST_REQUESTS_JSON, state, limit, text, e);
}

int db_request_exists(struct db_conn *c, long long id, struct err *e)
{
	char idb[24];

	snprintf(idb, sizeof(idb), "%lld", id);
	return db_row_exists(c, ST_REQUEST_EXISTS, idb, e);
}
