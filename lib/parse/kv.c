/*
 * kv: plain "key: value" lines, what our own benchmark cases
 * (worker/cases/) print. A key may repeat: one value per line, in order.
 * Lines that are not "key: number" (optionally followed by blanks) are
 * ignored. Keys get no prefix; the caller prefixes the testcase.
 */
#include "parse/parse_tool.h"

#include <ctype.h>
#include <string.h>

#include "xalloc.h"
#include "banned.h"

static int key_char(char ch)
{
	return isalnum((unsigned char)ch) || strchr("_.%/+-", ch);
}

void parse_kv(struct parse_ctx *c, struct parse_lines *l)
{
	for (size_t i = 0; i < l->n; i++) {
		char *s = (char *)parse_skip_blank(l->v[i]);
		char *k = s;
		double v;

		while (*s && key_char(*s))
			s++;
		if (s == k || *s != ':')
			continue;
		*s++ = '\0';
		if (parse_num_full(s, &v))
			continue;
		parse_ctx_add(c, k, v);
	}
	if (!parse_ctx_count(c))
		parse_ctx_fail(c, "no 'key: number' lines found");
}
