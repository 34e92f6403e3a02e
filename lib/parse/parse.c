/*
 * The parser registry and the helpers the tool parsers share. Each tool is
 * a pure function (lines in, metrics out) in its own file.
 */
#include "parse/parse.h"
#include "parse/parse_tool.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

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

#define PARSE_TOOLS(X)                                                  \
	X("kv", "", parse_kv, 1)                                        \
	X("will-it-scale", "will-it-scale.", parse_will_it_scale, 1)    \
	X("vm-scalability", "vm-scalability.", parse_vm_scalability, 1) \
	X("unixbench", "unixbench.", parse_unixbench, 1)                \
	X("stress-ng", "stress-ng.", parse_stress_ng, 1)                \
	X("hackbench", "hackbench.", parse_hackbench, 1)                \
	X("fio", "fio.", parse_fio, 0)                                  \
	X("time", "time.", parse_time, 1)                               \
	X("kselftest", "kselftest.", parse_kselftest, 1)                \
	X("proc-vs-map", "proc-vs-map.", parse_proc_vs_map, 1)          \
	X("perf-stat", "perf-stat.", parse_perf_stat, 1)                \
	X("perf-profile", "perf-profile.", parse_perf_profile, 1)       \
	X("lmbench3", "lmbench3.", parse_lmbench3, 1)                   \
	X("sysbench", "sysbench.", parse_sysbench, 1)                   \
	X("perf-bench", "perf-bench-", parse_perf_bench, 1)

#define TOOL_ENTRY(n, p, f, lb) { n, p, f, lb },
#define TOOL_NAME(n, p, f, lb) n,

static const struct parse_tool tools[] = { PARSE_TOOLS(TOOL_ENTRY) };
/* kv without its "# kv" line, for parse_output_kv_trusted() */
static const struct parse_tool kv_trusted = { "kv", "", parse_kv_any, 1 };
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

/* notes kept in "errors" before the rest are only counted (50 MB of junk
 * must not give a million messages) */
#define PARSE_MAX_NOTES 50

/*
 * A metric's values are kept as bytes, not as 8-byte doubles: most values
 * are short decimals as the tool printed them ("0.132", "14640"). Each is
 * one tag byte D (0..9) and the zigzag varint of the integer M with
 * M / 10^D == v exactly (a correctly rounded division of two exact
 * doubles: the same double strtod gives for the decimal), or tag 0xff
 * and the 8 bytes of the double. 50 MB of proc-vs-map rows (three values
 * per 20 bytes) take 19 MB this way, 55 MB as doubles.
 */
static const double pow10_tab[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };

static void metric_push(struct parse_metric *m, double v)
{
	unsigned char buf[12];
	size_t k = 0;
	double x = 0;
	size_t d;

	for (d = 0; d < ARRAY_SIZE(pow10_tab); d++) {
		x = nearbyint(v * pow10_tab[d]);
		if (fabs(x) < 9007199254740992.0 && x / pow10_tab[d] == v)
			break;
	}
	if (d < ARRAY_SIZE(pow10_tab) && !(v == 0 && signbit(v))) {
		int64_t mi = (int64_t)x;
		uint64_t z = ((uint64_t)mi << 1) ^ (0 - (uint64_t)(mi < 0));

		buf[k++] = (unsigned char)d;
		do {
			unsigned char b = z & 0x7f;

			z >>= 7;
			buf[k++] = z ? b | 0x80 : b;
		} while (z);
	} else {
		buf[k++] = 0xff;
		memcpy(buf + k, &v, sizeof(v));
		k += sizeof(v);
	}
	ALLOC_GROW(m->b, m->nb + k, m->ab);
	memcpy(m->b + m->nb, buf, k);
	m->nb += k;
	m->n++;
}

/* the value at *pos of m's bytes; advances *pos */
static double metric_next(const struct parse_metric *m, size_t *pos)
{
	const unsigned char *b = m->b + *pos;
	unsigned d = *b++;
	uint64_t z = 0;
	int64_t mi;
	double v;

	if (d == 0xff) {
		memcpy(&v, b, sizeof(v));
		*pos += 1 + sizeof(v);
		return v;
	}
	for (unsigned shift = 0;; shift += 7) {
		z |= (uint64_t)(*b & 0x7f) << shift;
		if (!(*b++ & 0x80))
			break;
	}
	*pos = (size_t)(b - m->b);
	mi = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	return (double)mi / pow10_tab[d];
}

static struct parse_metric *metric_get(struct parse_ctx *c, const char *full)
{
	json_t *ix = json_object_get(c->index, full);
	struct parse_metric *m;

	if (ix)
		return &c->m[json_integer_value(ix)];
	/* on failure (name not UTF-8) jansson frees the integer */
	if (json_object_set_new(c->index, full, json_integer((json_int_t)c->nm)))
		return NULL;
	ALLOC_GROW(c->m, c->nm + 1, c->am);
	m = &c->m[c->nm++];
	m->name = xstrdup(full);
	m->b = NULL;
	m->n = m->nb = m->ab = 0;
	return m;
}

void parse_ctx_add(struct parse_ctx *c, const char *name, double v)
{
	char *full = xstrfmt("%s%s", c->prefix, name);
	struct parse_metric *m;

	if (!isfinite(v)) {
		parse_ctx_note(c, "metric '%s': value is not finite, left out", full);
		free(full);
		return;
	}
	m = metric_get(c, full);
	if (!m) {
		parse_ctx_note(c, "a metric name is not valid UTF-8, left out");
		free(full);
		return;
	}
	metric_push(m, v);
	c->nvalues++;
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

	if (json_array_size(c->errors) >= PARSE_MAX_NOTES) {
		c->more_notes++;
		return;
	}
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
	if (!c->failed && json_array_size(c->errors) >= PARSE_MAX_NOTES) {
		/* the reason of the failure is always kept: it replaces the last note */
		json_array_remove(c->errors, json_array_size(c->errors) - 1);
		c->more_notes++;
	}
	ctx_vnote(c, fmt, ap);
	va_end(ap);
	c->failed = 1;
}

size_t parse_ctx_count(const struct parse_ctx *c)
{
	return c->nvalues;
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

/* Splits text (len bytes, text[len] == '\0') into lines in place. */
static void lines_split(struct parse_lines *l, char *text, size_t len)
{
	size_t n = 1, i = 0;
	char *p = text, *nl, *end = text + len;

	/* count first: one exact array, not a doubling one (50 MB of short
	 * lines are millions of pointers) */
	for (const char *q = text; (q = memchr(q, '\n', (size_t)(end - q))); q++)
		n++;
	l->v = xmalloc(n * sizeof(*l->v));
	for (;;) {
		l->v[i++] = p;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		*nl = '\0';
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		p = nl + 1;
	}
	l->n = i;
	/* after a final "\n" there is an empty line; drop it */
	if (l->n && !*l->v[l->n - 1])
		l->n--;
}

static int cmp_metric(const void *a, const void *b)
{
	return strcmp(((const struct parse_metric *)a)->name,
		      ((const struct parse_metric *)b)->name);
}

static struct parse_result *run_tool(const struct parse_tool *t, char *text, size_t len,
				     const struct parse_opts *opts)
{
	struct parse_lines lines;
	struct parse_ctx c;
	struct parse_result *r;

	for (size_t i = 0; i < len; i++)
		if (!text[i])
			text[i] = ' ';
	/* a UTF-8 byte order mark (Windows editors, some CI logs) is no text */
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		len -= 3;
	}
	memset(&c, 0, sizeof(c));
	c.prefix = t->prefix;
	c.tasks = opts ? opts->tasks : 0;
	c.index = json_object();
	c.errors = json_array();

	if (t->line_based) {
		int cut = len && text[len - 1] != '\n';

		lines_split(&lines, text, len);
		lines.text = NULL;
		lines.len = 0;
		if (cut && lines.n) {
			const char *last = parse_skip_blank(lines.v[lines.n - 1]);

			lines.n--;
			if (*last)
				parse_ctx_note(&c, "ignored the last line: it has no newline "
						   "(truncated output?)");
		}
	} else {
		lines.v = NULL;
		lines.n = 0;
		lines.text = text;
		lines.len = len;
	}
	t->fn(&c, &lines);
	free(lines.v);
	if (!c.failed && !parse_ctx_count(&c))
		parse_ctx_fail(&c, "no %s results found", t->name);
	if (c.more_notes)
		json_array_append_new(c.errors, json_sprintf("%zu more notes like these left out",
							     c.more_notes));

	r = xmalloc(sizeof(*r));
	r->tool = t->name;
	r->failed = c.failed;
	r->errors = c.errors;
	if (c.failed) {
		for (size_t i = 0; i < c.nm; i++) {
			free(c.m[i].name);
			free(c.m[i].b);
		}
		free(c.m);
		c.m = NULL;
		c.nm = 0;
	}
	if (c.nm)
		qsort(c.m, c.nm, sizeof(*c.m), cmp_metric);
	r->m = c.m;
	r->nm = c.nm;
	json_decref(c.index);
	return r;
}

struct parse_result *parse_run_opts(const char *tool, char *text, size_t len,
				    const struct parse_opts *opts, struct err *e)
{
	const struct parse_tool *t = tool ? tool_find(tool) : NULL;

	if (!t) {
		err_setc(e, ERR_INVALID_FIELD, "tool", "unknown tool '%s'", tool ? tool : "");
		return NULL;
	}
	return run_tool(t, text, len, opts);
}

struct parse_result *parse_run(const char *tool, char *text, size_t len, struct err *e)
{
	return parse_run_opts(tool, text, len, NULL, e);
}

int parse_result_failed(const struct parse_result *r)
{
	return r->failed != 0;
}

void parse_result_free(struct parse_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nm; i++) {
		free(r->m[i].name);
		free(r->m[i].b);
	}
	free(r->m);
	json_decref(r->errors);
	free(r);
}

json_t *parse_result_json(const struct parse_result *r)
{
	json_t *doc = json_object(), *metrics = json_object();

	for (size_t i = 0; i < r->nm; i++) {
		json_t *arr = json_array();
		size_t pos = 0;

		for (size_t k = 0; k < r->m[i].n; k++)
			json_array_append_new(arr, json_real(metric_next(&r->m[i], &pos)));
		json_object_set_new(metrics, r->m[i].name, arr);
	}
	json_object_set_new(doc, "tool", json_string(r->tool));
	json_object_set_new(doc, "status", json_string(r->failed ? "failed" : "ok"));
	json_object_set_new(doc, "metrics", metrics);
	json_object_set_new(doc, "errors", json_deep_copy(r->errors));
	return doc;
}

/* a string or real as json_dumpf prints it inside a document (any depth) */
static int write_json(FILE *f, json_t *j, size_t flags)
{
	return json_dumpf(j, f, flags | JSON_ENCODE_ANY | JSON_INDENT(2) | JSON_REAL_PRECISION(15));
}

int parse_result_write(const struct parse_result *r, FILE *f)
{
	json_t *tmp = json_real(0), *s;
	int rc = 0;

	/* the same bytes as json_dumpf(parse_result_json(r), JSON_INDENT(2) |
	 * JSON_SORT_KEYS | JSON_REAL_PRECISION(15)), one value at a time */
	rc |= fputs("{\n  \"errors\": ", f) < 0;
	if (!json_array_size(r->errors)) {
		rc |= fputs("[]", f) < 0;
	} else {
		size_t i;

		rc |= fputs("[", f) < 0;
		json_array_foreach (r->errors, i, s) {
			rc |= fputs(i ? ",\n    " : "\n    ", f) < 0;
			rc |= write_json(f, s, 0);
		}
		rc |= fputs("\n  ]", f) < 0;
	}
	rc |= fputs(",\n  \"metrics\": ", f) < 0;
	rc |= fputs(r->nm ? "{" : "{}", f) < 0;
	for (size_t i = 0; i < r->nm; i++) {
		json_t *name = json_string(r->m[i].name);
		size_t pos = 0;

		rc |= fputs(i ? ",\n    " : "\n    ", f) < 0;
		rc |= write_json(f, name, 0);
		json_decref(name);
		rc |= fputs(": [", f) < 0;
		for (size_t k = 0; k < r->m[i].n; k++) {
			json_real_set(tmp, metric_next(&r->m[i], &pos));
			rc |= fputs(k ? ",\n      " : "\n      ", f) < 0;
			rc |= write_json(f, tmp, 0);
		}
		rc |= fputs(r->m[i].n ? "\n    ]" : "]", f) < 0;
	}
	if (r->nm)
		rc |= fputs("\n  }", f) < 0;
	rc |= fprintf(f, ",\n  \"status\": \"%s\",\n  \"tool\": ", r->failed ? "failed" : "ok") < 0;
	s = json_string(r->tool);
	rc |= write_json(f, s, 0);
	json_decref(s);
	rc |= fputs("\n}", f) < 0;
	json_decref(tmp);
	return rc ? -1 : 0;
}

static json_t *output_of(const struct parse_tool *t, const char *text, size_t len)
{
	char *copy = xmalloc(len + 1);
	struct parse_result *r;
	json_t *doc;

	if (len)
		memcpy(copy, text, len);
	copy[len] = '\0';
	r = run_tool(t, copy, len, NULL);
	free(copy);
	doc = parse_result_json(r);
	parse_result_free(r);
	return doc;
}

json_t *parse_output(const char *tool, const char *text, size_t len, struct err *e)
{
	const struct parse_tool *t = tool ? tool_find(tool) : NULL;

	if (!t) {
		err_setc(e, ERR_INVALID_FIELD, "tool", "unknown tool '%s'", tool ? tool : "");
		return NULL;
	}
	return output_of(t, text, len);
}

json_t *parse_output_kv_trusted(const char *text, size_t len)
{
	return output_of(&kv_trusted, text, len);
}
