#ifndef REGTRACK_PARSE_H
#define REGTRACK_PARSE_H

/*
 * Parsers of real benchmark and monitor output (issue 4). Each tool is a
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

#include <jansson.h>

#include "err.h"

/*
 * Parses the output of TOOL (text, len bytes, need not be NUL-terminated;
 * NUL bytes inside are read as spaces). Returns a new JSON object (caller
 * json_decref()s) shaped
 *   {"tool": TOOL, "status": "ok"|"failed",
 *    "metrics": {"NAME": [v, ...]}, "errors": ["...", ...]}
 * A failed run (an assertion message instead of numbers, a truncated file,
 * nothing recognisable) gives status "failed", an empty "metrics" object
 * (never zeros) and the reason in "errors". "errors" of an "ok" document
 * names what was left out (e.g. perf's `<not supported>` events, a last
 * line without its newline, which line-based tools ignore as possibly
 * truncated).
 *
 * Returns NULL and fills e (status 400, code "unknown_tool", detail "tool")
 * only when TOOL is not in the registry.
 */
json_t *parse_output(const char *tool, const char *text, size_t len, struct err *e);

/* NULL-terminated list of tool names in the registry (static storage), for
 * usage messages. */
const char *const *parse_tools(void);

#endif
