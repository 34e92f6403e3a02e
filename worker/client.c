#include "worker/client.h"
#include "buf.h"
#include "xalloc.h"
#include "attr.h"

#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#define CONNECT_TIMEOUT_S 10L

struct sink {
	struct buf b;
	int over; /* the reply went past CLIENT_MAX_REPLY */
};

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;

	if (buf_add(&s->b, p, size * n)) {
		s->over = 1;
		return 0; /* libcurl then fails with CURLE_WRITE_ERROR */
	}
	return size * n;
}

static int on_progress(void *ctx, curl_off_t dltotal UNUSED, curl_off_t dlnow UNUSED,
		       curl_off_t ultotal UNUSED, curl_off_t ulnow UNUSED)
{
	const struct client *c = ctx;

	return c->cancel && atomic_load(c->cancel) ? 1 : 0;
}

int client_init(struct client *c, const char *base_url, const char *token, long timeout_s,
		struct err *e)
{
	struct curl_slist *h = NULL;
	char *auth;

	memset(c, 0, sizeof(*c));
	c->curl = curl_easy_init();
	if (!c->curl)
		return err_setc(e, ERR_INTERNAL, "", "cannot create a libcurl handle");
	c->base_url = xstrdup(base_url);
	c->timeout_s = timeout_s;
	auth = xstrfmt("Authorization: Bearer %s", token);
	h = curl_slist_append(h, auth);
	free(auth);
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, "Accept: application/json");
	/* no "Expect: 100-continue" round trip for large completions */
	h = curl_slist_append(h, "Expect:");
	if (!h) {
		client_release(c);
		return err_setc(e, ERR_INTERNAL, "", "cannot build request headers");
	}
	c->headers = h;
	return 0;
}

void client_release(struct client *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	free(c->base_url);
	memset(c, 0, sizeof(*c));
}

void client_set_cancel(struct client *c, const atomic_int *flag)
{
	c->cancel = flag;
}

int client_post(struct client *c, const char *path, const json_t *body, long extra_s,
		struct client_reply *r, struct err *e)
{
	CURL *h = c->curl;
	struct sink in = { BUF_INIT(CLIENT_MAX_REPLY), 0 };
	char *url = xstrfmt("%s%s", c->base_url, path);
	char *text = body ? json_dumps(body, JSON_COMPACT) : xstrdup("{}");
	char curl_err[CURL_ERROR_SIZE] = "";
	CURLcode rc;
	int ret = -1;

	r->status = 0;
	r->body = NULL;
	if (!text) {
		err_setc(e, ERR_INTERNAL, url, "cannot serialize request body");
		goto out;
	}
	if (c->cancel && atomic_load(c->cancel)) {
		err_setc(e, ERR_CANCELLED, url, "request to '%s' cancelled", url);
		goto out;
	}
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, (struct curl_slist *)c->headers);
	curl_easy_setopt(h, CURLOPT_POST, 1L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(text));
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &in);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, c);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, c->timeout_s + (extra_s > 0 ? extra_s : 0));
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curl_err);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);

	rc = curl_easy_perform(h);
	if (rc == CURLE_ABORTED_BY_CALLBACK) {
		err_setc(e, ERR_CANCELLED, url, "request to '%s' cancelled", url);
		goto out;
	}
	if (rc == CURLE_WRITE_ERROR && in.over) {
		err_setc(e, ERR_TOO_LARGE, url, "reply from '%s' is over %d bytes", url,
			 CLIENT_MAX_REPLY);
		goto out;
	}
	if (rc != CURLE_OK) {
		err_setc(e, ERR_TRANSPORT, url, "%s",
			 *curl_err ? curl_err : curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	if (in.b.len)
		r->body = json_loadb(in.b.data, in.b.len, 0, NULL);
	ret = 0;
out:
	buf_release(&in.b);
	free(text);
	free(url);
	return ret;
}

void client_reply_release(struct client_reply *r)
{
	json_decref(r->body);
	r->body = NULL;
	r->status = 0;
}

int client_reply_error(const struct client_reply *r, const char *what, struct err *e)
{
	json_t *err = json_object_get(r->body, "error");
	const char *code = json_string_value(json_object_get(err, "code"));
	const char *msg = json_string_value(json_object_get(err, "message"));
	const char *detail = json_string_value(json_object_get(err, "detail"));

	/* the peer's code and status: the one free-code path (lib/err.h) */
	if (code && msg)
		return err_set(e, (int)r->status, code, detail ? detail : "", "%s: %s", what, msg);
	return err_set(e, (int)r->status, "http_error", "", "%s: HTTP status %ld", what, r->status);
}
