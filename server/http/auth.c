#include "server/http/auth.h"
#include "server/db/db.h"
#include "server/db/tokens.h"
#include "server/log.h"
#include "sha256.h"
#include "xalloc.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const scope_names[] = { "read", "submit", "worker", "admin" };

int scope_from_name(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(name, scope_names[i]))
			return 1 << i;
	return 0;
}

const char *scope_name(int scope)
{
	for (int i = 0; i < 4; i++)
		if (scope == 1 << i)
			return scope_names[i];
	return NULL;
}

static void base64url(const unsigned char *in, size_t n, char *out)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0;

	for (size_t i = 0; i < n; i++) {
		acc = (acc << 8) | in[i];
		bits += 8;
		while (bits >= 6) {
			out[o++] = tbl[(acc >> (bits - 6)) & 63];
			bits -= 6;
		}
	}
	if (bits)
		out[o++] = tbl[(acc << (6 - bits)) & 63];
	out[o] = '\0';
}

/* Splits "rt_<id>_<secret>"; 0 on success. */
static int split_token(const char *tok, long long *id, const char **secret)
{
	char *end;

	if (strncmp(tok, "rt_", 3))
		return -1;
	*id = strtoll(tok + 3, &end, 10);
	if (end == tok + 3 || *end != '_' || *id <= 0)
		return -1;
	*secret = end + 1;
	return strlen(*secret) == 43 ? 0 : -1;
}

int auth_check(struct db *db, const char *authorization, int accepted, int public_read,
	       const char *method, const char *url, struct auth_caller *who, struct err *e)
{
	const char *secret;
	long long id;
	char hash[65];
	struct db_token t;
	struct db_conn *c;
	int found;

	who->scope = 0;
	who->token_id = 0;
	who->token_name[0] = '\0';
	if (accepted == AUTH_NONE)
		return 0;
	if (!authorization) {
		if (accepted == AUTH_READ && public_read) /* AUTH_PRIVATE makes it differ */
			return 0;
		return err_setc(e, ERR_UNAUTHORIZED, "Authorization",
				"this endpoint needs 'Authorization: Bearer TOKEN'");
	}
	/* the scheme is case-insensitive (RFC 7235 section 2.1), one space after it */
	if (strncasecmp(authorization, "Bearer ", 7) ||
	    split_token(authorization + 7, &id, &secret))
		return err_setc(e, ERR_UNAUTHORIZED, "Authorization", "malformed token");
	c = db_conn(db, e);
	if (!c)
		return -1;
	found = db_token_get(c, id, &t, e);
	if (found < 0)
		return -1;
	sha256_hex(secret, strlen(secret), hash);
	if (!found || CRYPTO_memcmp(hash, t.secret_sha256, 64))
		return err_setc(e, ERR_UNAUTHORIZED, "Authorization", "unknown token");
	if (t.revoked)
		return err_setc(e, ERR_UNAUTHORIZED, "Authorization", "token revoked");
	who->scope = scope_from_name(t.scope);
	who->token_id = id;
	memcpy(who->token_name, t.name, sizeof(who->token_name));
	/* once a minute at most: a write per request would cost more than the request */
	if (t.used_stale) {
		struct err ue;

		if (db_token_used(c, id, &ue))
			slog_warn("token %lld: cannot note its use: %s", id, ue.message);
	}
	if (!(who->scope & accepted))
		return err_setc(e, ERR_FORBIDDEN, "scope", "a '%s' token may not %s '%s'",
				scope_name(who->scope), method, url);
	return 0;
}

int token_create(struct db_conn *c, const char *name, const char *scope, char **token,
		 struct err *e)
{
	unsigned char raw[32];
	char secret[64], hash[65];
	long long id;

	if (!scope_from_name(scope))
		return err_setc(e, ERR_INVALID_FIELD, "scope",
				"scope must be worker, submit, read or admin, not '%s'", scope);
	if (!*name || strlen(name) > 128)
		return err_setc(e, ERR_INVALID_FIELD, "name", "token name must be 1..128 bytes");
	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return err_setc(e, ERR_INTERNAL, "", "cannot get random bytes");
	base64url(raw, sizeof(raw), secret);
	sha256_hex(secret, strlen(secret), hash);
	if (db_token_insert(c, name, scope, hash, &id, e))
		return -1;
	*token = xstrfmt("rt_%lld_%s", id, secret);
	return 0;
}

int token_revoke(struct db_conn *c, const char *name, struct err *e)
{
	long long n = db_token_revoke(c, name, e);

	if (n < 0)
		return -1;
	if (!n)
		return err_setc(e, ERR_NOT_FOUND, name, "no live token named '%s'", name);
	return 0;
}
