/*
 * The small reads over db_query() (db_int.h): one value, a row count, a
 * JSON text, an id.
 */
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int db_result_json_text(PGresult *r, char **text, struct err *e)
{
	if (PQntuples(r) < 1 || PQnfields(r) < 1 || PQgetisnull(r, 0, 0)) {
		PQclear(r);
		*text = NULL;
		return err_setc(e, ERR_NOT_FOUND, "id", "nothing found");
	}
	*text = xstrndup(PQgetvalue(r, 0, 0), (size_t)PQgetlength(r, 0, 0));
	PQclear(r);
	return 0;
}

int db_query_json(struct db_conn *c, const struct db_stmt_def *s, int n, const struct db_param *p,
		  char **text, struct err *e)
{
	PGresult *r = db_query(c, s, n, p, 0, e);

	*text = NULL;
	if (!r)
		return -1;
	return db_result_json_text(r, text, e);
}

int db_query_int8(struct db_conn *c, const struct db_stmt_def *s, int n, const struct db_param *p,
		  long long *v, struct err *e)
{
	PGresult *r = db_query(c, s, n, p, 0, e);

	if (!r)
		return -1;
	if (PQntuples(r) < 1 || PQnfields(r) < 1 || PQgetisnull(r, 0, 0)) {
		PQclear(r);
		return err_setc(e, ERR_NOT_FOUND, "id", "nothing found");
	}
	*v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return 0;
}

long long db_query_rows(struct db_conn *c, const struct db_stmt_def *s, int n,
			const struct db_param *p, struct err *e)
{
	PGresult *r = db_query(c, s, n, p, 0, e);
	long long rows;

	if (!r)
		return -1;
	rows = PQntuples(r);
	PQclear(r);
	return rows;
}

int db_query_do(struct db_conn *c, const struct db_stmt_def *s, int n, const struct db_param *p,
		struct err *e)
{
	PGresult *r = db_query(c, s, n, p, 0, e);

	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_query_json_list(struct db_conn *c, const struct db_stmt_def *s, const char *state,
		       const char *limit, char **text, struct err *e)
{
	struct db_param p[2] = { db_text(state), db_text(limit) };

	return db_query_json(c, s, 2, p, text, e);
}

int db_query_json_by_id(struct db_conn *c, const struct db_stmt_def *s, long long id, char **text,
			struct err *e)
{
	struct db_param p[1] = { db_int8(id) };

	if (!db_query_json(c, s, 1, p, text, e))
		return 1;
	return e->id == ERR_NOT_FOUND ? 0 : -1;
}

PGresult *db_query_id(struct db_conn *c, const struct db_stmt_def *s, long long id, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };

	return db_query(c, s, 1, p, 0, e);
}

int db_query_first_id(struct db_conn *c, const struct db_stmt_def *s, int n,
		      const struct db_param *p, long long *id, struct err *e)
{
	PGresult *r = db_query(c, s, n, p, 0, e);
	int found;

	*id = 0;
	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return found;
}
