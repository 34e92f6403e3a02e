#include "server/http.h"
#include "server/auth.h"
#include "server/jsonout.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static enum MHD_Result queue(struct request *rq, unsigned status, struct MHD_Response *resp)
{
	enum MHD_Result r;

	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	r = MHD_queue_response(rq->conn, status, resp);
	MHD_destroy_response(resp);
	rq->status = (int)status;
	return r;
}

enum MHD_Result reply_text(struct request *rq, unsigned status, const char *content_type,
			   const char *data, size_t len)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY);

	MHD_add_response_header(resp, "Content-Type", content_type);
	return queue(rq, status, resp);
}

enum MHD_Result reply_text_buf(struct request *rq, unsigned status, const char *content_type,
			       struct buf *b)
{
	size_t len;
	char *s = buf_detach(b, &len);
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, s, MHD_RESPMEM_MUST_FREE);

	MHD_add_response_header(resp, "Content-Type", content_type);
	return queue(rq, status, resp);
}

enum MHD_Result reply_json(struct request *rq, unsigned status, json_t *body)
{
	struct buf out = BUF_INIT(0);
	struct MHD_Response *resp;

	/*
	 * body is NULL when a json_pack() or json_string() of the handler met
	 * a string that is not UTF-8: a bug to log, never a reason to abort
	 * the whole server. Written by jsonout_json(): the numbers are the
	 * shortest that read back exactly (server/jsonout.h).
	 */
	if (!body || jsonout_json(&out, body) || buf_addch(&out, '\n')) {
		static const char fail[] = "{\"error\":{\"code\":\"internal\",\"message\":"
					   "\"the reply could not be encoded\",\"detail\":\"\"}}\n";

		json_decref(body);
		buf_release(&out);
		fprintf(stderr, "regtrack-server: %s %s: reply %u could not be encoded as JSON\n",
			rq->method, rq->url, status);
		resp = MHD_create_response_from_buffer(sizeof(fail) - 1, (void *)fail,
						       MHD_RESPMEM_PERSISTENT);
		MHD_add_response_header(resp, "Content-Type", "application/json");
		return queue(rq, 500, resp);
	}
	json_decref(body);
	return reply_text_buf(rq, status, "application/json", &out);
}

/*
 * Length of the UTF-8 sequence at s[0..n) as jansson accepts it (no
 * overlong forms, surrogates or code points past U+10FFFF), or 0 when
 * s does not start with one.
 */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* 1 when s[0..n) is UTF-8 without NUL bytes. */
static int utf8_ok(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0, l; i < n; i += l)
		if (!u[i] || !(l = utf8_seq(u + i, n - i)))
			return 0;
	return 1;
}

/*
 * A JSON string of s with every byte that is not part of a UTF-8 sequence
 * as '?': error texts echo what the client sent (a path, an argument) and
 * are cut to fit struct err, maybe inside a character.
 */
static json_t *json_text(const char *s)
{
	size_t n = strlen(s);
	char *t = xstrndup(s, n);
	json_t *j;

	for (size_t i = 0, l; i < n; i += l)
		if (!(l = utf8_seq((unsigned char *)t + i, n - i))) {
			t[i] = '?';
			l = 1;
		}
	j = json_stringn(t, n);
	free(t);
	return j;
}

json_t *err_json(const struct err *e)
{
	return json_pack("{s:{s:o,s:o,s:o}}", "error", "code", json_text(e->code), "message",
			 json_text(e->message), "detail", json_text(e->detail));
}

enum MHD_Result reply_err(struct request *rq, const struct err *e)
{
	int status = e->status >= 400 && e->status <= 599 ? e->status : 500;

	return reply_json(rq, (unsigned)status, err_json(e));
}

enum MHD_Result reply_errf(struct request *rq, int status, const char *code, const char *detail,
			   const char *fmt, ...)
{
	struct err e;
	va_list ap;

	e.status = status;
	snprintf(e.code, sizeof(e.code), "%s", code);
	snprintf(e.detail, sizeof(e.detail), "%s", detail ? detail : "");
	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	return reply_err(rq, &e);
}

enum MHD_Result reply_empty(struct request *rq, unsigned status)
{
	return queue(rq, status, MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT));
}

enum MHD_Result reply_pg_json(struct request *rq, PGresult *r, const char *what)
{
	enum MHD_Result ret;

	if (PQntuples(r) < 1 || PQgetisnull(r, 0, 0)) {
		PQclear(r);
		return reply_errf(rq, 404, "not_found", "id", "%s", what);
	}
	/*
	 * Written again through jsonout_json() so that these replies look like
	 * every other one: compact (PostgreSQL's json_build_object writes
	 * {"id" : 1, ...} and json_agg puts newlines between elements) and the
	 * same shortest numbers. Text jansson cannot read (an integer past
	 * int64 in a jsonb value) goes out as PostgreSQL wrote it.
	 */
	{
		json_t *j = json_loadb(PQgetvalue(r, 0, 0), (size_t)PQgetlength(r, 0, 0), 0, NULL);
		struct buf out = BUF_INIT(0);

		if (j && !jsonout_json(&out, j) && !buf_addch(&out, '\n'))
			ret = reply_text_buf(rq, 200, "application/json", &out);
		else
			ret = reply_text(rq, 200, "application/json", PQgetvalue(r, 0, 0),
					 (size_t)PQgetlength(r, 0, 0));
		buf_release(&out);
		json_decref(j);
	}
	PQclear(r);
	return ret;
}

enum MHD_Result reply_db_json(struct request *rq, enum db_stmt st, int n, const char *const *p)
{
	struct err e;
	PGconn *c = rq_db(rq, &e);
	PGresult *r = c ? db_exec(c, st, n, p, &e) : NULL;

	if (!r)
		return reply_err(rq, &e);
	return reply_pg_json(rq, r, "nothing found");
}

const char *rq_arg(struct request *rq, const char *name)
{
	const char *v = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, name);
	return v && *v ? v : NULL;
}

/*
 * The first number in j that would not come back the same from the
 * database, or NULL; path (size bytes) gets its JSON path ("metrics.m[2]",
 * "machine.nr_cpus"; cut short when longer), len = the length of the path
 * of j. PostgreSQL's jsonb prints a number in full, without an exponent
 * (1e300 as 301 digits), and jansson refuses an integer past int64 when
 * the stored JSON is read back: the field would silently vanish, a job
 * would not lease. Sums of such values also overflow float8 in SQL
 * (avg() of run_values). So reals must lie within +-2^63; integers are
 * int64 already (jansson refuses longer integer literals: rq_json).
 */
static json_t *bad_number(json_t *j, char *path, size_t size, size_t len)
{
	const char *k;
	json_t *v, *bad;
	size_t i;

	if (json_is_real(j))
		return fabs(json_real_value(j)) < 9223372036854775808.0 ? NULL : j;
	if (json_is_object(j)) {
		json_object_foreach(j, k, v) {
			snprintf(path + len, size - len, "%s%s", len ? "." : "", k);
			if ((bad = bad_number(v, path, size, strlen(path))))
				return bad;
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			snprintf(path + len, size - len, "[%zu]", i);
			if ((bad = bad_number(v, path, size, strlen(path))))
				return bad;
		}
	}
	path[len] = '\0';
	return NULL;
}

/* one open object or array while number_path() reads a JSON text */
struct json_frame {
	size_t len;	/* length of the container's own path */
	size_t index;	/* arrays: the element being read */
	int is_obj;
	int key_next;	/* objects: the next string is a key */
};

/* appends the JSON string text[0..n) (quotes included), decoded, to path */
static void path_add_key(char *path, size_t size, size_t len, const char *text, size_t n)
{
	json_t *k = json_loadb(text, n, JSON_DECODE_ANY, NULL);

	snprintf(path + len, size - len, "%s%s", len ? "." : "",
		 json_is_string(k) ? json_string_value(k) : "?");
	json_decref(k);
}

/*
 * A number jansson cannot hold (an integer literal past int64, a real
 * past DBL_MAX) makes json_loadb() stop with only a line and column. This
 * names the number instead: the JSON path of the last number that starts
 * before byte pos of text (json_loadb() read text as valid JSON up to
 * there, the number included) goes to at (size bytes, cut short when
 * longer), its text to num (nsize bytes). 0, or -1 when there is none.
 */
static int number_path(const char *text, size_t pos, char *at, size_t size, char *num,
		       size_t nsize)
{
	struct json_frame *st = NULL;
	size_t depth = 0, alloc = 0, i = 0, start;
	char *path = xcalloc(1, size);
	int found = -1;

	while (i < pos) {
		char c = text[i];
		struct json_frame *top = depth ? &st[depth - 1] : NULL;

		if (c == '"') {
			start = i++;
			while (i < pos && text[i] != '"')
				i += text[i] == '\\' ? 2 : 1;
			i++;
			if (top && top->key_next) {
				path_add_key(path, size, top->len, text + start, i - start);
				top->key_next = 0;
			}
		} else if (c == '{' || c == '[') {
			ALLOC_GROW(st, depth + 1, alloc);
			st[depth].len = strlen(path);
			st[depth].index = 0;
			st[depth].is_obj = st[depth].key_next = c == '{';
			if (c == '[')
				snprintf(path + st[depth].len, size - st[depth].len, "[0]");
			depth++;
			i++;
		} else if (c == '}' || c == ']' || c == ',') {
			if (top) {
				path[top->len] = '\0';
				if (c != ',')
					depth--;
				else if (top->is_obj)
					top->key_next = 1;
				else
					snprintf(path + top->len, size - top->len, "[%zu]",
						 ++top->index);
			}
			i++;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			start = i;
			while (i < pos && (strchr("+-.eE", text[i]) ||
					   (text[i] >= '0' && text[i] <= '9')))
				i++;
			snprintf(num, nsize, "%.*s", (int)(i - start), text + start);
			snprintf(at, size, "%s", path);
			found = 0;
		} else {
			i++;
		}
	}
	free(st);
	free(path);
	return found;
}

json_t *rq_json(struct request *rq, struct err *e)
{
	char path[sizeof(e->detail)] = "";
	json_error_t je;
	json_t *j, *bad;

	if (!rq->body.len) {
		err_set(e, 400, "invalid_json", "body", "the request body is empty; expected JSON");
		return NULL;
	}
	j = json_loadb(rq->body.data, rq->body.len, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		char detail[64], num[48];

		if (json_error_code(&je) == json_error_numeric_overflow && je.position > 0 &&
		    !number_path(rq->body.data, (size_t)je.position, path, sizeof(path),
				 num, sizeof(num))) {
			err_set(e, 400, "invalid_field", path,
				"'%s' is out of range: %s (integers must fit in 64 bits, "
				"other numbers lie within +-2^63)", path, num);
			return NULL;
		}
		snprintf(detail, sizeof(detail), "line %d column %d", je.line, je.column);
		err_set(e, 400, "invalid_json", detail, "malformed JSON: %s", je.text);
		return NULL;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		err_set(e, 400, "invalid_field", "", "the request body must be a JSON object");
		return NULL;
	}
	if ((bad = bad_number(j, path, sizeof(path), 0))) {
		err_set(e, 400, "invalid_field", path,
			"'%s' is out of range: %g (numbers must lie within +-2^63)", path,
			json_real_value(bad));
		json_decref(j);
		return NULL;
	}
	return j;
}

PGconn *rq_db(struct request *rq, struct err *e)
{
	return db_conn(rq->srv->db, e);
}

/* --- deferred handlers: a pool of threads off the daemon's ----------- */

struct pool_job {
	struct request *rq;
	void (*fn)(struct request *rq);
	struct pool_job *next;
};

struct http_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct pool_job *head, **tail;
	int stopping;
	unsigned nr_threads;
	pthread_t *threads;
};

static void *pool_thread(void *arg)
{
	struct http_pool *p = arg;

	for (;;) {
		struct pool_job *j;

		pthread_mutex_lock(&p->lock);
		while (!p->head && !p->stopping)
			pthread_cond_wait(&p->cond, &p->lock);
		j = p->head;
		if (j) {
			p->head = j->next;
			if (!p->head)
				p->tail = &p->head;
		}
		pthread_mutex_unlock(&p->lock);
		if (!j)
			return NULL; /* stopping and drained */
		j->fn(j->rq);
		j->rq->resumed = 1;
		MHD_resume_connection(j->rq->conn);
		free(j);
	}
}

/* n threads; NULL (handlers then run inline) when none can start */
static struct http_pool *pool_start(unsigned n)
{
	struct http_pool *p = xcalloc(1, sizeof(*p));

	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->tail = &p->head;
	p->threads = xcalloc(n, sizeof(*p->threads));
	for (; p->nr_threads < n; p->nr_threads++)
		if (pthread_create(&p->threads[p->nr_threads], NULL, pool_thread, p))
			break;
	if (!p->nr_threads) {
		free(p->threads);
		free(p);
		return NULL;
	}
	return p;
}

/* Runs every queued job to its end (their connections resume), then stops. */
static void pool_stop(struct http_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nr_threads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->threads);
	free(p);
}

int http_defer(struct request *rq, void (*fn)(struct request *rq))
{
	struct http_pool *p = rq->srv->pool;
	struct pool_job *j;

	if (!p)
		return -1;
	j = xmalloc(sizeof(*j));
	j->rq = rq;
	j->fn = fn;
	j->next = NULL;
	pthread_mutex_lock(&p->lock);
	if (p->stopping) {
		pthread_mutex_unlock(&p->lock);
		free(j);
		return -1;
	}
	/* suspended before any pool thread can see it, hence resume it */
	MHD_suspend_connection(rq->conn);
	*p->tail = j;
	p->tail = &j->next;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/* --- static files of the dashboard ----------------------------------- */

static const char *content_type_of(const char *path)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".mjs", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".json", "application/json" },
		{ ".svg", "image/svg+xml" },
		{ ".png", "image/png" },
		{ ".ico", "image/x-icon" },
		{ ".txt", "text/plain; charset=utf-8" },
	};
	const char *dot = strrchr(path, '.');

	for (size_t i = 0; dot && i < ARRAY_SIZE(types); i++)
		if (!strcmp(dot, types[i].ext))
			return types[i].type;
	return "application/octet-stream";
}

static enum MHD_Result serve_file(struct request *rq, const char *path)
{
	struct MHD_Response *resp;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return reply_errf(rq, 404, "not_found", rq->url, "no such page '%s'", rq->url);
	}
	resp = MHD_create_response_from_fd((size_t)st.st_size, fd);
	MHD_add_response_header(resp, "Content-Type", content_type_of(path));
	MHD_add_response_header(resp, "Content-Security-Policy",
				"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
	return queue(rq, 200, resp);
}

/*
 * GET of a path outside the API: a file under web_dir when it exists;
 * otherwise, for a path without an extension (/series, /regressions/3,
 * …), index.html, which loads the page's module and fetches its data.
 */
static enum MHD_Result serve_static(struct request *rq)
{
	const char *url = rq->url;
	const char *last = strrchr(url, '/');
	char path[8192];

	if (!rq->srv->web_dir[0] || strstr(url, "..") || strchr(url, '\\'))
		return reply_errf(rq, 404, "not_found", url, "no such page '%s'", url);
	if (!strcmp(url, "/") || (last && !strchr(last, '.'))) {
		snprintf(path, sizeof(path), "%s/index.html", rq->srv->web_dir);
		return serve_file(rq, path);
	}
	snprintf(path, sizeof(path), "%s%s", rq->srv->web_dir, url);
	return serve_file(rq, path);
}

/* --- routing ---------------------------------------------------------- */

/* Matches url against pattern; fills path params (arena copies). 1 on match. */
static int match(struct request *rq, const char *pattern, const char *url)
{
	int n = 0;

	while (*pattern && *url) {
		if (pattern[0] == '{' && pattern[1] == '}') {
			const char *end = strchr(url, '/');
			size_t len = end ? (size_t)(end - url) : strlen(url);
			if (!len || n == MAX_PATH_PARAMS)
				return 0;
			rq->path_params[n++] = arena_strndup(rq->arena, url, len);
			url += len;
			pattern += 2;
			continue;
		}
		if (*pattern != *url)
			return 0;
		pattern++;
		url++;
	}
	if (*pattern || *url)
		return 0;
	rq->nr_path_params = n;
	return 1;
}

/* MHD_get_connection_values_n callback: stops at the first argument that is
 * not UTF-8 or holds a NUL byte, keeping its name in *cls. */
static enum MHD_Result find_bad_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				    size_t key_size, const char *value, size_t value_size)
{
	const char **bad = cls;

	(void)kind;
	if (utf8_ok(key, key_size) && (!value || utf8_ok(value, value_size)))
		return MHD_YES;
	*bad = key;
	return MHD_NO;
}

static enum MHD_Result dispatch(struct request *rq)
{
	const struct route *found = NULL;
	int path_matched = 0;
	const char *bad = NULL;
	struct err e;

	/* back from http_defer() or a long poll: checked and authorized already */
	if (rq->resumed && rq->route)
		return rq->route->fn(rq);
	if (rq->too_large)
		return reply_errf(rq, 413, "too_large", "body",
				  "the request body is larger than %ld bytes", rq->srv->cfg->body_limit);
	/*
	 * Every text of the URL reaches handlers, SQL parameters and error
	 * replies as a C string: refuse bytes that are not UTF-8 (PostgreSQL
	 * and jansson reject them) and NUL bytes (they would cut it short).
	 */
	MHD_get_connection_values_n(rq->conn, MHD_GET_ARGUMENT_KIND, find_bad_arg, &bad);
	if (bad || !utf8_ok(rq->url, strlen(rq->url)))
		return reply_errf(rq, 400, "invalid_field", bad ? bad : "path",
				  "the %s is not UTF-8 text without NUL bytes",
				  bad ? "query argument" : "path");
	for (unsigned i = 0; i < nr_routes; i++) {
		if (!match(rq, routes[i].pattern, rq->url))
			continue;
		path_matched = 1;
		if (!strcmp(routes[i].method, rq->method)) {
			found = &routes[i];
			break;
		}
	}
	if (!found) {
		if (path_matched)
			return reply_errf(rq, 405, "method_not_allowed", rq->method,
					  "method %s is not allowed on '%s'", rq->method, rq->url);
		if (!strncmp(rq->url, "/api/", 5))
			return reply_errf(rq, 404, "not_found", rq->url, "no such endpoint '%s'",
					  rq->url);
		if (strcmp(rq->method, "GET") && strcmp(rq->method, "HEAD"))
			return reply_errf(rq, 405, "method_not_allowed", rq->method,
					  "method %s is not allowed on '%s'", rq->method, rq->url);
		return serve_static(rq);
	}
	if (auth_check(rq, found->auth, &e))
		return reply_err(rq, &e);
	rq->route = found;
	return found->fn(rq);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct server *srv = cls;
	struct request *rq = *con_cls;

	if (!rq) {
		struct arena *a = arena_new();
		const char *cl;

		rq = arena_zalloc(a, sizeof(*rq));
		rq->arena = a;
		rq->srv = srv;
		rq->conn = conn;
		rq->method = arena_strdup(a, method);
		rq->url = arena_strdup(a, url);
		buf_init(&rq->body, (size_t)srv->cfg->body_limit);
		clock_gettime(CLOCK_MONOTONIC, &rq->start);
		*con_cls = rq;
		atomic_fetch_add(&srv->in_flight, 1);
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
		if (cl) {
			unsigned long long len = strtoull(cl, NULL, 10);
			unsigned long long cap = (unsigned long long)srv->cfg->body_limit;
			/*
			 * Past the cap: read and drop the body so the client, which
			 * is still sending, gets a clean 413; far past it (more
			 * than 4 x the cap and 64 MiB), reply at once and let the
			 * connection close.
			 */
			if (len > cap)
				rq->too_large = 1;
			if (len > 4 * cap && len > (64ull << 20))
				return dispatch(rq);
		}
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (!rq->too_large && buf_add(&rq->body, upload_data, *upload_data_size)) {
			rq->too_large = 1;
			buf_release(&rq->body);
		}
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (rq->status)
		return MHD_YES; /* already replied (413 on the first call) */
	return dispatch(rq);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct server *srv = cls;
	struct request *rq = *con_cls;

	if (!rq)
		return;
	if (rq->status >= 100 && rq->status < 600)
		atomic_fetch_add(&srv->requests[rq->status / 100], 1);
	atomic_fetch_sub(&srv->in_flight, 1);
	if (getenv("REGTRACK_ACCESS_LOG"))
		fprintf(stderr, "%s %s %d %.1fms\n", rq->method, rq->url, rq->status,
			ms_since(&rq->start));
	buf_release(&rq->body);
	arena_free(rq->arena);
	*con_cls = NULL;
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("regtrack-server: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/*
 * MHD_OPTION_UNESCAPE_CALLBACK: %XX decoding of the path and of query
 * arguments in place, as MHD's own, except that %00 becomes the byte 0xff:
 * the path reaches handlers as a C string that a NUL would cut short
 * ("/metrics/a%00b" naming metric "a"), and 0xff, never UTF-8, makes
 * dispatch() refuse it.
 */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	char *w = s;

	(void)cls;
	(void)c;
	for (const char *r = s; *r; w++) {
		if (r[0] == '%' && isxdigit((unsigned char)r[1]) && isxdigit((unsigned char)r[2])) {
			char hex[3] = { r[1], r[2], 0 };
			unsigned long v = strtoul(hex, NULL, 16);

			*w = v ? (char)v : (char)0xff;
			r += 3;
		} else {
			*w = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

int http_start(struct server *srv, struct err *e)
{
	struct sockaddr_in sin;
	const char *colon = strrchr(srv->cfg->listen, ':');
	char host[256];
	char *end;
	long port;
	const union MHD_DaemonInfo *info;
	struct rlimit rl;
	rlim_t conn_limit;

	if (!colon || (size_t)(colon - srv->cfg->listen) >= sizeof(host))
		return err_set(e, 400, "config_invalid", "listen", "listen must be ADDR:PORT, not '%s'",
			       srv->cfg->listen);
	memcpy(host, srv->cfg->listen, (size_t)(colon - srv->cfg->listen));
	host[colon - srv->cfg->listen] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 0 || port > 65535)
		return err_set(e, 400, "config_invalid", "listen", "bad port in '%s'",
			       srv->cfg->listen);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		return err_set(e, 400, "config_invalid", "listen",
			       "listen address must be an IPv4 address, not '%s'", host);

	srv->pool = pool_start((unsigned)srv->cfg->threads);
	/*
	 * Every connection is a descriptor, and parked long polls (one per
	 * idle worker) hold theirs for up to a minute: epoll (MHD_USE_AUTO),
	 * not select(), whose FD_SETSIZE (1024) refused connections past
	 * ~1,000 (tests/faults "load"); the soft open-file limit raised to the
	 * hard one, and the connection limit kept 64 below it (database
	 * connections, files, the listener) so accept() never hits EMFILE.
	 */
	conn_limit = (rlim_t)srv->cfg->max_connections;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &rl))
				getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < conn_limit + 64)
			conn_limit = rl.rlim_cur > 128 ? rl.rlim_cur - 64 : 64;
	}
	srv->daemon = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG | MHD_USE_ITC |
			MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO,
		(uint16_t)port, NULL, NULL, on_request, srv,
		MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)srv->cfg->threads,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
		MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)conn_limit,
		MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024,
		MHD_OPTION_END);
	if (!srv->daemon) {
		int saved = errno;

		pool_stop(srv->pool);
		srv->pool = NULL;
		errno = saved;
	}
	if (!srv->daemon)
		return err_set(e, 500, "listen_failed", srv->cfg->listen, "cannot listen on %s: %s",
			       srv->cfg->listen, strerror(errno));
	info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : (unsigned short)port;
	return 0;
}

void http_stop(struct server *srv)
{
	if (!srv->daemon)
		return;
	MHD_quiesce_daemon(srv->daemon);
	/* libmicrohttpd may not stop with a connection suspended: finish the
	 * deferred handlers first (requests arriving meanwhile run inline) */
	pool_stop(srv->pool);
	srv->pool = NULL;
	MHD_stop_daemon(srv->daemon);
	srv->daemon = NULL;
}
