#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static void oom(void)
{
	fputs("fatal: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return s;
}

void xgrow(void **p, size_t *alloc, size_t nr, size_t size)
{
	size_t n;

	if (nr <= *alloc)
		return;
	n = *alloc ? *alloc : 16;
	while (n < nr) {
		if (n > ((size_t)-1) / 2 / size)
			oom();
		n *= 2;
	}
	*p = xrealloc(*p, n * size);
	*alloc = n;
}

void xprefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;

	if (n < (64u << 10) || !page)
		return;
	lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	hi = ((uintptr_t)p + n) & ~(page - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

void xprefault_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;

	if (n >= (4u << 20) && page) {
		lo = ((uintptr_t)p + page - 1) & ~(page - 1);
		hi = ((uintptr_t)p + n) & ~(page - 1);
		if (hi > lo)
			(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	}
#endif
	xprefault(p, n);
}
