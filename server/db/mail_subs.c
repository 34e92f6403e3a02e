/*
 * Report mail subscriptions (mail.h; api/subscriptions.c, mail/mailer.c),
 * and the statements they are made with (sql/0005).
 */
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/mail.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum subs_stmt { ST_MAIL_SUBS_MATCH, ST_SUBS_JSON, ST_SUB_DELETE, ST_SUB_INSERT, NR_SUBS_STMTS };

static const struct db_stmt_def stmts[NR_SUBS_STMTS] = {
	/* subscriptions of tree $1 and testcase $2; metric globs and paths checked in C */
	[ST_MAIL_SUBS_MATCH] = { "mail_subs_match",
				 "SELECT email, coalesce(metric, ''), array_to_string(paths, E'\n') FROM subscriptions "
				 "WHERE (tree IS NULL OR tree = $1) AND (testcase IS NULL OR testcase = $2) ORDER BY id" },
	[ST_SUBS_JSON] = { "subs_json",
			   "SELECT coalesce(json_agg(json_build_object('id', id, 'email', email, 'tree', tree, "
			   "'testcase', testcase, 'metric', metric, 'paths', paths, 'created_at', created_at) "
			   "ORDER BY id), '[]')::text FROM subscriptions" },
	[ST_SUB_DELETE] = { "sub_delete",
			    "DELETE FROM subscriptions WHERE id = $1::bigint RETURNING id" },
	[ST_SUB_INSERT] = { "sub_insert",
			    "INSERT INTO subscriptions (email, tree, testcase, metric, paths) "
			    "VALUES ($1, $2, $3, $4, coalesce($5::text[], '{}')) RETURNING id" },
};

const struct db_stmt_table db_stmts_mail_subs = DB_STMT_TABLE(stmts);

/* ST_MAIL_SUBS_MATCH's columns */
enum { MATCH_EMAIL, MATCH_METRIC, MATCH_PATHS };

int db_mail_subs_match(struct db_conn *c, const char *tree, const char *testcase,
		       struct db_mail_subs *out, struct err *e)
{
	struct db_param p[2] = { db_text(tree), db_text(testcase) };
	PGresult *r = db_query(c, &stmts[ST_MAIL_SUBS_MATCH], 2, p, 0, e);
	int n;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	n = PQntuples(r);
	out->res = db_res_of(r);
	out->v = xcalloc(n ? (size_t)n : 1, sizeof(*out->v));
	out->n = (size_t)n;
	for (int i = 0; i < n; i++) {
		out->v[i].email = PQgetvalue(r, i, MATCH_EMAIL);
		out->v[i].metric = PQgetvalue(r, i, MATCH_METRIC);
		out->v[i].paths = PQgetvalue(r, i, MATCH_PATHS);
	}
	return 0;
}

void db_mail_subs_free(struct db_mail_subs *s)
{
	PQclear(db_pgres(s->res));
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* paths goes as text: $5 is a text[] in PostgreSQL's array syntax */
long long db_mail_sub_insert(struct db_conn *c, const char *email, const char *tree,
			     const char *testcase, const char *metric, const char *paths,
			     struct err *e)
{
	struct db_param p[5] = { db_text(email), db_text(tree), db_text(testcase), db_text(metric),
				 db_text(paths) };
	long long id;

	return db_query_first_id(c, &stmts[ST_SUB_INSERT], 5, p, &id, e) < 0 ? -1 : id;
}

int db_mail_sub_delete(struct db_conn *c, long long id, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };
	long long rows = db_query_rows(c, &stmts[ST_SUB_DELETE], 1, p, e);

	return rows < 0 ? -1 : rows > 0;
}

int db_subscriptions_json(struct db_conn *c, char **text, struct err *e)
{
	return db_query_json(c, &stmts[ST_SUBS_JSON], 0, NULL, text, e);
}
