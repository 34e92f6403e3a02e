#ifndef REGTRACK_WORKER_CASELIST_H
#define REGTRACK_WORKER_CASELIST_H

#include <jansson.h>

/*
 * The cases this worker can run, with each case's parameter table, for its
 * registration (POST /api/v1/workers/register, "cases"): the server refuses a
 * job naming a testcase or a param that no registered worker has.
 *
 * The cases are the regular executable files of CASES_DIR/ARCH except
 * `init` (the guest's /init). Each one's table comes from running
 * `NAME --params-json` (worker/cases/casecommon.h), a few milliseconds,
 * under a 10 s timeout; the binary run is CASES_DIR/HOST/NAME when the
 * host's own arch (uname -m) has it, since a cross-built CASES_DIR/ARCH/NAME
 * may not run here (the tables are the same source on every arch), else
 * CASES_DIR/ARCH/NAME. A case whose table cannot be read is left out, with a
 * warning in the log: the server then refuses its jobs, which is what
 * would happen anyway when the worker could not run it.
 *
 * Returns a new object {"NAME": {"PARAM": {"type", "default", ...}}} (empty
 * when the directory has no case), or NULL when CASES_DIR/ARCH cannot be
 * read (the worker then registers without "cases" and the server checks
 * nothing for it). cases_dir and arch are borrowed.
 */
json_t *caselist_collect(const char *cases_dir, const char *arch);

#endif
