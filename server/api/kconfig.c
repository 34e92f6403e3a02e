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
#include "kconfigdiff.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* One side of the comparison: which build, and its .config (borrowed from res). */
struct side {
	const char *role, *commit, *subject;
	long long job_id;
	const char *text;
	size_t len;
	PGresult *res;
};

static void side_release(struct side *s)
{
	PQclear(s->res);
	s->res = NULL;
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
			 (json_int_t)s->job_id, "options", (json_int_t)options);
}

/* The answer for two sides with their .config text; NULL with e (500: a cap). */
static json_t *diff_json(const struct side *base, const struct side *head, struct err *e)
{
	struct kconfig a = KCONFIG_INIT, b = KCONFIG_INIT;
	struct kconfigdiff d = KCONFIGDIFF_INIT;
	struct buf line = BUF_INIT(0);
	json_t *lines = json_array(), *entries = json_array(), *out = NULL;

	kconfig_parse(&a, base->text, base->len);
	kconfig_parse(&b, head->text, head->len);
	kconfigdiff_compute(&d, &a, &b);
	for (size_t i = 0; i < d.nr; i++) {
		const struct kconfigdiff_entry *en = &d.entries[i];
		char *name = xstrfmt("CONFIG_%s", en->name);

		buf_reset(&line);
		if (kconfigdiff_format_entry(en, &line)) {
			free(name);
			err_set(e, 500, "internal", "kconfig", "cannot format a .config difference");
			goto out;
		}
		json_array_append_new(lines, json_stringn(line.data, line.len));
		json_array_append_new(entries, json_pack("{s:s, s:s, s:o, s:o}", "op", op_name(en->op),
							 "name", name, "old", opt_string(en->old_value),
							 "new", opt_string(en->new_value)));
		free(name);
	}
	out = json_pack("{s:o, s:o, s:b, s:I, s:I, s:I, s:O, s:O}", "base", side_json(base, a.nr),
			"head", side_json(head, b.nr), "identical", d.nr == 0,
			"removed", (json_int_t)d.nr_removed, "changed", (json_int_t)d.nr_changed,
			"added", (json_int_t)d.nr_added, "lines", lines, "entries", entries);
out:
	json_decref(lines);
	json_decref(entries);
	buf_release(&line);
	kconfigdiff_release(&d);
	kconfig_release(&a);
	kconfig_release(&b);
	return out;
}

/* A positive integer query argument into text[24]. */
static int arg_id(struct request *rq, const char *name, char text[24], struct err *e)
{
	const char *s = rq_arg(rq, name);
	char *end;
	long long v;

	if (!s)
		return err_set(e, 400, "missing_field", name, "'%s' is required (a job id)", name);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v <= 0)
		return err_set(e, 400, "invalid_field", name, "'%s' must be a job id", name);
	snprintf(text, 24, "%lld", v);
	return 0;
}

/* Side from job `id` (text); 404 when there is no such job or it stored no .config. */
static int job_side(PGconn *c, const char *id, const char *which, struct side *s, struct err *e)
{
	const char *p[1] = { id };
	PGresult *r = db_exec(c, ST_KCONFIG_JOB, 1, p, e);

	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return err_set(e, 404, "not_found", which, "no job %s", id);
	}
	if (PQgetisnull(r, 0, 0)) {
		PQclear(r);
		return err_set(e, 404, "not_found", which, "job %s has no .config", id);
	}
	s->role = "job";
	s->job_id = strtoll(id, NULL, 10);
	s->text = PQgetvalue(r, 0, 0);
	s->len = (size_t)PQgetlength(r, 0, 0);
	s->commit = PQgetvalue(r, 0, 1);
	s->subject = PQgetisnull(r, 0, 2) ? NULL : PQgetvalue(r, 0, 2);
	s->res = r;
	return 0;
}

/* Replies with the difference of the two sides when ok (else with e) and
 * releases both sides either way. */
static enum MHD_Result reply_diff(struct request *rq, int ok, struct side *base,
				  struct side *head, struct err *e)
{
	json_t *out = ok ? diff_json(base, head, e) : NULL;

	side_release(base);
	side_release(head);
	return out ? reply_json(rq, 200, out) : reply_err(rq, e);
}

enum MHD_Result api_kconfig_diff(struct request *rq)
{
	char a[24], b[24];
	struct side base = { 0 }, head = { 0 };
	struct err e;
	PGconn *c;

	if (arg_id(rq, "base_job", a, &e) || arg_id(rq, "head_job", b, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	return reply_diff(rq, c && !job_side(c, a, "base_job", &base, &e) &&
				      !job_side(c, b, "head_job", &head, &e),
			  &base, &head, &e);
}

/*
 * Columns of ST_KCONFIG_REGRESSION_ENDS / ST_KCONFIG_BISECT_ENDS (db_stmts.c):
 * setup id, kconfig, compiler, bisect id, then (id, sha, subject) of the good
 * end, the bad end, the first bad commit and its parent (NULL when unknown).
 */
enum { E_SETUP, E_KCONFIG, E_COMPILER, E_BISECT, E_GOOD, E_BAD = E_GOOD + 3,
       E_FIRST_BAD = E_BAD + 3, E_PARENT = E_FIRST_BAD + 3 };

static const char *col(PGresult *r, int i)
{
	return PQgetisnull(r, 0, i) ? NULL : PQgetvalue(r, 0, i);
}

/* The build of commit column `at` (id, sha, subject) for one side, as `role`. */
static int pick_side(PGconn *c, PGresult *ends, int at, const char *role, const char *which,
		     struct side *s, struct err *e)
{
	const char *p[5] = { col(ends, at), col(ends, E_KCONFIG), col(ends, E_COMPILER),
			     col(ends, E_BISECT), col(ends, E_SETUP) };
	PGresult *r;

	s->role = role;
	s->commit = col(ends, at + 1);
	s->subject = col(ends, at + 2);
	r = db_exec(c, ST_KCONFIG_PICK_JOB, 5, p, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return err_set(e, 404, "not_found", which,
			       "no .config stored for the %s build (commit %.12s, kconfig %s): "
			       "no job of it reported one", role, s->commit ? s->commit : "?",
			       col(ends, E_KCONFIG) ? col(ends, E_KCONFIG) : "?");
	}
	s->job_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	s->text = PQgetvalue(r, 0, 1);
	s->len = (size_t)PQgetlength(r, 0, 1);
	s->res = r;
	return 0;
}

static enum MHD_Result ends_diff(struct request *rq, const char *what, enum db_stmt st)
{
	struct side base = { 0 }, head = { 0 };
	char idb[24];
	long long id;
	struct err e;
	PGconn *c;
	PGresult *ends = NULL;
	enum MHD_Result ret;
	int found, parent, ok;

	if (rq_path_id(rq, what, &id, idb, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	{
		const char *p[1] = { idb };
		ends = db_exec(c, st, 1, p, &e);
	}
	if (!ends)
		return reply_err(rq, &e);
	if (!PQntuples(ends)) {
		PQclear(ends);
		return reply_errf(rq, 404, "not_found", "id", "no %s %lld", what, id);
	}
	found = col(ends, E_FIRST_BAD) != NULL;
	parent = found && col(ends, E_PARENT) != NULL;
	ok = !pick_side(c, ends, parent ? E_PARENT : E_GOOD, parent ? "parent" : "good", "base",
			&base, &e) &&
	     !pick_side(c, ends, found ? E_FIRST_BAD : E_BAD, found ? "first_bad" : "bad", "head",
			&head, &e);
	ret = reply_diff(rq, ok, &base, &head, &e);
	PQclear(ends);
	return ret;
}

enum MHD_Result api_bisect_kconfig_diff(struct request *rq)
{
	return ends_diff(rq, "bisect", ST_KCONFIG_BISECT_ENDS);
}

enum MHD_Result api_regression_kconfig_diff(struct request *rq)
{
	return ends_diff(rq, "regression", ST_KCONFIG_REGRESSION_ENDS);
}
