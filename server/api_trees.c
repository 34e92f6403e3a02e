/* POST /api/v1/trees (admin): {name, url, branches[]}; GET /api/v1/trees */
#include "server/api.h"

#include <ctype.h>
#include <string.h>

#include "banned.h"

enum MHD_Result api_trees_post(struct request *rq)
{
	struct err e;
	json_t *b = rq_json(rq, &e), *name, *url, *branches, *v;
	struct buf br = BUF_INIT(64 * 1024);
	PGconn *c;
	PGresult *r;
	size_t i;
	int over = 0;
	enum MHD_Result ret;

	if (!b)
		return reply_err(rq, &e);
	name = json_object_get(b, "name");
	url = json_object_get(b, "url");
	branches = json_object_get(b, "branches");
	if (!json_is_string(name) || !json_string_length(name) || json_string_length(name) > 128) {
		err_set(&e, 400, name ? "invalid_field" : "missing_field", "name",
			"'name' is a string of 1..128 chars");
		goto bad;
	}
	for (const char *p = json_string_value(name); *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._+-", *p)) {
			err_set(&e, 400, "invalid_field", "name", "tree names are chars of [A-Za-z0-9._+-]");
			goto bad;
		}
	if (url && (!json_is_string(url) || json_string_length(url) > 4096)) {
		err_set(&e, 400, "invalid_field", "url", "'url' is a git URL or a local path");
		goto bad;
	}
	if (url && json_string_value(url)[0] == '-') {
		err_set(&e, 400, "invalid_field", "url", "'url' may not start with '-'");
		goto bad;
	}
	if (branches && !json_is_array(branches)) {
		err_set(&e, 400, "invalid_field", "branches", "'branches' is an array of branch names");
		goto bad;
	}
	over |= buf_addch(&br, '{');
	json_array_foreach(branches, i, v) {
		const char *s = json_is_string(v) ? json_string_value(v) : NULL;
		if (!s || !*s || strlen(s) > 255 || s[0] == '-' || strpbrk(s, "\"\\{},"
								       " \t\n~^:?*[")) {
			err_set(&e, 400, "invalid_field", "branches", "branch %zu is not a valid ref name", i);
			goto bad;
		}
		over |= buf_addf(&br, "%s\"%s\"", i ? "," : "", s);
	}
	over |= buf_addch(&br, '}');
	if (over) {
		err_set(&e, 400, "invalid_field", "branches", "too many branches");
		goto bad;
	}
	{
		const char *p[3] = { json_string_value(name), url ? json_string_value(url) : NULL, br.data };
		c = rq_db(rq, &e);
		r = c ? db_exec(c, ST_TREE_UPSERT, 3, p, &e) : NULL;
	}
	if (!r)
		goto bad;
	/* s:o steals: a new array for missing branches, a reference to given ones (s:O on a
	 * new array leaked it) */
	ret = reply_json(rq, 200, json_pack("{s:I,s:O,s:O,s:o}", "id",
					    (json_int_t)strtoll(PQgetvalue(r, 0, 0), NULL, 10), "name", name,
					    "url", url ? url : json_null(), "branches",
					    branches ? json_incref(branches) : json_array()));
	PQclear(r);
	buf_release(&br);
	json_decref(b);
	return ret;
bad:
	buf_release(&br);
	json_decref(b);
	return reply_err(rq, &e);
}

enum MHD_Result api_trees_get(struct request *rq)
{
	struct err e;
	PGconn *c = rq_db(rq, &e);
	PGresult *r = c ? db_exec(c, ST_TREES_JSON, 0, NULL, &e) : NULL;
	enum MHD_Result ret;

	if (!r)
		return reply_err(rq, &e);
	ret = reply_text(rq, 200, "application/json", PQgetvalue(r, 0, 0), strlen(PQgetvalue(r, 0, 0)));
	PQclear(r);
	return ret;
}
