/* qemu's machine protocol over a unix socket (see qmp.h). */
#include "qmp.h"
#include "xalloc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define QMP_LINE_CAP (1u << 20)

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void qmp_close(struct qmp *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	buf_release(&m->in);
}

static int fail(struct qmp *m, struct err *e, enum err_code id, const char *detail,
		const char *what)
{
	err_setc(e, id, detail, "qmp: %s", what);
	qmp_close(m);
	return -1;
}

/* One line (without '\n') parsed as JSON into *out (new reference). */
static int read_msg(struct qmp *m, json_t **out, struct err *e)
{
	for (;;) {
		char *nl = memchr(m->in.data, '\n', m->in.len);
		struct pollfd p = { m->fd, POLLIN, 0 };
		char chunk[4096];
		ssize_t got;

		if (nl) {
			size_t n = (size_t)(nl - m->in.data);
			json_error_t je;

			*out = json_loadb(m->in.data, n, 0, &je);
			memmove(m->in.data, nl + 1, m->in.len - n - 1);
			m->in.len -= n + 1;
			m->in.data[m->in.len] = '\0';
			if (!*out)
				return fail(m, e, ERR_SPAWN, je.text, "reply is not JSON");
			return 0;
		}
		if (m->in.len >= QMP_LINE_CAP)
			return fail(m, e, ERR_SPAWN, "", "reply line over 1 MiB");
		got = poll(&p, 1, m->timeout_ms);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return fail(m, e, ERR_TRANSPORT, "",
				    got ? "poll failed" : "reply timed out");
		got = read(m->fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return fail(m, e, ERR_TRANSPORT, "", "qemu closed the connection");
		if (buf_add(&m->in, chunk, (size_t)got))
			return fail(m, e, ERR_SPAWN, "", "reply line over 1 MiB");
	}
}

static int send_all(struct qmp *m, const char *s, struct err *e)
{
	size_t len = strlen(s), off = 0;

	while (off < len) {
		struct pollfd p = { m->fd, POLLOUT, 0 };
		ssize_t w;
		int r = poll(&p, 1, m->timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return fail(m, e, ERR_TRANSPORT, "", "write timed out");
		w = send(m->fd, s + off, len - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return fail(m, e, ERR_TRANSPORT, "", "qemu closed the connection");
		off += (size_t)w;
	}
	return 0;
}

int qmp_execute(struct qmp *m, const char *execute, json_t *args, json_t **ret, struct err *e)
{
	json_t *cmd = json_pack("{s:s}", "execute", execute), *msg = NULL;
	char *text;
	int rc;

	*ret = NULL;
	if (m->fd < 0)
		return err_setc(e, ERR_TRANSPORT, execute, "qmp: not connected");
	if (args)
		json_object_set(cmd, "arguments", args);
	text = json_dumps(cmd, JSON_COMPACT);
	json_decref(cmd);
	if (!text)
		abort(); /* out of memory */
	rc = send_all(m, text, e) || send_all(m, "\n", e) ? -1 : 0;
	free(text);
	while (!rc) {
		json_t *r, *err;

		if (read_msg(m, &msg, e) < 0)
			return -1;
		r = json_object_get(msg, "return");
		err = json_object_get(msg, "error");
		if (r) {
			*ret = json_incref(r);
			break;
		}
		if (err) {
			const char *desc = json_string_value(json_object_get(err, "desc"));

			err_setc(e, ERR_SPAWN, execute, "qmp: %s: %s", execute,
				 desc ? desc : "error");
			rc = -1;
			break;
		}
		json_decref(msg); /* an event */
		msg = NULL;
	}
	json_decref(msg);
	return rc;
}

int qmp_connect(struct qmp *m, const char *path, int timeout_ms, const atomic_int *stop,
		struct err *e)
{
	struct sockaddr_un sa;
	long long deadline = now_ms() + timeout_ms;
	json_t *greeting = NULL, *ret = NULL;

	m->fd = -1;
	m->timeout_ms = timeout_ms;
	buf_init(&m->in, QMP_LINE_CAP);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return fail(m, e, ERR_TRANSPORT, path, "socket path too long");
	memcpy(sa.sun_path, path, strlen(path) + 1);
	for (;;) {
		m->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (m->fd < 0)
			return fail(m, e, ERR_TRANSPORT, path, "cannot create a socket");
		int err;

		if (!connect(m->fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		err = errno; /* connect's: close() may set errno too */
		close(m->fd);
		m->fd = -1;
		if ((err != ENOENT && err != ECONNREFUSED) || now_ms() >= deadline ||
		    (stop && atomic_load(stop)))
			return fail(m, e, ERR_TRANSPORT, path, "cannot connect to qemu's socket");
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	if (read_msg(m, &greeting, e) < 0)
		return -1;
	if (!json_object_get(greeting, "QMP")) {
		json_decref(greeting);
		return fail(m, e, ERR_SPAWN, path, "no QMP greeting");
	}
	json_decref(greeting);
	if (qmp_execute(m, "qmp_capabilities", NULL, &ret, e) < 0)
		return -1;
	json_decref(ret);
	return 0;
}

static int by_index(const void *a, const void *b)
{
	return ((const struct qmp_vcpu *)a)->index - ((const struct qmp_vcpu *)b)->index;
}

int qmp_vcpus(struct qmp *m, struct qmp_vcpu *out, int max, int *n, struct err *e)
{
	json_t *ret, *c;
	size_t i;

	*n = 0;
	if (qmp_execute(m, "query-cpus-fast", NULL, &ret, e) < 0)
		return -1;
	if (!json_is_array(ret) || json_array_size(ret) > (size_t)max) {
		json_decref(ret);
		return err_setc(e, ERR_SPAWN, "query-cpus-fast", "qmp: %s",
				json_is_array(ret) ? "more vCPUs than expected" :
						     "reply is not an array");
	}
	json_array_foreach (ret, i, c) {
		json_t *idx = json_object_get(c, "cpu-index"),
		       *tid = json_object_get(c, "thread-id");
		json_t *node = json_object_get(json_object_get(c, "props"), "node-id");

		if (!json_is_integer(idx) || !json_is_integer(tid)) {
			json_decref(ret);
			return err_setc(e, ERR_SPAWN, "query-cpus-fast",
					"qmp: a vCPU without cpu-index or thread-id");
		}
		out[i].index = (int)json_integer_value(idx);
		out[i].tid = (int)json_integer_value(tid);
		out[i].node = json_is_integer(node) ? (int)json_integer_value(node) : -1;
	}
	*n = (int)json_array_size(ret);
	json_decref(ret);
	qsort(out, (size_t)*n, sizeof(*out), by_index);
	return 0;
}
