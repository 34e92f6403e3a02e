/* An A/B request's result mail as typed rows (request_mail.h); SQL in stmts_requests.c. */
#include "server/db/request_mail.h"
#include "server/db/db_int.h"
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

/* a float8 column: NAN for SQL NULL */
static double float8(const PGresult *r, int i, int c)
{
	return PQgetisnull(r, i, c) ? NAN : strtod(PQgetvalue(r, i, c), NULL);
}

/* Runs st with parameter request_id; the result kept in m->res[slot]. */
static PGresult *read_into(struct db_conn *c, enum db_stmt st, long long request_id,
			   struct db_request_mail *m, int slot, struct err *e)
{
	char t[24];
	const char *p[1] = { t };
	PGresult *r;

	snprintf(t, sizeof(t), "%lld", request_id);
	r = db_exec(c, st, 1, p, e);
	if (r)
		m->res[slot] = db_res_of(r);
	return r;
}

static void fill_request(struct db_request_mail *m, const PGresult *r)
{
	m->state = str(r, 0, 0);
	m->verdict = str(r, 0, 1);
	m->fail_reason = str(r, 0, 2);
	m->tree = str(r, 0, 3);
	m->base_ref = str(r, 0, 4);
	m->base_sha = str(r, 0, 5);
	m->head_ref = str(r, 0, 6);
	m->head_sha = str(r, 0, 7);
	m->patches = int8(r, 0, 8) != 0;
	m->nr_patches = int8(r, 0, 9);
	m->patch_subject = str(r, 0, 10);
	m->patch_id = str(r, 0, 11);
	m->compiler = str(r, 0, 12);
	m->repeat = int8(r, 0, 13);
	m->repeat_why = str(r, 0, 14);
	m->label = str(r, 0, 15);
	m->notify = str(r, 0, 16);
	m->reproduce = str(r, 0, 17);
}

static void fill_groups(struct db_request_mail *m, const PGresult *r)
{
	int n = PQntuples(r);

	m->nr_groups = (size_t)n;
	m->groups = n ? xcalloc((size_t)n, sizeof(*m->groups)) : NULL;
	for (int i = 0; i < n; i++)
		m->groups[i] = (struct db_request_mail_group){ str(r, i, 0), str(r, i, 1),
							       str(r, i, 2), str(r, i, 3) };
}

static void fill_rows(struct db_request_mail *m, const PGresult *r)
{
	int n = PQntuples(r);

	m->nr_rows = (size_t)n;
	m->rows = n ? xcalloc((size_t)n, sizeof(*m->rows)) : NULL;
	for (int i = 0; i < n; i++)
		m->rows[i] = (struct abmail_row){ .group = (int)int8(r, i, 0),
						  .target = str(r, i, 1),
						  .metric = str(r, i, 2),
						  .change = str(r, i, 3),
						  .monitor = int8(r, i, 4) != 0,
						  .hl_pct = float8(r, i, 5),
						  .base_mean = float8(r, i, 6),
						  .head_mean = float8(r, i, 7),
						  .base_stddev_pct = float8(r, i, 8),
						  .head_stddev_pct = float8(r, i, 9) };
}

static void fill_targets(struct db_request_mail *m, const PGresult *r)
{
	int n = PQntuples(r);

	m->nr_targets = (size_t)n;
	m->targets = n ? xcalloc((size_t)n, sizeof(*m->targets)) : NULL;
	for (int i = 0; i < n; i++)
		m->targets[i] = str(r, i, 0);
}

static void fill_local(struct db_request_mail *m, const PGresult *r)
{
	int n = PQntuples(r);

	m->nr_local = (size_t)n;
	m->local = n ? xcalloc((size_t)n, sizeof(*m->local)) : NULL;
	for (int i = 0; i < n; i++)
		m->local[i] = (struct abmail_command){ str(r, i, 0), str(r, i, 1), str(r, i, 2),
						       str(r, i, 3), str(r, i, 4) };
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
