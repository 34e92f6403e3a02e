#include "utf8.h"

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c;
	size_t len;
	unsigned lo = 0x80, hi = 0xbf;

	if (!n)
		return 0;
	c = s[0];
	if (c >= 0x01 && c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0; /* NUL, a continuation byte, 0xc0/0xc1 (overlong), past 0xf4 */
	if (n < len)
		return 0;
	/* the second byte's range rules out overlongs, surrogates and > U+10FFFF (RFC 3629 4) */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

int utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		size_t l = utf8_seq_len(u + i, n - i);

		if (!l)
			return 0;
		i += l;
	}
	return 1;
}

void utf8_scrub(char *s, size_t n)
{
	unsigned char *u = (unsigned char *)s;

	for (size_t i = 0; i < n;) {
		size_t l = utf8_seq_len(u + i, n - i);

		if (l) {
			i += l;
			continue;
		}
		u[i++] = '?';
	}
}
