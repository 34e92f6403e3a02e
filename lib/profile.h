#ifndef REGTRACK_PROFILE_H
#define REGTRACK_PROFILE_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"

/*
 * Profiles: the monitors a job runs beside its case, the folded
 * stacks perf-profile records, and the per-symbol difference of two sets
 * of profiled runs. Pure code, shared by the server (ingest, the API) and
 * lib/resultdoc.c; no I/O.
 *
 * Monitors, as LKP names them: "perf-profile" and "perf-stat". A set of
 * monitors is kept as text, the names sorted and deduplicated, joined by
 * ',' ("" = none, "perf-profile", "perf-profile,perf-stat", "perf-stat"):
 * the form of setups.monitors and jobs.monitors (sql/0018), so equal sets
 * are equal strings.
 *
 * Folded stacks (Brendan Gregg's stackcollapse format, what `perf script
 * | stackcollapse-perf.pl` and the worker write): one line per distinct
 * stack, frames root-first separated by ';', one space, the sample count.
 * A frame may hold spaces (the count is after the line's last space).
 */

/* Longest monitors text, NUL included ("perf-profile,perf-stat" is 23). */
#define MONITORS_TEXT_MAX 32

/*
 * Normalizes a JSON monitors value (an array of "perf-profile" /
 * "perf-stat"; absent (NULL), null and [] mean none) into out: the sorted,
 * deduplicated names joined by ','. Errors (-1, e: 400 invalid_field):
 * not an array (detail `field`), an element not one of the two names
 * (detail "field[i]"). field names the value in the error ("monitors",
 * "testcases[2].monitors").
 */
int monitors_from_json(json_t *v, const char *field, char out[MONITORS_TEXT_MAX], struct err *e)
	__attribute__((warn_unused_result));

/*
 * The same from a query argument: names separated by ',' ("perf-stat,
 * perf-profile" in any order, repeats allowed); "none" (or "") = no
 * monitors (an empty argument is an absent one to the server's rq_arg(),
 * so "unprofiled only" is spelled none). Errors: 400 invalid_field,
 * detail `field`.
 */
int monitors_from_text(const char *arg, const char *field, char out[MONITORS_TEXT_MAX],
		       struct err *e) __attribute__((warn_unused_result));

/* The normalized text as a JSON array of names (new reference; [] for ""). */
json_t *monitors_json(const char *text);

/* 1 when the normalized text names monitor `name`. */
int monitors_has(const char *text, const char *name);

/*
 * Checks folded text[0..len): every line "FRAMES COUNT" with FRAMES one or
 * more non-empty frames separated by ';' (no control characters), COUNT
 * a decimal integer in [1, 10^15] after the last space; lines end with
 * '\n' (the last one may not); no empty line. "" is a profile without
 * samples. On success *samples = the sum of the counts. Errors (-1, e:
 * 400 invalid_field, detail `field`, message "line N: ...").
 */
int folded_check(const char *text, size_t len, const char *field, long long *samples, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Calls fn(ctx, frames, frames_len, count) for each line of folded text,
 * checked as folded_check() does (fn NULL: only checks); fn returning
 * nonzero stops with 400 "line N: too many frames". *samples (may be NULL)
 * = the sum of the counts. 0, or -1 with e.
 */
typedef int (*folded_line_fn)(void *ctx, const char *frames, size_t n, long long count);
int folded_each_line(const char *text, size_t len, const char *field, folded_line_fn fn, void *ctx,
		     long long *samples, struct err *e) __attribute__((warn_unused_result));

/*
 * The metrics that count a run's work, as a rate (operations, KB or execs
 * per second), one per testcase, separated by ' ': a run's work is the
 * mean of the first of them it has (by name) times its setup's `runtime`
 * param in seconds (1, the cases' default, when it has none), i.e. the
 * operations (KB, execs) it did in the measured phase (lib/profdiff.c).
 */
#define PROFILE_WORK_METRICS                                                                   \
	"small-allocs.throughput execl.lps page-fault.total_ops_per_sec hackbench.throughput " \
	"vm-scalability.throughput"

/*
 * The profile diff (lib/profdiff.c, which needs lib/stats; the rest of
 * this header is lib/profile.c, which lib/resultdoc.c links alone).
 *
 * One symbol of a profile diff. Percentages are of all samples of a side;
 * "per work" figures are samples per unit of work (see struct profdiff). */
struct profdiff_symbol {
	const char *symbol;	  /* borrowed from the profdiff */
	double base_children_pct; /* samples whose stack holds the symbol (once a stack) */
	double head_children_pct;
	double children_change; /* head - base, percentage points */
	double base_self_pct;	/* samples whose leaf (last frame) it is */
	double head_self_pct;
	double self_change;
	/* children samples / work of the side (NAN without per_work) */
	double base_children_per_work;
	double head_children_per_work;
	double per_work_change_pct; /* 100 * (head / base - 1); NAN: no per_work, or base 0 */
	double p_share;		    /* Mann-Whitney p of the runs' children %; NAN: not tested */
	double p_per_work;	    /* of the runs' children samples per work; NAN: not tested */
	double p;		    /* the one significance comes from: p_per_work with per_work */
	int significant;	    /* p <= alpha */
	const char *verdict; /* "different" (significant), "same", "need-more-runs" (static) */
};

struct profdiff_side {
	size_t runs;	   /* runs added with at least one sample */
	long long samples; /* their samples, summed */
	double work;	   /* their work, summed (NAN when a run had none) */
	char *folded;	   /* the runs merged (counts summed, stacks sorted); with want_folded */
	size_t stacks;	   /* distinct stacks merged (with want_folded), before any trim */
};

/*
 * The line a trimmed folded text (profdiff_set_top()) ends its kept
 * stacks with: the samples of every stack left out, as one root frame.
 */
#define PROFDIFF_OTHER_STACKS "[other stacks]"

/*
 * The difference of two sets of runs' profiles, base and head. Each side's
 * runs are merged (counts of equal stacks summed); a symbol's children %
 * on a side is 100 * (samples whose stack contains it, counted once per
 * stack) / (all samples of the side), its self % 100 * (samples whose leaf
 * it is) / (all samples): perf report --children's Children and Self
 * columns over the merged samples.
 *
 * Significance: for each symbol listed, the two-sided Mann-Whitney test
 * (lib/stats/ranktest.h, exact with ties up to RANKTEST_EXACT_MAX runs)
 * of the per-run children % of base against head (each run one sample; a
 * run without the symbol counts 0 %); significant when p <= alpha. When
 * the sizes alone cannot reach alpha (ranktest_min_p(base runs, head runs)
 * > alpha: fewer than 5 runs a side at alpha 0.01) status is
 * "need-more-runs" and no symbol is tested (p NAN, significant 0). Each
 * symbol is tested on its own (no correction for the many symbols: the
 * list is read as a ranking by size, p tells which sizes the runs agree
 * on).
 *
 * Per work: a share grows when the others' work shrinks (a patch that
 * removes work makes every other symbol's % larger, with p as small as
 * the runs allow), so each run may come with its work W (operations, see
 * PROFILE_WORK_METRICS). A symbol's figure on a side is
 *
 *	children samples of the side's runs / W of the side's runs
 *
 * samples per operation: with cpu-clock (a tick of the CPU's time, guest
 * time in icount mode, where it counts instructions) the time the symbol
 * takes per operation. When every run of both sides has its work
 * (per_work 1), the test is of the per-run figures (children samples / W
 * of each run) and significance comes from it (p = p_per_work); else from
 * the shares (p = p_share), as without work.
 */
struct profdiff {
	struct profdiff_side base, head;
	int per_work; /* every run of both sides had its work: significance per work */
	struct profdiff_symbol *symbols; /* after profdiff_finish: sorted, at most limit */
	size_t nr_symbols;		 /* listed */
	size_t nr_all;			 /* symbols seen on either side */
	double alpha, min_p;		 /* min_p: ranktest_min_p of the runs */
	const char *status;		 /* "ok" or "need-more-runs" (static) */
	struct profdiff_state *st_;	 /* the tables being built */
};

/* Starts an empty diff; want_folded: keep each side's merged folded text. */
void profdiff_init(struct profdiff *d, int want_folded);

/*
 * Trims each side's merged folded text (want_folded) to its largest
 * stacks: the stacks by samples descending (ties by the stack's text)
 * while at most max_stacks of them and max_bytes of their lines (the
 * first stack is kept whatever its size), in text order, then one line
 * "PROFDIFF_OTHER_STACKS N" with the samples of all the others (left out
 * when none is). A side's samples and every symbol's figures stay those
 * of all its stacks: only the text is cut. Call before profdiff_finish().
 */
void profdiff_set_top(struct profdiff *d, size_t max_stacks, size_t max_bytes);

/*
 * Adds one run's folded text[0..len) (borrowed for the call) to side
 * head (1) or base (0), with the run's work (> 0; 0 or NAN: unknown). A
 * run without samples changes nothing. Errors (-1, e): the text is not
 * folded (folded_check's 400, field "folded"); d is unchanged then.
 */
int profdiff_add_run(struct profdiff *d, int head, const char *text, size_t len, double work,
		     struct err *e) __attribute__((warn_unused_result));

/*
 * Computes the symbols: sorted by |children_change| descending (sizes
 * equal to 10^-9 percentage points are ties; then
 * |self_change| descending, then name), the first `limit` kept, each
 * tested as above at alpha; side.folded filled when asked. Call once.
 */
void profdiff_finish(struct profdiff *d, double alpha, size_t limit);

/* Frees everything d holds (symbols, folded texts, tables). */
void profdiff_release(struct profdiff *d);

#endif
