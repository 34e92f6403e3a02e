/*
 * Tracked trees:
 *   POST /api/v1/trees (admin)              {name, url, branches[], poll_s}
 *   GET  /api/v1/trees                      every tree with its branch heads and last poll
 *   POST /api/v1/trees/{name}/poll (submit) poll it now, as a push hook would -> 202
 *
 * poll_s: seconds between polls while an enabled plan uses the tree (300
 * for a new tree; 0: only when asked); server/track/poller.h polls.
 */
#include "server/api/api.h"
#include "names.h"
#include "clock.h"
#include "server/api/args.h"
#include "server/db/trees.h"
#include "server/track/poller.h"
#include "server/server.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum MHD_Result api_trees_post(struct request *rq)
{
	struct err e;
	json_t *b = rq_json(rq, &e), *name, *url, *branches, *v;
	long long poll_s = -1;
	struct buf br = BUF_INIT(64 * 1024);
	struct db_conn *c;
	long long id;
	size_t i;
	int over = 0;
	enum MHD_Result ret;

	if (!b)
		return reply_err(rq, &e);
	name = json_object_get(b, "name");
	url = json_object_get(b, "url");
	branches = json_object_get(b, "branches");
	if (!json_is_string(name) || !json_string_length(name) || json_string_length(name) > 128) {
		err_setc(&e, name ? ERR_INVALID_FIELD : ERR_MISSING_FIELD, "name",
			 "'name' is a string of 1..128 chars");
		goto bad;
	}
	if (!names_plain(json_string_value(name), NAMES_PLAIN_MAX)) {
		err_setc(&e, ERR_INVALID_FIELD, "name",
			 "tree names are chars of [A-Za-z0-9._+-], the first a letter, a digit or '_'");
		goto bad;
	}
	if (url && (!json_is_string(url) || json_string_length(url) > 4096)) {
		err_setc(&e, ERR_INVALID_FIELD, "url", "'url' is a git URL or a local path");
		goto bad;
	}
	if (url && json_string_value(url)[0] == '-') {
		err_setc(&e, ERR_INVALID_FIELD, "url", "'url' may not start with '-'");
		goto bad;
	}
	if (json_object_get(b, "poll_s") && !json_is_null(json_object_get(b, "poll_s")) &&
	    json_int_field(b, "poll_s", -1, 0, 604800, &poll_s, &e))
		goto bad;
	if (branches && !json_is_array(branches)) {
		err_setc(&e, ERR_INVALID_FIELD, "branches",
			 "'branches' is an array of branch names");
		goto bad;
	}
	over |= buf_addch(&br, '{');
	json_array_foreach (branches, i, v) {
		const char *s = json_is_string(v) ? json_string_value(v) : NULL;
		if (!s || !*s || strlen(s) > 255 || s[0] == '-' ||
		    strpbrk(s, "\"\\{},"
			       " \t\n~^:?*[")) {
			err_setc(&e, ERR_INVALID_FIELD, "branches",
				 "branch %zu is not a valid ref name", i);
			goto bad;
		}
		over |= buf_addf(&br, "%s\"%s\"", i ? "," : "", s);
	}
	over |= buf_addch(&br, '}');
	if (over) {
		err_setc(&e, ERR_INVALID_FIELD, "branches", "too many branches");
		goto bad;
	}
	c = rq_db(rq, &e);
	id = c ? db_tree_upsert(c, json_string_value(name), url ? json_string_value(url) : NULL,
				br.data, (long)poll_s, &e) :
		 -1;
	if (id < 0)
		goto bad;
	atomic_fetch_add(&rq->srv->trees_gen, 1);
	/* s:o steals: a new array for missing branches, a reference to given ones (s:O on a
	 * new array leaked it) */
	ret = reply_json(rq, 200,
			 json_pack("{s:I,s:O,s:O,s:o}", "id", (json_int_t)id, "name", name, "url",
				   url ? url : json_null(), "branches",
				   branches ? json_incref(branches) : json_array()));
	buf_release(&br);
	json_decref(b);
	return ret;
bad:
	buf_release(&br);
	json_decref(b);
	return reply_err(rq, &e);
}

enum MHD_Result api_tree_poll(struct request *rq)
{
	struct err e;
	const char *name = rq->path_params[0];
	struct db_conn *c = rq_db(rq, &e);
	long long id;
	int has_url, got = c ? db_tree_poll_request(c, name, &id, &has_url, &e) : -1;

	if (got < 0)
		return reply_err(rq, &e);
	if (!got) {
		err_setc(&e, ERR_NOT_FOUND, "name", "no tree '%s'", name);
		return reply_err(rq, &e);
	}
	if (!has_url) {
		err_setc(&e, ERR_CONFLICT, "url", "tree '%s' has no url to fetch", name);
		return reply_err(rq, &e);
	}
	poller_kick(rq->srv->poller);
	return reply_json(rq, 202, json_pack("{s:s,s:b}", "tree", name, "poll_requested", 1));
}

/*
 * GET /api/v1/trees is read by every dashboard page and costs a query with
 * a count per tree, so its reply is kept for TREES_TTL_MS: served from
 * memory while no change made through this server (a tree posted, a result
 * stored: api_trees_changed) is newer than it. Changes this process does
 * not see (another server, a tree's history imported) show within the TTL.
 */
#define TREES_TTL_MS 1000

static struct {
	pthread_mutex_t lock;
	char *text; /* the cached reply, NULL when none */
	size_t len;
	unsigned long gen; /* srv->trees_gen when it was read */
	long long at_ms;   /* CLOCK_MONOTONIC when it was read */
} trees_cache = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0 };

enum MHD_Result api_trees_get(struct request *rq)
{
	struct err e;
	unsigned long gen = atomic_load(&rq->srv->trees_gen);
	long long now = mono_ms();
	enum MHD_Result ret;
	struct db_conn *c;
	char *text;
	size_t len;

	pthread_mutex_lock(&trees_cache.lock);
	if (trees_cache.text && trees_cache.gen == gen && now - trees_cache.at_ms < TREES_TTL_MS) {
		ret = reply_text(rq, 200, "application/json", trees_cache.text, trees_cache.len);
		pthread_mutex_unlock(&trees_cache.lock);
		return ret;
	}
	pthread_mutex_unlock(&trees_cache.lock);

	c = rq_db(rq, &e);
	if (!c || db_trees_json(c, &text, &len, &e))
		return reply_err(rq, &e);
	ret = reply_text(rq, 200, "application/json", text, len);
	/* keep it unless something changed while it was read (it may predate that) */
	pthread_mutex_lock(&trees_cache.lock);
	if (atomic_load(&rq->srv->trees_gen) == gen &&
	    (!trees_cache.text || trees_cache.at_ms <= now)) {
		free(trees_cache.text);
		trees_cache.text = text;
		trees_cache.len = len;
		text = NULL;
		trees_cache.gen = gen;
		trees_cache.at_ms = now;
	}
	pthread_mutex_unlock(&trees_cache.lock);
	free(text);
	return ret;
}
