#ifndef REGTRACK_SERVER_AUTH_H
#define REGTRACK_SERVER_AUTH_H

#include <stddef.h>

#include "err.h"

struct db_conn;

struct db;

/* token scopes, as bits; a route lists the scopes it accepts */
enum scope {
	SCOPE_READ = 1,
	SCOPE_SUBMIT = 2,
	SCOPE_WORKER = 4,
	SCOPE_ADMIN = 8,
};
#define AUTH_NONE 0							   /* anyone */
#define AUTH_READ (SCOPE_READ | SCOPE_SUBMIT | SCOPE_WORKER | SCOPE_ADMIN) /* open if public_read */
#define AUTH_SUBMIT (SCOPE_SUBMIT | SCOPE_WORKER | SCOPE_ADMIN)
#define AUTH_JOBS (SCOPE_SUBMIT | SCOPE_ADMIN)
#define AUTH_WORKER (SCOPE_WORKER | SCOPE_ADMIN)
#define AUTH_ADMIN SCOPE_ADMIN
/*
 * ORed into AUTH_READ: a token of any scope is needed even with
 * public_read (what was submitted, not what was measured: an A/B
 * request's mbox). Not a scope bit: a token never has it.
 */
#define AUTH_PRIVATE 0x100

/*
 * API tokens. A token is "rt_<id>_<secret>" where secret is 43 base64url
 * chars (32 random bytes from OpenSSL's RAND_bytes). Only SHA-256(secret)
 * is stored (api_tokens.secret_sha256); a presented token is checked by id
 * and compared with CRYPTO_memcmp (constant time).
 */

/* Who is calling, as auth_check() found it. */
struct auth_caller {
	int scope;	      /* the token's SCOPE_* bit, 0 when no token */
	long long token_id;   /* 0 when no token */
	char token_name[129]; /* its name, "" when no token (the access log's, never the token) */
};

/*
 * Authorizes a request for a route accepting the scopes in `accepted`
 * (AUTH_*): `authorization` is the request's Authorization header (NULL
 * when absent), public_read the config's (an AUTH_READ route is then open
 * without a token, unless AUTH_PRIVATE is in `accepted`), method and url
 * name the request in the 403 message.
 * The token is looked up on the calling thread's connection of db, only
 * when one is needed. Fills *who (zeroed first; scope and id are set
 * once the token is valid, even when its scope is then refused). Errors
 * (-1, e filled): ERR_UNAUTHORIZED (no token where one is needed,
 * malformed, unknown or revoked token), ERR_FORBIDDEN (valid token, wrong
 * scope), ERR_DB_UNAVAILABLE and the store's other errors (db.h).
 */
int auth_check(struct db *db, const char *authorization, int accepted, int public_read,
	       const char *method, const char *url, struct auth_caller *who, struct err *e)
	__attribute__((warn_unused_result));

/* Scope name <-> bit (SCOPE_*); 0 / NULL when unknown. */
int scope_from_name(const char *name);
const char *scope_name(int scope);

/*
 * Creates a token named `name` with `scope`; writes the token text (new,
 * caller frees) to *token. Errors: ERR_INVALID_FIELD (bad scope or name),
 * ERR_CONFLICT (name taken), ERR_INTERNAL (no random bytes), the
 * store's (db.h).
 */
int token_create(struct db_conn *c, const char *name, const char *scope, char **token,
		 struct err *e) __attribute__((warn_unused_result));
/* Revokes the token named `name`. ERR_NOT_FOUND when no live token has it. */
int token_revoke(struct db_conn *c, const char *name, struct err *e)
	__attribute__((warn_unused_result));

#endif
