#include "server/jsonout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

int jsonout_str(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const char *run = s;
	int r = buf_addch(b, '"');

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		char esc[6] = { '\\', 'u', '0', '0', 0, 0 };

		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		r |= buf_add(b, run, (size_t)(s - run));
		run = s + 1;
		switch (ch) {
		case '"':
			r |= buf_add(b, "\\\"", 2);
			break;
		case '\\':
			r |= buf_add(b, "\\\\", 2);
			break;
		/* jansson's short escapes */
		case '\b':
			r |= buf_add(b, "\\b", 2);
			break;
		case '\f':
			r |= buf_add(b, "\\f", 2);
			break;
		case '\n':
			r |= buf_add(b, "\\n", 2);
			break;
		case '\r':
			r |= buf_add(b, "\\r", 2);
			break;
		case '\t':
			r |= buf_add(b, "\\t", 2);
			break;
		default:
			esc[4] = hex[ch >> 4];
			esc[5] = hex[ch & 15];
			r |= buf_add(b, esc, 6);
		}
	}
	r |= buf_add(b, run, (size_t)(s - run));
	return r | buf_addch(b, '"');
}

int jsonout_str_or_null(struct buf *b, const char *s)
{
	return s ? jsonout_str(b, s) : buf_add(b, "null", 4);
}

int jsonout_real(struct buf *b, double v)
{
	char t[40], *e;
	int n;

	if (!isfinite(v))
		return buf_add(b, "null", 4);
	n = snprintf(t, sizeof(t), "%.17g", v);
	if (n < 0 || (size_t)n >= sizeof(t))
		return -1;
	e = strchr(t, 'e');
	if (!e) {
		if (!strchr(t, '.'))
			return buf_add(b, t, (size_t)n) | buf_add(b, ".0", 2);
		return buf_add(b, t, (size_t)n);
	}
	/* "1e+20" -> "1e20", "1e-05" -> "1e-5" (jansson's dtostr) */
	{
		char *p = e + 1, *q;

		if (*p == '-')
			p++;
		q = p;
		while (*q == '+' || (*q == '0' && q[1]))
			q++;
		memmove(p, q, strlen(q) + 1);
		return buf_addstr(b, t);
	}
}

int jsonout_pg_float(struct buf *b, const char *s, int isnull)
{
	size_t n = strlen(s);

	if (isnull || !n || strspn(s, "-0123456789.e+") != n)
		return buf_add(b, "null", 4);
	if (strspn(s, "-0123456789") == n)
		return buf_add(b, s, n) | buf_add(b, ".0", 2);
	return buf_add(b, s, n);
}

int jsonout_json(struct buf *b, const json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17))
		    : NULL;
	int r;

	if (!s)
		return -1;
	r = buf_addstr(b, s);
	free(s);
	return r;
}
