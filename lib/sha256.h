#ifndef REGTRACK_SHA256_H
#define REGTRACK_SHA256_H

#include <stddef.h>

/*
 * SHA-256 as text, for what is stored or compared by its digest: API
 * token secrets (server/http/auth.c) and a run document's identity
 * (server/jobs/ingest.c). OpenSSL's EVP digest; it fails only when OpenSSL
 * cannot allocate, which aborts (out of memory is fatal, STYLE.md).
 */

/* SHA-256 of len bytes at data as 64 lowercase hex chars plus NUL into out[65]. */
void sha256_hex(const void *data, size_t len, char out[65]);

#endif
