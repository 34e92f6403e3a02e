/* Header and body deadlines, open connections (http_guard.h). */
#include "server/http/http_guard.h"
#include "server/bgthread.h"
#include "server/log.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

/* one open connection; deadline 0 = none */
struct guard_conn {
	struct http_guard *g;
	int fd;
	int shut;
	long long deadline_ms;
	struct guard_conn *prev, *next;
};

struct http_guard {
	pthread_mutex_t lock;
	struct guard_conn *head;
	long long header_ms, body_ms;
	atomic_ulong count, reaped;
	struct bgthread *thread;
};

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static struct guard_conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

static void set_deadline(struct MHD_Connection *c, int which)
{
	struct guard_conn *gc = conn_of(c);
	struct http_guard *g;

	if (!gc)
		return;
	g = gc->g;
	pthread_mutex_lock(&g->lock);
	gc->deadline_ms = which ? now_ms() + (which == 1 ? g->header_ms : g->body_ms) : 0;
	pthread_mutex_unlock(&g->lock);
}

void http_guard_idle(struct MHD_Connection *c)
{
	set_deadline(c, 1);
}

void http_guard_body(struct MHD_Connection *c)
{
	set_deadline(c, 2);
}

void http_guard_handler(struct MHD_Connection *c)
{
	set_deadline(c, 0);
}

int http_guard_late(struct MHD_Connection *c)
{
	struct guard_conn *gc = conn_of(c);
	int late;

	if (!gc)
		return 0;
	pthread_mutex_lock(&gc->g->lock);
	late = gc->deadline_ms && now_ms() > gc->deadline_ms;
	pthread_mutex_unlock(&gc->g->lock);
	return late;
}

void http_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		       enum MHD_ConnectionNotificationCode toe)
{
	struct http_guard *g = cls;
	struct guard_conn *gc;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *i =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		gc = xcalloc(1, sizeof(*gc));
		gc->g = g;
		gc->fd = i ? i->connect_fd : -1;
		pthread_mutex_lock(&g->lock);
		gc->deadline_ms = now_ms() + g->header_ms;
		gc->next = g->head;
		if (g->head)
			g->head->prev = gc;
		g->head = gc;
		pthread_mutex_unlock(&g->lock);
		*socket_context = gc;
		atomic_fetch_add(&g->count, 1);
		return;
	}
	gc = *socket_context;
	if (!gc)
		return;
	pthread_mutex_lock(&g->lock);
	if (gc->prev)
		gc->prev->next = gc->next;
	else
		g->head = gc->next;
	if (gc->next)
		gc->next->prev = gc->prev;
	pthread_mutex_unlock(&g->lock);
	atomic_fetch_sub(&g->count, 1);
	free(gc);
	*socket_context = NULL;
}

static long guard_step(void *arg, int *fd)
{
	struct http_guard *g = arg;
	long long now = now_ms();
	unsigned long n = 0;

	(void)fd;
	pthread_mutex_lock(&g->lock);
	for (struct guard_conn *gc = g->head; gc; gc = gc->next)
		if (!gc->shut && gc->deadline_ms && now > gc->deadline_ms && gc->fd >= 0) {
			shutdown(gc->fd, SHUT_RDWR);
			gc->shut = 1;
			n++;
		}
	pthread_mutex_unlock(&g->lock);
	if (n) {
		atomic_fetch_add(&g->reaped, n);
		slog_warn("http: %lu connection%s past the header or body deadline closed", n,
			  n == 1 ? "" : "s");
	}
	return 500;
}

struct http_guard *http_guard_start(long header_timeout_s, long body_timeout_s, struct err *e)
{
	struct http_guard *g = xcalloc(1, sizeof(*g));

	pthread_mutex_init(&g->lock, NULL);
	g->header_ms = header_timeout_s * 1000;
	g->body_ms = body_timeout_s * 1000;
	g->thread = bgthread_start("http-guard", guard_step, g, e);
	if (!g->thread) {
		pthread_mutex_destroy(&g->lock);
		free(g);
		return NULL;
	}
	return g;
}

void http_guard_stop(struct http_guard *g)
{
	if (!g)
		return;
	bgthread_stop(g->thread);
	/* connections left by a daemon that could not stop are freed with it */
	while (g->head) {
		struct guard_conn *gc = g->head;

		g->head = gc->next;
		free(gc);
	}
	pthread_mutex_destroy(&g->lock);
	free(g);
}

unsigned long http_guard_count(const struct http_guard *g)
{
	return g ? atomic_load(&g->count) : 0;
}

unsigned long http_guard_reaped(const struct http_guard *g)
{
	return g ? atomic_load(&g->reaped) : 0;
}
