#ifndef REGTRACK_SERVER_CASECHECK_H
#define REGTRACK_SERVER_CASECHECK_H

#include <jansson.h>

#include "err.h"

struct db_conn;

/*
 * What the workers can run: each worker registers its cases
 * with each case's parameter table (worker/caselist.c; stored in
 * machines.cases, sql/0021), and a job, bisect, plan or A/B request naming a
 * testcase or a param that no registered worker has is refused with a 400
 * naming the field (`testcase`, `params.nr_tasks`; in a plan or request
 * `testcases[i].testcase`, `testcases[i].params.KEY`), before anything is
 * stored. A param's value is checked too, as the case itself checks it
 * (its table's type, min, max, choices): `params.nr_task` "lots" is a 400
 * "bad value for param 'nr_task' of will-it-scale: 'lots' is neither a
 * task count nor a percentage" at submit, not a run-failed job later; a
 * value one registered table of the case accepts passes. The params a
 * worker reads itself (lib/vmspec.h: `measure`, `accel`, `vcpus`, `pin`,
 * `hugepages`, `numa`: the machine the case runs in) are known for every
 * case and checked even before any worker registered (`params.vcpus` 0 is
 * a 400 "'vcpus' is a whole number 1..1024"); `monitors` is a field of the
 * job, not a param.
 *
 * A fresh server, where no worker has registered a case table yet (or
 * only older workers that send none), cannot tell: it accepts the job
 * with a warning ("no worker has registered its cases yet: testcase and
 * params not checked"), since refusing would make a server unusable until
 * its first worker comes up, and a worker refuses an unknown case itself
 * (the job ends run-failed with the reason). The union over all machines
 * is checked: a case one worker has is accepted, whichever worker leases.
 */
struct casecheck {
	json_t *cases;	 /* {"NAME": {"PARAM": [def, ...]}}: the union, owned */
	size_t machines; /* machines that registered a case table */
	int warned_none; /* the "not checked" warning was given once */
};

/* Reads every registered table (db_machine_cases_json()). 0, or -1 with e (database errors). */
int casecheck_load(struct db_conn *c, struct casecheck *cc, struct err *e)
	__attribute__((warn_unused_result));
void casecheck_release(struct casecheck *cc);

/*
 * Checks testcase and the keys of params (an object or NULL; borrowed)
 * against cc. prefix ("" for a job, "testcases[2]." in a plan or request)
 * starts the field named in e's detail. With no table registered, appends
 * the "not checked" warning to warnings (an array, may be NULL) once per cc
 * and returns 0. Returns 0, or -1 with e: ERR_INVALID_FIELD, message
 * "unknown testcase 'X': the registered workers run a, b", "unknown param
 * 'K' of X: its params are a, b, measure, accel, vcpus, pin, hugepages, and numa" or "bad value for
 * param 'K' of X: WHY".
 */
int casecheck_testcase(struct casecheck *cc, const char *prefix, const char *testcase,
		       const json_t *params, json_t *warnings, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The testcases of a plan or an A/B request (an array of {testcase, params},
 * borrowed) checked as casecheck_testcase() does, against the tables read
 * with casecheck_load(), each field named `testcases[i].…`. 0, or -1 with e
 * (the first bad entry, or a database error).
 */
int casecheck_testcases(struct db_conn *c, const json_t *testcases, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Appends a warning to warnings when no registered worker has capability
 * (host, qemu-x86_64, qemu-aarch64) and serves tbox_group and arch (each
 * NULL: any) (db_machines_serving()): the job is queued and waits for one.
 * 0, or -1 with e (database errors).
 */
int casecheck_served(struct db_conn *c, const char *capability, const char *tbox_group,
		     const char *arch, json_t *warnings, struct err *e)
	__attribute__((warn_unused_result));

/*
 * A registration's "cases" (borrowed; NULL: none sent) checked and
 * rewritten compact into *text (caller free()s; NULL when none): an object
 * of at most 256 cases with plain names (names_plain), each an object of at
 * most 100 params with plain names, each an object; 256 KiB in all.
 * 0, or -1 with e (ERR_INVALID_FIELD naming `cases` or `cases.NAME`).
 */
int casecheck_registration(const json_t *cases, char **text, struct err *e)
	__attribute__((warn_unused_result));

/* The warnings (an array of strings, borrowed) as a PostgreSQL text[] literal (caller free()s). */
char *casecheck_pg_array(const json_t *warnings);

#endif
