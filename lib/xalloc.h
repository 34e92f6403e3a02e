#ifndef REGTRACK_XALLOC_H
#define REGTRACK_XALLOC_H

#include <stddef.h>

/*
 * Allocation wrappers. Out of memory is fatal: each of these prints
 * "fatal: out of memory" to stderr and aborts, so callers never test the
 * result for NULL. Every pointer returned is new; the caller frees it with
 * free().
 */

/* malloc(n); n == 0 returns a valid pointer of size 1. */
void *xmalloc(size_t n);
/* calloc(nmemb, size) with overflow check (overflow is fatal). */
void *xcalloc(size_t nmemb, size_t size);
/* realloc(p, n); p may be NULL. */
void *xrealloc(void *p, size_t n);
/* strdup(s); s must not be NULL. */
char *xstrdup(const char *s);
/* strndup(s, n): at most n bytes of s plus a NUL. */
char *xstrndup(const char *s, size_t n);
/* asprintf into a new string. */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow (*p, *alloc) so that it holds at least `nr` elements of `size`. */
void xgrow(void **p, size_t *alloc, size_t nr, size_t size);
#define ALLOC_GROW(p, nr, alloc) xgrow((void **)&(p), &(alloc), (nr), sizeof(*(p)))

/*
 * Makes the pages wholly inside p[0..n) present and writable now, in one
 * call (madvise MADV_POPULATE_WRITE, Linux 5.14), instead of a page fault at
 * the first write of each 4 KiB page; the contents are unchanged. For a
 * buffer of megabytes about to be written through: on the 2-core
 * development VM 4 MiB of fresh memory took 12-22 ms to fault in page by
 * page and 1 ms populated (docs/internals/performance.md, compare).
 * Best effort: below 64 KiB nothing is done, and a kernel without it
 * (EINVAL) leaves the pages to fault as before.
 */
void xprefault(void *p, size_t n);

/*
 * xprefault() of a buffer of many megabytes, asking first for 2 MiB pages
 * (madvise MADV_HUGEPAGE: transparent huge pages where the kernel gives
 * them on request, its "madvise" mode): on the 2-core development VM the
 * 112 MB of a detection pass's points took 1.2 s written page by page,
 * 0.67 s populated in 4 KiB pages and 0.07 s in 2 MiB ones
 * (docs/internals/performance.md, detection). Below 4 MiB, or where the
 * kernel has no huge pages, as xprefault(); the contents are unchanged.
 */
void xprefault_huge(void *p, size_t n);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
