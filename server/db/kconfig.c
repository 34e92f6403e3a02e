/*
 * Typed rows of the .config comparison (kconfig.h; api/kconfig.c), and the
 * statements they are read with.
 */
#include "server/db/kconfig.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum kconfig_stmt {
	ST_KCONFIG_BISECT_ENDS,
	ST_KCONFIG_JOB,
	ST_KCONFIG_PICK_JOB,
	ST_KCONFIG_REGRESSION_ENDS,
	NR_KCONFIG_STMTS
};

#define KCONFIG_ENDS                                                                     \
	"g.id, g.sha, g.subject, bd.id, bd.sha, bd.subject, fb.id, fb.sha, fb.subject, " \
	"p.id, p.sha, p.subject "

static const struct db_stmt_def stmts[NR_KCONFIG_STMTS] = {
	/* bisect $1: the same columns, the range being the bisect's good..bad */
	[ST_KCONFIG_BISECT_ENDS] = { "kconfig_bisect_ends",
				     "SELECT rr.setup_id, b.kconfig, b.compiler, b.id, " KCONFIG_ENDS
				     "FROM bisects b JOIN commits g ON g.id = b.good_id JOIN commits bd ON bd.id = b.bad_id "
				     "LEFT JOIN commits fb ON fb.id = b.first_bad_id AND b.state = 'done' "
				     "LEFT JOIN commits p ON p.sha = fb.parents[1] "
				     "LEFT JOIN regressions rr ON rr.id = b.regression_id WHERE b.id = $1::bigint" },
	/* the .config job $1 stored, its commit sha and subject */
	[ST_KCONFIG_JOB] = { "kconfig_job",
			     "SELECT j.kconfig_text, c.sha, c.subject FROM jobs j JOIN commits c ON c.id = j.commit_id "
			     "WHERE j.id = $1::bigint" },
	/* the build of commit $1 with kconfig $2 (compiler $3) that stored a .config: the
	 * bisect $4's own jobs first, then jobs with runs of setup $5, then ok ones, newest */
	[ST_KCONFIG_PICK_JOB] = { "kconfig_pick_job",
				  "SELECT j.id, j.kconfig_text FROM jobs j WHERE j.commit_id = $1::bigint "
				  "AND j.kconfig = $2 AND ($3::text IS NULL OR j.compiler = $3) "
				  "AND j.kconfig_text IS NOT NULL "
				  "ORDER BY coalesce(j.bisect_id = $4::bigint, false) DESC, "
				  "EXISTS (SELECT 1 FROM runs ru WHERE ru.job_id = j.id AND ru.setup_id = $5::bigint) DESC, "
				  "coalesce(j.outcome = 'ok', false) DESC, j.id DESC LIMIT 1" },
	/* regression $1: setup, kconfig, compiler, bisect, then (id, sha, subject) of the last
	 * good and first bad commit, the done bisect's first bad commit and its first parent */
	[ST_KCONFIG_REGRESSION_ENDS] = { "kconfig_regression_ends",
					 "SELECT r.setup_id, s.kconfig, s.compiler, r.bisect_id, " KCONFIG_ENDS
					 "FROM regressions r JOIN setups s ON s.id = r.setup_id "
					 "JOIN commits g ON g.id = r.good_commit_id JOIN commits bd ON bd.id = r.bad_commit_id "
					 "LEFT JOIN bisects b ON b.id = r.bisect_id AND b.state = 'done' "
					 "LEFT JOIN commits fb ON fb.id = b.first_bad_id "
					 "LEFT JOIN commits p ON p.sha = fb.parents[1] WHERE r.id = $1::bigint" },
};

const struct db_stmt_table db_stmts_kconfig = DB_STMT_TABLE(stmts);

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

static int ends(struct db_conn *c, enum kconfig_stmt st, long long id, struct db_kconfig_ends *out,
		struct err *e)
{
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query_id(c, &stmts[st], id, e);
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

/* ST_KCONFIG_JOB's columns */
enum { JOB_TEXT, JOB_SHA, JOB_SUBJECT };

int db_kconfig_job(struct db_conn *c, long long id, struct db_kconfig_build *out, struct err *e)
{
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query_id(c, &stmts[ST_KCONFIG_JOB], id, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	out->job_id = id;
	text_col(r, JOB_TEXT, out);
	out->commit.sha = dup_col(r, JOB_SHA);
	out->commit.subject = dup_col(r, JOB_SUBJECT);
	PQclear(r);
	return 1;
}

/* ST_KCONFIG_PICK_JOB's columns */
enum { PICK_ID, PICK_TEXT };

int db_kconfig_pick_job(struct db_conn *c, const struct db_kconfig_ends *ends,
			const struct db_kconfig_commit *at, struct db_kconfig_build *out,
			struct err *e)
{
	struct db_param p[5] = { db_id(at->id), db_text(ends->kconfig), db_text(ends->compiler),
				 db_id(ends->bisect_id), db_id(ends->setup_id) };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_KCONFIG_PICK_JOB], 5, p, 0, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	out->job_id = strtoll(PQgetvalue(r, 0, PICK_ID), NULL, 10);
	text_col(r, PICK_TEXT, out);
	PQclear(r);
	return 1;
}

void db_kconfig_build_release(struct db_kconfig_build *b)
{
	free(b->text);
	commit_release(&b->commit);
	memset(b, 0, sizeof(*b));
}
