#ifndef REGTRACK_WORKER_REPRODUCE_H
#define REGTRACK_WORKER_REPRODUCE_H

#include <jansson.h>

#include "err.h"

/*
 * `regtrack-worker reproduce`: one data point of a
 * report on a developer's own machine, with no server and no token:
 *
 *   regtrack-worker reproduce --kconfig K --testcase T [--params k=v,...]
 *       [--measure wallclock|icount] [--arch x86_64|aarch64] [--commit SHA]
 *       [--patches FILE.mbox] [--repeat N] [--compiler gcc-12]
 *       [--work-dir DIR] [--cases-dir DIR] [--jobs N] [--json]
 *
 * run inside a kernel tree (the current directory's git top level is the
 * tree; --commit defaults to its HEAD, resolved there). The same engine as
 * a leased job (worker/execute.h job_execute): mirror and worktree under
 * the work dir (default $XDG_CACHE_HOME/regtrack-reproduce, else
 * ~/.cache/regtrack-reproduce), build, boot under qemu (kconfig "host":
 * the running kernel), `repeat` runs, then the metrics table on stdout:
 * per metric the runs, mean, %stddev, min and max of the run means, and
 * the values. --json prints the outcome as JSON instead. Phases go to
 * stderr as they start.
 *
 * Exit status: 0 every run ok, 1 a build, boot, run or apply failure (the
 * log tail on stderr) or an internal error, 2 usage.
 */
int reproduce_main(int argc, char **argv);

/*
 * Pure: "k=v,k2=v2" -> a new JSON object (NULL with e on "k" without '=',
 * an empty key, or a key given twice: ERR_INVALID_FIELD, detail "params").
 * A value that is a whole decimal number becomes a JSON number (as the
 * service's params), any other a string. "" -> {}.
 */
json_t *reproduce_parse_params(const char *s, struct err *e);

/*
 * Pure: the metrics table of runs (job_outcome.runs: each {"metrics":
 * {NAME: [iterations...]}}), one line per metric in name order, appended to
 * a new string (free()).
 */
char *reproduce_table(json_t *runs);

#endif
