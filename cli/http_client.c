#include "http_client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void http_client_init(struct http_client *c, int *argc, char **argv)
{
	const char *server = getenv("REGTRACK_SERVER"), *token = getenv("REGTRACK_TOKEN");
	int i, j;

	for (i = 1, j = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--server") && i + 1 < *argc)
			server = argv[++i];
		else if (!strncmp(argv[i], "--server=", 9))
			server = argv[i] + 9;
		else if (!strcmp(argv[i], "--token") && i + 1 < *argc)
			token = argv[++i];
		else if (!strncmp(argv[i], "--token=", 8))
			token = argv[i] + 8;
		else
			argv[j++] = argv[i];
	}
	*argc = j;
	argv[j] = NULL;
	snprintf(c->server, sizeof(c->server), "%s", server ? server : "http://127.0.0.1:8080");
	/* no trailing slash: paths start with one */
	if (c->server[0] && c->server[strlen(c->server) - 1] == '/')
		c->server[strlen(c->server) - 1] = '\0';
	snprintf(c->token, sizeof(c->token), "%s", token ? token : "");
	c->timeout_s = 120;
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct buf *out = arg;

	if (buf_add(out, p, size * n))
		return 0; /* over the cap: abort the transfer */
	return size * n;
}

long http_client_request(struct http_client *c, const char *method, const char *path,
			 const char *body, size_t len, struct buf *out, struct err *e)
{
	CURL *h = curl_easy_init();
	struct curl_slist *hdr = NULL;
	char url[4096], auth[300], errbuf[CURL_ERROR_SIZE] = "";
	long status = -1;
	CURLcode rc;

	if (!h)
		return err_setc(e, ERR_TRANSPORT, "", "cannot start libcurl");
	snprintf(url, sizeof(url), "%s%s", c->server, path);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, c->timeout_s);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
	if (c->token[0]) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", c->token);
		hdr = curl_slist_append(hdr, auth);
	}
	if (body) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	rc = curl_easy_perform(h);
	if (rc != CURLE_OK)
		err_setc(e, ERR_TRANSPORT, url, "request to '%s' failed: %s", url,
			 errbuf[0] ? errbuf : curl_easy_strerror(rc));
	else
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	return status;
}
