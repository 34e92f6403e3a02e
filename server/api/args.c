#include "server/api/args.h"
#include "names.h"
#include "profile.h"
#include "vmspec.h"
#include "server/db/runs.h"
#include "server/db/trees.h"
#include "server/track/gitmirror.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int setup_filter_from_query(struct request *rq, struct db_setup_filter *f, struct err *e)
{
	const char *params = rq_arg(rq, "params"), *monitors = rq_arg(rq, "monitors");

	memset(f, 0, sizeof(*f));
	f->testcase = rq_arg(rq, "testcase");
	f->tbox_group = rq_arg(rq, "tbox_group");
	f->kconfig = rq_arg(rq, "kconfig");
	f->compiler = rq_arg(rq, "compiler");
	f->mode = rq_arg(rq, "mode");
	if (f->mode && strcmp(f->mode, "wallclock") && strcmp(f->mode, "icount"))
		return err_setc(e, ERR_INVALID_FIELD, "mode", "mode must be wallclock or icount");
	if (monitors) {
		char m[MONITORS_TEXT_MAX];

		if (monitors_from_text(monitors, "monitors", m, e))
			return -1;
		f->monitors = arena_strdup(rq->arena, m);
	}
	if (params) {
		json_error_t je;
		json_t *j = json_loads(params, 0, &je);
		char *given, *key;

		if (!j || !json_is_object(j)) {
			json_decref(j);
			return err_setc(
				e, ERR_INVALID_FIELD, "params",
				"params must be a JSON object, e.g. {\"test\":\"small-allocs\"}");
		}
		given = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
		if (!given)
			abort();
		/* a shape an upload refuses is refused here too, naming the key as it does:
		 * a typo is a 400, not a page of no data; but for a setup stored with those
		 * very params before uploads were checked, which they still name */
		if (vmspec_canonical(j, "", e)) {
			struct err dbe;
			struct db_conn *c = rq_db(rq, &dbe);
			int stored = c ? db_setup_key_exists(c, given, &dbe) : -1;

			json_decref(j);
			if (stored == 1) {
				err_clear(e);
				f->params_key = arena_strdup(rq->arena, given);
			} else if (stored < 0) {
				*e = dbe;
			}
			free(given);
			return stored == 1 ? 0 : -1;
		}
		/* the shape as results store it (vmspec.h): pin=true finds the setup of pin
		 * true; and the params as given, the key of a setup stored in that spelling
		 * before the server rewrote it (the dashboard links a setup by its params) */
		key = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(j);
		if (!key)
			abort();
		f->params_key = arena_strdup(rq->arena, key);
		if (strcmp(given, key))
			f->params_given = arena_strdup(rq->arena, given);
		free(given);
		free(key);
	}
	return 0;
}

int commit_resolve(struct request *rq, struct db_conn *c, const char *arg, const char *field,
		   const char **id, const char **sha, const char **subject, struct err *e)
{
	char lower[41];
	size_t n;
	struct db_commit found;

	if (!arg)
		return err_setc(e, ERR_MISSING_FIELD, field, "'%s' is required", field);
	if (!names_abbrev_sha(arg) && rq_arg(rq, "tree")) {
		/* a ref: the commit it names in the tree's mirror, as A/B requests resolve */
		const char *tree = rq_arg(rq, "tree");
		struct db_tree t;
		char sha_of[1][41];
		int rc;

		if (db_tree_get(c, tree, &t, e) < 0)
			return -1;
		if (!t.id)
			return err_setc(e, ERR_NOT_FOUND, "tree", "no tree '%s'", tree);
		rc = gitmirror_resolve(rq->srv->cfg->data_dir, tree, t.url,
				       (int)rq->srv->cfg->git_timeout_s, 1, &arg,
				       (const char *const[]){ field }, sha_of, e);
		db_tree_release(&t);
		if (rc)
			return -1;
		arg = arena_strdup(rq->arena, sha_of[0]);
	}
	n = strlen(arg);
	if (!names_abbrev_sha(arg))
		return err_setc(e, ERR_INVALID_FIELD, field,
				"'%s' must be a commit sha or a prefix of at least 7 hex digits "
				"(or, with 'tree', a ref)",
				field);
	for (size_t i = 0; i < n; i++)
		lower[i] = (char)tolower((unsigned char)arg[i]);
	lower[n] = '\0';
	switch (db_commit_resolve(c, lower, rq->arena, &found, e)) {
	case -1:
		return -1;
	case 0:
		return err_setc(e, ERR_NOT_FOUND, field, "no results for commit '%s'", arg);
	case 1:
		break;
	default:
		return err_setc(e, ERR_INVALID_FIELD, field, "commit prefix '%s' is ambiguous",
				arg);
	}
	*id = arena_strfmt(rq->arena, "%lld", found.id);
	*sha = found.sha;
	*subject = found.subject;
	return 0;
}

json_t *setup_json(struct db_conn *c, long long setup_id, struct err *e)
{
	struct db_setup s;
	json_t *o, *params;
	int found = db_setup_get(c, setup_id, &s, e);

	if (found < 0)
		return NULL;
	if (!found) {
		err_setc(e, ERR_DB, "setup", "setup %lld vanished", setup_id);
		return NULL;
	}
	params = json_loads(s.params, 0, NULL);
	o = json_pack("{s:I,s:s,s:o,s:s,s:s,s:s,s:s,s:o}", "id", (json_int_t)setup_id, "testcase",
		      s.testcase, "params", params ? params : json_object(), "kconfig", s.kconfig,
		      "compiler", s.compiler, "tbox_group", s.tbox_group, "mode", s.mode,
		      "monitors", monitors_json(s.monitors));
	db_setup_free(&s);
	return o;
}

int list_args(struct request *rq, const char *const *states, long def_limit, long max_limit,
	      const char **state, char limit[24], struct err *e)
{
	const char *s = rq_arg(rq, "state"), *l = rq_arg(rq, "limit");
	char *end;
	long n = def_limit;

	*state = NULL;
	if (s) {
		struct buf names = BUF_INIT(1024);
		int known = 0, full = 0;

		for (size_t i = 0; states[i]; i++) {
			known |= !strcmp(s, states[i]);
			full |= buf_addf(&names, "%s%s", i ? ", " : "", states[i]);
		}
		if (!known) {
			err_setc(e, ERR_INVALID_FIELD, "state", "state must be one of: %s",
				 full ? "(too many)" : names.data);
			buf_release(&names);
			return -1;
		}
		buf_release(&names);
		*state = s;
	}
	if (l) {
		n = strtol(l, &end, 10);
		if (*end || n < 1 || n > max_limit)
			return err_setc(e, ERR_INVALID_FIELD, "limit",
					"limit must be an integer in [1, %ld]", max_limit);
	}
	snprintf(limit, 24, "%ld", n);
	return 0;
}

int rq_path_id(struct request *rq, const char *what, long long *id, char text[24], struct err *e)
{
	const char *s = rq->path_params[0];
	char *end;

	/*
	 * digits only (strtoll would take " 5" and "+5"), and not past
	 * LLONG_MAX: strtoll saturates there, and the 404 would then name
	 * another id than the one asked
	 */
	errno = 0;
	*id = isdigit((unsigned char)*s) ? strtoll(s, &end, 10) : 0;
	if (errno == ERANGE)
		return err_setc(e, ERR_INVALID_FIELD, "id", "'%.100s' is not a %s id (too large)",
				s, what);
	if (!isdigit((unsigned char)*s) || *end || *id <= 0)
		return err_setc(e, ERR_INVALID_FIELD, "id", "'%.100s' is not a %s id", s, what);
	snprintf(text, 24, "%lld", *id);
	return 0;
}

enum MHD_Result reply_list(struct request *rq, const char *const *states, long def_limit,
			   long max_limit,
			   int (*list)(struct db_conn *c, const char *state, const char *limit,
				       char **text, struct err *e))
{
	struct err e;
	const char *state;
	char lim[24], *text = NULL;
	struct db_conn *c;

	if (list_args(rq, states, def_limit, max_limit, &state, lim, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	return reply_db_read(rq, c ? list(c, state, lim, &text, &e) : -1, &text, &e);
}

enum MHD_Result reply_by_id(struct request *rq, const char *what,
			    int (*read)(struct db_conn *c, long long id, char **text,
					struct err *e))
{
	struct err e;
	long long id;
	char idb[24], *text = NULL;
	struct db_conn *c;
	int got;

	if (rq_path_id(rq, what, &id, idb, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	got = c ? read(c, id, &text, &e) : -1;
	if (!got)
		err_setc(&e, ERR_NOT_FOUND, "id", "no %s %lld", what, id);
	return reply_db_read(rq, got == 1 ? 0 : -1, &text, &e);
}

int json_str_field(json_t *o, const char *key, int required, size_t max, const char **out,
		   struct err *e)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v)) {
		if (required)
			return err_setc(e, ERR_MISSING_FIELD, key, "'%s' is required", key);
		return 0;
	}
	if (!json_is_string(v))
		return err_setc(e, ERR_INVALID_FIELD, key, "'%s' must be a string", key);
	if (json_string_length(v) > max)
		return err_setc(e, ERR_INVALID_FIELD, key, "'%s' is longer than %zu bytes", key,
				max);
	*out = json_string_value(v);
	return 0;
}

int json_int_field(json_t *o, const char *key, long long def, long long min, long long max,
		   long long *out, struct err *e)
{
	json_t *v = json_object_get(o, key);

	*out = def;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
		return err_setc(e, ERR_INVALID_FIELD, key,
				"'%s' must be an integer in [%lld, %lld]", key, min, max);
	*out = json_integer_value(v);
	return 0;
}
