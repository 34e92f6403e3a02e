/*
 * Unit tests of lib/apiclient.c, the CLI's and the worker's one client,
 * against a libmicrohttpd server in this process that echoes what it got
 * (method, path, query argument x, Authorization, Content-Type, body):
 * JSON posts carry the token and the JSON type, other methods go as
 * named, no token sends no Authorization, a reply past the caller's cap
 * is ERR_TOO_LARGE, the server's error body becomes e's code, message and
 * detail, a refused connection is ERR_TRANSPORT naming the URL, a raised
 * cancel flag sends nothing, and query values are percent-encoded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "apiclient.h"
#include "attr.h"

struct upload {
	struct buf body;
};

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, char *text)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(text), text,
								    MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret = MHD_queue_response(conn, status, resp);

	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result on_request(void *cls UNUSED, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version UNUSED,
				  const char *upload, size_t *upload_size, void **ctx)
{
	struct upload *u = *ctx;
	json_t *echo;
	char *text;

	if (!u) {
		u = calloc(1, sizeof(*u));
		buf_init(&u->body, 1 << 20);
		*ctx = u;
		return MHD_YES;
	}
	if (*upload_size) {
		if (buf_add(&u->body, upload, *upload_size))
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	if (!strcmp(url, "/big")) {
		text = malloc(1001);
		memset(text, 'x', 1000);
		text[1000] = '\0';
		return reply(conn, 200, text);
	}
	if (!strcmp(url, "/err"))
		return reply(conn, 409,
			     strdup("{\"error\":{\"code\":\"conflict\",\"message\":\"lease lost\","
				    "\"detail\":\"job\"}}"));
	echo = json_pack("{s:s,s:s,s:s*,s:s*,s:s*,s:s%}", "method", method, "url", url, "x",
			 MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "x"), "auth",
			 MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"),
			 "type", MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type"),
			 "body", u->body.data, u->body.len);
	text = json_dumps(echo, JSON_COMPACT);
	json_decref(echo);
	return reply(conn, 200, text);
}

static void on_done(void *cls UNUSED, struct MHD_Connection *conn UNUSED, void **ctx,
		    enum MHD_RequestTerminationCode toe UNUSED)
{
	struct upload *u = *ctx;

	if (u) {
		buf_release(&u->body);
		free(u);
	}
	*ctx = NULL;
}

struct fixture {
	struct MHD_Daemon *d;
	char url[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct sockaddr_in sa = { .sin_family = AF_INET };

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	f->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
				on_request, NULL, MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	if (!f->d)
		return -1;
	snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%u/",
		 MHD_get_daemon_info(f->d, MHD_DAEMON_INFO_BIND_PORT)->port);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	MHD_stop_daemon(f->d);
	free(f);
	return 0;
}

static const char *field(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void test_post_json(void **state)
{
	struct fixture *f = *state;
	struct api_client c;
	struct api_reply r;
	struct err e;
	json_t *body = json_pack("{s:i}", "a", 1);

	assert_int_equal(api_client_init(&c, f->url, "rt_1_s3cret", 10, &e), 0);
	assert_int_equal(api_client_post(&c, "/api/v1/jobs/lease", body, 0, &r, &e), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(field(r.body, "method"), "POST");
	/* the base URL's trailing '/' is not doubled */
	assert_string_equal(field(r.body, "url"), "/api/v1/jobs/lease");
	assert_string_equal(field(r.body, "auth"), "Bearer rt_1_s3cret");
	assert_string_equal(field(r.body, "type"), "application/json");
	assert_string_equal(field(r.body, "body"), "{\"a\":1}");
	api_reply_release(&r);
	assert_null(r.body);
	/* NULL sends an empty object */
	assert_int_equal(api_client_post(&c, "/x", NULL, 0, &r, &e), 0);
	assert_string_equal(field(r.body, "body"), "{}");
	api_reply_release(&r);
	json_decref(body);
	api_client_release(&c);
}

static void test_methods_without_token(void **state)
{
	struct fixture *f = *state;
	struct api_client c;
	struct buf out = BUF_INIT(1 << 16);
	struct err e;
	long status = 0;
	json_t *echo;

	assert_int_equal(api_client_init(&c, f->url, "", 10, &e), 0);
	assert_int_equal(api_client_send(&c, "GET", "/api/v1/runs?x=a%20b", NULL, 0, 0, &out,
					 &status, &e),
			 0);
	assert_int_equal(status, 200);
	echo = json_loadb(out.data, out.len, 0, NULL);
	assert_string_equal(field(echo, "method"), "GET");
	assert_string_equal(field(echo, "x"), "a b");
	assert_string_equal(field(echo, "body"), "");
	assert_null(json_object_get(echo, "auth"));
	json_decref(echo);
	buf_reset(&out);
	assert_int_equal(api_client_send(&c, "DELETE", "/api/v1/jobs/7", NULL, 0, 0, &out, &status,
					 &e),
			 0);
	echo = json_loadb(out.data, out.len, 0, NULL);
	assert_string_equal(field(echo, "method"), "DELETE");
	json_decref(echo);
	buf_reset(&out);
	assert_int_equal(api_client_send(&c, "PUT", "/p", "[1]", 3, 0, &out, &status, &e), 0);
	echo = json_loadb(out.data, out.len, 0, NULL);
	assert_string_equal(field(echo, "method"), "PUT");
	assert_string_equal(field(echo, "body"), "[1]");
	json_decref(echo);
	buf_release(&out);
	api_client_release(&c);
}

static void test_reply_over_cap(void **state)
{
	struct fixture *f = *state;
	struct api_client c;
	struct buf small = BUF_INIT(999), enough = BUF_INIT(1000);
	struct err e;
	long status;

	assert_int_equal(api_client_init(&c, f->url, "t", 10, &e), 0);
	assert_int_equal(api_client_send(&c, "GET", "/big", NULL, 0, 0, &small, &status, &e), -1);
	assert_int_equal(e.id, ERR_TOO_LARGE);
	assert_int_equal(api_client_send(&c, "GET", "/big", NULL, 0, 0, &enough, &status, &e), 0);
	assert_int_equal(status, 200);
	assert_int_equal(enough.len, 1000);
	buf_release(&small);
	buf_release(&enough);
	api_client_release(&c);
}

static void test_error_reply(void **state)
{
	struct fixture *f = *state;
	struct api_client c;
	struct api_reply r;
	struct err e;

	assert_int_equal(api_client_init(&c, f->url, "t", 10, &e), 0);
	assert_int_equal(api_client_post(&c, "/err", NULL, 0, &r, &e), 0);
	assert_int_equal(r.status, 409);
	assert_int_equal(api_reply_error(&r, "complete job 7", &e), -1);
	assert_int_equal(e.status, 409);
	assert_int_equal(e.id, ERR_NONE);
	assert_string_equal(e.code, "conflict");
	assert_string_equal(e.message, "complete job 7: lease lost");
	assert_string_equal(e.detail, "job");
	api_reply_release(&r);
	/* a body that is not the server's error shape */
	r.status = 502;
	r.body = NULL;
	assert_int_equal(api_reply_error(&r, "lease", &e), -1);
	assert_string_equal(e.code, "http_error");
	assert_string_equal(e.message, "lease: HTTP status 502");
	api_client_release(&c);
}

static void test_refused_and_cancelled(void **state UNUSED)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct api_client c;
	struct api_reply r;
	struct err e;
	char url[64], want[128];
	atomic_int cancel = 0;

	/* a port nobody listens on: bound, then closed */
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", ntohs(sa.sin_port));
	assert_int_equal(api_client_init(&c, url, "t", 10, &e), 0);
	assert_int_equal(api_client_post(&c, "/api/v1/x", NULL, 0, &r, &e), -1);
	assert_int_equal(e.id, ERR_TRANSPORT);
	assert_int_equal(r.status, 0);
	assert_null(r.body);
	snprintf(want, sizeof(want), "request to '%s/api/v1/x' failed: ", url);
	assert_memory_equal(e.message, want, strlen(want));
	snprintf(want, sizeof(want), "%s/api/v1/x", url);
	assert_string_equal(e.detail, want);
	cancel = 1;
	api_client_set_cancel(&c, &cancel);
	assert_int_equal(api_client_post(&c, "/api/v1/x", NULL, 0, &r, &e), -1);
	assert_int_equal(e.id, ERR_CANCELLED);
	api_client_release(&c);
}

static void test_escape(void **state UNUSED)
{
	char *s = api_client_escape("a b&c=d/\xc3\xa9~-._Z9");

	assert_string_equal(s, "a%20b%26c%3Dd%2F%C3%A9~-._Z9");
	free(s);
	s = api_client_escape("");
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_post_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_methods_without_token, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reply_over_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_reply, setup, teardown),
		cmocka_unit_test(test_refused_and_cancelled),
		cmocka_unit_test(test_escape),
	};
	int ret;

	if (api_client_global_init())
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	api_client_global_cleanup();
	return ret;
}
