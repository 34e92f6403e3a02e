/*
 * Unit tests of worker/completion.c and worker/upload.c: result documents
 * built from a lease reply pass the server's validator (lib/resultdoc.c),
 * and each server answer does the documented thing to a spooled entry. The
 * server here is a small libmicrohttpd responder that answers each path
 * with a status chosen by the test and counts what it received.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <microhttpd.h>

#include "resultdoc.h"
#include "apiclient.h"
#include "worker/completion.h"
#include "worker/spool.h"
#include "worker/upload.h"
#include "attr.h"

/* ---- the responder ------------------------------------------------------ */

#define MAX_ROUTES 8

struct responder {
	struct MHD_Daemon *d;
	unsigned short port;
	pthread_mutex_t lock;
	struct {
		char path[128];
		unsigned status;
		int hits;
		char auth[128];
		json_t *last; /* last body received */
	} routes[MAX_ROUTES];
	int nr;
};

struct req {
	char *data;
	size_t len;
};

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method UNUSED, const char *version UNUSED,
				  const char *upload, size_t *upload_size, void **ctx)
{
	struct responder *rs = cls;
	struct req *rq = *ctx;
	struct MHD_Response *resp;
	unsigned status = 404;
	const char *auth;
	enum MHD_Result ret;
	static const char err409[] =
		"{\"error\":{\"code\":\"conflict\",\"message\":\"lease lost\",\"detail\":\"job\"}}";
	static const char err400[] =
		"{\"error\":{\"code\":\"invalid_field\",\"message\":\"bad metrics\",\"detail\":\"metrics\"}}";
	const char *text = "{}";

	if (!rq) {
		*ctx = calloc(1, sizeof(*rq));
		return MHD_YES;
	}
	if (*upload_size) {
		rq->data = realloc(rq->data, rq->len + *upload_size + 1);
		memcpy(rq->data + rq->len, upload, *upload_size);
		rq->len += *upload_size;
		rq->data[rq->len] = '\0';
		*upload_size = 0;
		return MHD_YES;
	}
	auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	pthread_mutex_lock(&rs->lock);
	for (int i = 0; i < rs->nr; i++) {
		if (strcmp(rs->routes[i].path, url))
			continue;
		status = rs->routes[i].status;
		rs->routes[i].hits++;
		snprintf(rs->routes[i].auth, sizeof(rs->routes[i].auth), "%s", auth ? auth : "");
		json_decref(rs->routes[i].last);
		rs->routes[i].last = rq->data ? json_loadb(rq->data, rq->len, 0, NULL) : NULL;
	}
	pthread_mutex_unlock(&rs->lock);
	if (status == 409)
		text = err409;
	else if (status == 400)
		text = err400;
	resp = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void on_done(void *cls UNUSED, struct MHD_Connection *conn UNUSED, void **ctx,
		    enum MHD_RequestTerminationCode toe UNUSED)
{
	struct req *rq = *ctx;

	if (rq) {
		free(rq->data);
		free(rq);
	}
	*ctx = NULL;
}

static void route(struct responder *rs, const char *path, unsigned status)
{
	pthread_mutex_lock(&rs->lock);
	for (int i = 0; i < rs->nr; i++)
		if (!strcmp(rs->routes[i].path, path)) {
			rs->routes[i].status = status;
			pthread_mutex_unlock(&rs->lock);
			return;
		}
	snprintf(rs->routes[rs->nr].path, sizeof(rs->routes[0].path), "%s", path);
	rs->routes[rs->nr++].status = status;
	pthread_mutex_unlock(&rs->lock);
}

static int hits(struct responder *rs, const char *path)
{
	int n = 0;

	pthread_mutex_lock(&rs->lock);
	for (int i = 0; i < rs->nr; i++)
		if (!strcmp(rs->routes[i].path, path))
			n = rs->routes[i].hits;
	pthread_mutex_unlock(&rs->lock);
	return n;
}

static json_t *last_body(struct responder *rs, const char *path)
{
	for (int i = 0; i < rs->nr; i++)
		if (!strcmp(rs->routes[i].path, path))
			return rs->routes[i].last;
	return NULL;
}

/* ---- fixture ------------------------------------------------------------ */

struct fixture {
	struct responder rs;
	char dir[64];
	char url[64];
	struct spool spool;
	struct api_client client;
};

static int rm_one(const char *path, const struct stat *st UNUSED, int flag UNUSED,
		  struct FTW *ftw UNUSED)
{
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const union MHD_DaemonInfo *info;
	struct err e;

	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = 0,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	pthread_mutex_init(&f->rs.lock, NULL);
	f->rs.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL,
				   NULL, on_request, &f->rs, MHD_OPTION_NOTIFY_COMPLETED, on_done,
				   NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				   MHD_OPTION_END);
	if (!f->rs.d)
		return -1;
	info = MHD_get_daemon_info(f->rs.d, MHD_DAEMON_INFO_BIND_PORT);
	f->rs.port = info->port;
	snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%u", f->rs.port);
	snprintf(f->dir, sizeof(f->dir), "/tmp/regtrack-test-upload-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	if (spool_open(&f->spool, f->dir, &e))
		return -1;
	if (api_client_init(&f->client, f->url, "tok-123", 10, &e))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	api_client_release(&f->client);
	spool_close(&f->spool);
	MHD_stop_daemon(f->rs.d);
	for (int i = 0; i < f->rs.nr; i++)
		json_decref(f->rs.routes[i].last);
	pthread_mutex_destroy(&f->rs.lock);
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* a lease reply's job, as DESIGN.md shows it */
static json_t *lease_job(long long id)
{
	json_error_t je;
	json_t *j = json_pack_ex(&je, 0,
				 "{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:i, s:s}",
				 "id", (json_int_t)id, "tree", "linux", "url", "/srv/git/linux",
				 "commit", "0123456789abcdef0123456789abcdef01234567", "kconfig",
				 "host", "compiler", "gcc-12", "testcase", "small-allocs", "params",
				 "nr_task", "1", "test", "small-allocs", "repeat", 2,
				 "lease_expires_at", "2026-11-29T21:00:00Z");

	assert_non_null(j);
	return j;
}

static json_t *machine(void)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:s}", "hostname", "lkp-test-x86", "arch",
			 "x86_64", "cpu_model", "Intel(R) Xeon(R) Processor", "nr_cpus", 2,
			 "memory_mb", 24105, "tbox_group", "kvm-2c");
}

static json_t *two_runs(void)
{
	return json_pack(
		"[{s:{s:[f,f,f]}, s:s, s:f, s:s, s:s, s:s}, {s:{s:[f]}, s:s, s:f, s:s, s:s, s:s, s:s}]",
		"metrics", "small-allocs.ops_per_s", 1.21e7, 1.25e7, 1.23e7, "started_at",
		"2026-11-29T20:50:00Z", "duration_s", 3.5, "mode", "wallclock", "accel", "host",
		"kernel_release", "6.18.44", "metrics", "small-allocs.ops_per_s", 1.19e7,
		"started_at", "2026-11-29T20:50:04Z", "duration_s", 3.25, "mode", "wallclock",
		"accel", "host", "kernel_release", "6.18.44", "commit",
		"ffffffffffffffffffffffffffffffffffffffff");
}

/* ---- tests -------------------------------------------------------------- */

static void test_completion_docs(void **state UNUSED)
{
	json_t *job = lease_job(17), *m = machine(), *runs = two_runs(), *body, *doc;
	struct resultdoc rd;
	struct err e;
	const char *id0, *id1;
	static const char bad_utf8[] = "make: *** [vmlinux] Error 2 \xff\xfe caf\xc3\xa9 \xe2\x82";

	body = completion_build(job, m, "ok", runs, bad_utf8, "CONFIG_64BIT=y\n", &e);
	assert_non_null(body);
	assert_string_equal(json_string_value(json_object_get(body, "status")), "ok");
	assert_string_equal(json_string_value(json_object_get(body, "log_tail")),
			    "make: *** [vmlinux] Error 2 ?? caf\xc3\xa9 ??");
	assert_string_equal(json_string_value(json_object_get(body, "kconfig")),
			    "CONFIG_64BIT=y\n");
	assert_int_equal(json_array_size(json_object_get(body, "results")), 2);

	doc = json_array_get(json_object_get(body, "results"), 0);
	assert_int_equal(resultdoc_check(doc, &rd, &e), 0);
	assert_int_equal(rd.job_id, 17);
	assert_string_equal(rd.commit, "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(rd.testcase, "small-allocs");
	assert_string_equal(rd.kconfig, "host");
	assert_string_equal(rd.tbox_group, "kvm-2c");
	assert_string_equal(rd.status, "ok");
	assert_string_equal(rd.mode, "wallclock");
	assert_true(rd.duration_s == 3.5);
	assert_int_equal(rd.nr_values, 3);
	assert_string_equal(json_string_value(json_object_get(doc, "accel")), "host");
	assert_null(json_object_get(doc, "url")); /* the job's URL is not a result field */
	id0 = json_string_value(json_object_get(doc, "run_id"));

	doc = json_array_get(json_object_get(body, "results"), 1);
	assert_int_equal(resultdoc_check(doc, &rd, &e), 0);
	/* a run cannot override the job's identity */
	assert_string_equal(rd.commit, "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(rd.nr_values, 1);
	id1 = json_string_value(json_object_get(doc, "run_id"));
	assert_int_equal(strlen(id0), 36);
	assert_string_not_equal(id0, id1);
	json_decref(body);

	/* a failed build: no runs, status carried, no kconfig */
	body = completion_build(job, m, "build-failed", NULL, "error: foo", NULL, &e);
	assert_non_null(body);
	assert_int_equal(json_array_size(json_object_get(body, "results")), 0);
	assert_null(json_object_get(body, "kconfig"));
	json_decref(body);

	assert_null(completion_build(job, m, "failed", runs, NULL, NULL, &e));
	assert_string_equal(e.detail, "status");
	json_decref(job);
	json_decref(m);
	json_decref(runs);
}

static void test_log_tail_cap(void **state UNUSED)
{
	size_t n = COMPLETION_MAX_LOG + 100;
	char *log = malloc(n + 1);
	json_t *job = lease_job(3), *body;
	struct err e;
	const char *tail;

	memset(log, 'a', n);
	memcpy(log + n - 4, "END\n", 4);
	log[n] = '\0';
	body = completion_build(job, NULL, "run-failed", NULL, log, NULL, &e);
	tail = json_string_value(json_object_get(body, "log_tail"));
	assert_int_equal(strlen(tail), COMPLETION_MAX_LOG);
	assert_string_equal(tail + COMPLETION_MAX_LOG - 4, "END\n");
	json_decref(body);
	json_decref(job);
	free(log);
}

static char *spool_one(struct fixture *f, long long job_id)
{
	json_t *job = lease_job(job_id), *m = machine(), *runs = two_runs(), *body, *entry;
	struct err e;
	char *name;

	body = completion_build(job, m, "ok", runs, "log", NULL, &e);
	assert_non_null(body);
	entry = upload_entry_complete(job_id, body);
	assert_int_equal(spool_put(&f->spool, entry, &name, &e), 0);
	json_decref(entry);
	json_decref(job);
	json_decref(m);
	json_decref(runs);
	return name;
}

static int exists(struct fixture *f, const char *sub, const char *name)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%s%s%s", f->dir, sub, *sub ? "/" : "", name);
	return access(path, F_OK) == 0;
}

static void test_flush_verdicts(void **state)
{
	struct fixture *f = *state;
	char *ok = spool_one(f, 1), *lost = spool_one(f, 2), *bad = spool_one(f, 3),
	     *later = spool_one(f, 4), *last = spool_one(f, 5);
	size_t left, sent, aside;
	struct err e;
	json_t *got;

	route(&f->rs, "/api/v1/jobs/1/complete", 200);
	route(&f->rs, "/api/v1/jobs/2/complete", 409);
	route(&f->rs, "/api/v1/jobs/3/complete", 400);
	route(&f->rs, "/api/v1/jobs/4/complete", 503);
	route(&f->rs, "/api/v1/jobs/5/complete", 200);

	assert_int_equal(upload_flush(&f->spool, &f->client, &left, &sent, &aside, &e), 0);
	assert_int_equal(sent, 1);
	assert_int_equal(aside, 2);
	assert_int_equal(left, 2); /* job 4 (503) and job 5 behind it */
	assert_false(exists(f, "", ok));
	assert_true(exists(f, "dropped", lost));
	assert_true(exists(f, "rejected", bad));
	assert_true(exists(f, "", later));
	assert_true(exists(f, "", last));
	assert_int_equal(hits(&f->rs, "/api/v1/jobs/4/complete"), 1);
	assert_int_equal(hits(&f->rs, "/api/v1/jobs/5/complete"), 0); /* stopped at the 503 */

	/* what the server got is the completion body, with the bearer token */
	got = last_body(&f->rs, "/api/v1/jobs/1/complete");
	assert_string_equal(json_string_value(json_object_get(got, "status")), "ok");
	assert_int_equal(json_array_size(json_object_get(got, "results")), 2);
	assert_string_equal(f->rs.routes[0].auth, "Bearer tok-123");

	/* the server recovers: the rest goes, in order, exactly once */
	route(&f->rs, "/api/v1/jobs/4/complete", 200);
	assert_int_equal(upload_flush(&f->spool, &f->client, &left, &sent, &aside, &e), 0);
	assert_int_equal(sent, 2);
	assert_int_equal(left, 0);
	assert_int_equal(hits(&f->rs, "/api/v1/jobs/4/complete"), 2);
	assert_int_equal(hits(&f->rs, "/api/v1/jobs/5/complete"), 1);
	assert_int_equal(upload_flush(&f->spool, &f->client, &left, &sent, &aside, &e), 0);
	assert_int_equal(sent, 0);
	assert_int_equal(hits(&f->rs, "/api/v1/jobs/1/complete"), 1);
	free(ok);
	free(lost);
	free(bad);
	free(later);
	free(last);
}

static void test_server_down(void **state)
{
	struct fixture *f = *state;
	char *name = spool_one(f, 9);
	struct api_client down;
	struct err e;
	size_t left, sent, aside;

	/* the responder's port, closed: nothing listens on port 1 of localhost */
	assert_int_equal(api_client_init(&down, "http://127.0.0.1:1", "tok", 5, &e), 0);
	assert_int_equal(upload_flush(&f->spool, &down, &left, &sent, &aside, &e), 0);
	assert_int_equal(left, 1);
	assert_int_equal(sent, 0);
	assert_true(exists(f, "", name));
	api_client_release(&down);
	free(name);
}

static void test_cancel(void **state)
{
	struct fixture *f = *state;
	atomic_int stop = 1;
	struct api_reply r;
	struct err e;

	route(&f->rs, "/api/v1/jobs/lease", 204);
	api_client_set_cancel(&f->client, &stop);
	assert_int_equal(api_client_post(&f->client, "/api/v1/jobs/lease", NULL, 0, &r, &e), -1);
	assert_string_equal(e.code, "cancelled");
	atomic_store(&stop, 0);
	assert_int_equal(api_client_post(&f->client, "/api/v1/jobs/lease", NULL, 0, &r, &e), 0);
	assert_int_equal(r.status, 204);
	assert_null(r.body);
	api_reply_release(&r);
	api_client_set_cancel(&f->client, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_completion_docs),
		cmocka_unit_test(test_log_tail_cap),
		cmocka_unit_test_setup_teardown(test_flush_verdicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
	};
	int ret;

	if (api_client_global_init())
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	api_client_global_cleanup();
	return ret;
}
