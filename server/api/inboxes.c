/*
 * Inboxes: public-inbox archives whose patch series are tested.
 *   POST /api/v1/inboxes (admin)          {name, url, lists[], subject_prefixes[], paths[],
 *                                          maintainers[], plan, cc_list, reply_no_change,
 *                                          parts_wait_s, poll_s, since} -> 200 {id, name}; again: a
 * new filter. The first poll starts at the archive's head (none tested), or at since (a UTC date)
 *   GET  /api/v1/inboxes                   every inbox, its filter, its last poll and error
 *   GET  /api/v1/inboxes/{name}/messages   the messages read, oldest first (no text)
 *   GET  /api/v1/inboxes/{name}/series     the series assembled, newest first, with state
 *
 * url: an http(s) URL of a v2 inbox as lore serves it (epochs at URL/0, URL/1, ...)
 * or a local path (PATH/git/0.git ...); server/inbox/inbox_poll.h follows it.
 */
#include "server/api/api.h"
#include "jsonkeys.h"
#include "names.h"
#include "server/api/args.h"
#include "server/db/inbox.h"
#include "server/db/inbox_series.h"
#include "server/inbox/inbox_poll.h"
#include "server/server.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const inbox_fields[] = { "name",
					    "url",
					    "lists",
					    "subject_prefixes",
					    "paths",
					    "plan",
					    "cc_list",
					    "reply_no_change",
					    "parts_wait_s",
					    "poll_s",
					    "since",
					    "maintainers",
					    NULL };

/* array of short strings at key (absent: none) -> a text[] literal in *out (new buf) */
static int words_field(json_t *b, const char *key, struct buf *out, struct err *e)
{
	json_t *a = json_object_get(b, key), *v;
	size_t i;
	int over = buf_addch(out, '{');

	if (a && !json_is_array(a))
		return err_setc(e, ERR_INVALID_FIELD, key, "'%s' is an array of strings", key);
	json_array_foreach (a, i, v) {
		const char *s = json_is_string(v) ? json_string_value(v) : NULL;

		if (!s || !*s || strlen(s) > 255 || strpbrk(s, "\"\\{},\n\r\t"))
			return err_setc(e, ERR_INVALID_FIELD, key,
					"'%s' item %zu is 1..255 chars without quotes, "
					"backslashes, braces, commas or control characters",
					key, i);
		over |= buf_addf(out, "%s\"%s\"", i ? "," : "", s);
	}
	over |= buf_addch(out, '}');
	if (over)
		return err_setc(e, ERR_INVALID_FIELD, key, "'%s' has too many items", key);
	return 0;
}

static int bool_field(json_t *b, const char *key, int *out, struct err *e)
{
	json_t *v = json_object_get(b, key);

	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return err_setc(e, ERR_INVALID_FIELD, key, "'%s' is true or false", key);
	*out = json_is_true(v);
	return 0;
}

/* "since": absent or null none, else a UTC date "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SSZ",
 * written to out as the latter */
static int since_field(json_t *b, char *out, size_t size, struct err *e)
{
	json_t *v = json_object_get(b, "since");
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;
	struct tm tm = { 0 }, back;
	int n = 0, hh = 0, mm = 0, ss = 0;
	time_t t;

	out[0] = '\0';
	if (!v || json_is_null(v))
		return 0;
	if (s &&
	    (sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &n) == 3 &&
	     n == 10) &&
	    (!s[n] || (sscanf(s + n, "T%2d:%2d:%2dZ%n", &hh, &mm, &ss, &n) == 3 && !s[10 + n]))) {
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		tm.tm_hour = hh;
		tm.tm_min = mm;
		tm.tm_sec = ss;
		back = tm;
		t = timegm(&back);
		/* timegm normalises: a field out of range comes back changed */
		if (tm.tm_year >= 70 && tm.tm_year < 8100 && t != (time_t)-1 &&
		    back.tm_mday == tm.tm_mday && back.tm_mon == tm.tm_mon && back.tm_hour == hh &&
		    back.tm_min == mm && back.tm_sec == ss) {
			strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &back);
			return 0;
		}
	}
	return err_setc(e, ERR_INVALID_FIELD, "since",
			"'since' is a UTC date, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ");
}

enum MHD_Result api_inboxes_post(struct request *rq)
{
	struct err e;
	json_t *b = rq_json(rq, &e);
	struct buf lists = BUF_INIT(64 * 1024), prefixes = BUF_INIT(64 * 1024),
		   paths = BUF_INIT(64 * 1024), maint = BUF_INIT(64 * 1024);
	struct db_inbox_new in = { 0 };
	long long wait_s, poll_s, id = -1;
	char since[40];
	struct db_conn *c;
	enum MHD_Result ret;

	if (!b)
		return reply_err(rq, &e);
	if (json_keys_only(b, inbox_fields, "", &e) ||
	    json_str_field(b, "name", 1, 128, &in.name, &e) ||
	    json_str_field(b, "url", 1, 4096, &in.url, &e) ||
	    json_str_field(b, "plan", 0, 128, &in.plan, &e))
		goto bad;
	if (!names_plain(in.name, NAMES_PLAIN_MAX)) {
		err_setc(&e, ERR_INVALID_FIELD, "name",
			 "inbox names are chars of [A-Za-z0-9._+-], the first a letter, a digit or '_'");
		goto bad;
	}
	if (!*in.url || in.url[0] == '-' || strpbrk(in.url, "\n\r")) {
		err_setc(&e, ERR_INVALID_FIELD, "url",
			 "'url' is the http(s) URL or the path of a public-inbox v2 archive");
		goto bad;
	}
	if (in.plan && !names_plain(in.plan, NAMES_PLAIN_MAX)) {
		err_setc(&e, ERR_INVALID_FIELD, "plan", "'plan' is a plan's name");
		goto bad;
	}
	if (words_field(b, "lists", &lists, &e) ||
	    words_field(b, "subject_prefixes", &prefixes, &e) ||
	    words_field(b, "paths", &paths, &e) || words_field(b, "maintainers", &maint, &e) ||
	    bool_field(b, "cc_list", &in.cc_list, &e) ||
	    bool_field(b, "reply_no_change", &in.reply_no_change, &e) ||
	    json_int_field(b, "parts_wait_s", 3600, 0, 604800, &wait_s, &e) ||
	    json_int_field(b, "poll_s", 300, 0, 604800, &poll_s, &e) ||
	    since_field(b, since, sizeof(since), &e))
		goto bad;
	in.lists = lists.data;
	in.subject_prefixes = prefixes.data;
	in.paths = paths.data;
	in.maintainers = maint.data;
	in.parts_wait_s = (long)wait_s;
	in.poll_s = (long)poll_s;
	in.since = since[0] ? since : NULL;
	c = rq_db(rq, &e);
	if (c)
		id = db_inbox_upsert(c, &in, &e);
	if (id < 0)
		goto bad;
	inbox_poller_kick(rq->srv->inboxes);
	ret = reply_json(rq, 200, json_pack("{s:I,s:s}", "id", (json_int_t)id, "name", in.name));
	buf_release(&lists);
	buf_release(&prefixes);
	buf_release(&paths);
	buf_release(&maint);
	json_decref(b);
	return ret;
bad:
	buf_release(&lists);
	buf_release(&prefixes);
	buf_release(&paths);
	buf_release(&maint);
	json_decref(b);
	return reply_err(rq, &e);
}

enum MHD_Result api_inboxes_get(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);
	char *text;
	enum MHD_Result ret;

	if (!c || db_inboxes_json(c, &text, &e))
		return reply_err(rq, &e);
	ret = reply_text(rq, 200, "application/json", text, strlen(text));
	free(text);
	return ret;
}

/* a name no inbox has is the path's fault: 404 naming it, as the other /{id} routes */
static enum MHD_Result reply_inbox_err(struct request *rq, struct err *e)
{
	if (e->id == ERR_NOT_FOUND)
		err_setc(e, ERR_NOT_FOUND, "name", "no inbox '%s'", rq->path_params[0]);
	return reply_err(rq, e);
}

enum MHD_Result api_inbox_messages_get(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);
	char *text;
	enum MHD_Result ret;

	if (!c || db_inbox_messages_json(c, rq->path_params[0], &text, &e))
		return reply_inbox_err(rq, &e);
	ret = reply_text(rq, 200, "application/json", text, strlen(text));
	free(text);
	return ret;
}

enum MHD_Result api_inbox_series_get(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);
	char *text;
	enum MHD_Result ret;

	if (!c || db_inbox_series_json(c, rq->path_params[0], &text, &e))
		return reply_inbox_err(rq, &e);
	ret = reply_text(rq, 200, "application/json", text, strlen(text));
	free(text);
	return ret;
}
