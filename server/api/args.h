#ifndef REGTRACK_SERVER_QUERY_H
#define REGTRACK_SERVER_QUERY_H

#include "server/http/http.h"
#include "server/db/series.h"

struct db_conn;

/*
 * The filters shared by the read endpoints (struct db_setup_filter,
 * db/series.h: testcase, tbox_group, kconfig, compiler, params, mode) from
 * rq's query string; strings borrowed from the request (or its arena).
 * params is a JSON object matched against a setup's whole params: its
 * params_key is the object's text (sorted, compact) with the machine shape
 * in the one spelling results are stored with (vmspec_canonical(): pin
 * "true" is pin true, pin false is left out), and params_given the text
 * as given when that differs (a setup stored in that spelling before the
 * server rewrote it matches too: {"pin":false,"vcpus":4} finds the setup
 * stored so and the one of {"vcpus":4}). monitors= ("perf-profile,perf-stat", any order; "none" =
 * unprofiled only) is normalized as setups.monitors holds it. Errors (-1,
 * e filled, 400 "invalid_field" naming the argument): params not a JSON
 * object, a shape vmspec_parse() refuses (detail "params.KEY", the words
 * of a results upload's 400) unless a setup is stored with exactly those
 * params (db_setup_key_exists(): one stored before uploads were checked;
 * then params_key is them as given; 503/500 when that cannot be read),
 * mode not wallclock|icount, monitors naming another monitor.
 */
int setup_filter_from_query(struct request *rq, struct db_setup_filter *f, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Resolves a commit given as a full sha or a prefix of at least 7 hex
 * digits; with the query argument `tree` (GET /api/v1/compare, /profile-diff)
 * any other ref (a branch, a tag, master~2) too, as the commit it names in
 * that tree's mirror (gitmirror_resolve). Fills id (commits.id text), sha
 * and subject (arena copies; subject may be NULL). Errors: 400
 * "invalid_field" (not hex, too short, ambiguous; a ref the tree does not
 * have), 404 "not_found" (no results for the commit; no tree of that name),
 * 502 git, 503 db.
 */
int commit_resolve(struct request *rq, struct db_conn *c, const char *arg, const char *field,
		   const char **id, const char **sha, const char **subject, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The ?state=&limit= arguments of a list endpoint. state must be one of
 * the NULL-terminated `states` (or absent: *state = NULL); limit is an
 * integer in [1, max_limit], default def_limit, written as text to limit.
 * Errors: 400 "invalid_field" naming the argument and listing the states.
 */
int list_args(struct request *rq, const char *const *states, long def_limit, long max_limit,
	      const char **state, char limit[24], struct err *e)
	__attribute__((warn_unused_result));

/*
 * The numeric id in the path (/api/v1/jobs/{id}): a positive integer in
 * decimal digits (no sign, no spaces), at most LLONG_MAX, also written as
 * text to text[24]. Errors: 400 "invalid_field" (detail "id") saying
 * "'X' is not a WHAT id", with " (too large)" past LLONG_MAX (X as asked,
 * never the saturated number).
 */
int rq_path_id(struct request *rq, const char *what, long long *id, char text[24], struct err *e)
	__attribute__((warn_unused_result));

/*
 * A list endpoint in one call: list_args() for ?state=&limit=, then the
 * db/ list read (db_jobs_json() and the like) with them, answered as
 * reply_db_read().
 */
enum MHD_Result reply_list(struct request *rq, const char *const *states, long def_limit,
			   long max_limit,
			   int (*list)(struct db_conn *c, const char *state, const char *limit,
				       char **text, struct err *e));

/*
 * GET of one resource by the numeric id in its path: rq_path_id(), then
 * the db/ read of that id (db_job_json() and the like: 1 and *text, 0
 * none, -1 with e), answered as reply_db_read(), none as 404 "no WHAT ID"
 * (detail "id").
 */
enum MHD_Result reply_by_id(struct request *rq, const char *what,
			    int (*read)(struct db_conn *c, long long id, char **text,
					struct err *e));

/*
 * Fields of a JSON request body. json_str_field: *out borrowed from o, NULL
 * when absent or null; errors 400 "missing_field" (required and absent) or
 * "invalid_field" (not a string, longer than max bytes), detail = key.
 * json_int_field: *out = def when absent; 400 "invalid_field" unless an
 * integer in [min, max].
 */
int json_str_field(json_t *o, const char *key, int required, size_t max, const char **out,
		   struct err *e) __attribute__((warn_unused_result));
int json_int_field(json_t *o, const char *key, long long def, long long min, long long max,
		   long long *out, struct err *e) __attribute__((warn_unused_result));

/* The setup row as JSON {id, testcase, params, kconfig, compiler, tbox_group, mode, monitors}; new ref or NULL. */
json_t *setup_json(struct db_conn *c, long long setup_id, struct err *e);

#endif
