#include "sha256.h"

#include <openssl/evp.h>
#include <stdlib.h>

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
