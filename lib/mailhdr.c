/* An RFC 5322 header's fields; see mailhdr.h. */
#include "mailhdr.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* the end of the line starting at p (its '\n', or end) */
static const char *eol(const char *p, const char *end)
{
	const char *q = memchr(p, '\n', (size_t)(end - p));

	return q ? q : end;
}

int mailhdr_get(const char *text, size_t len, const char *name, char *out, size_t size)
{
	const char *p = text, *end = text + len;
	size_t nl = strlen(name), o = 0;

	if (size)
		out[0] = '\0';
	while (p < end && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n')) {
		const char *e = eol(p, end);

		if ((size_t)(e - p) > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
			const char *v = p + nl + 1;

			for (;;) {
				for (; v < e; v++) {
					char ch = *v == '\t' || *v == '\r' ? ' ' : *v;

					if (ch == ' ' && (!o || out[o - 1] == ' '))
						continue;
					if (o + 1 < size)
						out[o++] = ch;
				}
				if (e >= end || e + 1 >= end || (e[1] != ' ' && e[1] != '\t'))
					break;
				p = e + 1;
				e = eol(p, end);
				v = p;
				if (o && out[o - 1] != ' ' && o + 1 < size)
					out[o++] = ' ';
			}
			while (o && out[o - 1] == ' ')
				o--;
			if (size)
				out[o] = '\0';
			return 1;
		}
		p = e < end ? e + 1 : end;
	}
	return 0;
}

int mailhdr_msgid(const char *value, size_t k, char *out, size_t size)
{
	const char *p = value;

	if (size)
		out[0] = '\0';
	for (;;) {
		const char *a = strchr(p, '<'), *b = a ? strchr(a, '>') : NULL;
		size_t n;

		if (!b)
			return 0;
		if (k--) {
			p = b + 1;
			continue;
		}
		n = (size_t)(b - a - 1);
		if (!n || !size)
			return 0;
		if (n >= size)
			n = size - 1;
		memcpy(out, a + 1, n);
		out[n] = '\0';
		return 1;
	}
}

int mailhdr_date(const char *value, time_t *t)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	const char *p = value, *comma = strchr(value, ',');
	char mon[4] = "";
	int d, y, H, M, S = 0, n = 0;
	char sign;
	int zh;
	struct tm tm = { 0 };
	const char *m;

	if (comma)
		p = comma + 1;
	if (sscanf(p, " %d %3s %d %d:%d%n", &d, mon, &y, &H, &M, &n) != 5)
		return -1;
	p += n;
	if (*p == ':') {
		n = 0;
		if (sscanf(p, ":%d%n", &S, &n) != 1)
			return -1;
		p += n;
	}
	n = 0;
	if (sscanf(p, " %c%4d%n", &sign, &zh, &n) != 2 || (sign != '+' && sign != '-') || n < 5)
		return -1;
	m = strlen(mon) == 3 ? strstr(months, mon) : NULL;
	if (!m || (m - months) % 3 || d < 1 || d > 31 || H > 23 || M > 59 || S > 60 || y < 1970 ||
	    y > 9999)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = (int)((m - months) / 3);
	tm.tm_mday = d;
	tm.tm_hour = H;
	tm.tm_min = M;
	tm.tm_sec = S;
	*t = timegm(&tm) - (sign == '-' ? -1 : 1) * ((zh / 100) * 3600 + (zh % 100) * 60);
	return 0;
}
