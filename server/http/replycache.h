#ifndef REGTRACK_SERVER_REPLYCACHE_H
#define REGTRACK_SERVER_REPLYCACHE_H

#include <stddef.h>

/*
 * Replies kept by a key, bounded in bytes, the least recently used given
 * up first: the profile diffs' (api/profiles.c), whose inputs never
 * change once stored, so a key names its answer for good. Thread-safe
 * (one mutex; a lookup copies the reply out under it).
 */
struct reply_cache;

/*
 * A cache of at most max_bytes: the sum of every kept entry's reply
 * length plus REPLY_CACHE_ENTRY_BYTES. max_bytes 0: nothing is kept.
 * Owned by the caller (reply_cache_free()).
 */
#define REPLY_CACHE_ENTRY_BYTES 128 /* an entry's own cost beside its reply: key and links */
struct reply_cache *reply_cache_new(size_t max_bytes);
void reply_cache_free(struct reply_cache *c);

/*
 * The reply kept under key (64 hex chars of sha256_hex() of what
 * determines it): 1 with *text (malloc'd, the caller frees it; NUL after
 * its *len bytes), the entry now the most recently used; 0 when none
 * (*text NULL). Counts a hit or a miss.
 */
int reply_cache_get(struct reply_cache *c, const char key[65], char **text, size_t *len);

/*
 * Keeps a copy of text[0..len) under key (replacing what it held),
 * giving up the least recently used entries until the bound holds; a
 * reply larger than the whole bound is not kept.
 */
void reply_cache_put(struct reply_cache *c, const char key[65], const char *text, size_t len);

/* What the cache did, for /metrics. */
struct reply_cache_stats {
	unsigned long long hits, misses, evictions;
	size_t entries, bytes, max_bytes; /* bytes as the bound counts them */
};
void reply_cache_stats(struct reply_cache *c, struct reply_cache_stats *out);

#endif
