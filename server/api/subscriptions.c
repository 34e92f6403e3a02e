/*
 * Mail subscriptions, admin only:
 *   POST   /api/v1/subscriptions      {email, tree, testcase, metric, paths[]} -> 201 {id, …}
 *   GET    /api/v1/subscriptions      every subscription, oldest first
 *   DELETE /api/v1/subscriptions/{id} 204, 404 when unknown
 *
 * Subscription fields other than email are optional; absent or empty
 * means any. metric is a glob (fnmatch). paths are patterns matched
 * against the files the culprit touched (sql/0007, collected from the
 * tree's mirror); one matching file is enough: a pattern with * ? [ is an
 * fnmatch glob where '*' also crosses '/' ("include" "/" "*.h" matches
 * include/linux/mm.h), any other pattern a path prefix on a '/' boundary
 * ("mm/" or "mm" match mm/mmap.c, "mm" not mmx/a.c); see
 * mailer_path_match(). A subscription with paths receives only reports
 * that name a culprit whose files are known (a bisect's first bad commit,
 * or a detected range of one commit).
 */
#include "server/api/api.h"
#include "server/api/args.h"
#include "server/db/mail.h"
#include "report.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELD 256
#define MAX_PATHS 64

/* Optional string field: NULL when absent, null or empty. */
static int opt_str(json_t *o, const char *key, const char **out, struct err *e)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return err_setc(e, ERR_INVALID_FIELD, key, "'%s' must be a string", key);
	if (json_string_length(v) > MAX_FIELD)
		return err_setc(e, ERR_INVALID_FIELD, key, "'%s' is longer than %d bytes", key,
				MAX_FIELD);
	for (const char *s = json_string_value(v); *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return err_setc(e, ERR_INVALID_FIELD, key,
					"'%s' must not contain control characters", key);
	if (json_string_length(v))
		*out = json_string_value(v);
	return 0;
}

/* paths: array of glob strings, as a PostgreSQL array literal (new) or NULL. */
static int paths_literal(json_t *o, char **out, struct err *e)
{
	json_t *v = json_object_get(o, "paths"), *it;
	struct buf b = BUF_INIT(0);
	size_t i;

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) > MAX_PATHS)
		return err_setc(e, ERR_INVALID_FIELD, "paths",
				"'paths' must be an array of at most %d strings", MAX_PATHS);
	if (buf_addch(&b, '{'))
		goto big;
	json_array_foreach (v, i, it) {
		const char *s;

		if (!json_is_string(it) || !json_string_length(it) ||
		    json_string_length(it) > MAX_FIELD) {
			buf_release(&b);
			return err_setc(e, ERR_INVALID_FIELD, "paths",
					"'paths' must hold non-empty strings of at most %d bytes",
					MAX_FIELD);
		}
		if (i && buf_addch(&b, ','))
			goto big;
		if (buf_addch(&b, '"'))
			goto big;
		for (s = json_string_value(it); *s; s++) {
			if ((unsigned char)*s < 0x20) {
				buf_release(&b);
				return err_setc(e, ERR_INVALID_FIELD, "paths",
						"'paths' must not contain control characters");
			}
			if ((*s == '"' || *s == '\\') && buf_addch(&b, '\\'))
				goto big;
			if (buf_addch(&b, *s))
				goto big;
		}
		if (buf_addch(&b, '"'))
			goto big;
	}
	if (buf_addch(&b, '}'))
		goto big;
	*out = buf_detach(&b, NULL);
	return 0;
big:
	buf_release(&b);
	return err_setc(e, ERR_TOO_LARGE, "paths", "'paths' too large");
}

enum MHD_Result api_subscription_delete(struct request *rq)
{
	char idtext[24];
	long long id;
	struct db_conn *c;
	struct err e;
	int found;

	if (rq_path_id(rq, "subscription", &id, idtext, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	if (!c)
		return reply_err(rq, &e);
	found = db_mail_sub_delete(c, id, &e);
	if (found < 0)
		return reply_err(rq, &e);
	if (!found) {
		err_setc(&e, ERR_NOT_FOUND, "subscription", "no subscription %lld", id);
		return reply_err(rq, &e);
	}
	return reply_empty(rq, 204);
}

enum MHD_Result api_subscriptions_get(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);
	char *text = NULL;

	return reply_db_read(rq, c ? db_subscriptions_json(c, &text, &e) : -1, &text, &e);
}

enum MHD_Result api_subscriptions_post(struct request *rq)
{
	const char *email, *tree, *testcase, *metric;
	char *paths = NULL;
	json_t *b;
	struct db_conn *c;
	struct err e;
	long long id;

	b = rq_json(rq, &e);
	if (!b)
		return reply_err(rq, &e);
	if (opt_str(b, "email", &email, &e) || opt_str(b, "tree", &tree, &e) ||
	    opt_str(b, "testcase", &testcase, &e) || opt_str(b, "metric", &metric, &e) ||
	    paths_literal(b, &paths, &e))
		goto fail;
	if (!email) {
		err_setc(&e, ERR_MISSING_FIELD, "email", "'email' is required");
		goto fail;
	}
	if (!report_addr_ok(email)) {
		err_setc(&e, ERR_INVALID_FIELD, "email",
			 "'email' must be a plain address (local@domain)");
		goto fail;
	}
	c = rq_db(rq, &e);
	if (!c)
		goto fail;
	id = db_mail_sub_insert(c, email, tree, testcase, metric, paths, &e);
	if (id < 0)
		goto fail;
	free(paths);
	{
		json_t *pa = json_object_get(b, "paths");
		json_t *out = json_pack("{s:I, s:s, s:o, s:o, s:o, s:o}", "id", (json_int_t)id,
					"email", email, "tree",
					tree ? json_string(tree) : json_null(), "testcase",
					testcase ? json_string(testcase) : json_null(), "metric",
					metric ? json_string(metric) : json_null(), "paths",
					json_is_array(pa) ? json_incref(pa) : json_array());
		json_decref(b);
		return reply_json(rq, 201, out);
	}
fail:
	free(paths);
	json_decref(b);
	return reply_err(rq, &e);
}
