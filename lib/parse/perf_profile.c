/*
 * perf-profile: `perf report --children --stdio` (with or without folded
 * call chains, `-g folded`), and plain `perf report` (one Overhead column).
 * Per event (from "# Samples: 8K of event 'cycles:pp'", ':' written '-'),
 * values in percent, as LKP's stats/perf-profile names them:
 *
 *   perf-profile.children.EVENT.SYM            Children column
 *   perf-profile.self.EVENT.SYM                Self (or Overhead) column
 *   perf-profile.calltrace.EVENT.S1.S2…S5      a folded chain "P% S1;S2;…",
 *                                              its first 5 frames
 *
 * SYM has .isra.N, .constprop.N and .part.N stripped; entries that become
 * the same name are added up. As LKP, children and self below 0.05% and
 * call traces below 0.5% are left out. In the tree form (no -g folded) the
 * graph lines are skipped: it gives children and self, not calltrace.
 */
#include "parse/parse_tool.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "banned.h"

#define PP_MIN_ENTRY 0.05
#define PP_MIN_TRACE 0.5
#define PP_MAX_FRAMES 5

struct pp_event {
	char *name;
	json_t *children, *self, *trace;	/* name -> summed percent */
};

/* strips .isra.N / .constprop.N / .part.N in place */
static void strip_suffixes(char *s)
{
	static const char *const sfx[] = { ".isra.", ".constprop.", ".part." };

	for (size_t k = 0; k < ARRAY_SIZE(sfx); k++) {
		char *p = s;

		while ((p = strstr(p, sfx[k]))) {
			char *q = p + strlen(sfx[k]);

			if (!isdigit((unsigned char)*q)) {
				p++;
				continue;
			}
			while (isdigit((unsigned char)*q))
				q++;
			memmove(p, q, strlen(q) + 1);
		}
	}
}

static void sum_into(json_t *map, const char *key, double v)
{
	json_t *old = json_object_get(map, key);

	json_object_set_new(map, key, json_real(v + (old ? json_real_value(old) : 0)));
}

static void event_flush(struct parse_ctx *c, struct pp_event *ev)
{
	static const struct {
		const char *kind;
		double min;
	} kinds[] = { { "children", PP_MIN_ENTRY }, { "self", PP_MIN_ENTRY },
		      { "calltrace", PP_MIN_TRACE } };
	json_t *maps[3] = { ev->children, ev->self, ev->trace };
	const char *k;
	json_t *v;

	for (size_t i = 0; i < 3; i++) {
		json_object_foreach(maps[i], k, v)
			if (json_real_value(v) >= kinds[i].min)
				parse_ctx_addf(c, json_real_value(v), "%s.%s.%s", kinds[i].kind,
					       ev->name, k);
		json_object_clear(maps[i]);
	}
}

static void event_set(struct pp_event *ev, const char *perf_name)
{
	char *n = xstrdup(perf_name);
	size_t len = strlen(n);

	if (len && n[len - 1] == '/')
		n[--len] = '\0';
	for (char *p = n; *p; p++)
		if (*p == ':')
			*p = '-';
		else if (*p == '/')
			*p = '.';
	free(ev->name);
	ev->name = n;
}

/* "    82.61%     0.42%  [kernel.kallsyms]    [k] cpu_startup_entry" */
static int entry_line(const char *s, double *pct, size_t *npct, const char **sym)
{
	const char *p = s, *q;

	*npct = 0;
	while (*npct < 2) {
		double v;

		p = parse_skip_blank(p);
		if (parse_num(p, &q, &v) || *q != '%')
			break;
		pct[(*npct)++] = v;
		p = q + 1;
	}
	if (!*npct || p == s || *s != ' ')
		return -1;
	/* the symbol follows the last " [x] " marker */
	q = NULL;
	for (const char *m = p; (m = strstr(m, " [")); m++)
		if (m[2] && m[3] == ']' && m[4] == ' ')
			q = m + 5;
	if (!q)
		return -1;
	*sym = parse_skip_blank(q);
	return **sym ? 0 : -1;
}

void parse_perf_profile(struct parse_ctx *c, struct parse_lines *l)
{
	struct pp_event ev = { NULL, json_object(), json_object(), json_object() };
	int children_mode = 0;
	size_t entries = 0;

	event_set(&ev, "cycles");	/* perf's default when no header says */
	for (size_t i = 0; i < l->n; i++) {
		char *s = l->v[i];
		const char *sym, *q;
		double pct[2], v;
		size_t npct;

		if (s[0] == '#') {
			const char *e = strstr(s, " of event '");

			if (!strncmp(s, "# Samples:", 10) && e) {
				char *name = xstrdup(e + 11), *end = strchr(name, '\'');

				if (end) {
					*end = '\0';
					event_flush(c, &ev);
					event_set(&ev, name);
				}
				free(name);
			} else if (!strncmp(s, "# Children", 10)) {
				children_mode = 1;
			} else if (!strncmp(s, "# Overhead", 10)) {
				children_mode = 0;
			}
			continue;
		}
		if (isdigit((unsigned char)s[0]) && !parse_num(s, &q, &v) && q[0] == '%' &&
		    q[1] == ' ') {
			/* folded chain: "81.41% a;b;c" */
			char *chain = xstrdup(parse_skip_blank(q + 2));
			char *fr[PP_MAX_FRAMES + 1], *key;
			size_t n;

			parse_rtrim(chain);
			strip_suffixes(chain);
			n = parse_split_char(chain, ';', fr, PP_MAX_FRAMES + 1);
			if (n > PP_MAX_FRAMES)
				n = PP_MAX_FRAMES;
			key = xstrdup(fr[0]);
			for (size_t k = 1; k < n; k++) {
				char *next = xstrfmt("%s.%s", key, fr[k]);

				free(key);
				key = next;
			}
			if (*fr[0])
				sum_into(ev.trace, key, v);
			free(key);
			free(chain);
			continue;
		}
		if (entry_line(s, pct, &npct, &sym))
			continue;
		{
			char *name = xstrdup(sym);

			parse_rtrim(name);
			strip_suffixes(name);
			if (children_mode && npct == 2) {
				sum_into(ev.children, name, pct[0]);
				sum_into(ev.self, name, pct[1]);
			} else {
				sum_into(ev.self, name, pct[0]);
			}
			entries++;
			free(name);
		}
	}
	event_flush(c, &ev);
	free(ev.name);
	json_decref(ev.children);
	json_decref(ev.self);
	json_decref(ev.trace);
	if (!entries)
		parse_ctx_fail(c, "no perf report entries");
}
