/*
 * The HTTP daemon: libmicrohttpd's lifecycle of a connection and its
 * requests, dispatch over the route table (token auth per route) and the
 * pool of threads that runs deferred handlers. Replies are in
 * http_reply.c, the body and arguments in http_body.c, the dashboard's
 * files in static.c.
 */
#include "server/http/http.h"
#include "clock.h"
#include "attr.h"
#include "server/http/auth.h"
#include "server/config.h"
#include "server/http/http_guard.h"
#include "server/log.h"
#include "server/http/static.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* --- deferred handlers: a pool of threads off the daemon's ----------- */

#define TRIM_AFTER_BYTES (1 << 20) /* a body this large: malloc_trim() once handled */

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
		int trim;

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
		trim = j->rq->heavy || j->rq->body.len >= TRIM_AFTER_BYTES;
		j->rq->resumed = 1;
		MHD_resume_connection(j->rq->conn);
		free(j);
		/*
		 * A large upload or a diff freed tens of MiB in this thread's arena;
		 * glibc keeps such memory for later (the RSS of a burst stayed for good):
		 * given back now. Buffers of 1 MiB and more are mmapped (main.c) and go
		 * back on free by themselves.
		 */
		if (trim)
			malloc_trim(0);
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

void http_park(struct request *rq)
{
	MHD_suspend_connection(rq->conn);
}

void http_unpark(void *arg, json_t *reply)
{
	struct request *rq = arg;

	rq->deferred = reply;
	rq->deferred_status = reply ? 200 : 204;
	rq->resumed = 1;
	MHD_resume_connection(rq->conn);
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

/* MHD_get_connection_values callback: counts the Content-Length headers
 * in cls[0] and those that are not plain decimal digits in cls[1]. */
static enum MHD_Result count_lengths(void *cls, enum MHD_ValueKind kind, const char *key,
				     const char *value)
{
	unsigned *n = cls;

	(void)kind;
	if (strcasecmp(key, "Content-Length"))
		return MHD_YES;
	n[0]++;
	if (!value || !*value || strspn(value, "0123456789") != strlen(value) || strlen(value) > 18)
		n[1]++;
	return MHD_YES;
}

/* The reply of a request refused on its headers: the connection closes
 * after it, so no byte of a body the client may still send is read. */
static enum MHD_Result refuse(struct request *rq, const struct err *e)
{
	rq->close = 1;
	return reply_err(rq, e);
}

/*
 * Everything that can be decided on the headers alone, run when they are
 * complete and before a byte of the body is read: the connection limit,
 * the framing of the body (one well-formed Content-Length, within the
 * limit), the text of the URL, the route and the token. Returns 1 when it
 * replied (*ret set; the connection then closes), 0 when the request goes
 * on to its body, with rq->route set, or with none for a dashboard file.
 */
static int preflight(struct request *rq, enum MHD_Result *ret)
{
	const struct config *cfg = rq->srv->cfg;
	const struct route *found = NULL;
	int path_matched = 0;
	const char *bad, *cl, *route_method;
	unsigned lengths[2] = { 0, 0 };
	struct auth_caller who;
	struct err e;

	if (http_guard_count(rq->srv->guard) > rq->srv->soft_connections) {
		rq->close = 1;
		err_setc(&e, ERR_OVERLOADED, "connections",
			 "the server holds %lu connections, its limit; retry later",
			 http_guard_count(rq->srv->guard));
		*ret = refuse(rq, &e);
		return 1;
	}
	/*
	 * Two Content-Length headers (or one that is not a number) frame the
	 * body ambiguously: a proxy in front may read another request where
	 * this server reads a body (request smuggling).
	 */
	MHD_get_connection_values(rq->conn, MHD_HEADER_KIND, count_lengths, lengths);
	if (lengths[0] > 1 || lengths[1] ||
	    (lengths[0] &&
	     MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Transfer-Encoding"))) {
		err_setc(&e, ERR_INVALID_FIELD, "Content-Length",
			 lengths[0] > 1 ? "more than one Content-Length header" :
			 lengths[1]	? "the Content-Length header is not a number" :
					  "both Content-Length and Transfer-Encoding");
		*ret = refuse(rq, &e);
		return 1;
	}
	cl = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Content-Length");
	if (cl && strtoull(cl, NULL, 10) > (unsigned long long)cfg->body_limit) {
		err_setc(&e, ERR_TOO_LARGE, "body", "the request body is larger than %ld bytes",
			 cfg->body_limit);
		*ret = refuse(rq, &e);
		return 1;
	}
	/*
	 * Every text of the URL reaches handlers, SQL parameters and error
	 * replies as a C string: refuse bytes that are not UTF-8 (PostgreSQL
	 * and jansson reject them) and NUL bytes (they would cut it short).
	 */
	if (!rq_text_ok(rq, &bad)) {
		err_setc(&e, ERR_INVALID_FIELD, bad ? bad : "path",
			 "the %s is not UTF-8 text without NUL bytes",
			 bad ? "query argument" : "path");
		*ret = refuse(rq, &e);
		return 1;
	}
	/*
	 * HEAD is GET without the body (RFC 9110 section 9.3.2): a GET route
	 * answers it, its handler runs as for the GET, and libmicrohttpd sends
	 * the reply's headers (its Content-Length included) without the body.
	 */
	route_method = strcmp(rq->method, "HEAD") ? rq->method : "GET";
	for (unsigned i = 0; i < rq->srv->nr_routes; i++) {
		const struct route *r = &rq->srv->routes[i];

		if (!match(rq, r->pattern, rq->url))
			continue;
		path_matched = 1;
		if (!strcmp(r->method, route_method)) {
			found = r;
			break;
		}
	}
	if (!found) {
		if (path_matched)
			err_setc(&e, ERR_METHOD, rq->method, "method %s is not allowed on '%s'",
				 rq->method, rq->url);
		else if (!strncmp(rq->url, "/api/", 5))
			err_setc(&e, ERR_NOT_FOUND, rq->url, "no such endpoint '%s'", rq->url);
		else if (strcmp(rq->method, "GET") && strcmp(rq->method, "HEAD"))
			err_setc(&e, ERR_METHOD, rq->method, "method %s is not allowed on '%s'",
				 rq->method, rq->url);
		else
			return 0; /* a dashboard file, served once the request is read */
		*ret = refuse(rq, &e);
		return 1;
	}
	if (auth_check(rq->srv->db,
		       MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Authorization"),
		       found->auth, cfg->public_read != 0, rq->method, rq->url, &who, &e)) {
		/* a known token of the wrong scope is named in the access log too */
		memcpy(rq->token_name, who.token_name, sizeof(rq->token_name));
		*ret = refuse(rq, &e);
		return 1;
	}
	memcpy(rq->token_name, who.token_name, sizeof(rq->token_name));
	/* after the token check: an unauthenticated client learns nothing of the arguments */
	if (rq->srv->route_args && rq->srv->route_args[found - rq->srv->routes] &&
	    rq_args_only(rq, rq->srv->route_args[found - rq->srv->routes], &e)) {
		*ret = refuse(rq, &e);
		return 1;
	}
	rq->scope = who.scope;
	rq->token_id = who.token_id;
	rq->route = found;
	return 0;
}

/* The request is read: its handler (preflight() found and authorized it). */
static enum MHD_Result dispatch(struct request *rq)
{
	if (rq->too_large)
		return reply_errc(rq, ERR_TOO_LARGE, "body",
				  "the request body is larger than %ld bytes",
				  rq->srv->cfg->body_limit);
	if (!rq->route)
		return serve_static(rq);
	return rq->route->fn(rq);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version UNUSED,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct server *srv = cls;
	struct request *rq = *con_cls;
	enum MHD_Result ret;

	if (!rq) {
		struct arena *a = arena_new();

		rq = arena_zalloc(a, sizeof(*rq));
		rq->arena = a;
		rq->srv = srv;
		rq->conn = conn;
		rq->method = arena_strdup(a, method);
		rq->url = arena_strdup(a, url);
		rq->start_ns = mono_ns();
		*con_cls = rq;
		atomic_fetch_add(&srv->in_flight, 1);
		http_guard_body(conn);
		body_start(rq);
		if (preflight(rq, &ret))
			return ret;
		return MHD_YES;
	}
	if (*upload_data_size) {
		/* a body dripped in slower than its deadline: close */
		if (http_guard_late(conn))
			return MHD_NO;
		body_add(rq, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (rq->status)
		return MHD_YES; /* already replied (refused on the headers) */
	http_guard_handler(conn);
	return dispatch(rq);
}

/*
 * The access log (access_log = 1): one line per request, "access METHOD
 * PATH STATUS BYTES MS TOKEN" (TOKEN: the name of the caller's token, "-"
 * without one; never the token). The path is the request's, unescaped by
 * libmicrohttpd: a byte outside printable ASCII is written %XX again, so a
 * path cannot forge a line.
 */
static void access_line(const struct request *rq)
{
	char path[1024];
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)(rq->url ? rq->url : "");
	     *p && n + 4 < sizeof(path); p++) {
		if (*p > ' ' && *p < 0x7f && *p != '%')
			path[n++] = (char)*p;
		else
			n += (size_t)snprintf(path + n, sizeof(path) - n, "%%%02X", *p);
	}
	path[n] = '\0';
	slog_info("access %s %s %d %lld %.1f %s", rq->method ? rq->method : "-", path, rq->status,
		  rq->bytes, mono_ms_since(rq->start_ns), *rq->token_name ? rq->token_name : "-");
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe UNUSED)
{
	struct server *srv = cls;
	struct request *rq = *con_cls;

	if (!rq)
		return;
	if (rq->status >= 100 && rq->status < 600)
		atomic_fetch_add(&srv->requests[rq->status / 100], 1);
	atomic_fetch_sub(&srv->in_flight, 1);
	http_guard_idle(conn);
	/* REGTRACK_ACCESS_LOG: the same from the environment (the fault tier's switch) */
	if (srv->cfg->access_log || getenv("REGTRACK_ACCESS_LOG"))
		access_line(rq);
	body_release(rq);
	free(rq->deferred_text); /* NULL once replied */
	arena_free(rq->arena);
	*con_cls = NULL;
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
	char line[1024];
	size_t n;

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	slog_warn("http: %s", line);
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

int http_start(struct server *srv, const struct route *routes, unsigned nr, struct err *e)
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
		return err_setc(e, ERR_CONFIG, "listen", "listen must be ADDR:PORT, not '%s'",
				srv->cfg->listen);
	memcpy(host, srv->cfg->listen, (size_t)(colon - srv->cfg->listen));
	host[colon - srv->cfg->listen] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 0 || port > 65535)
		return err_setc(e, ERR_CONFIG, "listen", "bad port in '%s'", srv->cfg->listen);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		return err_setc(e, ERR_CONFIG, "listen",
				"listen address must be an IPv4 address, not '%s'", host);

	srv->routes = routes;
	srv->nr_routes = nr;
	srv->pool = pool_start((unsigned)srv->cfg->threads);
	/*
	 * Every connection is a descriptor, and parked long polls (one per
	 * idle worker) hold theirs for up to a minute: epoll (MHD_USE_AUTO),
	 * not select(), whose FD_SETSIZE (1024) caps the connections; the soft open-file limit raised to the
	 * hard one, and the connection limit kept 64 below it (database
	 * connections, files, the listener) so accept() never hits EMFILE.
	 */
	conn_limit = (rlim_t)srv->cfg->max_connections + 256;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &rl))
				getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < conn_limit + 64)
			conn_limit = rl.rlim_cur > 128 ? rl.rlim_cur - 64 : 64;
	}
	/*
	 * Past max_connections (the soft limit) a request gets a 503 at once;
	 * the 256 above it (the hard limit, libmicrohttpd's) leave room to
	 * send it, and past them libmicrohttpd closes a new connection at once.
	 */
	srv->soft_connections = conn_limit > 256 + 16 ? (unsigned long)(conn_limit - 256) : 16;
	srv->guard = http_guard_start(srv->cfg->header_timeout_s, srv->cfg->body_timeout_s, e);
	if (!srv->guard) {
		pool_stop(srv->pool);
		srv->pool = NULL;
		return -1;
	}
	srv->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
					       MHD_USE_ERROR_LOG | MHD_USE_ITC |
					       MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO,
				       (uint16_t)port, NULL, NULL, on_request, srv,
				       MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
				       MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin,
				       MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)srv->cfg->threads,
				       MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
				       MHD_OPTION_NOTIFY_CONNECTION, http_guard_notify, srv->guard,
				       MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
				       MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
				       MHD_OPTION_CONNECTION_LIMIT, (unsigned int)conn_limit,
				       MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				       (unsigned int)srv->cfg->max_connections_per_ip,
				       MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024,
				       MHD_OPTION_END);
	if (!srv->daemon) {
		int saved = errno;

		pool_stop(srv->pool);
		srv->pool = NULL;
		http_guard_stop(srv->guard);
		srv->guard = NULL;
		errno = saved;
	}
	if (!srv->daemon)
		return err_setc(e, ERR_IO, srv->cfg->listen, "cannot listen on %s: %s",
				srv->cfg->listen, strerror(errno));
	info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : (unsigned short)port;
	return 0;
}

void http_quiesce(struct server *srv)
{
	if (srv->daemon)
		MHD_quiesce_daemon(srv->daemon);
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
	http_guard_stop(srv->guard);
	srv->guard = NULL;
}
