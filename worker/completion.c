#include "worker/completion.h"
#include "xalloc.h"

#include <string.h>

#include <uuid/uuid.h>

static const char *const statuses[] = { "ok", "build-failed", "boot-failed", "run-failed",
					"same-image" };

/* job fields copied into every result document, in this order */
static const char *const job_fields[] = {
	"tree", "branch", "commit", "kconfig", "compiler", "testcase", "params",
};

int completion_status_valid(const char *status)
{
	for (size_t i = 0; status && i < ARRAY_SIZE(statuses); i++)
		if (!strcmp(status, statuses[i]))
			return 1;
	return 0;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp;

	if (s[0] < 0x80)
		return s[0] ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

char *completion_utf8_clean(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc(n + 1);
	size_t i = 0;

	while (i < n) {
		size_t len = utf8_len(p + i, n - i);

		if (!len) {
			out[i++] = '?';
			continue;
		}
		memcpy(out + i, p + i, len);
		i += len;
	}
	out[n] = '\0';
	return out;
}

static json_t *clean_string(const char *s, size_t max_tail)
{
	size_t n = strlen(s);
	char *c;
	json_t *j;

	if (max_tail && n > max_tail) {
		s += n - max_tail;
		n = max_tail;
	}
	c = completion_utf8_clean(s, n);
	j = json_stringn(c, n);
	free(c);
	return j;
}

static json_t *result_doc(const json_t *job, const json_t *machine, const char *status, json_t *run)
{
	json_t *doc = json_object();
	uuid_t u;
	char id[37];
	const char *key;
	json_t *v;

	uuid_generate_random(u);
	uuid_unparse_lower(u, id);
	json_object_set_new(doc, "run_id", json_string(id));
	json_object_set(doc, "job_id", json_object_get(job, "id"));
	for (size_t i = 0; i < ARRAY_SIZE(job_fields); i++) {
		v = json_object_get(job, job_fields[i]);
		if (v && !json_is_null(v))
			json_object_set_new(doc, job_fields[i], json_deep_copy(v));
	}
	if (machine)
		json_object_set_new(doc, "machine", json_deep_copy(machine));
	json_object_set_new(doc, "status", json_string(status));
	/* the run's own fields, without overriding the job's identity */
	json_object_foreach (run, key, v) {
		if (!strcmp(key, "status") && json_is_string(v)) {
			json_object_set(doc, "status", v);
			continue;
		}
		if (json_object_get(doc, key))
			continue;
		json_object_set_new(doc, key, json_deep_copy(v));
	}
	return doc;
}

json_t *completion_build(const json_t *job, const json_t *machine, const char *status,
			 const json_t *runs, const char *log_tail, const char *kconfig,
			 struct err *e)
{
	json_t *body, *results, *run;
	size_t i;

	if (!json_is_integer(json_object_get(job, "id")))
		return err_setc(e, ERR_INVALID_FIELD, "id", "job has no integer id"), NULL;
	if (!completion_status_valid(status))
		return err_setc(e, ERR_INVALID_FIELD, "status", "bad job status '%s'",
				status ? status : "(null)"),
		       NULL;
	if (runs && !json_is_array(runs))
		return err_setc(e, ERR_INVALID_FIELD, "runs", "runs is not an array"), NULL;
	results = json_array();
	json_array_foreach (runs, i, run) {
		if (!json_is_object(run)) {
			json_decref(results);
			return err_setc(e, ERR_INVALID_FIELD, "runs", "run %zu is not an object",
					i),
			       NULL;
		}
		json_array_append_new(results, result_doc(job, machine, status, run));
	}
	body = json_object();
	json_object_set_new(body, "status", json_string(status));
	json_object_set_new(body, "results", results);
	json_object_set_new(body, "log_tail",
			    clean_string(log_tail ? log_tail : "", COMPLETION_MAX_LOG));
	if (kconfig)
		json_object_set_new(body, "kconfig", clean_string(kconfig, 0));
	return body;
}
