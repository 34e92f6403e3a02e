#ifndef REGTRACK_PARSE_TOOL_H
#define REGTRACK_PARSE_TOOL_H

/*
 * Internal to lib/parse/: what one tool parser gets and the helpers it
 * shares with the others. Not for use outside lib/parse/.
 */

#include <stddef.h>

#include <jansson.h>

/*
 * The text of one parse. A line-based tool gets it split into lines in
 * place: v[i] are NUL-terminated, writable, without their "\n" or "\r\n"
 * (text is NULL). A tool that is not line-based (fio's JSON) gets `text`
 * whole (NUL-terminated, NULs inside replaced by spaces), `len` its length,
 * and no lines. Either is borrowed for the duration of the call. A leading
 * UTF-8 byte order mark is already gone.
 */
struct parse_lines {
	char **v;
	size_t n;
	const char *text;
	size_t len;
};

/* One metric's values, in the order added: n values in nb bytes of b,
 * encoded by parse.c (metric_push/metric_next: a short decimal in 2-4
 * bytes, any other double in 9). */
struct parse_metric {
	char *name; /* prefix + name, new */
	unsigned char *b;
	size_t nb, ab;
	size_t n;
};

/*
 * What a tool fills in, through the functions below. Values are kept in a
 * few bytes each (not a JSON real each): 50 MB of output can hold
 * millions of them.
 */
struct parse_ctx {
	const char *prefix; /* "will-it-scale." or "" for kv */
	struct parse_metric *m;
	size_t nm, am;
	json_t *index; /* name -> integer index into m */
	size_t nvalues;
	json_t *errors;	   /* array of strings, at most PARSE_MAX_NOTES (+ failure) */
	size_t more_notes; /* notes past the cap, counted */
	int failed;
	long tasks; /* struct parse_opts' tasks (0: not given) */
};

/* What parse_run() returns (parse.h keeps it opaque). m is sorted by name. */
struct parse_result {
	const char *tool; /* static */
	int failed;
	struct parse_metric *m;
	size_t nm;
	json_t *errors; /* owned */
};

/* Appends v to metric PREFIX+NAME (created on first use). A non-finite v
 * is not stored; an error names the metric instead. */
void parse_ctx_add(struct parse_ctx *c, const char *name, double v);
void parse_ctx_addf(struct parse_ctx *c, double v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Adds a message to "errors" without failing the run. */
void parse_ctx_note(struct parse_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Marks the run failed with a reason (metrics are dropped by parse_output). */
void parse_ctx_fail(struct parse_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Number of values stored so far (all metrics). */
size_t parse_ctx_count(const struct parse_ctx *c);

/*
 * Strict decimal number at s: [+-]digits[.digits][(e|E)[+-]digits] or
 * [+-].digits…; no hex, inf or nan, at most 63 characters. Returns 0 and
 * sets *out (finite) and *end (first character after it), or -1.
 */
int parse_num(const char *s, const char **end, double *out);
/* Like parse_num but the whole of s (leading/trailing blanks allowed)
 * must be the number. */
int parse_num_full(const char *s, double *out);
/* Skips spaces and tabs. */
const char *parse_skip_blank(const char *s);
/* Removes trailing spaces/tabs in place; returns s. */
char *parse_rtrim(char *s);
/* Splits s in place at runs of blanks into at most max tokens; returns the
 * count. Tokens point into s. */
size_t parse_split_blank(char *s, char **tok, size_t max);
/* Splits s in place at every `sep` into at most max fields (the last field
 * keeps the rest); returns the count. */
size_t parse_split_char(char *s, char sep, char **fld, size_t max);
/* A metric-name copy of s: lowercase, runs of characters other than
 * [a-z0-9] become one '_', no leading/trailing '_'. New, caller frees. */
char *parse_slug(const char *s);

/* The tools (one file each). */
void parse_kv(struct parse_ctx *c, struct parse_lines *l);
void parse_kv_any(struct parse_ctx *c, struct parse_lines *l);
void parse_will_it_scale(struct parse_ctx *c, struct parse_lines *l);
void parse_vm_scalability(struct parse_ctx *c, struct parse_lines *l);
void parse_unixbench(struct parse_ctx *c, struct parse_lines *l);
void parse_stress_ng(struct parse_ctx *c, struct parse_lines *l);
void parse_hackbench(struct parse_ctx *c, struct parse_lines *l);
void parse_fio(struct parse_ctx *c, struct parse_lines *l);
void parse_time(struct parse_ctx *c, struct parse_lines *l);
void parse_kselftest(struct parse_ctx *c, struct parse_lines *l);
void parse_proc_vs_map(struct parse_ctx *c, struct parse_lines *l);
void parse_perf_stat(struct parse_ctx *c, struct parse_lines *l);
void parse_perf_profile(struct parse_ctx *c, struct parse_lines *l);
void parse_lmbench3(struct parse_ctx *c, struct parse_lines *l);
void parse_sysbench(struct parse_ctx *c, struct parse_lines *l);
void parse_perf_bench(struct parse_ctx *c, struct parse_lines *l);

#endif
