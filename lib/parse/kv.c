/*
 * kv: plain "key: value" lines, what our own benchmark cases
 * (worker/cases/) print. A key may repeat: one value per line, in order.
 * Lines that are not "key: number" (optionally followed by blanks) are
 * ignored. Keys get no prefix; the caller prefixes the testcase.
 *
 * Nearly any text has a "key: number" line somewhere (a mail's
 * "MIME-Version: 1.0", a report's "Date: 2024"), so the `kv` tool reads a
 * text only when it says it is kv: its first line that is not blank is
 * "# kv" (or "#kv", optionally followed by a blank and anything, e.g.
 * "# kv small-allocs"). Without it the run is failed. Callers that know
 * the text is their own program's kv output (the worker running our
 * cases) use parse_output_kv_trusted(), which needs no such line.
 */
#include "parse/parse_tool.h"

#include <ctype.h>
#include <string.h>

#include "xalloc.h"

static int key_char(char ch)
{
	return isalnum((unsigned char)ch) || strchr("_.%/+-", ch);
}

static void kv_lines(struct parse_ctx *c, struct parse_lines *l, size_t from)
{
	for (size_t i = from; i < l->n; i++) {
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

/* "# kv", "#kv", "# kv anything" */
static int is_marker(const char *s)
{
	s = parse_skip_blank(s);
	if (*s++ != '#')
		return 0;
	s = parse_skip_blank(s);
	return !strncmp(s, "kv", 2) && (!s[2] || s[2] == ' ' || s[2] == '\t');
}

void parse_kv(struct parse_ctx *c, struct parse_lines *l)
{
	size_t i = 0;

	while (i < l->n && !*parse_skip_blank(l->v[i]))
		i++;
	if (i == l->n || !is_marker(l->v[i])) {
		parse_ctx_fail(c, "not kv output: the first line is not \"# kv\" (any text has "
				  "'key: number' lines; say it is kv, or use a tool's own parser)");
		return;
	}
	kv_lines(c, l, i + 1);
}

void parse_kv_any(struct parse_ctx *c, struct parse_lines *l)
{
	kv_lines(c, l, 0);
}
