#ifndef REGTRACK_WORKER_MONITORS_H
#define REGTRACK_WORKER_MONITORS_H

/*
 * Monitors: perf around a job's case, as LKP's monitors name
 * them, "perf-profile" (perf record -a -g -e cpu-clock, folded stacks and
 * per-symbol shares) and "perf-stat" (perf stat -a counts). The guest's
 * side is worker/init/init.c; host mode runs the host's perf the same way
 * (worker/hostrun.h); this module is the worker's side of both: which
 * monitors a job asks for, and what a run's result document gets from
 * them.
 */

#include <stddef.h>
#include <jansson.h>

#include "err.h"

#define MONITOR_PERF_PROFILE 1u
#define MONITOR_PERF_STAT 2u

/*
 * The floor of the perf-profile metrics: a symbol gets its
 * perf-profile.children.cycles-pp.SYM metric when its children share is at
 * least this percent of the run's samples, and its .self. metric when its
 * self share is (LKP's own floor is 0.05 %; 0.5 % keeps a run to at most
 * 200 names per column, enough for the symbols a change moves; the folded
 * stacks keep everything, and a profile diff reads those).
 */
#define PROFILE_MIN_PCT 0.5

/*
 * The job's "monitors" (JSON array of "perf-profile" / "perf-stat",
 * repeats allowed; NULL, JSON null or [] = none) as a mask of MONITOR_*.
 * Returns 0, or -1 with e filled (ERR_INVALID_JOB, detail "monitors" or "monitors[i]",
 * lib/profile.h's check) for anything else.
 */
int monitors_parse(const json_t *monitors, unsigned *mask, struct err *e)
	__attribute__((warn_unused_result));

/* The monitors of mask as a new JSON array, sorted by name (lib/profile.h's monitors_json). */
json_t *monitors_mask_json(unsigned mask);

/*
 * What one run's monitors gave, into its run object (borrowed, changed in
 * place), as the result document names it (lib/resultdoc, BRIEF contract):
 *   "monitors": [...]                      monitors_mask_json(mask)
 *   "profile": {"event": "cpu-clock", "samples": N, "folded": TEXT}
 *                                          when perf-profile ran
 *   metrics "perf-profile.children.cycles-pp.SYM",
 *           "perf-profile.self.cycles-pp.SYM"  (percent of the samples,
 *           one value; shares of PROFILE_MIN_PCT or more, see above; the
 *           "cycles-pp" is LKP's name for the profile's column whatever
 *           the event, so the robot's rows and ours line up)
 *   metrics "perf-stat.*" from lib/parse/perf_stat.c on stat_text
 * folded/stat_text: borrowed, NULL when that monitor gave nothing (then
 * nothing of it is added: a profile of no samples is no profile, and
 * counts perf did not print are not zeros). samples is recounted from the
 * folded text. Returns 0, or -1 with e filled
 * (ERR_TOO_LARGE, detail "profile.folded") when the folded text is longer
 * than PERF_FOLD_MAX_BYTES: nothing is added then.
 */
int profile_fill_run(json_t *run, unsigned mask, const char *folded, size_t folded_len,
		     const char *stat_text, size_t stat_len, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The guest's monitor blocks in a serial log (init.c's header): on return
 * *folded / *stat are new NUL-terminated texts (caller frees with free()),
 * or NULL when the block is missing; the "rt| " prefixes and '\r's are
 * removed.
 */
void profile_from_serial(const char *log, char **folded, size_t *folded_len, char **stat,
			 size_t *stat_len);

/*
 * Host mode's perf layers (the same as the guest's, worker/init/init.c):
 * the words before the case's argv,
 *	PERF record -q -a -g -e cpu-clock -B -o DIR/perf.data -D -1
 *	     --control fd:C,A --
 *	PERF stat -a -o DIR/perf-stat.txt -D -1 --control fd:C,A --
 * (each only when its monitor is asked), the control pipes they need
 * (inherited by the child: no FD_CLOEXEC) and the case's
 * REGTRACK_PERF_CTL entry (worker/cases/casecommon.h). perf stat's default
 * events: the software ones everywhere, and cycles, instructions, branches
 * and branch-misses where the host has a PMU.
 */
struct perf_wrap {
	const char *argv[48]; /* NULL-terminated prefix; strings borrowed or in hold */
	int n;
	char *hold[8];
	int nhold;
	int fds[8]; /* every pipe end, closed by perf_wrap_release */
	int nfds;
	const char *env[2];	     /* {"REGTRACK_PERF_CTL=...", NULL} */
	char *data_path, *stat_path; /* new: DIR/perf.data, DIR/perf-stat.txt */
};

/*
 * Fills w for mask (not 0) with perf at `perf` (a path or a name in PATH)
 * and its files under dir. Returns 0, or -1 with e filled (ERR_IO: no
 * pipe). Release with perf_wrap_release in both cases.
 */
int perf_wrap_init(struct perf_wrap *w, const char *perf, unsigned mask, const char *dir,
		   struct err *e) __attribute__((warn_unused_result));
void perf_wrap_release(struct perf_wrap *w);

#endif
