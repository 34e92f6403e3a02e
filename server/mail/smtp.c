/* The SMTP client (smtp.h), on libcurl. */
#include "server/mail/smtp.h"
#include "report.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

/* the message curl reads as the DATA */
struct upload {
	const char *data;
	size_t len, pos;
};

static size_t read_cb(char *ptr, size_t size, size_t nmemb, void *userp)
{
	struct upload *u = userp;
	size_t room = size * nmemb, n = u->len - u->pos;

	if (n > room)
		n = room;
	memcpy(ptr, u->data + u->pos, n);
	u->pos += n;
	return n;
}

int smtp_send(const struct config *cfg, char *const *rcpt, size_t nr, const char *msg, size_t len,
	      struct err *e)
{
	char from[256], errbuf[CURL_ERROR_SIZE] = "", env[300];
	struct curl_slist *list = NULL;
	struct upload u = { msg, len, 0 };
	CURL *curl;
	CURLcode rc;

	if (report_addr_spec(cfg->mail_from, from, sizeof(from)))
		return err_setc(e, ERR_CONFIG, "mail_from", "invalid mail_from");
	curl = curl_easy_init();
	if (!curl)
		return err_setc(e, ERR_INTERNAL, "", "curl_easy_init failed");
	for (size_t i = 0; i < nr; i++) {
		snprintf(env, sizeof(env), "<%s>", rcpt[i]);
		list = curl_slist_append(list, env);
	}
	snprintf(env, sizeof(env), "<%s>", from);
	curl_easy_setopt(curl, CURLOPT_URL, cfg->smtp_url);
	curl_easy_setopt(curl, CURLOPT_MAIL_FROM, env);
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, list);
	curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(curl, CURLOPT_READDATA, &u);
	curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(curl, CURLOPT_USE_SSL,
			 !strcmp(cfg->smtp_starttls, "required") ? (long)CURLUSESSL_ALL :
			 !strcmp(cfg->smtp_starttls, "try")	 ? (long)CURLUSESSL_TRY :
								   (long)CURLUSESSL_NONE);
	if (*cfg->smtp_user) {
		curl_easy_setopt(curl, CURLOPT_USERNAME, cfg->smtp_user);
		curl_easy_setopt(curl, CURLOPT_PASSWORD, cfg->smtp_password);
	}
	rc = curl_easy_perform(curl);
	curl_slist_free_all(list);
	curl_easy_cleanup(curl);
	if (rc != CURLE_OK)
		return err_setc(e, ERR_SMTP, cfg->smtp_url, "%s",
				*errbuf ? errbuf : curl_easy_strerror(rc));
	return 0;
}
