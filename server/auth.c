#include "server/auth.h"
#include "server/http.h"
#include "xalloc.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "banned.h"

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

void sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	static const char hex[] = "0123456789abcdef";

	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
		abort();
	for (unsigned i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}

static void base64url(const unsigned char *in, size_t n, char *out)
{
	static const char tbl[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
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

int auth_check(struct request *rq, int mask, struct err *e)
{
	const char *h, *secret;
	long long id;
	char idbuf[24], hash[65];
	const char *params[1] = { idbuf };
	PGresult *r;
	PGconn *c;
	int scope, revoked;

	rq->scope = 0;
	if (mask == AUTH_NONE)
		return 0;
	h = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Authorization");
	if (!h) {
		if (mask == AUTH_READ && rq->srv->cfg->public_read)
			return 0;
		return err_set(e, 401, "unauthorized", "Authorization",
			       "this endpoint needs 'Authorization: Bearer TOKEN'");
	}
	/* the scheme is case-insensitive (RFC 7235 section 2.1), one space after it */
	if (strncasecmp(h, "Bearer ", 7) || split_token(h + 7, &id, &secret))
		return err_set(e, 401, "unauthorized", "Authorization", "malformed token");
	c = rq_db(rq, e);
	if (!c)
		return -1;
	snprintf(idbuf, sizeof(idbuf), "%lld", id);
	r = db_exec(c, ST_TOKEN_BY_ID, 1, params, e);
	if (!r)
		return -1;
	sha256_hex(secret, strlen(secret), hash);
	if (PQntuples(r) != 1 || CRYPTO_memcmp(hash, PQgetvalue(r, 0, 1), 64)) {
		PQclear(r);
		return err_set(e, 401, "unauthorized", "Authorization", "unknown token");
	}
	scope = scope_from_name(PQgetvalue(r, 0, 0));
	revoked = PQgetvalue(r, 0, 2)[0] == 't';
	PQclear(r);
	if (revoked)
		return err_set(e, 401, "unauthorized", "Authorization", "token revoked");
	rq->scope = scope;
	rq->token_id = id;
	if (!(scope & mask))
		return err_set(e, 403, "forbidden", "scope",
			       "a '%s' token may not %s '%s'", scope_name(scope), rq->method,
			       rq->url);
	return 0;
}

int token_create(PGconn *c, const char *name, const char *scope, char **token, struct err *e)
{
	unsigned char raw[32];
	char secret[64], hash[65];
	const char *params[3] = { name, scope, hash };
	PGresult *r;

	if (!scope_from_name(scope))
		return err_set(e, 400, "invalid_field", "scope",
			       "scope must be worker, submit, read or admin, not '%s'", scope);
	if (!*name || strlen(name) > 128)
		return err_set(e, 400, "invalid_field", "name", "token name must be 1..128 bytes");
	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return err_set(e, 500, "random_failed", "", "cannot get random bytes");
	base64url(raw, sizeof(raw), secret);
	sha256_hex(secret, strlen(secret), hash);
	r = db_exec(c, ST_TOKEN_INSERT, 3, params, e);
	if (!r)
		return -1;
	*token = xstrfmt("rt_%s_%s", PQgetvalue(r, 0, 0), secret);
	PQclear(r);
	return 0;
}

int token_revoke(PGconn *c, const char *name, struct err *e)
{
	const char *params[1] = { name };
	PGresult *r = db_exec(c, ST_TOKEN_REVOKE, 1, params, e);
	int n;

	if (!r)
		return -1;
	n = PQntuples(r);
	PQclear(r);
	if (!n)
		return err_set(e, 404, "not_found", name, "no live token named '%s'", name);
	return 0;
}
