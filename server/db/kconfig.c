/* Typed rows of the .config comparison; see kconfig.h. */
#include "server/db/kconfig.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Columns of ST_KCONFIG_*_ENDS: four, then (id, sha, subject) of each commit */
enum {
	E_SETUP,
	E_KCONFIG,
	E_COMPILER,
	E_BISECT,
	E_GOOD,
	E_BAD = E_GOOD + 3,
	E_FIRST_BAD = E_BAD + 3,
	E_PARENT = E_FIRST_BAD + 3
};

/* Column i of row 0 as a new string; NULL for SQL NULL. */
static char *dup_col(PGresult *r, int i)
{
	return PQgetisnull(r, 0, i) ? NULL : xstrdup(PQgetvalue(r, 0, i));
}

/* Column i of row 0 as an id; 0 for SQL NULL. */
static long long id_col(PGresult *r, int i)
{
	return PQgetisnull(r, 0, i) ? 0 : strtoll(PQgetvalue(r, 0, i), NULL, 10);
}

static void commit_at(PGresult *r, int i, struct db_kconfig_commit *out)
{
	out->id = id_col(r, i);
	out->sha = dup_col(r, i + 1);
	out->subject = dup_col(r, i + 2);
}

static void commit_release(struct db_kconfig_commit *cm)
{
	free(cm->sha);
	free(cm->subject);
	memset(cm, 0, sizeof(*cm));
}

static int ends(struct db_conn *c, enum db_stmt st, long long id, struct db_kconfig_ends *out,
		struct err *e)
{
	char b[24];
	const char *p[1] = { b };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, st, 1, p, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	out->setup_id = id_col(r, E_SETUP);
	out->kconfig = dup_col(r, E_KCONFIG);
	out->compiler = dup_col(r, E_COMPILER);
	out->bisect_id = id_col(r, E_BISECT);
	commit_at(r, E_GOOD, &out->good);
	commit_at(r, E_BAD, &out->bad);
	commit_at(r, E_FIRST_BAD, &out->first_bad);
	commit_at(r, E_PARENT, &out->parent);
	PQclear(r);
	return 1;
}

int db_kconfig_bisect_ends(struct db_conn *c, long long id, struct db_kconfig_ends *out,
			   struct err *e)
{
	return ends(c, ST_KCONFIG_BISECT_ENDS, id, out, e);
}

int db_kconfig_regression_ends(struct db_conn *c, long long id, struct db_kconfig_ends *out,
			       struct err *e)
{
	return ends(c, ST_KCONFIG_REGRESSION_ENDS, id, out, e);
}

void db_kconfig_ends_release(struct db_kconfig_ends *ends)
{
	free(ends->kconfig);
	free(ends->compiler);
	commit_release(&ends->good);
	commit_release(&ends->bad);
	commit_release(&ends->first_bad);
	commit_release(&ends->parent);
	memset(ends, 0, sizeof(*ends));
}

/* Column i of row 0, the .config, into b->text / b->len (NULL for SQL NULL). */
static void text_col(PGresult *r, int i, struct db_kconfig_build *b)
{
	if (PQgetisnull(r, 0, i))
		return;
	b->len = (size_t)PQgetlength(r, 0, i);
	b->text = xmalloc(b->len + 1);
	memcpy(b->text, PQgetvalue(r, 0, i), b->len + 1);
}

int db_kconfig_job(struct db_conn *c, long long id, struct db_kconfig_build *out, struct err *e)
{
	char b[24];
	const char *p[1] = { b };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_KCONFIG_JOB, 1, p, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	out->job_id = id;
	text_col(r, 0, out);
	out->commit.sha = dup_col(r, 1);
	out->commit.subject = dup_col(r, 2);
	PQclear(r);
	return 1;
}

int db_kconfig_pick_job(struct db_conn *c, const struct db_kconfig_ends *ends,
			const struct db_kconfig_commit *at, struct db_kconfig_build *out,
			struct err *e)
{
	char commit[24], bisect[24], setup[24];
	const char *p[5] = { at->id ? commit : NULL, ends->kconfig, ends->compiler,
			     ends->bisect_id ? bisect : NULL, ends->setup_id ? setup : NULL };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	snprintf(commit, sizeof(commit), "%lld", at->id);
	snprintf(bisect, sizeof(bisect), "%lld", ends->bisect_id);
	snprintf(setup, sizeof(setup), "%lld", ends->setup_id);
	r = db_exec(c, ST_KCONFIG_PICK_JOB, 5, p, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	out->job_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	text_col(r, 1, out);
	PQclear(r);
	return 1;
}

void db_kconfig_build_release(struct db_kconfig_build *b)
{
	free(b->text);
	commit_release(&b->commit);
	memset(b, 0, sizeof(*b));
}
