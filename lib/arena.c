#include "arena.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK 8192
#define ALIGN 16

struct block {
	struct block *next;
	size_t size;
	size_t used;
	_Alignas(16) unsigned char data[];
};

struct arena {
	struct block *head;
	struct block *first; /* the block made by arena_new(), kept by arena_reset() */
	size_t total;
};

static struct block *block_new(size_t size)
{
	struct block *b = xmalloc(sizeof(*b) + size);
	b->next = NULL;
	b->size = size;
	b->used = 0;
	return b;
}

struct arena *arena_new(void)
{
	struct arena *a = xmalloc(sizeof(*a));
	a->head = block_new(ARENA_BLOCK);
	a->first = a->head;
	a->total = 0;
	return a;
}

void arena_reset(struct arena *a)
{
	struct block *b = a->head, *keep = a->first;

	/*
	 * Not simply the last block of the list: a big allocation made while
	 * the first block was the head sits after it.
	 */
	while (b) {
		struct block *next = b->next;
		if (b != keep)
			free(b);
		b = next;
	}
	keep->used = 0;
	keep->next = NULL;
	a->head = keep;
	a->total = 0;
}

void arena_free(struct arena *a)
{
	struct block *b;

	if (!a)
		return;
	b = a->head;
	while (b) {
		struct block *next = b->next;
		free(b);
		b = next;
	}
	free(a);
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct block *b = a->head;
	size_t off = (b->used + ALIGN - 1) & ~(size_t)(ALIGN - 1);

	if (n > SIZE_MAX - ALIGN)
		abort();
	if (off + n > b->size) {
		struct block *nb;
		size_t sz = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;

		nb = block_new(sz);
		if (sz == n) {
			/* big allocation: own block, keep using the current one */
			nb->next = b->next;
			b->next = nb;
			nb->used = n;
			a->total += n;
			return nb->data;
		}
		nb->next = b;
		a->head = nb;
		b = nb;
		off = 0;
	}
	b->used = off + n;
	a->total += n;
	return b->data + off;
}

void *arena_zalloc(struct arena *a, size_t n)
{
	void *p = arena_alloc(a, n);
	memset(p, 0, n);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = arena_alloc(a, len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_strfmt(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

size_t arena_used(const struct arena *a)
{
	return a->total;
}
