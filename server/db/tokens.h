#ifndef REGTRACK_SERVER_DB_TOKENS_H
#define REGTRACK_SERVER_DB_TOKENS_H

#include "err.h"

struct db_conn;

/* The api_tokens table (statements beside their readers in tokens.c), for auth.c. */

/* One token's row, copied out of the result. */
struct db_token {
	char scope[16];		/* "read", "submit", "worker" or "admin" (cut to fit) */
	char secret_sha256[65]; /* SHA-256 of the secret, 64 lowercase hex chars */
	int revoked;		/* 1 when revoked_at is set */
	int used_stale;		/* 1 when last_used is unset or a minute old */
	char name[129];		/* its name (the access log's; cut to fit) */
};

/*
 * Reads token `id` into *t. Returns 1 when found, 0 when no token has
 * that id, -1 with e as the store fills it (db.h) (ERR_DB_UNAVAILABLE, ERR_DB_TIMEOUT,
 * ERR_DB).
 */
int db_token_get(struct db_conn *c, long long id, struct db_token *t, struct err *e)
	__attribute__((warn_unused_result));
/* Sets token id's last_used to now. 0, or -1 with e as the store fills it (db.h). */
int db_token_used(struct db_conn *c, long long id, struct err *e)
	__attribute__((warn_unused_result));
/*
 * Stores a new token: name, scope name, secret_hash (64 hex chars of its
 * SHA-256), all borrowed; *id = its id. Errors as the store fills it (db.h): ERR_CONFLICT
 * when the name is taken.
 */
int db_token_insert(struct db_conn *c, const char *name, const char *scope, const char *secret_hash,
		    long long *id, struct err *e) __attribute__((warn_unused_result));
/* Revokes the live token named `name`: the number revoked (0 or 1), or -1 with e as the store fills it (db.h). */
long long db_token_revoke(struct db_conn *c, const char *name, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The token named name (db_token_by_name_json()) or every token
 * (db_tokens_json()) as JSON, never a secret: 0 and *text (new, caller
 * free()s), or -1 with e (ERR_NOT_FOUND, detail "id": no such token).
 */
int db_token_by_name_json(struct db_conn *c, const char *name, char **text, struct err *e)
	__attribute__((warn_unused_result));
int db_tokens_json(struct db_conn *c, char **text, struct err *e)
	__attribute__((warn_unused_result));

#endif
