#ifndef REGTRACK_TEXTLINE_H
#define REGTRACK_TEXTLINE_H

#include <stddef.h>
#include <string.h>

/*
 * Lines of a text in memory, for the mail readers (mbox.c, robotmail.c):
 * no copy, no NUL needed, LF or CRLF endings.
 */

/* One line: [p, p + n), without its newline and a CR before it; p borrows the text. */
struct line {
	const char *p;
	size_t n;
};

/*
 * The line of text[0..len) that starts at *pos into *l, and *pos moved past
 * its newline. Returns 1, or 0 (l untouched) when *pos >= len. A last line
 * without a newline is a line.
 */
static inline int next_line(const char *text, size_t len, size_t *pos, struct line *l)
{
	const char *nl;

	if (*pos >= len)
		return 0;
	l->p = text + *pos;
	nl = memchr(l->p, '\n', len - *pos);
	l->n = nl ? (size_t)(nl - l->p) : len - *pos;
	*pos += l->n + (nl ? 1 : 0);
	if (l->n && l->p[l->n - 1] == '\r')
		l->n--;
	return 1;
}

#endif
