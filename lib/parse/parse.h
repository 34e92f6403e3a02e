#ifndef REGTRACK_PARSE_H
#define REGTRACK_PARSE_H

/*
 * Parsers of real benchmark and monitor output. Each tool is a
 * pure function from text to metrics, listed in one registry table in
 * lib/parse/parse.c, one file per tool in lib/parse/.
 *
 * Metric names follow LKP (`testcase.key`): every tool but `kv` prefixes
 * its metrics with its own name ("will-it-scale.104.processes",
 * "perf-stat.ps.cycles", "perf-profile.children.cycles-pp.do_mmap");
 * `kv` keys get no prefix, the caller prefixes the testcase. Where a file
 * holds several runs (iterations, passes, intervals), each metric gets one
 * value per run in file order; callers compute mean and %stddev. Values are
 * finite doubles, never NaN or Inf.
 */

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "err.h"

/*
 * Parses the output of TOOL (text, len bytes, need not be NUL-terminated;
 * NUL bytes inside are read as spaces, a leading UTF-8 byte order mark is
 * skipped). The text is copied (len + 1 bytes) for the call. Returns a
 * new JSON object (caller json_decref()s) shaped
 *   {"tool": TOOL, "status": "ok"|"failed",
 *    "metrics": {"NAME": [v, ...]}, "errors": ["...", ...]}
 * A failed run (an assertion message instead of numbers, a truncated file,
 * nothing recognisable) gives status "failed", an empty "metrics" object
 * (never zeros) and the reason in "errors". "errors" of an "ok" document
 * names what was left out (e.g. perf's `<not supported>` events, a last
 * line without its newline, which line-based tools ignore as possibly
 * truncated); at most 50 such notes are kept, then one counts the rest.
 *
 * Returns NULL and fills e (ERR_INVALID_FIELD, detail "tool")
 * only when TOOL is not in the registry.
 */
json_t *parse_output(const char *tool, const char *text, size_t len, struct err *e);

/*
 * kv output of a program the caller trusts to print only "key: value"
 * lines (the worker running our own cases): parse_output("kv", ...)
 * without the "# kv" first line that the `kv` tool needs. Returns a new
 * document (caller json_decref()s), shaped as parse_output's.
 */
json_t *parse_output_kv_trusted(const char *text, size_t len);

/*
 * The same parse for large inputs, without copying them and without a
 * JSON value per number (50 MB of output can hold millions): text is
 * writable, len bytes plus text[len] == '\0', and is modified (lines are
 * split in place; borrowed for the call only). Returns a new result
 * (caller frees with parse_result_free()), or NULL and fills e as
 * parse_output() for an unknown tool.
 */
struct parse_result;
struct parse_result *parse_run(const char *tool, char *text, size_t len, struct err *e)
	__attribute__((warn_unused_result));

/* What the output itself may not say (regtrack parse's flags). */
struct parse_opts {
	/*
	 * will-it-scale: the task count of a raw binary's run whose command
	 * line ("./mmap2_processes -t 16 ...") is not in the text; 0: the
	 * binary's default, 1. A command line in the text still says its own.
	 */
	long tasks;
};
/* 1 when r's status is "failed" (the output is no measurement), else 0. */
int parse_result_failed(const struct parse_result *r);
/* parse_run() with opts (NULL: none); the same returns and errors. */
struct parse_result *parse_run_opts(const char *tool, char *text, size_t len,
				    const struct parse_opts *opts, struct err *e)
	__attribute__((warn_unused_result));
/* The document of parse_output() for r (borrowed): new, caller
 * json_decref()s; it shares nothing with r. */
json_t *parse_result_json(const struct parse_result *r);
/* Writes that document to f as json_dumpf(doc, f, JSON_INDENT(2) |
 * JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) would (the same bytes, no
 * newline after it), one value at a time. Returns 0, or -1 on a write
 * error. */
int parse_result_write(const struct parse_result *r, FILE *f) __attribute__((warn_unused_result));
/* Frees r and everything in it; NULL is a no-op. */
void parse_result_free(struct parse_result *r);

/* NULL-terminated list of tool names in the registry (static storage), for
 * usage messages. */
const char *const *parse_tools(void);

#endif
