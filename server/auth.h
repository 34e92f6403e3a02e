#ifndef REGTRACK_SERVER_AUTH_H
#define REGTRACK_SERVER_AUTH_H

#include <libpq-fe.h>
#include <stddef.h>

#include "err.h"

struct request;

/* token scopes, as bits; a route lists the scopes it accepts */
enum scope {
	SCOPE_READ = 1,
	SCOPE_SUBMIT = 2,
	SCOPE_WORKER = 4,
	SCOPE_ADMIN = 8,
};
#define AUTH_NONE 0                                 /* anyone */
#define AUTH_READ (SCOPE_READ | SCOPE_SUBMIT | SCOPE_WORKER | SCOPE_ADMIN) /* open if public_read */
#define AUTH_SUBMIT (SCOPE_SUBMIT | SCOPE_WORKER | SCOPE_ADMIN)
#define AUTH_JOBS (SCOPE_SUBMIT | SCOPE_ADMIN)
#define AUTH_WORKER (SCOPE_WORKER | SCOPE_ADMIN)
#define AUTH_ADMIN SCOPE_ADMIN

/*
 * API tokens. A token is "rt_<id>_<secret>" where secret is 43 base64url
 * chars (32 random bytes from OpenSSL's RAND_bytes). Only SHA-256(secret)
 * is stored (api_tokens.secret_sha256); a presented token is checked by id
 * and compared with CRYPTO_memcmp (constant time).
 */

/*
 * Authorizes rq for a route accepting the scopes in `mask` (AUTH_* in
 * http.h). Fills rq->scope and rq->token_id. Errors (-1, e filled): 401
 * "unauthorized" (no token where one is needed, malformed, unknown or
 * revoked token), 403 "forbidden" (valid token, wrong scope), 503 when the
 * database is down.
 */
int auth_check(struct request *rq, int mask, struct err *e) __attribute__((warn_unused_result));

/* Scope name <-> bit (SCOPE_*); 0 / NULL when unknown. */
int scope_from_name(const char *name);
const char *scope_name(int scope);

/*
 * Creates a token named `name` with `scope`; writes the token text (new,
 * caller frees) to *token. Errors: 400 "invalid_field" (bad scope or name),
 * 409 "conflict" (name taken), 503/500 from the database.
 */
int token_create(PGconn *c, const char *name, const char *scope, char **token, struct err *e)
	__attribute__((warn_unused_result));
/* Revokes the token named `name`. 404 "not_found" when no live token has it. */
int token_revoke(PGconn *c, const char *name, struct err *e) __attribute__((warn_unused_result));

/* SHA-256 of data as 64 lowercase hex chars plus NUL into out[65]. */
void sha256_hex(const void *data, size_t len, char out[65]);

#endif
