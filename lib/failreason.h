#ifndef REGTRACK_FAILREASON_H
#define REGTRACK_FAILREASON_H

/*
 * Why a job of outcome status (build-failed, run-failed, ...) produced no
 * run, for the server's jobs.fail_reason: "STATUS: LINE" with the error
 * of log_tail, the last of its kind, in this order:
 * the worker's own line ("regtrack-worker: CODE: message"; its warnings,
 * "regtrack-worker: warning: ...", are not the error: a host run's note
 * that the running kernel was built by another compiler comes before any
 * failure), the case's own message ("TESTCASE: bad value for 'nr_task':
 * ...", casecommon.c's format), any line but a worker warning, any line;
 * else "no log". The line is cut at 500 bytes (not inside a UTF-8
 * sequence) with "…". testcase: the job's ("" when unknown); all
 * borrowed; log_tail may be NULL. New string, caller frees.
 */
char *failreason_pick(const char *status, const char *log_tail, const char *testcase);

#endif
