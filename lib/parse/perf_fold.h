#ifndef REGTRACK_PERF_FOLD_H
#define REGTRACK_PERF_FOLD_H

/*
 * perf_fold: `perf script` output of a `perf record -g` to Brendan Gregg's
 * folded stacks (the format of FlameGraph's stackcollapse-perf.pl), and
 * folded stacks to per-symbol percentages as LKP names them.
 *
 * Libc only (with lib/xalloc.c and lib/buf.c): the guest /init links it to
 * fold inside the booted kernel, the worker and the unit tests on the host.
 *
 * Folded text: one line per distinct stack, "COMM;ROOT;...;LEAF N\n", the
 * frames root first (perf script prints them leaf first), N the number of
 * samples with exactly that stack; lines sorted by their bytes (so the same
 * samples always give the same text). COMM is the task's comm with spaces
 * written '_'; a frame is perf's symbol name without its "+0xOFF", or
 * "[unknown]" when perf could not name it (and the user symbols, below, do
 * not either); ';' inside a name is written ':' and white space '_', so
 * every line splits on ';' and on its last space.
 */

#include <stddef.h>

/* perf record's event the worker samples with, and the profile's "event". */
#define PERF_FOLD_EVENT "cpu-clock"

/* The result document's bound on profile.folded (RESULTDOC_MAX_PROFILE_BYTES). */
#define PERF_FOLD_MAX_BYTES (4u << 20)

struct perf_fold_result {
	char *folded;		   /* new, NUL-terminated; caller frees with free() */
	size_t len;		   /* strlen(folded), <= the bound asked for */
	long long samples;	   /* samples read (every sample, kept or not) */
	long long stacks;	   /* distinct stacks read */
	long long dropped;	   /* distinct stacks folded into "[other]" lines */
	long long dropped_samples; /* their samples */
	long long frames_named;	   /* frames named from the user symbols */
	long long frames_unknown;  /* frames left "[unknown]" */
};

/*
 * User symbols: names for the user frames perf itself leaves "[unknown]".
 * The guest's static perf has no ELF reader, so it names kernel frames
 * (from /proc/kallsyms) but no frame of the case's binary; the worker reads
 * the binaries' ELF symbol tables on the host (worker/usersyms.h) and puts
 * this table in the initramfs. Text, one entry a line:
 *	dso PATH          the lines after it are functions of PATH (perf's dso
 *	                  name: the path the binary was mapped from, "/cases/NAME")
 *	OFF SIZE NAME     a function at file offset OFF (hex, no 0x) of SIZE
 *	                  bytes (hex), named NAME
 * Offsets, not addresses: for a frame in a mapped file perf script prints
 * the ip as an offset into that file (ip - map start + map pgoff), for
 * ET_EXEC and ET_DYN (PIE) binaries alike. Other lines are skipped.
 */
struct perf_fold_sym {
	const char *dso, *name; /* borrowed from the table's text */
	size_t dsolen, namelen;
	unsigned long long off, size;
};

struct perf_fold_syms {
	char *text;		 /* owned copy of the table's text */
	struct perf_fold_sym *v; /* n entries sorted by dso bytes, then off */
	size_t n, alloc;
};

/* Reads table text[0..len) (copied) into s, which it initializes; entries
 * of size 0 and lines that do not parse are skipped. Release with
 * perf_fold_syms_release(). */
void perf_fold_syms_parse(struct perf_fold_syms *s, const char *text, size_t len);

/* Frees s's text and entries and zeroes s. */
void perf_fold_syms_release(struct perf_fold_syms *s);

/* The function of dso[0..dsolen) holding file offset off: its entry
 * (borrowed from s), or NULL when none does (s may be NULL). */
const struct perf_fold_sym *perf_fold_syms_find(const struct perf_fold_syms *s, const char *dso,
						size_t dsolen, unsigned long long off);

/*
 * Folds `perf script` output text[0..len) (need not be NUL-terminated).
 * Understands perf's default fields and `-F comm,tid,ip,sym[,dso]` (any field set
 * that starts a sample with "COMM PID" or "COMM PID/TID" on an unindented
 * line and prints one indented "ADDR SYM[+0xOFF] [(DSO)]" line per frame;
 * a sample ends at a blank line or the next sample's line). A sample
 * without frames (recorded without -g) is the stack "COMM". Lines perf
 * prints around the samples (warnings) and lines starting with '#' are
 * skipped.
 *
 * User frames: a frame perf printed as "ADDR [unknown] (DSO)" with a dso
 * that syms (may be NULL) has is named from syms by ADDR, perf's offset
 * into DSO (run perf script with the dso field, `-F comm,tid,ip,sym,dso`);
 * a frame no entry holds stays "[unknown]". syms is borrowed for the call;
 * r->frames_named and r->frames_unknown count the frames either way.
 *
 * Bound: when the folded text would be longer than max_bytes, the stacks
 * with the most samples are kept (ties: in byte order), and the samples of
 * the others are counted in one line per comm, "COMM;[other] N" (one
 * "[other];[other] N" line when even those would not fit), so the sample
 * total is kept and every line still parses. max_bytes below 64 is taken as
 * 64. Returns 0 with r filled (r->folded is "" for no samples).
 */
int perf_fold_script(const char *text, size_t len, size_t max_bytes,
		     const struct perf_fold_syms *syms, struct perf_fold_result *r);

/* Frees r->folded and zeroes r. */
void perf_fold_result_release(struct perf_fold_result *r);

/*
 * The length of symbol s[0..n) without perf's compiler suffixes: it is cut
 * at the first .isra.N, .constprop.N, .part.N or .cold (demo_delay.constprop.0
 * and demo_delay are one function: GCC's clone of it). The one rule for the
 * perf-profile.* metrics (perf_fold_symbols) and the profile diff's symbols
 * (lib/profdiff.c), so the two always name a symbol alike.
 */
size_t perf_fold_sym_len(const char *s, size_t n);

/*
 * Per-symbol shares of folded text[0..len): for every symbol (the frames
 * after the comm; "[unknown]" and "[other]" are no symbol), children = the
 * percent of all samples whose stack holds it at least once (recursion
 * counted once), self = the percent of all samples whose stack ends in it.
 * Symbols have perf's compiler suffixes .isra.N, .constprop.N, .part.N and
 * .cold stripped (entries that become the same name are one symbol), as
 * lib/parse/perf_profile.c does for LKP's names. fn is called once per
 * symbol whose children or self share is at least min_pct, in byte order
 * of the name, with both shares (either may be below min_pct); sym is
 * borrowed for the call. Malformed lines (no count) are skipped. Returns
 * the number of samples read (0: fn never called).
 */
long long perf_fold_symbols(const char *text, size_t len, double min_pct,
			    void (*fn)(void *ctx, const char *sym, double children_pct,
				       double self_pct),
			    void *ctx);

#endif
