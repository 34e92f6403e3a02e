/*
 * Regression records (regressions.h has the rules):
 *   GET   /api/v1/regressions[?state=&kind=&testcase=&metric=&leaders=1&limit=]
 *         newest first; each record with its series (testcase, params,
 *         kconfig, compiler, tbox_group, mode, metric, unit,
 *         higher_is_better), range (good / bad {sha, subject}), sizes
 *         (change_pct, ci_pct, p_value, verdict, pair, detector), state,
 *         created_at, group_id and group_size; leaders=1 lists only the
 *         first record of each group
 *   GET   /api/v1/regressions/{id}   the same, plus `group` (every record of
 *         the range, leader first), `history` [{at, who, from, to, note}],
 *         and what the page tells first: `arch`, `bisect` (its culprit with
 *         subject, author, diffstat, confidence) and `also_seen` (the same
 *         change on other arches; db/regressions.h has the rule)
 *   PATCH /api/v1/regressions/{id}   (admin) {"state": S, "note": TEXT}: state
 *         change and its history row in one transaction; a note alone is
 *         recorded with from = to; `invalid` needs a note that is not blank
 *         (400 naming it: a false alarm carries its reason, as below); the
 *         state it already has is no change (regression_triage: nothing
 *         written without a new note)
 *   POST  /api/v1/regressions/{id}/invalid   (admin) {"reason": TEXT}: the one
 *         step to call an alert a false alarm (the page's button, the mail's
 *         command): state `invalid` with the reason as its history note;
 *         reason required (400 naming it when absent, empty or blank);
 *         a record already invalid keeps its history when the reason is the
 *         one it carries, else gains the new reason as a note;
 *         replies the record as GET does, with "changed" (PATCH too):
 *         false when no history row was written
 *   (GET /api/v1/regressions/{id}/report, the report mails: api/reports.c)
 */
#include "server/api/api.h"
#include "server/api/args.h"
#include "server/db/regressions.h"
#include "server/detect/regressions.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT_DEFAULT 100
#define LIMIT_MAX 1000
#define NOTE_MAX 4000

/* 1 when s is NULL, empty or only white space */
static int blank(const char *s)
{
	while (s && isspace((unsigned char)*s))
		s++;
	return !s || !*s;
}

static int parse_long(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

enum MHD_Result api_regressions_get(struct request *rq)
{
	const char *state = rq_arg(rq, "state"), *kind = rq_arg(rq, "kind");
	const char *limit_s = rq_arg(rq, "limit"), *leaders = rq_arg(rq, "leaders");
	long long limit = LIMIT_DEFAULT;
	struct err e;
	struct db_conn *c;
	json_t *j;

	if (state && !regression_state_valid(state)) {
		err_setc(&e, ERR_INVALID_FIELD, "state",
			 "'state' must be one of new, confirmed, bisecting, bisected, reported, "
			 "fixed, invalid, wontfix, not '%s'",
			 state);
		return reply_err(rq, &e);
	}
	if (kind && !regression_kind_valid(kind)) {
		err_setc(&e, ERR_INVALID_FIELD, "kind",
			 "'kind' must be regression, improvement or change, not '%s'", kind);
		return reply_err(rq, &e);
	}
	if (limit_s && parse_long(limit_s, 1, LIMIT_MAX, &limit)) {
		err_setc(&e, ERR_INVALID_FIELD, "limit", "'limit' must be an integer in [1, %d]",
			 LIMIT_MAX);
		return reply_err(rq, &e);
	}
	if (leaders && strcmp(leaders, "0") && strcmp(leaders, "1")) {
		err_setc(&e, ERR_INVALID_FIELD, "leaders", "'leaders' must be 0 or 1");
		return reply_err(rq, &e);
	}
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	j = db_regressions_json(c, state, kind, rq_arg(rq, "testcase"), rq_arg(rq, "metric"), limit,
				leaders && !strcmp(leaders, "1"), &e);
	if (!j)
		return reply_err(rq, &e);
	return reply_json(rq, 200, json_pack("{s:o}", "regressions", j));
}

/* one part of record id as JSON; NULL with e (ERR_NOT_FOUND when there is no such record) */
static json_t *one_json(struct db_conn *c,
			int (*get)(struct db_conn *, long long, json_t **, struct err *),
			long long id, struct err *e)
{
	json_t *j;
	int got = get(c, id, &j, e);

	if (!got)
		err_setc(e, ERR_NOT_FOUND, "id", "no regression %lld", id);
	return got > 0 ? j : NULL;
}

/*
 * The record with its evidence in words (regression_evidence_json), its
 * group, history and story (arch, bisect, also_seen:
 * db_regression_story_json); NULL with e (404 when there is none).
 */
static json_t *regression_full(struct db_conn *c, long long id, struct err *e)
{
	json_t *o = one_json(c, db_regression_json, id, e), *g, *h, *st = NULL;

	if (!o)
		return NULL;
	g = one_json(c, db_regression_group_json, id, e);
	h = g ? one_json(c, db_regression_history_json, id, e) : NULL;
	st = h ? one_json(c, db_regression_story_json, id, e) : NULL;
	if (!g || !h || !st) {
		json_decref(o);
		json_decref(g);
		json_decref(h);
		return NULL;
	}
	json_object_set_new(o, "evidence", regression_evidence_json(o));
	json_object_set_new(o, "group", g);
	json_object_set_new(o, "history", h);
	json_object_update(o, st);
	json_decref(st);
	return o;
}

enum MHD_Result api_regression_get(struct request *rq)
{
	char idtext[24];
	struct err e;
	long long id;
	struct db_conn *c;
	json_t *o;

	if (rq_path_id(rq, "regression", &id, idtext, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	o = regression_full(c, id, &e);
	if (!o)
		return reply_err(rq, &e);
	return reply_json(rq, 200, o);
}

/*
 * Moves record id to state (NULL: a note only) with its history row in one
 * transaction (regression_triage: nothing when it changes nothing), then
 * replies the record as GET does (200), with "changed": whether a history
 * row was written.
 */
static enum MHD_Result transition_reply(struct request *rq, long long id, const char *state,
					const char *note)
{
	struct err e;
	struct db_conn *c;
	json_t *o;
	int written;

	c = rq_db(rq, &e);
	if (!c || db_begin(c, &e))
		return reply_err(rq, &e);
	if (regression_triage(c, id, state, rq->token_id, note, &written, &e) ||
	    (written && db_commit(c, &e))) {
		db_rollback(c);
		return reply_err(rq, &e);
	}
	if (!written)
		db_rollback(c); /* the lock taken to read the state, nothing else */
	o = regression_full(c, id, &e);
	if (!o)
		return reply_err(rq, &e);
	/* a client cannot tell a row written now from an earlier one by the history alone */
	json_object_set_new(o, "changed", json_boolean(written));
	return reply_json(rq, 200, o);
}

enum MHD_Result api_regression_patch(struct request *rq)
{
	char idtext[24];
	struct err e;
	long long id;
	const char *state = NULL, *note = NULL, *key;
	enum MHD_Result ret;
	json_t *b, *v;

	if (rq_path_id(rq, "regression", &id, idtext, &e))
		return reply_err(rq, &e);
	b = rq_json(rq, &e);
	if (!b)
		return reply_err(rq, &e);
	/* errors are filled in e before b (which owns key) is released */
	json_object_foreach (b, key, v) {
		if (!strcmp(key, "state")) {
			if (!json_is_string(v) || !regression_state_valid(json_string_value(v))) {
				err_setc(&e, ERR_INVALID_FIELD, "state",
					 "'state' must be one of new, confirmed, bisecting, bisected, "
					 "reported, fixed, invalid, wontfix");
				goto bad;
			}
			state = json_string_value(v);
		} else if (!strcmp(key, "note")) {
			if (json_is_null(v))
				continue;
			if (!json_is_string(v) || json_string_length(v) > NOTE_MAX) {
				err_setc(&e, ERR_INVALID_FIELD, "note",
					 "'note' must be a string of at most %d bytes", NOTE_MAX);
				goto bad;
			}
			note = json_string_value(v);
		} else {
			err_setc(&e, ERR_INVALID_FIELD, key,
				 "unknown field '%s' (only 'state' and 'note')", key);
			goto bad;
		}
	}
	if (!state && !note) {
		err_setc(&e, ERR_MISSING_FIELD, "state",
			 "give 'state' (and optionally 'note'), or a 'note'");
		goto bad;
	}
	/* a false alarm counts in the quality ledger: its reason is kept with it */
	if (state && !strcmp(state, "invalid") && blank(note)) {
		err_setc(&e, ERR_MISSING_FIELD, "note",
			 "give the 'note' why it is not a real change (kept in its history)");
		goto bad;
	}
	ret = transition_reply(rq, id, state, note);
	json_decref(b);
	return ret;
bad:
	json_decref(b);
	return reply_err(rq, &e);
}

enum MHD_Result api_regression_invalid(struct request *rq)
{
	char idtext[24];
	struct err e;
	long long id;
	const char *reason = NULL, *key;
	enum MHD_Result ret;
	json_t *b, *v;

	if (rq_path_id(rq, "regression", &id, idtext, &e))
		return reply_err(rq, &e);
	if (!rq->body.len) {
		err_setc(&e, ERR_MISSING_FIELD, "reason",
			 "give {\"reason\": TEXT}: why it is not a real change (kept in its history)");
		return reply_err(rq, &e);
	}
	b = rq_json(rq, &e);
	if (!b)
		return reply_err(rq, &e);
	json_object_foreach (b, key, v) {
		if (strcmp(key, "reason")) {
			err_setc(&e, ERR_INVALID_FIELD, key, "unknown field '%s' (only 'reason')",
				 key);
			goto bad;
		}
	}
	if (json_str_field(b, "reason", 1, NOTE_MAX, &reason, &e))
		goto bad;
	if (blank(reason)) {
		err_setc(&e, ERR_MISSING_FIELD, "reason",
			 "give the 'reason' it is not a real change (kept in its history)");
		goto bad;
	}
	ret = transition_reply(rq, id, "invalid", reason);
	json_decref(b);
	return ret;
bad:
	json_decref(b);
	return reply_err(rq, &e);
}
