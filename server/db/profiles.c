#include "server/db/profiles.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int db_profile_insert(struct db_conn *c, long long run_id, const char *event, long long samples,
		      const char *folded, struct err *e)
{
	char id[24], sm[24];
	const char *p[4] = { id, event, sm, folded };
	PGresult *r;

	snprintf(id, sizeof(id), "%lld", run_id);
	snprintf(sm, sizeof(sm), "%lld", samples);
	r = db_exec(c, ST_PROFILE_INSERT, 4, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_run_profile(struct db_conn *c, const char *uuid, struct db_run_profile *out, struct err *e)
{
	const char *p[1] = { uuid };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_exec(c, ST_PROFILE_OF_RUN, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->res_ = db_res_of(r);
	if (PQgetisnull(r, 0, 1))
		return 1;
	out->event = PQgetvalue(r, 0, 1);
	out->samples = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
	out->folded = PQgetvalue(r, 0, 3);
	out->folded_len = (size_t)PQgetlength(r, 0, 3);
	return 1;
}

void db_run_profile_free(struct db_run_profile *p)
{
	PQclear(db_pgres(p->res_));
	memset(p, 0, sizeof(*p));
}

static int fill_runs(PGresult *r, struct db_profile_runs *out)
{
	size_t n = (size_t)PQntuples(r);

	out->res_ = db_res_of(r);
	out->nr = n;
	out->rows = xcalloc(n ? n : 1, sizeof(*out->rows));
	for (size_t i = 0; i < n; i++) {
		out->rows[i].head = PQgetvalue(r, (int)i, 0)[0] == 't';
		out->rows[i].commit = PQgetvalue(r, (int)i, 1);
		out->rows[i].folded = PQgetvalue(r, (int)i, 2);
		out->rows[i].folded_len = (size_t)PQgetlength(r, (int)i, 2);
		out->rows[i].setup_id = strtoll(PQgetvalue(r, (int)i, 3), NULL, 10);
		out->rows[i].id = strtoll(PQgetvalue(r, (int)i, 8), NULL, 10);
		out->rows[i].event = PQgetvalue(r, (int)i, 4);
		out->rows[i].work = NAN;
		if (!PQgetisnull(r, (int)i, 5)) {
			const char *rt = PQgetvalue(r, (int)i, 7);
			char *end = NULL;
			double runtime = PQgetisnull(r, (int)i, 7) ? 1 : strtod(rt, &end);

			/* a runtime that is no positive number: the cases' default */
			if (end && (!*rt || *end || !(runtime > 0)))
				runtime = 1;
			out->rows[i].work = strtod(PQgetvalue(r, (int)i, 5), NULL) * runtime;
			out->rows[i].work_metric = PQgetvalue(r, (int)i, 6);
		}
	}
	return 0;
}

int db_profile_runs_commits(struct db_conn *c, const char *base_id, const char *head_id,
			    const struct db_setup_filter *f, const char *work_metrics, int no_text,
			    struct db_profile_runs *out, struct err *e)
{
	const char *p[11] = { base_id,	   head_id,	 f->testcase,	     f->tbox_group,
			      f->kconfig,  f->compiler,	 f->params_key,	     f->mode,
			      f->monitors, work_metrics, no_text ? "t" : "f" };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_exec(c, ST_PROFILE_RUNS_COMMITS, 11, p, e);
	return r ? fill_runs(r, out) : -1;
}

int db_profile_runs_bisect(struct db_conn *c, long long id, const char *work_metrics, int no_text,
			   struct db_profile_runs *out, struct err *e)
{
	char idb[24];
	const char *p[3] = { idb, work_metrics, no_text ? "t" : "f" };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_PROFILE_RUNS_BISECT, 3, p, e);
	return r ? fill_runs(r, out) : -1;
}

int db_profile_runs_request(struct db_conn *c, long long id, const char *target,
			    const char *testcase, const char *work_metrics, int no_text,
			    struct db_profile_runs *out, struct err *e)
{
	char idb[24];
	const char *p[5] = { idb, target, testcase, work_metrics, no_text ? "t" : "f" };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_PROFILE_RUNS_REQUEST, 5, p, e);
	return r ? fill_runs(r, out) : -1;
}

void db_profile_runs_free(struct db_profile_runs *r)
{
	free(r->rows);
	PQclear(db_pgres(r->res_));
	memset(r, 0, sizeof(*r));
}

/* column col of row 0 into a 41-byte sha buffer; "" for NULL */
static void sha_of(PGresult *r, int col, char out[41])
{
	snprintf(out, 41, "%s", PQgetisnull(r, 0, col) ? "" : PQgetvalue(r, 0, col));
}

int db_profile_bisect_ends(struct db_conn *c, long long id, char *state, size_t size,
			   char first_bad[41], char parent[41], struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };
	PGresult *r;

	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_PROFILE_BISECT_ENDS, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	snprintf(state, size, "%s", PQgetvalue(r, 0, 0));
	sha_of(r, 1, first_bad);
	sha_of(r, 2, parent);
	PQclear(r);
	return 1;
}

int db_profile_request_ends(struct db_conn *c, long long id, char base[41], char head[41],
			    struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };
	PGresult *r;

	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_PROFILE_REQUEST_ENDS, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	sha_of(r, 0, base);
	sha_of(r, 1, head);
	PQclear(r);
	return 1;
}

int db_bisect_set_monitors(struct db_conn *c, long long id, const char *monitors, struct err *e)
{
	char idb[24];
	const char *p[2] = { idb, monitors };
	PGresult *r;

	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_BISECT_SET_MONITORS, 2, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_bisect_monitors(struct db_conn *c, long long id, char out[32], struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };
	PGresult *r;

	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_BISECT_MONITORS, 1, p, e);
	if (!r)
		return -1;
	snprintf(out, 32, "%s", PQntuples(r) == 1 ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	return 0;
}

int db_bisect_profile_jobs(struct db_conn *c, long long id, long long a, long long b,
			   long long *total, long long *out, struct err *e)
{
	char idb[24], ab[24], bb[24];
	const char *p[3] = { idb, ab, bb };
	PGresult *r;

	snprintf(idb, sizeof(idb), "%lld", id);
	snprintf(ab, sizeof(ab), "%lld", a);
	snprintf(bb, sizeof(bb), "%lld", b);
	r = db_exec(c, ST_BISECT_PROFILE_JOBS, 3, p, e);
	if (!r)
		return -1;
	*total = PQntuples(r) == 1 ? strtoll(PQgetvalue(r, 0, 0), NULL, 10) : 0;
	*out = PQntuples(r) == 1 ? strtoll(PQgetvalue(r, 0, 1), NULL, 10) : 0;
	PQclear(r);
	return 0;
}

int db_bisect_profile_job_insert(struct db_conn *c, long long id, long long commit_id,
				 const char *cap, int repeat, long priority, long max_attempts,
				 int round, struct err *e)
{
	char idb[24], cid[24], rep[24], pr[24], ma[24], rb[24];
	const char *p[7] = { idb, cid, cap, rep, pr, ma, rb };
	PGresult *r;

	snprintf(idb, sizeof(idb), "%lld", id);
	snprintf(cid, sizeof(cid), "%lld", commit_id);
	snprintf(rep, sizeof(rep), "%d", repeat);
	snprintf(pr, sizeof(pr), "%ld", priority);
	snprintf(ma, sizeof(ma), "%ld", max_attempts);
	snprintf(rb, sizeof(rb), "%d", round);
	r = db_exec(c, ST_BISECT_PROFILE_JOB_INSERT, 7, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}
