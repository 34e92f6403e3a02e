#include "runcmd.h"
#include "xalloc.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define RUNCMD_DEFAULT_CAP (1u << 20)
#define RUNCMD_TERM_GRACE_S 2.0 /* SIGTERM, then SIGKILL this much later */
#define RUNCMD_DRAIN_S 2.0	/* after the leader exits, read pipes this long at most */
#define RUNCMD_SLICE_MS 100	/* poll granularity for timeout/cancel checks */

void runcmd_init(struct runcmd *cmd, const char *const *argv, int timeout_s)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->argv = argv;
	cmd->timeout_s = timeout_s;
	cmd->keep_tail = 1;
	cmd->log_fd = -1;
	buf_init(&cmd->out, RUNCMD_DEFAULT_CAP);
	buf_init(&cmd->err, RUNCMD_DEFAULT_CAP);
}

void runcmd_release(struct runcmd *cmd)
{
	buf_release(&cmd->out);
	buf_release(&cmd->err);
}

int runcmd_ok(const struct runcmd *cmd)
{
	return cmd->exited && cmd->exit_code == 0 && !cmd->timed_out && !cmd->cancelled &&
	       !cmd->aborted;
}

const char *runcmd_describe(const struct runcmd *cmd, char *dst, size_t n)
{
	if (cmd->timed_out)
		snprintf(dst, n, "timed out after %d s", cmd->timeout_s);
	else if (cmd->cancelled)
		snprintf(dst, n, "cancelled");
	else if (cmd->aborted)
		snprintf(dst, n, "aborted");
	else if (cmd->signaled)
		snprintf(dst, n, "killed by signal %d", cmd->term_signal);
	else if (cmd->exited)
		snprintf(dst, n, "exit status %d", cmd->exit_code);
	else
		snprintf(dst, n, "not run");
	return dst;
}

/* Appends p[0..n) to b under its cap, keeping the head or the tail. */
static void capture_add(struct buf *b, size_t *dropped, int keep_tail, const char *p, size_t n)
{
	size_t room;

	if (!b->cap || b->len + n <= b->cap) {
		if (buf_add(b, p, n))
			*dropped += n;
		return;
	}
	if (!keep_tail) {
		room = b->cap - b->len;
		if (room && buf_add(b, p, room))
			room = 0;
		*dropped += n - room;
		return;
	}
	if (n >= b->cap) {
		*dropped += b->len + (n - b->cap);
		buf_reset(b);
		if (buf_add(b, p + (n - b->cap), b->cap))
			*dropped += b->cap;
		return;
	}
	room = b->len + n - b->cap; /* bytes to drop from the front */
	memmove(b->data, b->data + room, b->len - room);
	b->len -= room;
	b->data[b->len] = '\0';
	*dropped += room;
	if (buf_add(b, p, n))
		*dropped += n;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* a broken log file must not stop the child */
		p += w;
		n -= (size_t)w;
	}
}

/* Resolves argv0 against PATH in the parent (execve in the child needs no malloc). */
static char *find_program(const char *argv0)
{
	const char *path, *p;

	if (strchr(argv0, '/'))
		return xstrdup(argv0);
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *cand = len ? xstrfmt("%.*s/%s", (int)len, p, argv0) : xstrfmt("./%s", argv0);

		if (!access(cand, X_OK)) {
			struct stat st;

			if (!stat(cand, &st) && S_ISREG(st.st_mode))
				return cand;
		}
		free(cand);
		if (!end)
			break;
		p = end + 1;
	}
	return NULL;
}

static int env_name_eq(const char *entry, const char *name, size_t namelen)
{
	return !strncmp(entry, name, namelen) && entry[namelen] == '=';
}

/* The inherited environment with cmd->env applied; new array of borrowed strings. */
static char **build_env(const char *const *extra)
{
	size_t n = 0, m = 0, i, j, k;
	char **envp;

	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	envp = xcalloc(n + m + 1, sizeof(*envp));
	for (i = 0, k = 0; i < n; i++) {
		int drop = 0;

		for (j = 0; j < m && !drop; j++) {
			const char *eq = strchr(extra[j], '=');
			size_t len = eq ? (size_t)(eq - extra[j]) : strlen(extra[j]);

			drop = env_name_eq(environ[i], extra[j], len);
		}
		if (!drop)
			envp[k++] = environ[i];
	}
	for (j = 0; j < m; j++) {
		const char *eq = strchr(extra[j], '=');
		int later = 0;

		/* a later entry for the same name (set or remove) wins */
		for (i = j + 1; eq && i < m && !later; i++) {
			size_t len = (size_t)(eq - extra[j]);

			later = !strncmp(extra[i], extra[j], len) &&
				(extra[i][len] == '=' || extra[i][len] == '\0');
		}
		if (eq && !later)
			envp[k++] = (char *)extra[j];
	}
	envp[k] = NULL;
	return envp;
}

static void child_fail(int fd, int errnum)
{
	ssize_t w = write(fd, &errnum, sizeof(errnum));

	(void)w;
	_exit(127);
}

/* Runs in the forked child: only async-signal-safe calls from here on. */
static void child_exec(const struct runcmd *cmd, const char *prog, char **envp, int devnull,
		       int out_w, int err_w, int status_w, pid_t parent)
{
	struct sigaction sa;
	sigset_t all;
	int sig;

	setpgid(0, 0);
	/* if the worker dies, its child (make, qemu, git) must not run on alone */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL); /* fails harmlessly for KILL/STOP */
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);

	if (dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 ||
	    dup2(cmd->merge_stderr ? out_w : err_w, 2) < 0)
		child_fail(status_w, errno);
	if (cmd->cwd && chdir(cmd->cwd) < 0)
		child_fail(status_w, errno);
	execve(prog, (char *const *)cmd->argv, envp);
	child_fail(status_w, errno);
}

static void kill_group(pid_t pid, int sig)
{
	if (kill(-pid, sig) < 0)
		kill(pid, sig);
}

/* 1 when the leader has exited (still unreaped, so its pgid stays ours). */
static int leader_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid == pid;
}

int runcmd_run(struct runcmd *cmd, struct err *e)
{
	int out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 }, st_p[2] = { -1, -1 };
	int devnull = -1, child_errno = 0, status = 0;
	double start, deadline, term_at = 0, drain_until = 0;
	char **envp = NULL;
	char *prog;
	pid_t pid, parent;
	ssize_t r;
	int killed = 0, leader_done = 0;
	struct pollfd pfd[2];

	if (!cmd->argv || !cmd->argv[0] || cmd->timeout_s <= 0)
		return err_setc(e, ERR_SPAWN, "", "runcmd needs an argv and a timeout");
	prog = find_program(cmd->argv[0]);
	if (!prog)
		return err_setc(e, ERR_SPAWN, cmd->argv[0], "cannot run '%s': not found in PATH",
				cmd->argv[0]);

	devnull = open(cmd->stdin_path ? cmd->stdin_path : "/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 && cmd->stdin_path) {
		err_setc(e, ERR_SPAWN, cmd->argv[0], "cannot open '%s' for stdin: %s",
			 cmd->stdin_path, strerror(errno));
		free(prog);
		return -1;
	}
	if (devnull < 0 || pipe2(out_p, O_CLOEXEC) < 0 ||
	    (!cmd->merge_stderr && pipe2(err_p, O_CLOEXEC) < 0) || pipe2(st_p, O_CLOEXEC) < 0) {
		err_setc(e, ERR_SPAWN, cmd->argv[0], "cannot create pipes: %s", strerror(errno));
		goto fail;
	}
	envp = build_env(cmd->env);
	start = mono_s();
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		err_setc(e, ERR_SPAWN, cmd->argv[0], "cannot fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0)
		child_exec(cmd, prog, envp, devnull, out_p[1], err_p[1], st_p[1], parent);
	setpgid(pid, pid); /* also in the parent: no race with an early kill */

	close(out_p[1]);
	out_p[1] = -1;
	if (err_p[1] >= 0) {
		close(err_p[1]);
		err_p[1] = -1;
	}
	close(st_p[1]);
	st_p[1] = -1;
	close(devnull);
	devnull = -1;
	free(envp);
	envp = NULL;

	do
		r = read(st_p[0], &child_errno, sizeof(child_errno));
	while (r < 0 && errno == EINTR);
	close(st_p[0]);
	st_p[0] = -1;
	if (r == (ssize_t)sizeof(child_errno)) {
		waitpid(pid, NULL, 0);
		err_setc(e, ERR_SPAWN, cmd->argv[0], "cannot run '%s': %s", cmd->argv[0],
			 strerror(child_errno));
		goto fail;
	}

	deadline = start + cmd->timeout_s;
	pfd[0].fd = out_p[0];
	pfd[1].fd = err_p[0];
	for (;;) {
		double t = mono_s();
		int i, n;

		if (!killed && t >= deadline) {
			cmd->timed_out = 1;
			killed = 1;
		} else if (!killed && cmd->cancel && *cmd->cancel) {
			cmd->cancelled = 1;
			killed = 1;
		} else if (!killed && cmd->abort && *cmd->abort) {
			cmd->aborted = 1;
			killed = 1;
		}
		if (killed == 1) {
			kill_group(pid, SIGTERM);
			term_at = t;
			killed = 2;
		} else if (killed == 2 && t - term_at >= RUNCMD_TERM_GRACE_S) {
			kill_group(pid, SIGKILL);
			killed = 3;
		}
		if (!leader_done && leader_exited(pid)) {
			leader_done = 1;
			kill_group(pid, SIGKILL); /* no strays left behind */
			drain_until = t + RUNCMD_DRAIN_S;
		}
		if (pfd[0].fd < 0 && pfd[1].fd < 0) {
			if (leader_done)
				break;
			usleep(RUNCMD_SLICE_MS * 1000 / 2);
			continue;
		}
		if (leader_done && t >= drain_until)
			break; /* an escaped process holds the pipe: stop reading */

		pfd[0].events = pfd[1].events = POLLIN;
		n = poll(pfd, 2, RUNCMD_SLICE_MS);
		if (n < 0 && errno != EINTR)
			break;
		for (i = 0; i < 2 && n > 0; i++) {
			char chunk[65536];

			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(pfd[i].fd, chunk, sizeof(chunk));
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				continue;
			}
			if (cmd->log_fd >= 0)
				write_all(cmd->log_fd, chunk, (size_t)r);
			if (i == 0)
				capture_add(&cmd->out, &cmd->out_dropped, cmd->keep_tail, chunk,
					    (size_t)r);
			else
				capture_add(&cmd->err, &cmd->err_dropped, cmd->keep_tail, chunk,
					    (size_t)r);
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	cmd->elapsed_s = mono_s() - start;
	if (WIFEXITED(status)) {
		cmd->exited = 1;
		cmd->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		cmd->signaled = 1;
		cmd->term_signal = WTERMSIG(status);
	}
	if (pfd[0].fd >= 0)
		close(pfd[0].fd);
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	free(prog);
	return 0;

fail:
	if (devnull >= 0)
		close(devnull);
	for (int i = 0; i < 2; i++) {
		if (out_p[i] >= 0)
			close(out_p[i]);
		if (err_p[i] >= 0)
			close(err_p[i]);
		if (st_p[i] >= 0)
			close(st_p[i]);
	}
	free(envp);
	free(prog);
	return -1;
}
