/*
 * bench/loadgen — the load and timing client of `make bench` (bench/run.sh
 * builds it; bench/bench.py runs it). Every mode prints one JSON object on
 * stdout and exits 0, or prints a message on stderr and exits 1.
 *
 *   loadgen ingest URL TOKEN CLIENTS DOCS METRICS REPL TAG TESTCASE NCOMMITS
 *	POST DOCS result documents of METRICS metrics x REPL values each to
 *	URL/api/v1/results from CLIENTS threads (one keep-alive connection
 *	each, documents dealt round-robin). Documents are generated before
 *	the clock starts; TAG (an integer) makes their run_ids and values
 *	distinct per call; commits cycle through NCOMMITS shas derived from
 *	TESTCASE. -> {"docs","values","seconds","errors","commits":[sha…]}
 *   loadgen copy CONNINFO CLIENTS DOCS METRICS REPL TAG TESTCASE
 *	The same rows into the same schema, the baseline: per document one
 *	transaction that inserts its runs row (same commit and setup as the
 *	ingested documents of TESTCASE) and COPYs its METRICS run_values rows
 *	(metric ids looked up by name first, values in text as PostgreSQL's
 *	float8 output would have them, and their mean as the server stores it
 *	in run_values.mean). -> {"docs","values","seconds","errors"}
 *   loadgen get URL REPS
 *	REPS GETs on one keep-alive connection after one warm-up GET.
 *	-> {"ms":[…], "bytes", "status"}
 *   loadgen sql CONNINFO REPS SQL [PARAM…]
 *	Prepares SQL, then REPS executions with every row transferred (text
 *	format, as the server reads them) after one warm-up.
 *	-> {"ms":[…], "rows"}
 *   loadgen stmt CONNINFO REPS NAME [PARAM…]
 *	The same for the server's own prepared statement NAME from
 *	server/db/stmts_*.c (linked in, so the text never drifts). The
 *	literal parameter "NULL" is an SQL NULL, and so is every parameter
 *	of the statement past the PARAMs given (its optional filters: a
 *	filter added to a statement does not break the bench, whose
 *	"bind message supplies 8 parameters, but prepared statement
 *	requires 9" once lost two figures). With LOADGEN_BINARY=1 in
 *	the environment both take their results in binary (as the server's
 *	db_query() with binary 1 does), else as text.
 *
 * Times are wall-clock (CLOCK_MONOTONIC) in the client, so they include the
 * loopback transfer, like what a user sees.
 */
#include <curl/curl.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "server/db/db.h"
#include "server/db/db_int.h" /* the statements (stmt mode): db_stmt_by_name() */
#include "xalloc.h"
#include "clock.h"

static void die(const char *what)
{
	fprintf(stderr, "loadgen: %s\n", what);
	exit(1);
}

/* buffers here are uncapped: a failed append is a bug */
#define B(x) do { if (x) die("buffer append failed"); } while (0)

static long num(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0)
		die(what);
	return v;
}

/* splitmix64: reproducible values and ids without libc's rand state */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void commit_sha(const char *testcase, int i, char sha[41])
{
	uint64_t s = str_hash(testcase) + (uint64_t)i * 7919;
	uint64_t a = mix(&s), b = mix(&s), c = mix(&s);

	snprintf(sha, 41, "%016llx%016llx%08llx", (unsigned long long)a, (unsigned long long)b,
		 (unsigned long long)(c & 0xffffffffu));
}

static void uuid_of(uint64_t *s, char out[37])
{
	uint64_t a = mix(s), b = mix(s);

	/* version 4, variant 10 */
	snprintf(out, 37, "%08llx-%04llx-4%03llx-%04llx-%012llx",
		 (unsigned long long)(a >> 32), (unsigned long long)((a >> 16) & 0xffff),
		 (unsigned long long)(a & 0xfff), (unsigned long long)(0x8000 | ((b >> 48) & 0x3fff)),
		 (unsigned long long)(b & 0xffffffffffffull));
}

static void metric_name(char *out, size_t n, long i)
{
	snprintf(out, n, "bench.metric_%05ld", i);
}

/* one value as a benchmark would print it: 6 significant digits */
static double value_of(uint64_t *s, long metric)
{
	double base = 10.0 + (double)(metric % 997) * 13.0;

	return base * (1.0 + ((double)(mix(s) >> 11) / 9007199254740992.0 - 0.5) * 0.04);
}

struct docset {
	long metrics, repl, ncommits;
	const char *testcase;
	uint64_t seed;
};

static void make_doc(const struct docset *ds, long idx, struct buf *b)
{
	uint64_t s = ds->seed * 1000003u + (uint64_t)idx;
	char sha[41], uuid[37], name[64];

	commit_sha(ds->testcase, (int)(idx % ds->ncommits), sha);
	uuid_of(&s, uuid);
	B(buf_addf(b, "{\"run_id\":\"%s\",\"commit\":\"%s\",\"tree\":\"linux\",\"branch\":\"master\","
		 "\"kconfig\":\"x86_64-defconfig\",\"compiler\":\"gcc-12\","
		 "\"machine\":{\"hostname\":\"bench-1\",\"arch\":\"x86_64\",\"cpu_model\":\"bench cpu\","
		 "\"nr_cpus\":2,\"memory_mb\":4096,\"tbox_group\":\"bench-2p\"},"
		 "\"testcase\":\"%s\",\"params\":{\"nr_task\":\"100%%\",\"test\":\"bench\"},"
		 "\"status\":\"ok\",\"started_at\":\"2026-11-29T10:00:00Z\",\"duration_s\":12.5,"
		 "\"metrics\":{", uuid, sha, ds->testcase));
	for (long m = 0; m < ds->metrics; m++) {
		metric_name(name, sizeof(name), m);
		B(buf_addf(b, "%s\"%s\":[", m ? "," : "", name));
		for (long r = 0; r < ds->repl; r++)
			B(buf_addf(b, "%s%.6g", r ? "," : "", value_of(&s, m)));
		B(buf_addch(b, ']'));
	}
	B(buf_addstr(b, "}}"));
}

/* ---- ingest through the API ---------------------------------------------- */

struct client {
	pthread_t th;
	int id;
	const char *url;
	const char *auth;
	long metric_ids_n;
	const long *metric_ids;
	const char *conninfo;
	const char *testcase;
	struct buf *docs;
	size_t ndocs;
	long errors;
	pthread_barrier_t *start;
};

static size_t sink(char *p, size_t sz, size_t n, void *u)
{
	(void)p;
	*(size_t *)u += sz * n;
	return sz * n;
}

static void *ingest_thread(void *arg)
{
	struct client *cl = arg;
	CURL *h = curl_easy_init();
	struct curl_slist *hdr = NULL;
	size_t got = 0;

	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	hdr = curl_slist_append(hdr, cl->auth);
	curl_easy_setopt(h, CURLOPT_URL, cl->url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &got);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 120L);
	pthread_barrier_wait(cl->start);
	for (size_t i = 0; i < cl->ndocs; i++) {
		long code = 0;

		curl_easy_setopt(h, CURLOPT_POSTFIELDS, cl->docs[i].data);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)cl->docs[i].len);
		if (curl_easy_perform(h) != CURLE_OK ||
		    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK ||
		    (code != 200 && code != 201)) {
			if (!cl->errors)
				fprintf(stderr, "loadgen: POST answered %ld\n", code);
			cl->errors++;
		}
	}
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	return NULL;
}

static int run_clients(struct client *cl, int n, void *(*fn)(void *), pthread_barrier_t *b,
		       double *secs)
{
	double t0;

	for (int i = 0; i < n; i++)
		if (pthread_create(&cl[i].th, NULL, fn, &cl[i]))
			die("pthread_create");
	pthread_barrier_wait(b);
	t0 = mono_s();
	for (int i = 0; i < n; i++)
		pthread_join(cl[i].th, NULL);
	*secs = mono_s() - t0;
	return 0;
}

static int cmd_ingest(int argc, char **argv)
{
	struct docset ds;
	long clients, ndocs;
	struct client *cl;
	pthread_barrier_t b;
	char url[1024], auth[1024], sha[41];
	double secs;
	long errors = 0;

	if (argc != 11)
		die("usage: ingest URL TOKEN CLIENTS DOCS METRICS REPL TAG TESTCASE NCOMMITS");
	clients = num(argv[4], "CLIENTS");
	ndocs = num(argv[5], "DOCS");
	ds.metrics = num(argv[6], "METRICS");
	ds.repl = num(argv[7], "REPL");
	ds.seed = (uint64_t)num(argv[8], "TAG");
	ds.testcase = argv[9];
	ds.ncommits = num(argv[10], "NCOMMITS");
	if (clients < 1 || ds.ncommits < 1 || ds.repl < 1)
		die("CLIENTS, NCOMMITS and REPL must be positive");
	snprintf(url, sizeof(url), "%s/api/v1/results", argv[2]);
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", argv[3]);
	curl_global_init(CURL_GLOBAL_ALL);
	cl = xcalloc((size_t)clients, sizeof(*cl));
	pthread_barrier_init(&b, NULL, (unsigned)clients + 1);
	for (long i = 0; i < clients; i++) {
		cl[i].id = (int)i;
		cl[i].url = url;
		cl[i].auth = auth;
		cl[i].start = &b;
		cl[i].docs = xcalloc((size_t)ndocs / (size_t)clients + 1, sizeof(struct buf));
	}
	for (long d = 0; d < ndocs; d++) {
		struct client *c = &cl[d % clients];
		struct buf *doc = &c->docs[c->ndocs++];

		buf_init(doc, 0);
		make_doc(&ds, d, doc);
	}
	run_clients(cl, (int)clients, ingest_thread, &b, &secs);
	printf("{\"docs\":%ld,\"values\":%ld,\"seconds\":%.6f,\"errors\":", ndocs,
	       ndocs * ds.metrics * ds.repl, secs);
	for (long i = 0; i < clients; i++) {
		errors += cl[i].errors;
		for (size_t d = 0; d < cl[i].ndocs; d++)
			buf_release(&cl[i].docs[d]);
		free(cl[i].docs);
	}
	printf("%ld,\"commits\":[", errors);
	for (long i = 0; i < ds.ncommits; i++) {
		commit_sha(ds.testcase, (int)i, sha);
		printf("%s\"%s\"", i ? "," : "", sha);
	}
	printf("]}\n");
	free(cl);
	pthread_barrier_destroy(&b);
	curl_global_cleanup();
	return 0;
}

/* ---- the baseline: COPY of the same rows ----------------------------------- */

struct copy_ctx {
	struct docset ds;
	long setup_id, commit_id;
	long *metric_ids;
};

static struct copy_ctx copy_ctx;

static PGresult *must(PGconn *c, PGresult *r, const char *what)
{
	ExecStatusType st = PQresultStatus(r);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_COPY_IN) {
		fprintf(stderr, "loadgen: %s: %s", what, PQerrorMessage(c));
		exit(1);
	}
	return r;
}

static void *copy_thread(void *arg)
{
	struct client *cl = arg;
	PGconn *c = PQconnectdb(cl->conninfo);
	char rid[32], setup[32], commit[32];

	if (PQstatus(c) != CONNECTION_OK)
		die(PQerrorMessage(c));
	snprintf(setup, sizeof(setup), "%ld", copy_ctx.setup_id);
	snprintf(commit, sizeof(commit), "%ld", copy_ctx.commit_id);
	PQclear(must(c, PQprepare(c, "run", "INSERT INTO runs (run_id, commit_id, setup_id, "
				  "doc_sha256) VALUES ($1::uuid, $2::bigint, $3::bigint, "
				  "'\\x00'::bytea) RETURNING id", 3, NULL), "prepare"));
	pthread_barrier_wait(cl->start);
	for (size_t i = 0; i < cl->ndocs; i++) {
		struct buf *d = &cl->docs[i];
		struct buf rows = BUF_INIT(0);
		const char *p[3];
		PGresult *r;
		char *line = d->data, *nl;
		size_t ridlen;

		/* each stored document: its uuid on the first line, then "\tmid\t{…}\n" rows */
		nl = strchr(line, '\n');
		*nl = '\0';
		p[0] = line;
		p[1] = commit;
		p[2] = setup;
		PQclear(must(c, PQexec(c, "BEGIN"), "begin"));
		r = must(c, PQexecPrepared(c, "run", 3, p, NULL, NULL, 0), "insert run");
		snprintf(rid, sizeof(rid), "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
		*nl = '\n';
		ridlen = strlen(rid);
		/* prefix each row with the run's id */
		for (char *q = nl + 1; *q; ) {
			char *e = strchr(q, '\n');
			B(buf_add(&rows, rid, ridlen));
			B(buf_add(&rows, q, (size_t)(e - q) + 1));
			q = e + 1;
		}
		PQclear(must(c, PQexec(c, "COPY run_values (run_id, metric_id, vals, mean) FROM STDIN"),
			     "copy"));
		if (PQputCopyData(c, rows.data, (int)rows.len) != 1 || PQputCopyEnd(c, NULL) != 1)
			die(PQerrorMessage(c));
		PQclear(must(c, PQgetResult(c), "copy end"));
		while ((r = PQgetResult(c)))
			PQclear(r);
		PQclear(must(c, PQexec(c, "COMMIT"), "commit"));
		buf_release(&rows);
	}
	PQfinish(c);
	return NULL;
}

static long lookup_id(PGconn *c, const char *sql, int n, const char *const *p)
{
	PGresult *r = must(c, PQexecParams(c, sql, n, NULL, p, NULL, NULL, 0), sql);
	long id;

	if (PQntuples(r) != 1) {
		fprintf(stderr, "loadgen: '%s' found %d rows (ingest the documents first)\n", sql,
			PQntuples(r));
		exit(1);
	}
	id = strtol(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return id;
}

static int cmd_copy(int argc, char **argv)
{
	struct docset *ds = &copy_ctx.ds;
	long clients, ndocs;
	struct client *cl;
	pthread_barrier_t b;
	PGconn *c;
	PGresult *r;
	char sha[41], name[64];
	double secs;

	if (argc != 9)
		die("usage: copy CONNINFO CLIENTS DOCS METRICS REPL TAG TESTCASE");
	clients = num(argv[3], "CLIENTS");
	ndocs = num(argv[4], "DOCS");
	ds->metrics = num(argv[5], "METRICS");
	ds->repl = num(argv[6], "REPL");
	ds->seed = (uint64_t)num(argv[7], "TAG");
	ds->testcase = argv[8];
	ds->ncommits = 1;
	if (clients < 1 || ds->repl < 1)
		die("CLIENTS and REPL must be positive");
	c = PQconnectdb(argv[2]);
	if (PQstatus(c) != CONNECTION_OK)
		die(PQerrorMessage(c));
	commit_sha(ds->testcase, 0, sha);
	{
		const char *p[1] = { sha };
		copy_ctx.commit_id = lookup_id(c, "SELECT id FROM commits WHERE sha = $1", 1, p);
	}
	{
		const char *p[1] = { ds->testcase };
		copy_ctx.setup_id = lookup_id(c, "SELECT s.id FROM setups s JOIN testcases t ON "
					      "t.id = s.testcase_id WHERE t.name = $1 LIMIT 1", 1, p);
	}
	copy_ctx.metric_ids = xcalloc((size_t)ds->metrics, sizeof(long));
	r = must(c, PQexec(c, "SELECT id, name FROM metrics WHERE name LIKE 'bench.metric\\_%'"),
		 "metric ids");
	for (int i = 0; i < PQntuples(r); i++) {
		long m = strtol(PQgetvalue(r, i, 1) + strlen("bench.metric_"), NULL, 10);
		if (m >= 0 && m < ds->metrics)
			copy_ctx.metric_ids[m] = strtol(PQgetvalue(r, i, 0), NULL, 10);
	}
	PQclear(r);
	PQfinish(c);
	for (long m = 0; m < ds->metrics; m++)
		if (!copy_ctx.metric_ids[m])
			die("metric ids missing (ingest documents of as many metrics first)");

	cl = xcalloc((size_t)clients, sizeof(*cl));
	pthread_barrier_init(&b, NULL, (unsigned)clients + 1);
	for (long i = 0; i < clients; i++) {
		cl[i].conninfo = argv[2];
		cl[i].start = &b;
		cl[i].docs = xcalloc((size_t)ndocs / (size_t)clients + 1, sizeof(struct buf));
	}
	/* the rows of each document, in COPY text format, minus the run id */
	for (long d = 0; d < ndocs; d++) {
		struct client *cc = &cl[d % clients];
		struct buf *doc = &cc->docs[cc->ndocs++];
		uint64_t s = ds->seed * 1000003u + (uint64_t)d + 0x5eed;
		char uuid[37];

		buf_init(doc, 0);
		uuid_of(&s, uuid);
		B(buf_addf(doc, "%s\n", uuid));
		for (long m = 0; m < ds->metrics; m++) {
			metric_name(name, sizeof(name), m);
			double sum = 0;

			B(buf_addf(doc, "\t%ld\t{", copy_ctx.metric_ids[m]));
			for (long x = 0; x < ds->repl; x++) {
				char v[32];

				snprintf(v, sizeof(v), "%.6g", value_of(&s, m));
				sum += strtod(v, NULL);
				B(buf_addf(doc, "%s%s", x ? "," : "", v));
			}
			/* the run's mean, as the server stores it (sql/0006) */
			B(buf_addf(doc, "}\t%.17g\n", sum / (double)ds->repl));
		}
	}
	run_clients(cl, (int)clients, copy_thread, &b, &secs);
	for (long i = 0; i < clients; i++) {
		for (size_t d = 0; d < cl[i].ndocs; d++)
			buf_release(&cl[i].docs[d]);
		free(cl[i].docs);
	}
	printf("{\"docs\":%ld,\"values\":%ld,\"seconds\":%.6f,\"errors\":0}\n", ndocs,
	       ndocs * ds->metrics * ds->repl, secs);
	free(cl);
	free(copy_ctx.metric_ids);
	pthread_barrier_destroy(&b);
	return 0;
}

/* ---- timings of one GET or one query ---------------------------------------- */

static void print_ms(const double *ms, long n)
{
	printf("\"ms\":[");
	for (long i = 0; i < n; i++)
		printf("%s%.4f", i ? "," : "", ms[i]);
	printf("]");
}

static int cmd_get(int argc, char **argv)
{
	long reps, code = 0;
	double *ms;
	size_t got = 0;
	CURL *h;

	if (argc != 4)
		die("usage: get URL REPS");
	reps = num(argv[3], "REPS");
	ms = xcalloc((size_t)reps + 1, sizeof(double));
	curl_global_init(CURL_GLOBAL_ALL);
	h = curl_easy_init();
	curl_easy_setopt(h, CURLOPT_URL, argv[2]);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &got);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, NULL);
	for (long i = -1; i < reps; i++) {
		double t0 = mono_s();

		got = 0;
		if (curl_easy_perform(h) != CURLE_OK)
			die("GET failed");
		if (i >= 0)
			ms[i] = (mono_s() - t0) * 1e3;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	printf("{");
	print_ms(ms, reps);
	printf(",\"bytes\":%zu,\"status\":%ld}\n", got, code);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	free(ms);
	return 0;
}

static int cmd_sql(int argc, char **argv, int server_stmt)
{
	long reps;
	double *ms;
	const char *sql = argv[4];
	int np = argc - 5, rows = 0;
	const char **p;
	PGconn *c;
	/* results in binary, as the server reads its large ones (db_query(), binary 1) */
	int binary = getenv("LOADGEN_BINARY") && !strcmp(getenv("LOADGEN_BINARY"), "1");

	if (argc < 5)
		die("usage: sql CONNINFO REPS SQL [PARAM…] | stmt CONNINFO REPS NAME [PARAM…]");
	reps = num(argv[3], "REPS");
	if (server_stmt) {
		const struct db_stmt_def *d = db_stmt_by_name(argv[4]);

		sql = d ? d->sql : NULL;
		if (!sql)
			die("no such server statement");
	}
	ms = xcalloc((size_t)reps + 1, sizeof(double));
	c = PQconnectdb(argv[2]);
	if (PQstatus(c) != CONNECTION_OK)
		die(PQerrorMessage(c));
	PQclear(must(c, PQprepare(c, "q", sql, 0, NULL), "prepare"));
	{
		/* the statement's own count of parameters: the ones not given are NULL */
		PGresult *d = must(c, PQdescribePrepared(c, "q"), "describe");
		int given = np;

		if (PQnparams(d) < np)
			die("more PARAMs than the statement has");
		np = PQnparams(d);
		PQclear(d);
		p = xcalloc((size_t)np + 1, sizeof(*p));
		for (int i = 0; i < given; i++)
			p[i] = strcmp(argv[5 + i], "NULL") ? argv[5 + i] : NULL;
	}
	for (long i = -1; i < reps; i++) {
		double t0 = mono_s();
		PGresult *r = must(c, PQexecPrepared(c, "q", np, p, NULL, NULL, binary), "query");

		if (i >= 0)
			ms[i] = (mono_s() - t0) * 1e3;
		rows = PQntuples(r);
		PQclear(r);
	}
	printf("{");
	print_ms(ms, reps);
	printf(",\"rows\":%d}\n", rows);
	PQfinish(c);
	free(ms);
	free(p);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		die("usage: loadgen ingest|copy|get|sql|stmt ARGS (see bench/loadgen.c)");
	if (!strcmp(argv[1], "ingest"))
		return cmd_ingest(argc, argv);
	if (!strcmp(argv[1], "copy"))
		return cmd_copy(argc, argv);
	if (!strcmp(argv[1], "get"))
		return cmd_get(argc, argv);
	if (!strcmp(argv[1], "sql"))
		return cmd_sql(argc, argv, 0);
	if (!strcmp(argv[1], "stmt"))
		return cmd_sql(argc, argv, 1);
	die("unknown mode");
	return 1;
}
