/*
 * The .config difference between two builds (read scope):
 *   GET /api/v1/kconfig/diff?base_job=A&head_job=B
 *         the .config job A built vs the one job B built
 *   GET /api/v1/bisects/{id}/kconfig-diff
 *         a finished bisect with a first bad commit: the build of the first
 *         bad commit's parent vs the build of the first bad commit; else (or
 *         when the parent is not a known commit) the build of the range's
 *         good end vs that of the first bad commit or the bad end
 *   GET /api/v1/regressions/{id}/kconfig-diff
 *         the same for the regression's bisect when it is done; else the
 *         builds of the record's own range: last good vs first bad commit
 *
 * Which build of a commit: a job at that commit with the same kconfig name
 * (and compiler) that stored a .config (POST /jobs/{id}/complete
 * "kconfig"), preferring the bisect's own jobs, then jobs whose runs belong
 * to the regression's setup, then jobs that ended ok, then the newest.
 *
 * Answer (200):
 *   {"base": {"role", "commit", "subject", "job_id", "options"},
 *    "head": {the same},
 *    "identical": true|false, "removed": n, "changed": n, "added": n,
 *    "lines":   ["-INLINE_READ_UNLOCK y", " HZ 250 -> 1000", "+PREEMPT_RCU y"],
 *    "entries": [{"op": "removed"|"changed"|"added", "name": "CONFIG_HZ",
 *                 "old": "250", "new": "1000"}]}
 * role is parent, first_bad, good, bad (bisect/regression) or job (the
 * job pair); options = how many options that .config sets or leaves unset.
 * lines are the kernel's scripts/diffconfig output verbatim (names without
 * "CONFIG_", lib/kconfigdiff.h); entries name the full CONFIG_ symbol.
 * Identical files give identical = true and empty lines/entries: the page
 * says "identical .config (N options)".
 *
 * Errors: 400 invalid_field / missing_field (ids), 404 not_found (no such
 * job, bisect or regression, detail "id"; or no stored .config for one
 * side, detail "base" or "head", saying which build is missing).
 */
#include "server/api/api.h"
#include "server/api/args.h"
#include "server/db/kconfig.h"
#include "kconfigdiff.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One side of the comparison: which build, and its .config (owned by build). */
struct side {
	const char *role, *commit, *subject; /* borrowed from the ends or from build */
	struct db_kconfig_build build;
};

static void side_release(struct side *s)
{
	db_kconfig_build_release(&s->build);
}

static json_t *opt_string(const char *s)
{
	return s ? json_string(s) : json_null();
}

static const char *op_name(enum kconfigdiff_op op)
{
	switch (op) {
	case KCONFIGDIFF_REMOVED:
		return "removed";
	case KCONFIGDIFF_CHANGED:
		return "changed";
	case KCONFIGDIFF_ADDED:
		return "added";
	}
	return "?";
}

static json_t *side_json(const struct side *s, size_t options)
{
	return json_pack("{s:s, s:o, s:o, s:I, s:I}", "role", s->role, "commit",
			 opt_string(s->commit), "subject", opt_string(s->subject), "job_id",
			 (json_int_t)s->build.job_id, "options", (json_int_t)options);
}

/* The answer for two sides with their .config text; NULL with e (500: a cap). */
static json_t *diff_json(const struct side *base, const struct side *head, struct err *e)
{
	struct kconfig a = KCONFIG_INIT, b = KCONFIG_INIT;
	struct kconfigdiff d = KCONFIGDIFF_INIT;
	struct buf line = BUF_INIT(0);
	json_t *lines = json_array(), *entries = json_array(), *out = NULL;

	kconfig_parse(&a, base->build.text, base->build.len);
	kconfig_parse(&b, head->build.text, head->build.len);
	kconfigdiff_compute(&d, &a, &b);
	for (size_t i = 0; i < d.nr; i++) {
		const struct kconfigdiff_entry *en = &d.entries[i];
		char *name = xstrfmt("CONFIG_%s", en->name);

		buf_reset(&line);
		if (kconfigdiff_format_entry(en, &line)) {
			free(name);
			err_setc(e, ERR_INTERNAL, "kconfig", "cannot format a .config difference");
			goto out;
		}
		json_array_append_new(lines, json_stringn(line.data, line.len));
		json_array_append_new(entries,
				      json_pack("{s:s, s:s, s:o, s:o}", "op", op_name(en->op),
						"name", name, "old", opt_string(en->old_value),
						"new", opt_string(en->new_value)));
		free(name);
	}
	out = json_pack("{s:o, s:o, s:b, s:I, s:I, s:I, s:O, s:O}", "base", side_json(base, a.nr),
			"head", side_json(head, b.nr), "identical", d.nr == 0, "removed",
			(json_int_t)d.nr_removed, "changed", (json_int_t)d.nr_changed, "added",
			(json_int_t)d.nr_added, "lines", lines, "entries", entries);
out:
	json_decref(lines);
	json_decref(entries);
	buf_release(&line);
	kconfigdiff_release(&d);
	kconfig_release(&a);
	kconfig_release(&b);
	return out;
}

/* A positive integer query argument: a job id. */
static int arg_id(struct request *rq, const char *name, long long *id, struct err *e)
{
	const char *s = rq_arg(rq, name);
	char *end;

	if (!s)
		return err_setc(e, ERR_MISSING_FIELD, name, "'%s' is required (a job id)", name);
	errno = 0;
	*id = strtoll(s, &end, 10);
	if (errno || *end || *id <= 0)
		return err_setc(e, ERR_INVALID_FIELD, name, "'%s' must be a job id", name);
	return 0;
}

/* Side from job id; 404 when there is no such job or it stored no .config. */
static int job_side(struct db_conn *c, long long id, const char *which, struct side *s,
		    struct err *e)
{
	switch (db_kconfig_job(c, id, &s->build, e)) {
	case -1:
		return -1;
	case 0:
		return err_setc(e, ERR_NOT_FOUND, which, "no job %lld", id);
	}
	if (!s->build.text)
		return err_setc(e, ERR_NOT_FOUND, which, "job %lld has no .config", id);
	s->role = "job";
	s->commit = s->build.commit.sha;
	s->subject = s->build.commit.subject;
	return 0;
}

/* Replies with the difference of the two sides when ok (else with e) and
 * releases both sides either way. */
static enum MHD_Result reply_diff(struct request *rq, int ok, struct side *base, struct side *head,
				  struct err *e)
{
	json_t *out = ok ? diff_json(base, head, e) : NULL;

	side_release(base);
	side_release(head);
	return out ? reply_json(rq, 200, out) : reply_err(rq, e);
}

enum MHD_Result api_kconfig_diff(struct request *rq)
{
	long long a, b;
	struct side base = { 0 }, head = { 0 };
	struct err e;
	struct db_conn *c;

	if (arg_id(rq, "base_job", &a, &e) || arg_id(rq, "head_job", &b, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	return reply_diff(rq,
			  c && !job_side(c, a, "base_job", &base, &e) &&
				  !job_side(c, b, "head_job", &head, &e),
			  &base, &head, &e);
}

/* The build of commit `at` of the ends for one side, as `role`. */
static int pick_side(struct db_conn *c, const struct db_kconfig_ends *ends,
		     const struct db_kconfig_commit *at, const char *role, const char *which,
		     struct side *s, struct err *e)
{
	s->role = role;
	s->commit = at->sha;
	s->subject = at->subject;
	switch (db_kconfig_pick_job(c, ends, at, &s->build, e)) {
	case -1:
		return -1;
	case 0:
		return err_setc(e, ERR_NOT_FOUND, which,
				"no .config stored for the %s build (commit %.12s, kconfig %s): "
				"no job of it reported one",
				role, s->commit ? s->commit : "?",
				ends->kconfig ? ends->kconfig : "?");
	}
	return 0;
}

typedef int (*ends_fn)(struct db_conn *c, long long id, struct db_kconfig_ends *out, struct err *e);

static enum MHD_Result ends_diff(struct request *rq, const char *what, ends_fn read_ends)
{
	struct side base = { 0 }, head = { 0 };
	struct db_kconfig_ends ends;
	char idb[24];
	long long id;
	struct err e;
	struct db_conn *c;
	enum MHD_Result ret;
	int found, parent, ok;

	if (rq_path_id(rq, what, &id, idb, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	switch (read_ends(c, id, &ends, &e)) {
	case -1:
		db_kconfig_ends_release(&ends);
		return reply_err(rq, &e);
	case 0:
		db_kconfig_ends_release(&ends);
		err_setc(&e, ERR_NOT_FOUND, "id", "no %s %lld", what, id);
		return reply_err(rq, &e);
	}
	found = ends.first_bad.id != 0;
	parent = found && ends.parent.id != 0;
	ok = !pick_side(c, &ends, parent ? &ends.parent : &ends.good, parent ? "parent" : "good",
			"base", &base, &e) &&
	     !pick_side(c, &ends, found ? &ends.first_bad : &ends.bad, found ? "first_bad" : "bad",
			"head", &head, &e);
	ret = reply_diff(rq, ok, &base, &head, &e);
	db_kconfig_ends_release(&ends);
	return ret;
}

enum MHD_Result api_bisect_kconfig_diff(struct request *rq)
{
	return ends_diff(rq, "bisect", db_kconfig_bisect_ends);
}

enum MHD_Result api_regression_kconfig_diff(struct request *rq)
{
	return ends_diff(rq, "regression", db_kconfig_regression_ends);
}
