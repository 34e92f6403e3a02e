/* Statements of API tokens (auth.c); see db.h. */
#include "server/db/stmts.h"

const struct db_stmt_def db_stmts_tokens[DB_NR_STMTS] = {
	[ST_TOKEN_BY_ID] = { "token_by_id",
			     "SELECT scope, encode(secret_sha256, 'hex'), revoked_at IS NOT NULL, "
			     "last_used IS NULL OR last_used < now() - interval '60 seconds', name "
			     "FROM api_tokens WHERE id = $1::bigint" },
	[ST_TOKEN_USED] = { "token_used",
			    "UPDATE api_tokens SET last_used = now() WHERE id = $1::bigint" },
	[ST_TOKEN_INSERT] = { "token_insert", "INSERT INTO api_tokens (name, scope, secret_sha256) "
					      "VALUES ($1, $2, decode($3, 'hex')) RETURNING id" },
	[ST_TOKEN_REVOKE] = { "token_revoke",
			      "UPDATE api_tokens SET revoked_at = now() "
			      "WHERE name = $1 AND revoked_at IS NULL RETURNING id" },
#define TOKEN_JSON                                                                             \
	"json_build_object('id', id, 'name', name, 'scope', scope, 'created_at', created_at, " \
	"'last_used', last_used, 'revoked_at', revoked_at)"
	/* every token, without its secret's hash (regtrack-server token list) */
	[ST_TOKENS_LIST] = { "tokens_list", "SELECT coalesce(json_agg(" TOKEN_JSON
					    " ORDER BY id), '[]')::text FROM api_tokens" },
	/* the token named $1 (no row: none) */
	[ST_TOKEN_BY_NAME] = { "token_by_name",
			       "SELECT " TOKEN_JSON "::text FROM api_tokens WHERE name = $1" },
};
