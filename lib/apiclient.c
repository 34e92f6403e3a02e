#include "apiclient.h"
#include "attr.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#define CONNECT_TIMEOUT_S 10L

struct sink {
	struct buf *b;
	int over; /* the reply went past b's cap */
};

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;

	if (buf_add(s->b, p, size * n)) {
		s->over = 1;
		return 0; /* libcurl then fails with CURLE_WRITE_ERROR */
	}
	return size * n;
}

static int on_progress(void *ctx, curl_off_t dltotal UNUSED, curl_off_t dlnow UNUSED,
		       curl_off_t ultotal UNUSED, curl_off_t ulnow UNUSED)
{
	const struct api_client *c = ctx;

	return c->cancel && atomic_load(c->cancel) ? 1 : 0;
}

int api_client_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) ? -1 : 0;
}

void api_client_global_cleanup(void)
{
	curl_global_cleanup();
}

int api_client_init(struct api_client *c, const char *base_url, const char *token, long timeout_s,
		    struct err *e)
{
	struct curl_slist *h = NULL;
	size_t n = strlen(base_url);

	memset(c, 0, sizeof(*c));
	c->curl = curl_easy_init();
	if (!c->curl)
		return err_setc(e, ERR_INTERNAL, "", "cannot create a libcurl handle");
	/* no trailing slash: paths start with one */
	c->base_url = xstrndup(base_url, n && base_url[n - 1] == '/' ? n - 1 : n);
	c->timeout_s = timeout_s;
	if (token && *token) {
		char *auth = xstrfmt("Authorization: Bearer %s", token);

		h = curl_slist_append(h, auth);
		free(auth);
	}
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, "Accept: application/json");
	/* no "Expect: 100-continue" round trip for large bodies */
	h = curl_slist_append(h, "Expect:");
	if (!h) {
		api_client_release(c);
		return err_setc(e, ERR_INTERNAL, "", "cannot build request headers");
	}
	c->headers = h;
	return 0;
}

void api_client_release(struct api_client *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	free(c->base_url);
	memset(c, 0, sizeof(*c));
}

void api_client_set_cancel(struct api_client *c, const atomic_int *flag)
{
	c->cancel = flag;
}

int api_client_send(struct api_client *c, const char *method, const char *path, const char *body,
		    size_t len, long extra_s, struct buf *out, long *status, struct err *e)
{
	CURL *h = c->curl;
	struct sink in = { out, 0 };
	char *url = xstrfmt("%s%s", c->base_url, path);
	char curl_err[CURL_ERROR_SIZE] = "";
	CURLcode rc;
	int ret = -1;

	*status = 0;
	if (c->cancel && atomic_load(c->cancel)) {
		err_setc(e, ERR_CANCELLED, url, "request to '%s' cancelled", url);
		goto out;
	}
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, (struct curl_slist *)c->headers);
	if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	/* POSTFIELDS makes it a POST; any other method is named */
	if (strcmp(method, body ? "POST" : "GET"))
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
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
		err_setc(e, ERR_TOO_LARGE, url, "reply from '%s' is over %zu bytes", url, out->cap);
		goto out;
	}
	if (rc != CURLE_OK) {
		err_setc(e, ERR_TRANSPORT, url, "request to '%s' failed: %s", url,
			 *curl_err ? curl_err : curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	ret = 0;
out:
	free(url);
	return ret;
}

int api_client_post(struct api_client *c, const char *path, const json_t *body, long extra_s,
		    struct api_reply *r, struct err *e)
{
	struct buf in = BUF_INIT(API_CLIENT_MAX_REPLY);
	char *text = body ? json_dumps(body, JSON_COMPACT) : xstrdup("{}");
	int ret = -1;

	r->status = 0;
	r->body = NULL;
	if (!text) {
		err_setc(e, ERR_INTERNAL, path, "cannot serialize the body of '%s'", path);
		return -1;
	}
	if (!api_client_send(c, "POST", path, text, strlen(text), extra_s, &in, &r->status, e)) {
		if (in.len)
			r->body = json_loadb(in.data, in.len, 0, NULL);
		ret = 0;
	}
	buf_release(&in);
	free(text);
	return ret;
}

void api_reply_release(struct api_reply *r)
{
	json_decref(r->body);
	r->body = NULL;
	r->status = 0;
}

int api_reply_error(const struct api_reply *r, const char *what, struct err *e)
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

char *api_client_escape(const char *value)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = xmalloc(3 * strlen(value) + 1), *w = out;

	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p)) {
			*w++ = (char)*p;
		} else {
			*w++ = '%';
			*w++ = hex[*p >> 4];
			*w++ = hex[*p & 15];
		}
	}
	*w = '\0';
	return out;
}
