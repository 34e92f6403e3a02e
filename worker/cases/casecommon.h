/*
 * casecommon: what every benchmark case in worker/cases/ shares.
 *
 * A case is a small static program run inside the worker's initramfs (or on
 * the host).  It takes LKP-style parameters as `key=value` arguments, prints
 * its results as `key: value` lines on stdout and nothing else there;
 * diagnostics go to stderr.  Exit status 0 means every printed value is a
 * real measurement; on failure a case prints a message to stderr and exits
 * with status 1 (2 for a bad parameter).
 *
 * These helpers are linked into every case (Makefile: casecommon.c is
 * compiled with each worker/cases/NAME.c).  They are program support code,
 * not library code: case_fatal() exits the program.
 */
#ifndef CASECOMMON_H
#define CASECOMMON_H

#include <stddef.h>
#include <stdint.h>

/* --- parameters ---------------------------------------------------------- */

enum case_param_type {
	CASE_PARAM_INT,	     /* decimal integer in [min, max] -> ival */
	CASE_PARAM_DOUBLE,   /* finite decimal real in [min, max] -> dval */
	CASE_PARAM_CHOICE,   /* one word of choices "a|b|c" -> sval, ival = its index */
	CASE_PARAM_TASKS,    /* "N" tasks, or "P%" of the online CPUs (rounded down,
			      * at least 1), as LKP's nr_task -> ival in [min, max] */
	CASE_PARAM_STRING,   /* any text of 1..max bytes (a path, ...) -> sval */
	CASE_PARAM_DURATION, /* "N", "Ns", "Nm" or "Nh" (N a decimal, as stress-ng's
			      * --timeout) -> dval seconds in [min, max] */
};

/*
 * One row of a case's parameter table.  The case declares a static array of
 * these, indexed by its own enum, and case_params_parse() fills the result
 * fields.  Strings are borrowed: name/def/choices/help are string literals,
 * sval points into argv or at def.
 */
struct case_param {
	const char *name;
	enum case_param_type type;
	const char *def;     /* default, parsed like a command-line value; never NULL */
	double min, max;     /* bounds for INT, DOUBLE and TASKS (inclusive); STRING: max length */
	const char *choices; /* CHOICE only: '|'-separated words */
	const char *help;    /* one line for the usage text, with the unit */

	/* filled by case_params_parse() */
	int set; /* 1 when the value came from argv */
	long ival;
	double dval;	  /* also set for INT and TASKS (same value as ival) */
	const char *sval; /* the value's text */
};

/*
 * Set the case's name (used as the prefix of every stderr message) and parse
 * argv[1..argc-1] as `key=value` words against params[0..n-1].  Each key may
 * appear once; unknown keys, missing '=', values that do not parse fully, and
 * values out of bounds print a message plus the usage text to stderr and exit
 * with status 2.  `-h`/`--help` prints the usage to stderr and exits 0.
 * `--params-json` alone prints the table on stdout as one JSON object,
 * {"NAME": {"type": "int|double|choice|tasks|string", "default": TEXT,
 * "min": N, "max": N (not for choice) | "choices": "a|b", "help": TEXT}},
 * and exits 0: the worker registers it with the server (worker/caselist.c),
 * which refuses jobs naming a parameter no case has.
 * Defaults are applied for keys not given.
 */
void case_params_parse(const char *case_name, const char *summary, struct case_param *params,
		       size_t n, int argc, char **argv);

/* --- messages ------------------------------------------------------------ */

/* "NAME: message\n" on stderr, then exit(1).  printf-style. */
void case_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* "NAME: message\n" on stderr (a diagnostic, the run goes on). */
void case_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --- output -------------------------------------------------------------- */

/*
 * Print "key: value\n" on stdout and flush.  value must be finite (a
 * non-finite value is a bug in the case: case_fatal).  Values are printed as
 * plain decimals without exponent, with about 9 significant digits.
 */
void case_emit(const char *key, double value);

/* --- time and machine ---------------------------------------------------- */

/* CLOCK_MONOTONIC now, in nanoseconds. */
uint64_t case_now_ns(void);

/* Sleep for sec seconds (>= 0), resuming after signals. */
void case_sleep(double sec);

/* Number of CPUs this process may run on (sched_getaffinity; needs no /proc), >= 1. */
int case_nr_cpus(void);

/*
 * The first and the last CPU this process may run on (sched_getaffinity), or
 * both -1 when it may run on only one CPU (or the call fails).
 */
void case_cpu_first_last(int *first, int *last);

/* Pin the calling thread to cpu; cpu < 0: do nothing.  A failure is noted, not fatal. */
void case_pin(int cpu);

/* Page size in bytes. */
size_t case_page_size(void);

/*
 * Free RAM in bytes as sysinfo(2) reports it (freeram + bufferram, times
 * mem_unit); needs no /proc.  0 when sysinfo fails.
 */
uint64_t case_free_ram(void);

/* --- memory -------------------------------------------------------------- */

/*
 * size bytes of zeroed memory shared between the parent and every task,
 * process or thread (MAP_SHARED | MAP_ANONYMOUS).  Fatal on failure; it
 * lives until the program exits.
 */
void *case_shared_alloc(size_t size);

/* --- statistics ---------------------------------------------------------- */

/* Median of v[0..n-1] (n >= 1); sorts v in place.  Even n: mean of the middle two. */
double case_median(double *v, size_t n);

/* --- tasks --------------------------------------------------------------- */

/*
 * Run nr copies of fn, as processes (fork) or threads (pthread), with a start
 * gate so that the measured part of every task starts together.
 *
 * Protocol: each task sets itself up (warm-up included), then calls
 * case_task_ready(); the parent's case_tasks_start() returns once every task
 * is ready, the parent starts its clock and calls case_tasks_go(), and the
 * tasks' case_task_ready() calls return 0.  If any task failed (returned
 * non-zero or died) before it was ready, case_tasks_start() returns -1 after
 * releasing the others with case_task_ready() returning -1 (they should
 * return at once); call case_tasks_join() in both cases.
 *
 * fn(idx, arg) gets idx in [0, nr) and arg unchanged; it returns 0 on success
 * and non-zero on failure (after a case_note() saying why).  In process mode
 * a task's memory is its own: results go through case_shared_alloc() memory.
 * Process-mode tasks die with the parent (PR_SET_PDEATHSIG).  Only one group
 * of tasks may be running at a time.
 */
int case_tasks_start(int nr, int threads, int (*fn)(int idx, void *arg), void *arg);
int case_task_ready(void);
void case_tasks_go(void);

/* Wait for every task; 0 when all returned 0, else -1 (with a note per failed task). */
int case_tasks_join(void);

/* --- real tools (tool cases: stress-ng, hackbench, ...) ------------------ */

/*
 * Run argv (argv[0] looked up in PATH, this very program skipped: the
 * guest's PATH has the tool case of the same name in /cases before
 * /usr/bin, where the worker puts the tool's root tree; the host's PATH in
 * host mode), its
 * output to stderr in 4 KiB, and print its first non-empty line on stderr
 * as "regtrack-tool: TOOL LINE", which the worker records as the run's
 * tools.TOOL (worker/tools.h). For the tool's version: `stress-ng
 * --version`. A tool that cannot be run is fatal (exit 1).
 */
void case_tool_version(const char *tool, char *const argv[]);

/*
 * Run the tool (argv as above) with its stdout and stderr both on the
 * case's stdout (the worker parses the text with the tool's parser), as the
 * measured phase (case_measure_begin/_end around it), and wait for it.
 * Returns its exit status, 1 when it was killed by a signal (noted) or
 * could not be run (127 from the child: noted).
 */
int case_tool_exec(char *const argv[]);

/* --- the measured phase, for perf ---------------------------------------- */

/*
 * Mark the start and the end of the measured phase for the monitors that
 * run around the case: the guest /init, or the worker in host
 * mode, starts `perf record` and `perf stat` with their events disabled
 * (-D -1) and hands each one's control pipes (`--control fd:CTL,ACK`) to the
 * case as REGTRACK_PERF_CTL="CTL,ACK[;CTL,ACK]" (inherited fd numbers).
 * case_measure_begin() writes "enable" to every CTL and waits for perf's
 * "ack" on its ACK, so the events count from the first measured
 * instruction on; case_measure_end() writes "disable" likewise. Without
 * REGTRACK_PERF_CTL both do nothing (no monitor: the case is unchanged).
 * Calls nest by pairs only: begin after begin is a no-op until the end.
 * case_tasks_go() and case_tasks_join() call them (a gated group of tasks
 * is the measured phase); a case without tasks calls them itself.
 * A perf that does not answer is noted and then left alone (the case
 * runs on unprofiled rather than hanging).
 */
void case_measure_begin(void);
void case_measure_end(void);

#endif
