/*
 * api_tokens reads and writes (tokens.h; auth.c and regtrack-server token),
 * and the statements they are made with.
 */
#include "server/db/tokens.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"

#include <stdio.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum token_stmt {
	ST_TOKEN_BY_ID,
	ST_TOKEN_USED,
	ST_TOKEN_INSERT,
	ST_TOKEN_REVOKE,
	ST_TOKENS_LIST,
	ST_TOKEN_BY_NAME,
	NR_TOKEN_STMTS
};

#define TOKEN_JSON                                                                             \
	"json_build_object('id', id, 'name', name, 'scope', scope, 'created_at', created_at, " \
	"'last_used', last_used, 'revoked_at', revoked_at)"

static const struct db_stmt_def stmts[NR_TOKEN_STMTS] = {
	/* $1 token id: its columns as BYID_* name them */
	[ST_TOKEN_BY_ID] = { "token_by_id",
			     "SELECT scope, encode(secret_sha256, 'hex'), revoked_at IS NOT NULL, "
			     "last_used IS NULL OR last_used < now() - interval '60 seconds', name "
			     "FROM api_tokens WHERE id = $1::bigint" },
	[ST_TOKEN_USED] = { "token_used",
			    "UPDATE api_tokens SET last_used = now() WHERE id = $1::bigint" },
	/* $1 name $2 scope $3 the secret's SHA-256 in hex: the new id */
	[ST_TOKEN_INSERT] = { "token_insert", "INSERT INTO api_tokens (name, scope, secret_sha256) "
					      "VALUES ($1, $2, decode($3, 'hex')) RETURNING id" },
	[ST_TOKEN_REVOKE] = { "token_revoke",
			      "UPDATE api_tokens SET revoked_at = now() "
			      "WHERE name = $1 AND revoked_at IS NULL RETURNING id" },
	/* every token, without its secret's hash (regtrack-server token list) */
	[ST_TOKENS_LIST] = { "tokens_list", "SELECT coalesce(json_agg(" TOKEN_JSON
					    " ORDER BY id), '[]')::text FROM api_tokens" },
	/* the token named $1 (no row: none) */
	[ST_TOKEN_BY_NAME] = { "token_by_name",
			       "SELECT " TOKEN_JSON "::text FROM api_tokens WHERE name = $1" },
};

const struct db_stmt_table db_stmts_tokens = DB_STMT_TABLE(stmts);

/* ST_TOKEN_BY_ID's columns */
enum { BYID_SCOPE, BYID_SECRET, BYID_REVOKED, BYID_USED_STALE, BYID_NAME };

int db_token_get(struct db_conn *c, long long id, struct db_token *t, struct err *e)
{
	PGresult *r;

	memset(t, 0, sizeof(*t));
	r = db_query_id(c, &stmts[ST_TOKEN_BY_ID], id, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	snprintf(t->scope, sizeof(t->scope), "%s", PQgetvalue(r, 0, BYID_SCOPE));
	snprintf(t->secret_sha256, sizeof(t->secret_sha256), "%s", PQgetvalue(r, 0, BYID_SECRET));
	t->revoked = PQgetvalue(r, 0, BYID_REVOKED)[0] == 't';
	t->used_stale = PQgetvalue(r, 0, BYID_USED_STALE)[0] == 't';
	snprintf(t->name, sizeof(t->name), "%s", PQgetvalue(r, 0, BYID_NAME));
	PQclear(r);
	return 1;
}

int db_token_used(struct db_conn *c, long long id, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };

	return db_query_rows(c, &stmts[ST_TOKEN_USED], 1, p, e) < 0 ? -1 : 0;
}

int db_token_insert(struct db_conn *c, const char *name, const char *scope, const char *secret_hash,
		    long long *id, struct err *e)
{
	struct db_param p[3] = { db_text(name), db_text(scope), db_text(secret_hash) };

	return db_query_int8(c, &stmts[ST_TOKEN_INSERT], 3, p, id, e);
}

long long db_token_revoke(struct db_conn *c, const char *name, struct err *e)
{
	struct db_param p[1] = { db_text(name) };

	return db_query_rows(c, &stmts[ST_TOKEN_REVOKE], 1, p, e);
}

int db_token_by_name_json(struct db_conn *c, const char *name, char **text, struct err *e)
{
	struct db_param p[1] = { db_text(name) };

	return db_query_json(c, &stmts[ST_TOKEN_BY_NAME], 1, p, text, e);
}

int db_tokens_json(struct db_conn *c, char **text, struct err *e)
{
	return db_query_json(c, &stmts[ST_TOKENS_LIST], 0, NULL, text, e);
}
