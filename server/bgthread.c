#include "server/bgthread.h"
#include "server/log.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct bgthread {
	const char *name;
	bgthread_step_fn step;
	void *arg;
	pthread_t thread;
	int pipefd[2];
	atomic_int stopping;
};

static void drain(int fd)
{
	char x[64];

	while (read(fd, x, sizeof(x)) > 0)
		;
}

static void *bgthread_main(void *arg)
{
	struct bgthread *t = arg;

	while (!atomic_load(&t->stopping)) {
		int fd = -1;
		long wait_ms = t->step(t->arg, &fd);
		struct pollfd pf[2] = { { t->pipefd[0], POLLIN, 0 }, { fd, POLLIN, 0 } };

		if (atomic_load(&t->stopping))
			break;
		if (poll(pf, fd >= 0 ? 2 : 1,
			 wait_ms < 0 ? -1 : (int)(wait_ms > 3600000 ? 3600000 : wait_ms)) < 0 &&
		    errno != EINTR) {
			slog_error("%s: poll: %s", t->name, strerror(errno));
			break;
		}
		if (pf[0].revents)
			drain(t->pipefd[0]);
	}
	return NULL;
}

struct bgthread *bgthread_start(const char *name, bgthread_step_fn step, void *arg, struct err *e)
{
	struct bgthread *t = xcalloc(1, sizeof(*t));

	t->name = name;
	t->step = step;
	t->arg = arg;
	if (pipe(t->pipefd)) {
		err_setc(e, ERR_INTERNAL, name, "%s: pipe: %s", name, strerror(errno));
		free(t);
		return NULL;
	}
	fcntl(t->pipefd[0], F_SETFL, O_NONBLOCK);
	fcntl(t->pipefd[1], F_SETFL, O_NONBLOCK);
	if (pthread_create(&t->thread, NULL, bgthread_main, t)) {
		err_setc(e, ERR_INTERNAL, name, "cannot start the %s thread", name);
		close(t->pipefd[0]);
		close(t->pipefd[1]);
		free(t);
		return NULL;
	}
	return t;
}

void bgthread_kick(struct bgthread *t)
{
	/* a full pipe already holds a wake-up: EAGAIN loses nothing */
	if (t && write(t->pipefd[1], "x", 1) < 0 && errno != EAGAIN)
		slog_warn("%s: wake: %s", t->name, strerror(errno));
}

int bgthread_stopping(const struct bgthread *t)
{
	return atomic_load(&t->stopping);
}

void bgthread_stop(struct bgthread *t)
{
	if (!t)
		return;
	atomic_store(&t->stopping, 1);
	bgthread_kick(t);
	pthread_join(t->thread, NULL);
	close(t->pipefd[0]);
	close(t->pipefd[1]);
	free(t);
}
