/*
 * tests/faults/loadmix — the load client of the fault tests (faults.py
 * scenarios "load" and "nginx-failover"): one thread, one libcurl multi
 * handle (poll()-driven event loop), every request kind at once.
 *
 *   loadmix --url URL [--pollers N] [--rate R] [--seconds S] [--jobs N]
 *	     [--jobs-at S] [--wait S] [--tag N] [--tbox NAME] [--complete]
 *	     [--retry] [--max-seconds S] [--upload-slots N] [--run-ms MS]
 *	     [--submit-url URL] [--series N]
 *	tokens in the environment: LOADMIX_WORKER_TOKEN, LOADMIX_SUBMIT_TOKEN
 *
 * What it does, in order:
 *  1. N pollers ("fake workers") register (POST /api/v1/workers/register,
 *     hostname loadmix-TAG-i, capability "host", tbox_group NAME), then
 *     each long-polls POST /api/v1/jobs/lease {machine_id, wait_s} on its
 *     own keep-alive connection, again and again.
 *  2. Once every poller has registered, the clock starts: R result
 *     documents (of --series N series, default 1: params "series" i % N)
 *     documents a second for S seconds (open loop: document k is due at
 *     k/R s; each goes out on an idle upload connection, at most
 *     --upload-slots of them; a due document with none idle waits and
 *     counts as late).
 *  3. At --jobs-at seconds, --jobs jobs are submitted (POST /api/v1/jobs,
 *     4 connections). A poller that is handed one holds it and polls no
 *     more; with --complete it "runs" it for --run-ms, completes it (POST
 *     /api/v1/jobs/ID/complete, status ok with one result document of
 *     its own) and polls again. Jobs go to --submit-url when given (a
 *     submit is not idempotent: see faults.py nginx_failover), else URL.
 *  4. It ends when every document was answered, every job submitted,
 *     delivered (and completed), or at --max-seconds.
 *
 * With --retry, an upload, lease or complete that fails (no answer, 5xx)
 * is sent again after 50 ms (uploads and completes are idempotent: the
 * run_id and the job's lease make a second copy a no-op; a lease is not,
 * and a retried lease is what a real worker does). Without it every
 * failure is final. Every failure is listed either way.
 *
 * Output: one JSON object on stdout (figures, latencies per kind, every
 * job's delivery, the failures with their CLOCK_MONOTONIC times so the
 * caller can set them against a kill); exit 0 when it ran, 1 on usage
 * errors. Latencies are wall-clock in this client, loopback included:
 *   upload, register, submit, complete: request to answer;
 *   lease_empty: how far past wait_s a 204 came (overshoot);
 *   lease_job: from the later of the lease request and the job's submit
 *   request to the job's delivery (submit + wake-up + lease).
 */
#include <curl/curl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "buf.h"
#include "xalloc.h"
#include "clock.h"

#define NR_SUBMITTERS 4
#define MAX_FAILS 400
#define RETRY_S 0.05

static void die(const char *what)
{
	fprintf(stderr, "loadmix: %s\n", what);
	exit(1);
}

/* buffers here are uncapped: a failed append is a bug */
#define B(x) do { if (x) die("buffer append failed"); } while (0)

enum kind { K_REGISTER, K_LEASE_EMPTY, K_LEASE_JOB, K_UPLOAD, K_SUBMIT, K_COMPLETE, K_NR };
static const char *const kind_names[K_NR] = { "register", "lease_empty", "lease_job", "upload",
					      "submit", "complete" };

struct samples {
	double *v;
	size_t n, alloc;
};

static struct samples lat[K_NR];

static void sample(enum kind k, double ms)
{
	struct samples *s = &lat[k];

	xgrow((void **)&s->v, &s->alloc, s->n + 1, sizeof(double));
	s->v[s->n++] = ms;
}

enum role { R_POLLER, R_UPLOAD, R_SUBMIT };
enum what { W_IDLE, W_REGISTER, W_LEASE, W_COMPLETE, W_UPLOAD, W_SUBMIT };

struct xfer {
	CURL *h;
	enum role role;
	enum what what;
	int idx;
	long long machine;      /* pollers: after registering */
	long long job;          /* pollers: the job held (0 = none) */
	char commit[41];        /* pollers: the held job's commit and testcase (its */
	char testcase[64];      /* completion's run names them: the server checks) */
	long doc;               /* uploads: the document index in flight */
	long jobno;             /* submitters: the job index in flight */
	int attempt;
	double t0, retry_at;    /* retry_at > 0: send again then */
	int holding;            /* a poller that keeps its job (no --complete) */
	struct buf body, resp;
};

/* a job, known from its submit answer or from its delivery (either first) */
struct job {
	long long id;
	double t_sub;           /* its submit request was sent (0 = not answered yet) */
	double lease_t0;        /* the lease request that got it was sent */
	double t_deliver;
	long long machine;      /* delivered to (0 = not yet) */
	int submitted, deliveries, completed;
};

struct fail {
	const char *kind;
	long status;
	int curl;
	double t0, t1;
	int retried;
};

static struct {
	const char *url, *submit_url;
	long run_ms, series;
	long pollers, rate, seconds, njobs, upload_slots;
	double jobs_at, max_seconds;
	long wait_s, tag;
	const char *tbox;
	int complete, retry;
	struct curl_slist *hw, *hs;
	CURLM *m;
	int active;             /* handles in the multi */
	struct xfer *poll, *up, *sub;
	long nup;
	struct job *jobs;
	long njobs_known, jobs_alloc;
	long jobs_next, jobs_answered, jobs_acked, delivered, completed;
	long docs_next, docs_acked, docs_created, late, registered;
	double max_lag;
	struct fail fails[MAX_FAILS];
	long nfails, nretries;
	long statuses[K_NR][6]; /* by status class: 0 curl error, 2xx..5xx */
	double t_start;
} G;

static size_t on_data(char *p, size_t sz, size_t n, void *u)
{
	struct xfer *x = u;

	B(buf_add(&x->resp, p, sz * n));
	return sz * n;
}

static void commit_sha(long i, char sha[41])
{
	uint64_t z = 0x10adu * 1000003u + (uint64_t)i;

	z = (z ^ (z >> 31)) * 0x9e3779b97f4a7c15ull;
	snprintf(sha, 41, "%016llx%016llx10ad%04lx", (unsigned long long)z,
		 (unsigned long long)(z * 0xbf58476d1ce4e5b9ull), (unsigned long)(i & 0xffff));
}

/* run_ids distinct per tag and document: kind 1 uploads, kind 2 completes */
static void run_uuid(int kind, long i, char out[37])
{
	snprintf(out, 37, "%08lx-%04x-4000-8000-%012lx", (unsigned long)G.tag & 0xffffffffu, kind,
		 (unsigned long)i & 0xffffffffffffu);
}

/*
 * Document i of kind 1 (an upload: commit and testcase of its own) or 2 (a
 * completion's run of job `job`, held by x: the job's commit and testcase,
 * which the server checks)
 */
static void result_doc(struct buf *b, int kind, long i, long long job, const struct xfer *x)
{
	char sha[41], uuid[37];

	if (x)
		snprintf(sha, sizeof(sha), "%s", x->commit);
	else
		commit_sha(i % 20, sha);
	run_uuid(kind, i, uuid);
	B(buf_addf(b, "{\"run_id\":\"%s\",\"commit\":\"%s\",\"tree\":\"linux\",\"branch\":\"master\","
		   "\"kconfig\":\"x86_64-defconfig\",\"compiler\":\"gcc-12\","
		   "\"machine\":{\"hostname\":\"loadmix-%ld\",\"arch\":\"x86_64\",\"cpu_model\":\"load cpu\","
		   "\"nr_cpus\":2,\"memory_mb\":4096,\"tbox_group\":\"%s\"},"
		   "\"testcase\":\"%s\",\"params\":{\"kind\":%d,\"series\":%ld,\"test\":\"load\"},"
		   "\"status\":\"ok\",\"started_at\":\"2026-11-29T10:00:00Z\",\"duration_s\":1.5,",
		   uuid, sha, G.tag, G.tbox, x ? x->testcase : "loadmix", kind, i % G.series));
	if (job)
		B(buf_addf(b, "\"job_id\":%lld,", job));
	B(buf_addf(b, "\"metrics\":{\"load.ops\":[%ld.5,%ld.25,%ld.75],\"load.lat_us\":[%ld,%ld]}}",
		   1000 + i % 97, 1000 + i % 89, 1000 + i % 83, 50 + i % 7, 51 + i % 5));
}

static void send_x(struct xfer *x, const char *path, enum what w, double timeout_s)
{
	char url[2048];

	snprintf(url, sizeof(url), "%s%s", x->role == R_SUBMIT && G.submit_url ? G.submit_url : G.url,
		 path);
	if (!x->h) {
		x->h = curl_easy_init();
		if (!x->h)
			die("curl_easy_init");
		curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, on_data);
		curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
		curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
		curl_easy_setopt(x->h, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, x->role == R_UPLOAD || x->role == R_SUBMIT
				 ? G.hs : G.hw);
	}
	curl_easy_setopt(x->h, CURLOPT_URL, url);
	curl_easy_setopt(x->h, CURLOPT_POSTFIELDS, x->body.data);
	curl_easy_setopt(x->h, CURLOPT_POSTFIELDSIZE, (long)x->body.len);
	curl_easy_setopt(x->h, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000));
	buf_reset(&x->resp);
	x->what = w;
	x->t0 = mono_s();
	x->retry_at = 0;
	if (curl_multi_add_handle(G.m, x->h) != CURLM_OK)
		die("curl_multi_add_handle");
	G.active++;
}

static void poller_register(struct xfer *x)
{
	buf_reset(&x->body);
	B(buf_addf(&x->body, "{\"hostname\":\"loadmix-%ld-%d\",\"arch\":\"x86_64\",\"tbox_group\":\"%s\","
		   "\"capabilities\":[\"host\"],\"nr_cpus\":2,\"memory_mb\":4096}", G.tag, x->idx, G.tbox));
	send_x(x, "/api/v1/workers/register", W_REGISTER, 60);
}

static void poller_lease(struct xfer *x)
{
	buf_reset(&x->body);
	B(buf_addf(&x->body, "{\"machine_id\":%lld,\"wait_s\":%ld}", x->machine, G.wait_s));
	send_x(x, "/api/v1/jobs/lease", W_LEASE, (double)G.wait_s + 60);
}

static void poller_complete(struct xfer *x)
{
	char path[96];

	buf_reset(&x->body);
	B(buf_addf(&x->body, "{\"machine_id\":%lld,\"status\":\"ok\",\"log_tail\":\"loadmix\",\"results\":[",
		   x->machine));
	result_doc(&x->body, 2, (long)x->job, x->job, x);
	B(buf_addstr(&x->body, "]}"));
	snprintf(path, sizeof(path), "/api/v1/jobs/%lld/complete", x->job);
	send_x(x, path, W_COMPLETE, 60);
}

static void upload_send(struct xfer *x, long doc)
{
	buf_reset(&x->body);
	result_doc(&x->body, 1, doc, 0, NULL);
	x->doc = doc;
	send_x(x, "/api/v1/results", W_UPLOAD, 60);
}

static void submit_send(struct xfer *x, long jobno)
{
	char sha[41];

	commit_sha(jobno % 20, sha);
	buf_reset(&x->body);
	B(buf_addf(&x->body, "{\"commit\":\"%s\",\"kconfig\":\"host\",\"compiler\":\"gcc-12\","
		   "\"testcase\":\"small-allocs\",\"params\":{\"loadmix\":%ld,\"i\":%ld},"
		   "\"tbox_group\":\"%s\",\"repeat\":1}", sha, G.tag, jobno, G.tbox));
	x->jobno = jobno;
	send_x(x, "/api/v1/jobs", W_SUBMIT, 60);
}

/* the job of that id, added when first seen (linear: a few thousand jobs) */
static struct job *job_get(long long id)
{
	for (long i = 0; i < G.njobs_known; i++)
		if (G.jobs[i].id == id)
			return &G.jobs[i];
	if (G.njobs_known == G.jobs_alloc)
		die("more jobs seen than submitted and polled for");
	G.jobs[G.njobs_known].id = id;
	return &G.jobs[G.njobs_known++];
}

static long long json_id(const struct buf *b, const char *k1, const char *k2)
{
	json_t *j = json_loadb(b->data, b->len, 0, NULL), *v;
	long long id = 0;

	v = j ? json_object_get(j, k1) : NULL;
	if (v && k2)
		v = json_object_get(v, k2);
	if (json_is_integer(v))
		id = json_integer_value(v);
	json_decref(j);
	return id;
}

static void record_fail(const char *kind, long status, int cres, struct xfer *x, int retried)
{
	if (G.nfails < MAX_FAILS) {
		struct fail *f = &G.fails[G.nfails];

		f->kind = kind;
		f->status = status;
		f->curl = cres;
		f->t0 = x->t0;
		f->t1 = mono_s();
		f->retried = retried;
		if (G.nfails < 5) {
			char head[81];

			/* the body's start on one line */
			snprintf(head, sizeof(head), "%s", x->resp.data);
			for (char *c = head; *c; c++)
				if (*c == '\n' || *c == '\r')
					*c = ' ';
			fprintf(stderr, "loadmix: %s failed: HTTP %ld, curl %d: %s\n", kind, status,
				cres, head);
		}
	}
	G.nfails++;
}

/* true when the failure is one to send again (--retry, no answer or 5xx) */
static int failed(struct xfer *x, const char *kind, long status, int cres)
{
	int again = G.retry && (cres != CURLE_OK || status >= 500);

	record_fail(kind, status, cres, x, again);
	if (again) {
		G.nretries++;
		x->retry_at = mono_s() + RETRY_S;
	}
	return again;
}

static void count_status(enum kind k, long status, int cres)
{
	int cls = cres != CURLE_OK ? 0 : status >= 200 && status < 600 ? (int)(status / 100) : 1;

	G.statuses[k][cls]++;
}

static void done_x(struct xfer *x, CURLcode cres)
{
	long status = 0;
	double t1 = mono_s(), ms = (t1 - x->t0) * 1e3;

	curl_multi_remove_handle(G.m, x->h);
	G.active--;
	if (cres == CURLE_OK)
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
	switch (x->what) {
	case W_REGISTER:
		count_status(K_REGISTER, status, cres);
		if (cres == CURLE_OK && status == 200 && (x->machine = json_id(&x->resp, "machine_id", NULL))) {
			sample(K_REGISTER, ms);
			G.registered++;
			poller_lease(x);
		} else if (failed(x, "register", status, cres)) {
			x->what = W_REGISTER;
		} else {
			x->what = W_IDLE;
		}
		return;
	case W_LEASE:
		if (cres == CURLE_OK && status == 204) {
			count_status(K_LEASE_EMPTY, status, cres);
			sample(K_LEASE_EMPTY, ms - (double)G.wait_s * 1e3);
			poller_lease(x);
			return;
		}
		if (cres == CURLE_OK && status == 200) {
			long long id = json_id(&x->resp, "job", "id");
			struct job *j;

			count_status(K_LEASE_JOB, status, cres);
			if (!id) {
				record_fail("lease_no_job_id", status, cres, x, 0);
				x->what = W_IDLE;
				return;
			}
			/* maybe before its submit answer was read: the latency is taken at the end */
			j = job_get(id);
			j->deliveries++;
			j->machine = x->machine;
			j->lease_t0 = x->t0;
			j->t_deliver = t1;
			G.delivered++;
			x->job = id;
			{
				json_t *r = json_loadb(x->resp.data, x->resp.len, 0, NULL);
				json_t *jb = json_object_get(r, "job");
				const char *c = json_string_value(json_object_get(jb, "commit"));
				const char *t = json_string_value(json_object_get(jb, "testcase"));

				snprintf(x->commit, sizeof(x->commit), "%s", c ? c : "");
				snprintf(x->testcase, sizeof(x->testcase), "%s", t ? t : "");
				json_decref(r);
			}
			if (G.complete && G.run_ms) {
				x->what = W_COMPLETE; /* sent by resend() when the "run" is over */
				x->retry_at = t1 + (double)G.run_ms / 1e3;
			} else if (G.complete) {
				poller_complete(x);
			} else {
				x->holding = 1;
				x->what = W_IDLE;
			}
			return;
		}
		count_status(K_LEASE_JOB, status, cres);
		x->what = failed(x, "lease", status, cres) ? W_LEASE : W_IDLE;
		return;
	case W_COMPLETE:
		count_status(K_COMPLETE, status, cres);
		if (cres == CURLE_OK && status == 200) {
			sample(K_COMPLETE, ms);
			job_get(x->job)->completed++;
			G.completed++;
			x->job = 0;
			poller_lease(x);
			return;
		}
		x->what = failed(x, "complete", status, cres) ? W_COMPLETE : W_IDLE;
		return;
	case W_UPLOAD:
		count_status(K_UPLOAD, status, cres);
		if (cres == CURLE_OK && (status == 200 || status == 201)) {
			sample(K_UPLOAD, ms);
			G.docs_acked++;
			G.docs_created += status == 201;
			x->what = W_IDLE;
			return;
		}
		x->what = failed(x, "upload", status, cres) ? W_UPLOAD : W_IDLE;
		if (x->what == W_IDLE)
			G.docs_acked++; /* answered, as a failure: not waited for again */
		return;
	case W_SUBMIT:
		count_status(K_SUBMIT, status, cres);
		G.jobs_answered++;
		if (cres == CURLE_OK && (status == 200 || status == 201) &&
		    json_id(&x->resp, "id", NULL)) {
			struct job *j = job_get(json_id(&x->resp, "id", NULL));

			sample(K_SUBMIT, ms);
			j->submitted = 1;
			j->t_sub = x->t0;
			G.jobs_acked++;
		} else {
			record_fail("submit", status, cres, x, 0);
		}
		x->what = W_IDLE;
		return;
	case W_IDLE:
		return;
	}
}

/* a failed request due for its retry */
static void resend(struct xfer *x)
{
	switch (x->what) {
	case W_REGISTER:
		poller_register(x);
		break;
	case W_LEASE:
		poller_lease(x);
		break;
	case W_COMPLETE:
		poller_complete(x);
		break;
	case W_UPLOAD:
		upload_send(x, x->doc);
		break;
	default:
		break;
	}
}

static struct xfer *idle_upload(void)
{
	for (long i = 0; i < G.nup; i++)
		if (G.up[i].what == W_IDLE)
			return &G.up[i];
	if (G.nup < G.upload_slots) {
		struct xfer *x = &G.up[G.nup];

		x->role = R_UPLOAD;
		x->idx = (int)G.nup++;
		buf_init(&x->body, 0);
		buf_init(&x->resp, 0);
		return x;
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentiles of the samples (sorted in place) */
static void pct(const char *name, struct samples *s, int first)
{
	double *v = s->v;
	size_t n = s->n;

	printf("%s\"%s\":{\"n\":%zu", first ? "" : ",", name, n);
	if (n) {
		qsort(v, n, sizeof(double), cmp_double);
		printf(",\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f", v[(n - 1) / 2],
		       v[(size_t)((double)(n - 1) * 0.99)], v[n - 1]);
	}
	printf("}");
}

static long arg_num(char **argv, int *i, int argc)
{
	char *end;
	long v;

	if (*i + 1 >= argc)
		die("option needs a value");
	v = strtol(argv[++*i], &end, 10);
	if (*end || v < 0)
		die("option values are non-negative integers");
	return v;
}

static void parse(int argc, char **argv)
{
	G.pollers = 500;
	G.rate = 200;
	G.seconds = 60;
	G.njobs = 500;
	G.jobs_at = 50;
	G.wait_s = 20;
	G.tbox = "loadmix-box";
	G.max_seconds = 0;
	G.upload_slots = 64;
	G.series = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--url") && i + 1 < argc)
			G.url = argv[++i];
		else if (!strcmp(a, "--submit-url") && i + 1 < argc)
			G.submit_url = argv[++i];
		else if (!strcmp(a, "--series"))
			G.series = arg_num(argv, &i, argc);
		else if (!strcmp(a, "--run-ms"))
			G.run_ms = arg_num(argv, &i, argc);
		else if (!strcmp(a, "--tbox") && i + 1 < argc)
			G.tbox = argv[++i];
		else if (!strcmp(a, "--pollers"))
			G.pollers = arg_num(argv, &i, argc);
		else if (!strcmp(a, "--rate"))
			G.rate = arg_num(argv, &i, argc);
		else if (!strcmp(a, "--seconds"))
			G.seconds = arg_num(argv, &i, argc);
		else if (!strcmp(a, "--jobs"))
			G.njobs = arg_num(argv, &i, argc);
		else if (!strcmp(a, "--jobs-at"))
			G.jobs_at = (double)arg_num(argv, &i, argc);
		else if (!strcmp(a, "--wait"))
			G.wait_s = arg_num(argv, &i, argc);
		else if (!strcmp(a, "--tag"))
			G.tag = arg_num(argv, &i, argc);
		else if (!strcmp(a, "--max-seconds"))
			G.max_seconds = (double)arg_num(argv, &i, argc);
		else if (!strcmp(a, "--upload-slots"))
			G.upload_slots = arg_num(argv, &i, argc);
		else if (!strcmp(a, "--complete"))
			G.complete = 1;
		else if (!strcmp(a, "--retry"))
			G.retry = 1;
		else
			die("usage: loadmix --url URL [--pollers N] [--rate R] [--seconds S] [--jobs N] "
			    "[--jobs-at S] [--wait S] [--tag N] [--tbox NAME] [--complete] [--retry] "
			    "[--max-seconds S] [--upload-slots N] [--run-ms MS] [--submit-url URL] [--series N] "
			    "(see tests/faults/loadmix.c)");
	}
	if (!G.url || !G.upload_slots || !G.series)
		die("--url is required; --upload-slots and --series must be positive");
	if (!G.max_seconds)
		G.max_seconds = (double)G.seconds + (double)G.wait_s + 120;
}

static struct curl_slist *headers(const char *env)
{
	const char *tok = getenv(env);
	struct curl_slist *h = NULL;
	char auth[1024];

	if (!tok || !*tok)
		die("LOADMIX_WORKER_TOKEN and LOADMIX_SUBMIT_TOKEN must be set");
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", tok);
	h = curl_slist_append(h, auth);
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, "Expect:");
	return h;
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	long total_docs, sent_docs = 0;
	double t_end_uploads, t_reg0, t_reg = 0;
	int started = 0;

	parse(argc, argv);
	/* one socket per poller and upload connection: raise the soft limit */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) &&
	    rl.rlim_cur < (rlim_t)(G.pollers + G.upload_slots + NR_SUBMITTERS + 64))
		die("the open-file limit (ulimit -n) is below pollers + upload slots + 64");
	curl_global_init(CURL_GLOBAL_ALL);
	G.hw = headers("LOADMIX_WORKER_TOKEN");
	G.hs = headers("LOADMIX_SUBMIT_TOKEN");
	G.m = curl_multi_init();
	/* every poller keeps its connection: a cache that holds them all */
	curl_multi_setopt(G.m, CURLMOPT_MAXCONNECTS, G.pollers + G.upload_slots + NR_SUBMITTERS + 16);
	G.poll = xcalloc((size_t)G.pollers + 1, sizeof(struct xfer));
	G.up = xcalloc((size_t)G.upload_slots, sizeof(struct xfer));
	G.sub = xcalloc(NR_SUBMITTERS, sizeof(struct xfer));
	G.jobs_alloc = 2 * G.njobs + G.pollers + 1;
	G.jobs = xcalloc((size_t)G.jobs_alloc, sizeof(struct job));
	total_docs = G.rate * G.seconds;

	t_reg0 = mono_s();
	for (long i = 0; i < G.pollers; i++) {
		struct xfer *x = &G.poll[i];

		x->role = R_POLLER;
		x->idx = (int)i;
		buf_init(&x->body, 0);
		buf_init(&x->resp, 0);
		poller_register(x);
	}
	for (int i = 0; i < NR_SUBMITTERS; i++) {
		G.sub[i].role = R_SUBMIT;
		buf_init(&G.sub[i].body, 0);
		buf_init(&G.sub[i].resp, 0);
	}
	G.t_start = t_end_uploads = 0;
	for (;;) {
		int running, left;
		CURLMsg *msg;
		double now = mono_s(), next = now + 0.1;
		long wait_ms;

		if (!started && (G.registered == G.pollers || now - t_reg0 > 60)) {
			/* every poller registered and parked (or given up on) */
			started = 1;
			t_reg = now - t_reg0;
			G.t_start = now;
		}
		if (started) {
			double el = now - G.t_start;

			/* uploads due by now, each on an idle connection */
			while (sent_docs < total_docs && (double)sent_docs / (double)G.rate <= el) {
				struct xfer *x = idle_upload();
				double lag = el - (double)sent_docs / (double)G.rate;

				if (!x) {
					G.late++;
					break;
				}
				if (lag > G.max_lag)
					G.max_lag = lag;
				upload_send(x, sent_docs++);
			}
			if (sent_docs < total_docs)
				next = G.t_start + (double)sent_docs / (double)G.rate;
			if (sent_docs == total_docs && !t_end_uploads)
				t_end_uploads = now;
			/* jobs: each submitter sends the next one when idle */
			if (el >= G.jobs_at)
				for (int i = 0; i < NR_SUBMITTERS && G.jobs_next < G.njobs; i++)
					if (G.sub[i].what == W_IDLE)
						submit_send(&G.sub[i], G.jobs_next++);
			if (el < G.jobs_at && G.t_start + G.jobs_at < next)
				next = G.t_start + G.jobs_at;
		}
		/* failed requests due again */
		for (long i = 0; i < G.pollers; i++)
			if (G.poll[i].retry_at > 0 && G.poll[i].retry_at <= now)
				resend(&G.poll[i]);
		for (long i = 0; i < G.nup; i++)
			if (G.up[i].retry_at > 0 && G.up[i].retry_at <= now)
				resend(&G.up[i]);

		/* done: every document answered, every job answered, delivered (and completed) */
		if (started && sent_docs == total_docs && G.docs_acked == total_docs &&
		    G.jobs_answered == G.njobs) {
			int all = 1;

			for (long i = 0; i < G.njobs_known && all; i++)
				if (G.jobs[i].submitted &&
				    (!G.jobs[i].deliveries || (G.complete && !G.jobs[i].completed)))
					all = 0;
			if (all)
				break;
		}
		if (now - t_reg0 > G.max_seconds)
			break;

		curl_multi_perform(G.m, &running);
		while ((msg = curl_multi_info_read(G.m, &left)))
			if (msg->msg == CURLMSG_DONE) {
				struct xfer *x;

				curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
				done_x(x, msg->data.result);
			}
		wait_ms = (long)((next - mono_s()) * 1000);
		if (wait_ms > 0)
			curl_multi_poll(G.m, NULL, 0, (int)(wait_ms > 100 ? 100 : wait_ms), NULL);
	}

	{
		double t_end = mono_s();
		double up_s = (t_end_uploads ? t_end_uploads : t_end) - G.t_start;
		long dup = 0, undelivered = 0, foreign = 0;

		for (long i = 0; i < G.njobs_known; i++) {
			struct job *j = &G.jobs[i];

			dup += j->deliveries > 1;
			undelivered += j->submitted && !j->deliveries;
			foreign += !j->submitted;
			if (j->submitted && j->deliveries)
				sample(K_LEASE_JOB, (j->t_deliver - (j->t_sub > j->lease_t0 ? j->t_sub
									   : j->lease_t0)) * 1e3);
		}
		printf("{\"pollers\":%ld,\"registered\":%ld,\"register_seconds\":%.3f,\"t_start\":%.6f,"
		       "\"t_end\":%.6f,\"wait_s\":%ld,", G.pollers, G.registered, t_reg, G.t_start, t_end,
		       G.wait_s);
		printf("\"uploads\":{\"planned\":%ld,\"sent\":%ld,\"answered\":%ld,\"created\":%ld,"
		       "\"send_seconds\":%.3f,\"achieved_rate\":%.2f,\"late\":%ld,\"max_lag_ms\":%.3f,"
		       "\"connections\":%ld},",
		       total_docs, sent_docs, G.docs_acked, G.docs_created, up_s,
		       up_s > 0 ? (double)sent_docs / up_s : 0.0, G.late, G.max_lag * 1e3, G.nup);
		printf("\"latency\":{");
		for (int k = 0; k < K_NR; k++)
			pct(kind_names[k], &lat[k], !k);
		printf("},\"statuses\":{");
		for (int k = 0; k < K_NR; k++) {
			printf("%s\"%s\":{\"curl_error\":%ld,\"other\":%ld,\"2xx\":%ld,\"3xx\":%ld,\"4xx\":%ld,"
			       "\"5xx\":%ld}", k ? "," : "", kind_names[k], G.statuses[k][0],
			       G.statuses[k][1], G.statuses[k][2], G.statuses[k][3], G.statuses[k][4],
			       G.statuses[k][5]);
		}
		printf("},\"jobs\":{\"submitted\":%ld,\"delivered\":%ld,\"completed\":%ld,"
		       "\"delivered_twice\":%ld,\"undelivered\":%ld,\"not_submitted_here\":%ld,"
		       "\"list\":[", G.jobs_acked, G.delivered, G.completed, dup, undelivered, foreign);
		for (long i = 0; i < G.njobs_known; i++)
			printf("%s[%lld,%lld,%d,%d,%d]", i ? "," : "", G.jobs[i].id, G.jobs[i].machine,
			       G.jobs[i].submitted, G.jobs[i].deliveries, G.jobs[i].completed);
		printf("]},\"failures\":%ld,\"retries\":%ld,\"failure_list\":[", G.nfails, G.nretries);
		for (long i = 0; i < G.nfails && i < MAX_FAILS; i++)
			printf("%s{\"kind\":\"%s\",\"status\":%ld,\"curl\":%d,\"t0\":%.6f,\"t1\":%.6f,"
			       "\"retried\":%d}", i ? "," : "", G.fails[i].kind, G.fails[i].status,
			       G.fails[i].curl, G.fails[i].t0, G.fails[i].t1, G.fails[i].retried);
		printf("]}\n");
	}
	for (long i = 0; i < G.pollers; i++) {
		if (G.poll[i].h) {
			if (G.poll[i].what != W_IDLE && !G.poll[i].retry_at)
				curl_multi_remove_handle(G.m, G.poll[i].h);
			curl_easy_cleanup(G.poll[i].h);
		}
		buf_release(&G.poll[i].body);
		buf_release(&G.poll[i].resp);
	}
	for (long i = 0; i < G.nup; i++) {
		if (G.up[i].h) {
			if (G.up[i].what != W_IDLE && !G.up[i].retry_at)
				curl_multi_remove_handle(G.m, G.up[i].h);
			curl_easy_cleanup(G.up[i].h);
		}
		buf_release(&G.up[i].body);
		buf_release(&G.up[i].resp);
	}
	for (int i = 0; i < NR_SUBMITTERS; i++) {
		if (G.sub[i].h) {
			if (G.sub[i].what != W_IDLE)
				curl_multi_remove_handle(G.m, G.sub[i].h);
			curl_easy_cleanup(G.sub[i].h);
		}
		buf_release(&G.sub[i].body);
		buf_release(&G.sub[i].resp);
	}
	curl_multi_cleanup(G.m);
	curl_slist_free_all(G.hw);
	curl_slist_free_all(G.hs);
	for (int k = 0; k < K_NR; k++)
		free(lat[k].v);
	free(G.poll);
	free(G.up);
	free(G.sub);
	free(G.jobs);
	curl_global_cleanup();
	return 0;
}
