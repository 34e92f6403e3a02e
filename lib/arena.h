#ifndef REGTRACK_ARENA_H
#define REGTRACK_ARENA_H

#include <stddef.h>

/*
 * A region allocator for per-request and per-job memory (after
 * PostgreSQL's memory contexts): many allocations, one free. Allocations
 * are 16-byte aligned, never NULL (out of memory is fatal) and live until
 * arena_free() or arena_reset(). Not thread-safe: one arena per request.
 */
struct arena;

/* New arena; caller frees with arena_free(). */
struct arena *arena_new(void);
/* Frees every allocation and the arena itself. NULL is a no-op. */
void arena_free(struct arena *a);
/* Frees every allocation but keeps the first block for reuse. */
void arena_reset(struct arena *a);

/* n bytes, uninitialized / zeroed. Borrowed until the arena is reset or freed. */
void *arena_alloc(struct arena *a, size_t n);
void *arena_zalloc(struct arena *a, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strfmt(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Total bytes handed out since creation or the last reset. */
size_t arena_used(const struct arena *a);

#endif
