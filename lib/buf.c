#include "buf.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char buf_empty[1];

void buf_init(struct buf *b, size_t cap)
{
	b->data = buf_empty;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap;
}

void buf_release(struct buf *b)
{
	if (b->alloc)
		free(b->data);
	buf_init(b, b->cap);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->alloc)
		b->data[0] = '\0';
}

static int grow(struct buf *b, size_t extra)
{
	size_t need;

	if (b->cap && (extra > b->cap || b->len > b->cap - extra))
		return -1;
	need = b->len + extra + 1;
	if (need <= b->alloc)
		return 0;
	if (!b->alloc) {
		size_t n = need < 64 ? 64 : need;
		b->data = xmalloc(n);
		b->alloc = n;
		b->data[0] = '\0';
		return 0;
	}
	xgrow((void **)&b->data, &b->alloc, need, 1);
	return 0;
}

int buf_reserve(struct buf *b, size_t n)
{
	return grow(b, n);
}

int buf_add(struct buf *b, const void *p, size_t n)
{
	if (grow(b, n))
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_addch(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return -1;
	if (grow(b, (size_t)n))
		return -1;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p;

	if (len)
		*len = b->len;
	if (!b->alloc)
		p = xstrdup("");
	else
		p = b->data;
	buf_init(b, b->cap);
	return p;
}

int buf_read_fd(struct buf *b, int fd)
{
	size_t start = b->len;

	for (;;) {
		char chunk[65536];
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			return 0;
		if (buf_add(b, chunk, (size_t)n)) {
			errno = E2BIG;
			goto fail;
		}
	}
fail : {
	int saved = errno;

	b->len = start;
	if (b->alloc)
		b->data[start] = '\0';
	errno = saved;
}
	return -1;
}

int buf_read_file(struct buf *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc, saved;

	if (fd < 0)
		return -1;
	rc = buf_read_fd(b, fd);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}
