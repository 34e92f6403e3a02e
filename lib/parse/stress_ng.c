/*
 * stress-ng: the table of --metrics-brief and --metrics, old ("info:") and
 * new ("metrc:") layouts, one or two header lines, and the extra
 * per-stressor metric lines. Per stressor S (after LKP's stats/stress-ng):
 *
 *   stress-ng.S.ops           bogo ops
 *   stress-ng.S.ops_per_sec   bogo ops/s (real time)
 *   stress-ng.S.NAME          an extra line "S  VALUE TEXT (average per
 *                             stressor)": NAME is TEXT without the trailing
 *                             "(… mean)"/"(average per stressor)" note (0.15's
 *                             "(geometic mean of N instances)" too) and
 *                             without parentheses, blanks as '_'
 *                             ("write128 MB/sec" -> "write128_MB/sec",
 *                             "memory rate (MB per sec)" -> "memory_rate_MB_per_sec")
 *
 * "unsuccessful run completed" fails the run; "fail:" lines are named in
 * errors.
 */
#include "parse/parse_tool.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* "stress-ng: LEVEL: [PID] MSG" -> MSG, LEVEL in *level (borrowed) */
static char *strip_prefix(char *s, char **level)
{
	char *p;

	if (strncmp(s, "stress-ng: ", 11))
		return NULL;
	s += 11;
	p = strchr(s, ':');
	if (!p)
		return NULL;
	*p = '\0';
	*level = s;
	p = (char *)parse_skip_blank(p + 1);
	if (*p == '[') {
		char *q = strchr(p, ']');

		if (!q)
			return NULL;
		p = q + 1;
	}
	return (char *)parse_skip_blank(p);
}

static char *extra_name(const char *text)
{
	/* the note opens the last parenthesis: "(geometic mean of 1 instances)"
	 * in 0.15 (the count of instances is a param, not part of the name) */
	static const char *const notes[] = {
		"(average per stressor", "(geometic mean",   "(geometric mean",
		"(harmonic mean",	 "(arithmetic mean",
	};
	char *t = xstrdup(text), *out = xmalloc(strlen(text) + 1), *open;
	size_t n = 0;
	int blank = 0;

	parse_rtrim(t);
	open = strrchr(t, '(');
	for (size_t i = 0; open && i < ARRAY_SIZE(notes); i++) {
		size_t tl = strlen(t);

		if (t[tl - 1] == ')' && !strncmp(open, notes[i], strlen(notes[i])) &&
		    strchr(") ", open[strlen(notes[i])])) {
			*open = '\0';
			parse_rtrim(t);
			break;
		}
	}
	for (const char *p = t; *p; p++) {
		if (*p == '(' || *p == ')')
			continue;
		if (*p == ' ' || *p == '\t') {
			blank = 1;
			continue;
		}
		if (blank && n)
			out[n++] = '_';
		blank = 0;
		out[n++] = *p;
	}
	out[n] = '\0';
	free(t);
	return out;
}

void parse_stress_ng(struct parse_ctx *c, struct parse_lines *l)
{
	int in_table = 0;
	size_t rows = 0;

	for (size_t i = 0; i < l->n; i++) {
		char *level, *msg = strip_prefix(l->v[i], &level);
		char *tok[12];
		size_t n;
		double v[12];
		int numeric = 1;

		if (!msg)
			continue;
		if (!strcmp(level, "fail")) {
			parse_ctx_note(c, "stress-ng: %s", msg);
			continue;
		}
		if (strstr(msg, "unsuccessful run completed")) {
			parse_ctx_fail(c, "stress-ng reported an unsuccessful run");
			return;
		}
		if (!strncmp(msg, "stressor ", 9) && strstr(msg, "bogo ops")) {
			in_table = 1;
			continue;
		}
		if (!in_table)
			continue;
		if (!strncmp(msg, "for a ", 6) || !strncmp(msg, "successful run", 14)) {
			in_table = 0;
			continue;
		}
		if (!isalnum((unsigned char)*msg))
			continue; /* "(secs) (secs) …" second header line */
		{
			char *copy = xstrdup(msg);

			n = parse_split_blank(copy, tok, ARRAY_SIZE(tok));
			for (size_t k = 1; k < n && k < 7; k++)
				if (parse_num_full(tok[k], &v[k]))
					numeric = 0;
			if (n >= 7 && numeric) {
				parse_ctx_addf(c, v[1], "%s.ops", tok[0]);
				parse_ctx_addf(c, v[5], "%s.ops_per_sec", tok[0]);
				rows++;
			} else if (n >= 3 && !parse_num_full(tok[1], &v[1])) {
				/* extra metric: NAME VALUE TEXT… */
				const char *text = msg + (tok[2] - copy);
				char *name = extra_name(text);

				if (*name && strcmp(name, "metrics:"))
					parse_ctx_addf(c, v[1], "%s.%s", tok[0], name);
				free(name);
			}
			free(copy);
		}
	}
	if (!rows)
		parse_ctx_fail(c,
			       "no stress-ng metrics table (run without --metrics or cut short)");
}
