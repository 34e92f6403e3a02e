#ifndef REGTRACK_RUNLOGS_H
#define REGTRACK_RUNLOGS_H

#include "attr.h"
#include "err.h"

/*
 * The logs a worker keeps of its runs, one file a run in the run directory
 * of its build (WORK_DIR/run/TREE-KCONFIG: "serial-JOB-RUN.log", what the
 * qemu console printed) or of host mode (WORK_DIR/run/host:
 * "run-JOB-RUN.log", what the case printed). Only the newest are kept
 * (config keep_logs): a long-lived worker would otherwise fill its disk.
 */

/*
 * Deletes all but the newest `keep` logs named PREFIX-JOB-RUN.log in dir
 * (JOB and RUN decimal numbers), newest by job id, then run number (not by
 * mtime: one job's runs end within the same second). keep <= 0 keeps every
 * log. Other files, and names that only look alike ("serial-1-x.log"), are
 * left alone. dir and prefix are borrowed.
 *
 * Returns the number of logs deleted (0 or more), or -1 with e filled:
 * ERR_IO when dir cannot be read or a log cannot be removed (the logs before
 * it in age order are gone then).
 */
int runlogs_prune(const char *dir, const char *prefix, int keep, struct err *e) WARN_UNUSED_RESULT;

#endif
