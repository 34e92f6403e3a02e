/* api_tokens reads and writes (tokens.h). */
#include "server/db/tokens.h"
#include "server/db/db.h"
#include "server/db/db_int.h"

#include <stdio.h>
#include <string.h>

int db_token_get(struct db_conn *c, long long id, struct db_token *t, struct err *e)
{
	char idbuf[24];
	const char *params[1] = { idbuf };
	PGresult *r;

	memset(t, 0, sizeof(*t));
	snprintf(idbuf, sizeof(idbuf), "%lld", id);
	r = db_exec(c, ST_TOKEN_BY_ID, 1, params, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	snprintf(t->scope, sizeof(t->scope), "%s", PQgetvalue(r, 0, 0));
	snprintf(t->secret_sha256, sizeof(t->secret_sha256), "%s", PQgetvalue(r, 0, 1));
	t->revoked = PQgetvalue(r, 0, 2)[0] == 't';
	t->used_stale = PQgetvalue(r, 0, 3)[0] == 't';
	snprintf(t->name, sizeof(t->name), "%s", PQgetvalue(r, 0, 4));
	PQclear(r);
	return 1;
}

int db_token_used(struct db_conn *c, long long id, struct err *e)
{
	char idbuf[24];
	const char *params[1] = { idbuf };

	snprintf(idbuf, sizeof(idbuf), "%lld", id);
	return db_rows(c, ST_TOKEN_USED, 1, params, e) < 0 ? -1 : 0;
}

int db_token_insert(struct db_conn *c, const char *name, const char *scope, const char *secret_hash,
		    long long *id, struct err *e)
{
	const char *params[3] = { name, scope, secret_hash };

	return db_one_int8(c, ST_TOKEN_INSERT, 3, params, id, e);
}

long long db_token_revoke(struct db_conn *c, const char *name, struct err *e)
{
	const char *params[1] = { name };

	return db_rows(c, ST_TOKEN_REVOKE, 1, params, e);
}

int db_token_by_name_json(struct db_conn *c, const char *name, char **text, struct err *e)
{
	const char *p[1] = { name };

	return db_json_text(c, ST_TOKEN_BY_NAME, 1, p, text, e);
}

int db_tokens_json(struct db_conn *c, char **text, struct err *e)
{
	return db_json_text(c, ST_TOKENS_LIST, 0, NULL, text, e);
}
