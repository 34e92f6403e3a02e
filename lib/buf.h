#ifndef REGTRACK_BUF_H
#define REGTRACK_BUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * A growable byte buffer with a size cap (after git's strbuf and curl's
 * dynbuf). `data` is never NULL and always NUL-terminated, so it can be
 * used as a C string when the content has no NUL bytes.
 *
 * Lifecycle: BUF_INIT(cap) or buf_init(&b, cap), then appends, then
 * buf_release(&b). `cap` is the largest `len` allowed (0 = no cap). An
 * append past the cap appends nothing and returns -1 (E2BIG semantics);
 * out of memory is fatal (see xalloc.h).
 */
struct buf {
	char *data;
	size_t len;
	size_t alloc;
	size_t cap;
};

extern char buf_empty[];
/* clang-format off */
#define BUF_INIT(c) { buf_empty, 0, 0, (c) }
/* clang-format on */

void buf_init(struct buf *b, size_t cap);
/* Frees the storage; the buffer is then empty and reusable. */
void buf_release(struct buf *b);
/* Empties the buffer, keeping storage. */
void buf_reset(struct buf *b);
/* Each returns 0, or -1 when the cap would be exceeded (nothing appended). */
int buf_add(struct buf *b, const void *p, size_t n) __attribute__((warn_unused_result));
int buf_addstr(struct buf *b, const char *s) __attribute__((warn_unused_result));
int buf_addch(struct buf *b, char c) __attribute__((warn_unused_result));
int buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), warn_unused_result));
int buf_vaddf(struct buf *b, const char *fmt, va_list ap) __attribute__((warn_unused_result));
/*
 * Appends everything read from fd until end of file (fd is borrowed, left
 * open) / the whole content of the file at path (opened and closed here),
 * under the cap. Returns 0, or -1 with errno set and the buffer as it was:
 * open's or read's errno (EISDIR for a directory), E2BIG when the content
 * would pass the cap. Interrupted reads are retried.
 */
int buf_read_fd(struct buf *b, int fd) __attribute__((warn_unused_result));
int buf_read_file(struct buf *b, const char *path) __attribute__((warn_unused_result));
/*
 * Makes room for n more bytes without appending: one allocation where many
 * appends would grow the storage step by step, copying it each time.
 * Returns 0, or -1 when len + n would pass the cap (nothing changed).
 */
int buf_reserve(struct buf *b, size_t n) __attribute__((warn_unused_result));
/* Hands the data to the caller (new, caller frees with free()); the buffer is reset. */
char *buf_detach(struct buf *b, size_t *len);

#endif
