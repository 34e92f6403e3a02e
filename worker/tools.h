#ifndef REGTRACK_WORKER_TOOLS_H
#define REGTRACK_WORKER_TOOLS_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"
#include "worker/initramfs.h"

/*
 * Tool cases: cases that run a real benchmark tool (stress-ng, hackbench,
 * ...) rather than measuring by themselves (README "Benchmark tools").
 * The case binary (worker/cases/NAME.c) checks the params against its
 * table, as every case does, and runs the tool with its output on stdout;
 * this table says, per such case, which parser of lib/parse reads that
 * output (its metric names are LKP's, prefixed by the tool: stress-ng.S.ops)
 * and which root tree of CASES_DIR/tools/ARCH/ (deploy/fetch-tools: the
 * tool's binary, its shared libraries and its loader) the initramfs needs.
 * A testcase not in the table is a built-in case: "key: value" lines.
 */
struct tool_case {
	const char *testcase; /* the case's name, bin/cases/ARCH/TESTCASE */
	const char *parser;   /* lib/parse tool name (parse_output) */
	const char *root;     /* CASES_DIR/tools/ARCH/ROOT, NULL: none */
	/* the tool is the tree's own perf (perf-bench): the worker builds the
	 * static perf of tools/perf and puts it in the initramfs as /bin/perf,
	 * as for a profiled job; in host mode, the host's perf */
	int tree_perf;
};

/* The tool case named testcase (borrowed, static), or NULL for a built-in case. */
const struct tool_case *tools_case(const char *testcase);

/*
 * Adds the tool's root tree CASES_DIR/tools/ARCH/ROOT to ir (nothing
 * for a tool without a root, the tree's perf: 0): its
 * directories, regular files (mode kept) and symlinks, in sorted order
 * (the same tree gives the same archive), all but the top VERSION file.
 * Returns 0, or -1 with e filled (ERR_IO, the root in detail: missing
 * root, "run deploy/fetch-tools"; an unreadable file; the path in detail:
 * a directory with more than 1024 entries or more than 16 levels below
 * the root, the message naming the limit: a tree cut short would be a
 * different archive by readdir's order). Inputs borrowed; on error ir
 * holds part of the tree.
 */
int tools_add_root(struct initramfs *ir, const char *cases_dir, const char *arch,
		   const struct tool_case *t, struct err *e) __attribute__((warn_unused_result));

/*
 * The versions the tool cases printed in log (len bytes: a serial log or a
 * case's stderr), from lines "regtrack-tool: TOOL TEXT" (casecommon.h's
 * case_tool_version, anywhere on the line: the console may prefix it),
 * as a new object {"TOOL": "TEXT"} (TEXT without trailing blanks, at most
 * 200 bytes); NULL when the log has none.
 */
json_t *tools_versions(const char *log, size_t len);

/*
 * The run's metrics from a tool case's output (text, len bytes) by the
 * case's parser: a new object {"NAME": [v, ...]} of the finite values, or
 * NULL when the parser found the run failed or no metric.
 */
json_t *tools_metrics(const struct tool_case *t, const char *text, size_t len);

#endif
