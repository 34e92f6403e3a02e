#include "server/http/replycache.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * A list in use order (head: the most recent). The entries are few (a
 * bound of tens of MiB over replies of KiB to MiB), so a lookup walks it:
 * a hash table would cost more code than the walk costs time.
 */
struct entry {
	char key[65];
	char *text;
	size_t len;
	struct entry *prev, *next;
};

struct reply_cache {
	pthread_mutex_t lock;
	struct entry *head, *tail;
	struct reply_cache_stats st;
};

struct reply_cache *reply_cache_new(size_t max_bytes)
{
	struct reply_cache *c = xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->lock, NULL);
	c->st.max_bytes = max_bytes;
	return c;
}

static void unlink_entry(struct reply_cache *c, struct entry *x)
{
	*(x->prev ? &x->prev->next : &c->head) = x->next;
	*(x->next ? &x->next->prev : &c->tail) = x->prev;
	x->prev = x->next = NULL;
}

static void push_front(struct reply_cache *c, struct entry *x)
{
	x->prev = NULL;
	x->next = c->head;
	*(c->head ? &c->head->prev : &c->tail) = x;
	c->head = x;
}

static void drop(struct reply_cache *c, struct entry *x)
{
	unlink_entry(c, x);
	c->st.bytes -= x->len + REPLY_CACHE_ENTRY_BYTES;
	c->st.entries--;
	free(x->text);
	free(x);
}

void reply_cache_free(struct reply_cache *c)
{
	if (!c)
		return;
	while (c->head)
		drop(c, c->head);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static struct entry *find(struct reply_cache *c, const char key[65])
{
	for (struct entry *x = c->head; x; x = x->next)
		if (!memcmp(x->key, key, 64))
			return x;
	return NULL;
}

int reply_cache_get(struct reply_cache *c, const char key[65], char **text, size_t *len)
{
	struct entry *x;

	*text = NULL;
	*len = 0;
	pthread_mutex_lock(&c->lock);
	x = find(c, key);
	if (x) {
		unlink_entry(c, x);
		push_front(c, x);
		*text = xmalloc(x->len + 1);
		memcpy(*text, x->text, x->len);
		(*text)[x->len] = '\0';
		*len = x->len;
		c->st.hits++;
	} else {
		c->st.misses++;
	}
	pthread_mutex_unlock(&c->lock);
	return x != NULL;
}

void reply_cache_put(struct reply_cache *c, const char key[65], const char *text, size_t len)
{
	struct entry *x, *old;

	if (len > c->st.max_bytes || c->st.max_bytes - len < REPLY_CACHE_ENTRY_BYTES)
		return;
	/* the copy before the lock: a reply may be MiB */
	x = xcalloc(1, sizeof(*x));
	memcpy(x->key, key, 64);
	x->text = xmalloc(len ? len : 1);
	memcpy(x->text, text, len);
	x->len = len;
	pthread_mutex_lock(&c->lock);
	old = find(c, key);
	if (old)
		drop(c, old);
	while (c->tail && c->st.bytes + len + REPLY_CACHE_ENTRY_BYTES > c->st.max_bytes) {
		drop(c, c->tail);
		c->st.evictions++;
	}
	push_front(c, x);
	c->st.bytes += len + REPLY_CACHE_ENTRY_BYTES;
	c->st.entries++;
	pthread_mutex_unlock(&c->lock);
}

void reply_cache_stats(struct reply_cache *c, struct reply_cache_stats *out)
{
	pthread_mutex_lock(&c->lock);
	*out = c->st;
	pthread_mutex_unlock(&c->lock);
}
