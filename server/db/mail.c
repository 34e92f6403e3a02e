/* Typed rows of a report's input and of subscriptions (mail.h); the SQL is in stmts_mail.c. */
#include "server/db/mail.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/pgval.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* a float8 or numeric column: NAN for SQL NULL */
static double float8(const PGresult *r, int i, int c)
{
	return PQgetisnull(r, i, c) ? NAN : strtod(PQgetvalue(r, i, c), NULL);
}

/* Runs st with one bigint parameter. */
static PGresult *exec_id(struct db_conn *c, enum db_stmt st, long long id, struct err *e)
{
	char t[24];
	const char *p[1] = { t };

	snprintf(t, sizeof(t), "%lld", id);
	return db_exec(c, st, 1, p, e);
}

/* ---- the regression ------------------------------------------------- */

int db_mail_regression(struct db_conn *c, long long regression_id, struct db_mail_regression *out,
		       struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_REGRESSION, regression_id, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->res = db_res_of(r);
	out->kind = PQgetvalue(r, 0, 0);
	out->change_pct = float8(r, 0, 1);
	out->metric = str(r, 0, 2);
	out->testcase = str(r, 0, 3);
	out->params = str(r, 0, 4);
	out->kconfig = str(r, 0, 5);
	out->compiler = str(r, 0, 6);
	out->tbox_group = str(r, 0, 7);
	out->mode = str(r, 0, 8);
	out->good_sha = str(r, 0, 9);
	out->good_subject = str(r, 0, 10);
	out->bad_sha = str(r, 0, 11);
	out->bad_subject = str(r, 0, 12);
	out->bad_author = str(r, 0, 13);
	out->tree = PQgetvalue(r, 0, 14);
	out->branch = str(r, 0, 15);
	out->machine_arch = str(r, 0, 16);
	out->nr_cpus = (long)int8(r, 0, 17);
	out->memory_mb = int8(r, 0, 18);
	out->cpu_model = str(r, 0, 19);
	out->setup_id = int8(r, 0, 20);
	out->good_commit_id = int8(r, 0, 21);
	out->bad_commit_id = int8(r, 0, 22);
	out->metric_id = int8(r, 0, 23);
	out->bisect_id = int8(r, 0, 24);
	out->bad_parent_sha = str(r, 0, 25);
	out->hl_pct = float8(r, 0, 27);
	out->higher_is_better = PQgetisnull(r, 0, 28) ? -1 : PQgetvalue(r, 0, 28)[0] == 't';
	out->ci_lo_pct = float8(r, 0, 29);
	out->ci_hi_pct = float8(r, 0, 30);
	out->shift = float8(r, 0, 31);
	out->noise_sigma = float8(r, 0, 32);
	out->commits_after = int8(r, 0, 33);
	out->p_value = float8(r, 0, 34);
	return 1;
}

void db_mail_regression_free(struct db_mail_regression *r)
{
	PQclear(db_pgres(r->res));
	memset(r, 0, sizeof(*r));
}

long long db_mail_bisect_regression(struct db_conn *c, long long bisect_id, struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_BISECT_REGRESSION, bisect_id, e);
	long long id;

	if (!r)
		return -1;
	id = PQntuples(r) ? int8(r, 0, 0) : 0;
	PQclear(r);
	return id;
}

int db_mail_regression_exists(struct db_conn *c, long long regression_id, long long *bisect_id,
			      struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_REGRESSION_EXISTS, regression_id, e);
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	*bisect_id = found ? int8(r, 0, 0) : 0;
	PQclear(r);
	return found;
}

/* ---- the bisect ----------------------------------------------------- */

int db_mail_bisect(struct db_conn *c, long long bisect_id, struct db_mail_bisect *out,
		   struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_BISECT, bisect_id, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->res = db_res_of(r);
	out->culprit_id = int8(r, 0, 0);
	out->culprit_sha = PQgetvalue(r, 0, 1);
	out->culprit_subject = str(r, 0, 2);
	out->culprit_author = str(r, 0, 3);
	if (!PQgetisnull(r, 0, 4)) {
		out->parent_id = int8(r, 0, 4);
		out->parent_sha = PQgetvalue(r, 0, 5);
		out->parent_subject = str(r, 0, 6);
	}
	return 1;
}

void db_mail_bisect_free(struct db_mail_bisect *b)
{
	PQclear(db_pgres(b->res));
	memset(b, 0, sizeof(*b));
}

int db_mail_same_image(struct db_conn *c, long long bisect_id, long long commit_id, long long *id,
		       char sha[41], struct err *e)
{
	char ids[2][24];
	const char *p[2] = { ids[0], ids[1] };
	PGresult *r;
	int got;

	snprintf(ids[0], sizeof(ids[0]), "%lld", bisect_id);
	snprintf(ids[1], sizeof(ids[1]), "%lld", commit_id);
	r = db_exec(c, ST_MAIL_SAME_IMAGE, 2, p, e);
	if (!r)
		return -1;
	got = PQntuples(r) > 0;
	if (got) {
		*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		snprintf(sha, 41, "%s", PQgetvalue(r, 0, 1));
	}
	PQclear(r);
	return got;
}

int db_mail_bisect_steps(struct db_conn *c, long long bisect_id, struct db_mail_steps *out,
			 struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_BISECT_STEPS, bisect_id, e);
	int n;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	n = PQntuples(r);
	out->res = db_res_of(r);
	out->v = xcalloc(n ? (size_t)n : 1, sizeof(*out->v));
	out->n = (size_t)n;
	for (int i = 0; i < n; i++) {
		out->v[i].sha = PQgetvalue(r, i, 0);
		out->v[i].subject = str(r, i, 1);
		out->v[i].verdict = PQgetvalue(r, i, 2);
		out->v[i].mean = float8(r, i, 3);
		out->v[i].nr_samples = (int)strtol(PQgetvalue(r, i, 4), NULL, 10);
	}
	return 0;
}

void db_mail_steps_free(struct db_mail_steps *s)
{
	PQclear(db_pgres(s->res));
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- the comparison table ------------------------------------------- */

static int mail_compare(struct db_conn *c, enum db_stmt st, long long setup_id, long long base_id,
			long long head_id, struct db_mail_compare *out, struct err *e)
{
	char s[24], a[24], b[24];
	const char *p[3] = { s, a, b };
	PGresult *r;
	size_t n, nvals = 0;
	double *pool;

	memset(out, 0, sizeof(*out));
	snprintf(s, sizeof(s), "%lld", setup_id);
	snprintf(a, sizeof(a), "%lld", base_id);
	snprintf(b, sizeof(b), "%lld", head_id);
	r = db_exec(c, st, 3, p, e);
	if (!r)
		return -1;
	n = (size_t)PQntuples(r);
	for (size_t i = 0; i < n; i++)
		nvals += pg_float8_array_len(PQgetvalue(r, (int)i, 2)) +
			 pg_float8_array_len(PQgetvalue(r, (int)i, 3));
	out->res = db_res_of(r);
	out->pool = pool = xmalloc((nvals ? nvals : 1) * sizeof(double));
	out->v = xcalloc(n ? n : 1, sizeof(*out->v));
	out->n = n;
	for (size_t i = 0; i < n; i++) {
		struct db_mail_metric *m = &out->v[i];

		m->metric_id = int8(r, (int)i, 0);
		m->name = PQgetvalue(r, (int)i, 1);
		/* sorted: aggregated in no particular order */
		m->base = pool;
		m->nr_base = pg_float8_array_sorted(PQgetvalue(r, (int)i, 2), pool);
		pool += m->nr_base;
		m->head = pool;
		m->nr_head = pg_float8_array_sorted(PQgetvalue(r, (int)i, 3), pool);
		pool += m->nr_head;
	}
	return 0;
}

int db_mail_compare(struct db_conn *c, long long setup_id, long long base_id, long long head_id,
		    struct db_mail_compare *out, struct err *e)
{
	return mail_compare(c, ST_MAIL_COMPARE, setup_id, base_id, head_id, out, e);
}

int db_mail_profile_compare(struct db_conn *c, long long setup_id, long long base_id,
			    long long head_id, struct db_mail_compare *out, struct err *e)
{
	return mail_compare(c, ST_MAIL_PROFILE_COMPARE, setup_id, base_id, head_id, out, e);
}

void db_mail_compare_free(struct db_mail_compare *t)
{
	PQclear(db_pgres(t->res));
	free(t->v);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

/* ---- the test machine ----------------------------------------------- */

int db_mail_machine(struct db_conn *c, long long setup_id, long long commit_id,
		    struct db_mail_machine *out, struct err *e)
{
	char s[24], m[24];
	const char *p[2] = { s, m };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(s, sizeof(s), "%lld", setup_id);
	snprintf(m, sizeof(m), "%lld", commit_id);
	r = db_exec(c, ST_MAIL_MACHINE, 2, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->res = db_res_of(r);
	out->arch = str(r, 0, 0);
	out->has_nr_cpus = !PQgetisnull(r, 0, 1);
	out->nr_cpus = int8(r, 0, 1);
	out->has_memory_mb = !PQgetisnull(r, 0, 2);
	out->memory_mb = int8(r, 0, 2);
	out->cpu_model = str(r, 0, 3);
	out->accel = str(r, 0, 4);
	out->guest_arch = str(r, 0, 5);
	out->has_guest_nr_cpus = !PQgetisnull(r, 0, 6);
	out->guest_nr_cpus = int8(r, 0, 6);
	out->guest_memory_mb = int8(r, 0, 7);
	out->guest_icount = str(r, 0, 8);
	out->cpus = int8(r, 0, 9);
	out->mode = PQgetvalue(r, 0, 10);
	out->guest_cpu_model = str(r, 0, 11);
	out->guest_pinned = str(r, 0, 12);
	out->guest_hugepages = str(r, 0, 13);
	out->guest_numa_nodes = int8(r, 0, 14);
	return 1;
}

void db_mail_machine_free(struct db_mail_machine *m)
{
	PQclear(db_pgres(m->res));
	memset(m, 0, sizeof(*m));
}

/* ---- the culprit's files -------------------------------------------- */

int db_mail_diffstat(struct db_conn *c, long long commit_id, struct db_mail_diffstat *out,
		     struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_DIFFSTAT, commit_id, e);
	int found;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	found = PQntuples(r) == 1;
	if (found) {
		out->files_changed = int8(r, 0, 0);
		out->insertions = int8(r, 0, 1);
		out->deletions = int8(r, 0, 2);
	}
	PQclear(r);
	return found;
}

int db_mail_commit_files(struct db_conn *c, long long commit_id, struct db_mail_files *out,
			 struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_COMMIT_FILES, commit_id, e);
	int n;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	n = PQntuples(r);
	out->res = db_res_of(r);
	out->v = xcalloc(n ? (size_t)n : 1, sizeof(*out->v));
	out->n = (size_t)n;
	for (int i = 0; i < n; i++) {
		out->v[i].path = PQgetvalue(r, i, 0);
		out->v[i].insertions = strtol(PQgetvalue(r, i, 1), NULL, 10);
		out->v[i].deletions = strtol(PQgetvalue(r, i, 2), NULL, 10);
	}
	return 0;
}

void db_mail_files_free(struct db_mail_files *f)
{
	PQclear(db_pgres(f->res));
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* ---- subscriptions -------------------------------------------------- */

int db_mail_subs_match(struct db_conn *c, const char *tree, const char *testcase,
		       struct db_mail_subs *out, struct err *e)
{
	const char *p[2] = { tree, testcase };
	PGresult *r = db_exec(c, ST_MAIL_SUBS_MATCH, 2, p, e);
	int n;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	n = PQntuples(r);
	out->res = db_res_of(r);
	out->v = xcalloc(n ? (size_t)n : 1, sizeof(*out->v));
	out->n = (size_t)n;
	for (int i = 0; i < n; i++) {
		out->v[i].email = PQgetvalue(r, i, 0);
		out->v[i].metric = PQgetvalue(r, i, 1);
		out->v[i].paths = PQgetvalue(r, i, 2);
	}
	return 0;
}

void db_mail_subs_free(struct db_mail_subs *s)
{
	PQclear(db_pgres(s->res));
	free(s->v);
	memset(s, 0, sizeof(*s));
}

long long db_mail_sub_insert(struct db_conn *c, const char *email, const char *tree,
			     const char *testcase, const char *metric, const char *paths,
			     struct err *e)
{
	const char *p[5] = { email, tree, testcase, metric, paths };
	PGresult *r = db_exec(c, ST_SUB_INSERT, 5, p, e);
	long long id;

	if (!r)
		return -1;
	id = int8(r, 0, 0);
	PQclear(r);
	return id;
}

int db_mail_sub_delete(struct db_conn *c, long long id, struct err *e)
{
	PGresult *r = exec_id(c, ST_SUB_DELETE, id, e);
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	PQclear(r);
	return found;
}

/* ---- an A/B request's fingerprints ------------------------------------- */

long db_mail_request_fingerprints(struct db_conn *c, long long request_id,
				  struct db_mail_group_fp **out, struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_REQUEST_FINGERPRINTS, request_id, e);
	long n;

	*out = NULL;
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*out = xcalloc((size_t)n, sizeof(**out));
	for (long i = 0; i < n; i++) {
		struct db_mail_group_fp *f = &(*out)[i];

		f->group = (int)int8(r, (int)i, 0);
		f->base = json_loads(PQgetvalue(r, (int)i, 1), 0, NULL);
		f->head = json_loads(PQgetvalue(r, (int)i, 2), 0, NULL);
		if (!f->base)
			f->base = json_array();
		if (!f->head)
			f->head = json_array();
	}
	PQclear(r);
	return n;
}

void db_mail_group_fps_free(struct db_mail_group_fp *f, long n)
{
	for (long i = 0; i < n; i++) {
		json_decref(f[i].base);
		json_decref(f[i].head);
	}
	free(f);
}

int db_outbox_json(struct db_conn *c, const char *regression_id, const char *limit, char **text,
		   struct err *e)
{
	const char *p[2] = { regression_id, limit };

	return db_json_text(c, ST_OUTBOX_JSON, 2, p, text, e);
}

int db_regression_report_json(struct db_conn *c, long long id, char **text, struct err *e)
{
	return db_json_by_id(c, ST_REGRESSION_REPORT_JSON, id, text, e);
}

int db_subscriptions_json(struct db_conn *c, char **text, struct err *e)
{
	return db_json_text(c, ST_SUBS_JSON, 0, NULL, text, e);
}
