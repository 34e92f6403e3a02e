#ifndef REGTRACK_SERVER_PLAN_H
#define REGTRACK_SERVER_PLAN_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"
#include "server/db/plans.h"
#include "server/track/scheduler.h"

struct db_conn;

/*
 * Test plans: what to run where, as data. One plan is the JSON
 *
 *   {"name", "tree", "branches": [glob], "testcases": [{testcase, params}],
 *    "kconfigs", "compilers", "targets", "repeat", "measure", "monitors",
 *    "schedule": {"heads", "every", "paths", "max_per_push"},
 *    "priority", "owner", "enabled", "detect"}
 *
 * as POST/PUT /api/v1/plans and `regtrack-server plan apply` take it and
 * the API replies it. A target is an arch (x86_64, arm64 or aarch64) or a
 * tbox_group name; the matrix is testcases x kconfigs x compilers x
 * targets, less the pairs where a kconfig builds for another arch than
 * the target's (x86_64-defconfig on arm64).
 */

/*
 * Checks every field of plan `in` (borrowed) and returns its normalized
 * form in *out (new reference: every field present, defaults filled:
 * compilers ["gcc-12"], repeat 1, measure "wallclock", monitors [] (else
 * sorted and deduplicated, lib/profile.h; 400 naming "monitors[i]"),
 * schedule {heads true, every 0, paths [], max_per_push 20}, priority 0,
 * owner null, enabled true; each testcase's machine shape in its one
 * spelling (lib/vmspec.h vmspec_canonical(): "pin": 1 is stored true, a bad
 * one is a 400 naming "testcases[i].params.pin"); "detect", the detector settings of
 * server/detect/plan_detect.h, is kept with only the keys given and left out when
 * none is: the others are the server's defaults). name: when not NULL, the name of the path
 * (PUT /api/v1/plans/{name}); the body's name may be absent then, or must
 * be the same. max_jobs_per_push: the server's limit of one push's jobs
 * (max_per_push x the matrix). detect_window: the server's detect_window,
 * the window of a plan whose "detect" gives min_seg but no window.
 * Errors (-1, e filled, detail = the field's JSON path, e.g.
 * "testcases[1].params", "schedule.paths[0]"): ERR_MISSING_FIELD,
 * ERR_INVALID_FIELD (a wrong type, an unknown key, a bad name or glob, a
 * kconfig no worker builds, an unknown target form, an empty matrix,
 * repeat / every / max_per_push / priority out of bounds, more jobs per
 * push than max_jobs_per_push, a detector setting unknown or out of
 * bounds: "detect.p_max", a min_seg more than half the window it is used
 * with, the plan's or detect_window: "detect.min_seg").
 */
int plan_normalize(const json_t *in, const char *name, long max_jobs_per_push, long detect_window,
		   json_t **out, struct err *e) __attribute__((warn_unused_result));

/*
 * Stores normalized plan spec (borrowed) in the database: its tree must
 * exist (ERR_NOT_FOUND, detail "tree"); create_only: a plan of that name
 * is ERR_CONFLICT (detail "name"). 0 with *change, -1 with e.
 */
int plan_store(struct db_conn *c, const json_t *spec, int create_only, enum db_plan_change *change,
	       struct err *e) __attribute__((warn_unused_result));

/* The name of a change ("created", "updated", "unchanged"), for the CLI and the API. */
const char *plan_change_name(enum db_plan_change change);

/* One cell of a plan's matrix: the job setup a tested commit gets. */
struct plan_setup {
	char *testcase; /* every string new; plan_setups_free() */
	char *params;	/* JSON object text, canonical (sorted keys), measure included */
	char *kconfig;
	char *compiler;
	char *arch;	  /* x86_64 / aarch64; NULL: any (host jobs on a tbox_group) */
	char *tbox_group; /* NULL: any machine of the arch */
	char *capability; /* host, qemu-x86_64, qemu-aarch64 */
	char *key;	  /* the setup's track_key (sql/0014); monitors appended when any */
	char *monitors;	  /* normalized (lib/profile.h), "" = none */
};
/*
 * The matrix of normalized plan spec: *setups a new array of the returned
 * count (0 for an empty matrix; free with plan_setups_free).
 */
size_t plan_setups(const json_t *spec, struct plan_setup **setups);
void plan_setups_free(struct plan_setup *setups, size_t n);

/* 1 when branch matches one of spec's branch globs (fnmatch). */
int plan_branch_match(const json_t *spec, const char *branch);

/*
 * spec's schedule as the scheduler takes it. r->paths is a new array of
 * strings borrowed from spec (free(r->paths) when done).
 */
void plan_rule(const json_t *spec, struct sched_rule *r);

/*
 * `regtrack-server plan apply FILE.json` (FILE: one plan or an array of
 * them): each is checked, then stored in one transaction, and one line
 * per plan says what changed: "created NAME", "updated NAME",
 * "unchanged NAME". Returns the exit status: 0, 1 (database), 2 (usage,
 * unreadable file or a plan that does not pass: nothing is stored).
 */
int plan_cli(const char *conninfo, long max_jobs_per_push, long detect_window, int argc,
	     char **argv);

#endif
