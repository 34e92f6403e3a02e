/*
 * Thin online clients of the HTTP API:
 *   regtrack submit FILE...      POST each result document (JSON; "-" = stdin)
 *   regtrack compare --base SHA --head SHA [--testcase T] [--metric PREFIX]
 *                    [--text] [--changed] [--gate]
 * submit: exit 0 when every document was stored (or was already), 2 when a
 * file is unreadable or the server rejected one. compare --gate: exit 1
 * when any row is a significant regression (read from the JSON reply, also
 * with --text: the text is printed, the JSON fetched for the verdicts).
 */
#include "cli.h"
#include "http_client.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_error(const char *what, long status, const struct buf *body)
{
	json_t *j = json_loads(body->data, 0, NULL);
	json_t *err = json_object_get(j, "error");

	if (err)
		fprintf(stderr, "regtrack: %s: %ld %s: %s (%s)\n", what, status,
			json_string_value(json_object_get(err, "code")),
			json_string_value(json_object_get(err, "message")),
			json_string_value(json_object_get(err, "detail")));
	else
		fprintf(stderr, "regtrack: %s: HTTP %ld\n", what, status);
	json_decref(j);
}

int cmd_submit(int argc, char **argv)
{
	struct http_client c;
	int ret = 0;

	http_client_init(&c, &argc, argv);
	if (argc < 2) {
		fputs("usage: regtrack submit [--server URL] [--token TOKEN] FILE...\n", stderr);
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	for (int i = 1; i < argc; i++) {
		struct buf doc = BUF_INIT(1u << 30), resp = BUF_INIT(1u << 20);
		struct err e;
		long st;

		if (strcmp(argv[i], "-") ? buf_read_file(&doc, argv[i]) : buf_read_fd(&doc, 0)) {
			fprintf(stderr, "regtrack: cannot read '%s'\n", argv[i]);
			ret = 2;
		} else if ((st = http_client_request(&c, "POST", "/api/v1/results", doc.data,
						     doc.len, &resp, &e)) < 0) {
			fprintf(stderr, "regtrack: %s\n", e.message);
			ret = 2;
		} else if (st == 200 || st == 201) {
			printf("%s: %s\n", argv[i], st == 201 ? "stored" : "already stored");
		} else {
			print_error(argv[i], st, &resp);
			ret = 2;
		}
		buf_release(&doc);
		buf_release(&resp);
	}
	curl_global_cleanup();
	return ret;
}

static int add_arg(struct buf *q, CURL *h, const char *name, const char *value)
{
	char *esc = curl_easy_escape(h, value, 0);
	int r = buf_addf(q, "%s%s=%s", q->len ? "&" : "?", name, esc);

	curl_free(esc);
	return r;
}

int cmd_compare(int argc, char **argv)
{
	static const char *const filters[] = { "base",	     "head",	"testcase", "metric",
					       "tbox_group", "kconfig", "compiler", "params",
					       "mode",	     "alpha" };
	struct http_client c;
	struct buf q = BUF_INIT(8192), path = BUF_INIT(9000), resp = BUF_INIT(256u << 20);
	int text = 0, changed = 0, gate = 0, ret = 0, over = 0;
	struct err e;
	long st;
	CURL *h;

	http_client_init(&c, &argc, argv);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	for (int i = 1; i < argc; i++) {
		size_t k;
		if (!strcmp(argv[i], "--text")) {
			text = 1;
			continue;
		}
		if (!strcmp(argv[i], "--changed")) {
			changed = 1;
			continue;
		}
		if (!strcmp(argv[i], "--gate")) {
			gate = 1;
			continue;
		}
		for (k = 0; k < sizeof(filters) / sizeof(filters[0]); k++)
			if (!strncmp(argv[i], "--", 2) && !strcmp(argv[i] + 2, filters[k]))
				break;
		if (k == sizeof(filters) / sizeof(filters[0]) || i + 1 >= argc) {
			fputs("usage: regtrack compare --base SHA --head SHA [--testcase T] [--metric PREFIX]\n"
			      "                        [--tbox_group G] [--kconfig K] [--compiler C]\n"
			      "                        [--params JSON] [--mode M] [--alpha A] [--text]\n"
			      "                        [--changed] [--gate]\n",
			      stderr);
			ret = 2;
			goto out;
		}
		over |= add_arg(&q, h, filters[k], argv[++i]);
	}
	if (changed)
		over |= add_arg(&q, h, "changed", "1");
	/* the text when asked for, then the JSON (printed without --text; the gate reads its
	 * verdicts) */
	for (int pass = text ? 0 : 1; pass < 2; pass++) {
		int want_text = pass == 0;

		if (!want_text && !gate && text)
			break;
		buf_reset(&path);
		buf_reset(&resp);
		over |= buf_addf(&path, "/api/v1/compare%s%s", q.data,
				 want_text ? (q.len ? "&format=text" : "?format=text") : "");
		if (over) {
			fputs("regtrack: arguments too long\n", stderr);
			ret = 2;
			goto out;
		}
		st = http_client_request(&c, "GET", path.data, NULL, 0, &resp, &e);
		if (st < 0) {
			fprintf(stderr, "regtrack: %s\n", e.message);
			ret = 2;
			goto out;
		}
		if (st != 200) {
			print_error("compare", st, &resp);
			ret = 2;
			goto out;
		}
		if (want_text || !text)
			fwrite(resp.data, 1, resp.len, stdout);
		if (!want_text && gate) {
			json_t *j = json_loads(resp.data, 0, NULL), *row;
			size_t i;

			if (!j) {
				fputs("regtrack: compare: the server's reply is not JSON\n",
				      stderr);
				ret = 2;
				goto out;
			}
			json_array_foreach (json_object_get(j, "rows"), i, row) {
				const char *ch = json_string_value(json_object_get(row, "change"));
				if (ch && !strcmp(ch, "regression"))
					ret = 1;
			}
			json_decref(j);
		}
	}
out:
	curl_easy_cleanup(h);
	curl_global_cleanup();
	buf_release(&q);
	buf_release(&path);
	buf_release(&resp);
	return ret;
}
