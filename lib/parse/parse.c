/*
 * The parser registry and the helpers the tool parsers share. Each tool is
 * a pure function (lines in, metrics out) in its own file.
 */
#include "parse/parse.h"
#include "parse/parse_tool.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "banned.h"

/*
 * name, metric prefix, function, line_based. A line-based tool never sees
 * a last line that lacks its newline: that line may be cut short, and a
 * cut number ("1200363" -> "12") would be a wrong value, not a missing one.
 */
struct parse_tool {
	const char *name;
	const char *prefix;
	void (*fn)(struct parse_ctx *c, struct parse_lines *l);
	int line_based;
};

#define PARSE_TOOLS(X)                                                    \
	X("kv", "", parse_kv, 1)                                          \
	X("will-it-scale", "will-it-scale.", parse_will_it_scale, 1)      \
	X("vm-scalability", "vm-scalability.", parse_vm_scalability, 1)   \
	X("unixbench", "unixbench.", parse_unixbench, 1)                  \
	X("stress-ng", "stress-ng.", parse_stress_ng, 1)                  \
	X("hackbench", "hackbench.", parse_hackbench, 1)                  \
	X("fio", "fio.", parse_fio, 0)                                    \
	X("time", "time.", parse_time, 1)                                 \
	X("kselftest", "kselftest.", parse_kselftest, 1)                  \
	X("proc-vs-map", "proc-vs-map.", parse_proc_vs_map, 1)            \
	X("perf-stat", "perf-stat.", parse_perf_stat, 1)                  \
	X("perf-profile", "perf-profile.", parse_perf_profile, 1)

#define TOOL_ENTRY(n, p, f, lb) { n, p, f, lb },
#define TOOL_NAME(n, p, f, lb) n,

static const struct parse_tool tools[] = { PARSE_TOOLS(TOOL_ENTRY) };
static const char *const tool_names[] = { PARSE_TOOLS(TOOL_NAME) NULL };

const char *const *parse_tools(void)
{
	return tool_names;
}

static const struct parse_tool *tool_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tools); i++)
		if (!strcmp(tools[i].name, name))
			return &tools[i];
	return NULL;
}

/* --- the context ------------------------------------------------------ */

void parse_ctx_add(struct parse_ctx *c, const char *name, double v)
{
	char *full = xstrfmt("%s%s", c->prefix, name);
	json_t *arr;

	if (!isfinite(v)) {
		parse_ctx_note(c, "metric '%s': value is not finite, left out", full);
		free(full);
		return;
	}
	arr = json_object_get(c->metrics, full);
	if (!arr) {
		arr = json_array();
		/* on failure (name not UTF-8) jansson frees arr */
		if (json_object_set_new(c->metrics, full, arr)) {
			parse_ctx_note(c, "a metric name is not valid UTF-8, left out");
			free(full);
			return;
		}
	}
	json_array_append_new(arr, json_real(v));
	free(full);
}

void parse_ctx_addf(struct parse_ctx *c, double v, const char *fmt, ...)
{
	va_list ap;
	char *name;

	va_start(ap, fmt);
	if (vasprintf(&name, fmt, ap) < 0) {
		fprintf(stderr, "fatal: out of memory\n");
		abort();
	}
	va_end(ap);
	parse_ctx_add(c, name, v);
	free(name);
}

static void ctx_vnote(struct parse_ctx *c, const char *fmt, va_list ap)
{
	char msg[512];
	json_t *s;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	s = json_string(msg);
	if (!s)
		s = json_string("(message is not valid UTF-8)");
	json_array_append_new(c->errors, s);
}

void parse_ctx_note(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctx_vnote(c, fmt, ap);
	va_end(ap);
}

void parse_ctx_fail(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctx_vnote(c, fmt, ap);
	va_end(ap);
	c->failed = 1;
}

size_t parse_ctx_count(const struct parse_ctx *c)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	json_object_foreach(c->metrics, k, v)
		n += json_array_size(v);
	return n;
}

/* --- text helpers ------------------------------------------------------ */

int parse_num(const char *s, const char **end, double *out)
{
	const char *p = s;
	char tmp[64];
	size_t digits = 0, n;
	double v;

	if (*p == '+' || *p == '-')
		p++;
	while (isdigit((unsigned char)*p)) {
		p++;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits++;
		}
	}
	if (!digits)
		return -1;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;

		if (*q == '+' || *q == '-')
			q++;
		if (isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q))
				q++;
			p = q;
		}
	}
	n = (size_t)(p - s);
	if (n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	v = strtod(tmp, NULL);
	if (!isfinite(v))
		return -1;
	*out = v;
	if (end)
		*end = p;
	return 0;
}

const char *parse_skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

int parse_num_full(const char *s, double *out)
{
	const char *end;

	s = parse_skip_blank(s);
	if (parse_num(s, &end, out))
		return -1;
	return *parse_skip_blank(end) ? -1 : 0;
}

char *parse_rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

size_t parse_split_blank(char *s, char **tok, size_t max)
{
	size_t n = 0;

	while (n < max) {
		while (*s == ' ' || *s == '\t')
			*s++ = '\0';
		if (!*s)
			break;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
	return n;
}

size_t parse_split_char(char *s, char sep, char **fld, size_t max)
{
	size_t n = 0;

	if (!max)
		return 0;
	fld[n++] = s;
	while (n < max && (s = strchr(s, sep))) {
		*s++ = '\0';
		fld[n++] = s;
	}
	return n;
}

char *parse_slug(const char *s)
{
	char *out = xmalloc(strlen(s) + 1);
	size_t n = 0;
	int sep = 0;

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (isalnum(ch)) {
			if (sep && n)
				out[n++] = '_';
			out[n++] = (char)tolower(ch);
			sep = 0;
		} else {
			sep = 1;
		}
	}
	out[n] = '\0';
	return out;
}

/* --- the entry point --------------------------------------------------- */

static void lines_split(struct parse_lines *l, char *copy, size_t len)
{
	size_t alloc = 0;
	char *p = copy, *nl;

	l->v = NULL;
	l->n = 0;
	for (;;) {
		ALLOC_GROW(l->v, l->n + 1, alloc);
		l->v[l->n++] = p;
		nl = memchr(p, '\n', len - (size_t)(p - copy));
		if (!nl)
			break;
		*nl = '\0';
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		p = nl + 1;
	}
	/* after a final "\n" there is an empty line; drop it */
	if (l->n && !*l->v[l->n - 1])
		l->n--;
}

json_t *parse_output(const char *tool, const char *text, size_t len, struct err *e)
{
	const struct parse_tool *t = tool ? tool_find(tool) : NULL;
	struct parse_lines lines;
	struct parse_ctx c;
	char *whole, *copy;
	json_t *doc;

	if (!t) {
		err_set(e, 400, "unknown_tool", "tool", "unknown tool '%s'", tool ? tool : "");
		return NULL;
	}
	whole = xmalloc(len + 1);
	if (len)
		memcpy(whole, text, len);
	whole[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (!whole[i])
			whole[i] = ' ';
	copy = xmalloc(len + 1);
	memcpy(copy, whole, len + 1);
	lines_split(&lines, copy, len);
	lines.text = whole;
	lines.len = len;

	c.prefix = t->prefix;
	c.metrics = json_object();
	c.errors = json_array();
	c.failed = 0;

	if (t->line_based && len && whole[len - 1] != '\n' && lines.n) {
		const char *last = parse_skip_blank(lines.v[lines.n - 1]);

		lines.n--;
		if (*last)
			parse_ctx_note(&c, "ignored the last line: it has no newline "
					   "(truncated output?)");
	}
	t->fn(&c, &lines);
	if (!c.failed && !parse_ctx_count(&c))
		parse_ctx_fail(&c, "no %s results found", t->name);
	if (c.failed) {
		json_decref(c.metrics);
		c.metrics = json_object();
	}

	doc = json_object();
	json_object_set_new(doc, "tool", json_string(t->name));
	json_object_set_new(doc, "status", json_string(c.failed ? "failed" : "ok"));
	json_object_set_new(doc, "metrics", c.metrics);
	json_object_set_new(doc, "errors", c.errors);
	free(lines.v);
	free(copy);
	free(whole);
	return doc;
}
