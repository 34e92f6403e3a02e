#include "worker/upload.h"
#include "worker/completion.h"
#include "worker/wlog.h"
#include "xalloc.h"

#include <string.h>
#include <time.h>

json_t *upload_entry_complete(long long job_id, json_t *body)
{
	char stamp[32], *path = xstrfmt("/api/v1/jobs/%lld/complete", job_id);
	struct tm tm;
	time_t now = time(NULL);
	json_t *entry;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	entry = json_pack("{s:s, s:I, s:s, s:o, s:s}", "kind", "complete", "job_id",
			  (json_int_t)job_id, "path", path, "body", body, "spooled_at", stamp);
	free(path);
	return entry;
}

/* HTTP statuses that refuse an upload for good (others are retried) */
static const long final_statuses[] = { 400, 404, 405, 410, 413, 415, 422 };

enum upload_verdict upload_send(struct api_client *c, const json_t *entry, struct err *e)
{
	const char *path = json_string_value(json_object_get(entry, "path"));
	const char *kind = json_string_value(json_object_get(entry, "kind"));
	json_t *body = json_object_get(entry, "body");
	struct api_reply r;
	enum upload_verdict v = UPLOAD_RETRY;

	if (!path || strncmp(path, "/api/v1/", 8) || !json_is_object(body)) {
		err_setc(e, ERR_INVALID_FIELD, "", "spool entry has no path or body");
		return UPLOAD_REJECTED;
	}
	if (api_client_post(c, path, body, 0, &r, e))
		return UPLOAD_RETRY;
	if (r.status >= 200 && r.status < 300) {
		v = UPLOAD_SENT;
	} else if (r.status == 409) {
		api_reply_error(&r, path, e);
		v = kind && !strcmp(kind, "complete") ? UPLOAD_DROPPED : UPLOAD_REJECTED;
	} else {
		api_reply_error(&r, path, e);
		for (size_t i = 0; i < ARRAY_SIZE(final_statuses); i++)
			if (r.status == final_statuses[i])
				v = UPLOAD_REJECTED;
	}
	api_reply_release(&r);
	return v;
}

json_t *upload_refused_fallback(const json_t *entry, const char *kept, const struct err *why)
{
	const char *kind = json_string_value(json_object_get(entry, "kind"));
	const json_t *body = json_object_get(entry, "body");
	json_t *job_id = json_object_get(entry, "job_id"), *fb, *mid;
	const char *tail = json_string_value(json_object_get(body, "log_tail"));
	size_t n;
	char *log, *clean;

	if (!kind || strcmp(kind, "complete") || !json_is_integer(job_id) ||
	    !json_is_object(body) || json_is_true(json_object_get(entry, "fallback")) ||
	    (why->status != 400 && why->status != 413 && why->status != 422))
		return NULL;
	/* the end of the old log, then the reason: within the server's log_tail limit */
	n = tail ? strlen(tail) : 0;
	if (n > COMPLETION_MAX_LOG / 2)
		tail += n - COMPLETION_MAX_LOG / 2;
	log = xstrfmt(
		"%s\nregtrack-worker: the server refused the completion (status %s, %zu result(s)): HTTP %d %s: %s%s%s\nregtrack-worker: the refused completion is kept in '%s'\n",
		tail ? tail : "",
		json_string_value(json_object_get(body, "status")) ?
			json_string_value(json_object_get(body, "status")) :
			"?",
		json_array_size(json_object_get(body, "results")), why->status, why->code,
		why->message, why->detail[0] ? " at " : "", why->detail, kept);
	clean = completion_utf8_clean(log, strlen(log));
	free(log);
	fb = json_pack("{s:s, s:s, s:[]}", "status", "run-failed", "log_tail", clean, "results");
	free(clean);
	mid = json_object_get(body, "machine_id");
	if (mid)
		json_object_set(fb, "machine_id", mid);
	fb = upload_entry_complete(json_integer_value(job_id), fb);
	json_object_set_new(fb, "fallback", json_true());
	return fb;
}

int upload_flush(struct spool *s, struct api_client *c, size_t *left, size_t *sent,
		 size_t *set_aside, struct err *e)
{
	char **names;
	size_t nr, i, nsent = 0, naside = 0;
	int ret = 0, more;

again:
	more = 0;
	if (spool_list(s, &names, &nr, e))
		return -1;
	for (i = 0; i < nr; i++) {
		json_t *entry;
		struct err se;
		enum upload_verdict v;
		long long job_id;

		json_t *fb = NULL;

		if (spool_get(s, names[i], &entry, &se))
			continue; /* gone, or torn and set aside with a warning */
		job_id = json_integer_value(json_object_get(entry, "job_id"));
		v = upload_send(c, entry, &se);
		if (v == UPLOAD_REJECTED) {
			char *kept = xstrfmt("%s/rejected/%s", s->dir, names[i]);

			fb = upload_refused_fallback(entry, kept, &se);
			free(kept);
		}
		json_decref(entry);
		if (v == UPLOAD_RETRY) {
			wlog_warn("upload of '%s' (job %lld) failed, will retry: %s", names[i],
				  job_id, se.message);
			break;
		}
		if (v == UPLOAD_SENT) {
			if (spool_remove(s, names[i], e)) {
				ret = -1;
				break;
			}
			nsent++;
			wlog_info("uploaded '%s' (job %lld)", names[i], job_id);
			continue;
		}
		if (spool_set_aside(s, names[i], v == UPLOAD_DROPPED ? "dropped" : "rejected", e)) {
			json_decref(fb);
			ret = -1;
			break;
		}
		naside++;
		if (fb) {
			/* after the refused one: the job's end, with the reason */
			struct err pe;

			if (spool_put(s, fb, NULL, &pe))
				wlog_error("job %lld: cannot spool the run-failed completion that says why: %s",
					   job_id, pe.message);
			else
				more = 1;
			json_decref(fb);
		}
		if (v == UPLOAD_DROPPED)
			wlog_warn("job %lld: lease lost, completion discarded (kept in '%s/dropped/%s'): %s",
				  job_id, s->dir, names[i], se.message);
		else
			wlog_error("upload of '%s' (job %lld) refused for good (kept in '%s/rejected/%s'): %s [%s %s]",
				   names[i], job_id, s->dir, names[i], se.message, se.code,
				   se.detail);
	}
	spool_names_free(names, nr);
	if (more && !ret && i == nr)
		goto again; /* send the new entries now (every name is listed again) */
	/* those not tried; a fallback made before a stop is behind them */
	*left = nr - i;
	if (sent)
		*sent = nsent;
	if (set_aside)
		*set_aside = naside;
	return ret;
}
