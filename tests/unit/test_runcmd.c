#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runcmd.h"
#include "xalloc.h"
#include "attr.h"

static void test_capture_and_exit_code(void **state UNUSED)
{
	const char *argv[] = { "sh", "-c", "printf 'out-line\\n'; printf 'err-line\\n' >&2; exit 3",
			       NULL };
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, argv, 10);
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(cmd.exited);
	assert_int_equal(cmd.exit_code, 3);
	assert_false(cmd.signaled);
	assert_false(cmd.timed_out);
	assert_false(runcmd_ok(&cmd));
	assert_string_equal(cmd.out.data, "out-line\n");
	assert_string_equal(cmd.err.data, "err-line\n");
	runcmd_release(&cmd);
}

static void test_merge_stderr(void **state UNUSED)
{
	const char *argv[] = { "sh", "-c", "echo a; echo b >&2; echo c", NULL };
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, argv, 10);
	cmd.merge_stderr = 1;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(runcmd_ok(&cmd));
	assert_string_equal(cmd.out.data, "a\nb\nc\n");
	assert_int_equal(cmd.err.len, 0);
	runcmd_release(&cmd);
}

static void test_cap_keeps_tail(void **state UNUSED)
{
	const char *argv[] = { "seq", "1", "100000", NULL };
	struct runcmd cmd;
	struct err e;
	size_t total = 0;
	int i;

	for (i = 1; i <= 100000; i++)
		total += (size_t)snprintf(NULL, 0, "%d\n", i);
	runcmd_init(&cmd, argv, 10);
	cmd.out.cap = 20;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(runcmd_ok(&cmd));
	assert_int_equal(cmd.out.len, 20);
	assert_string_equal(cmd.out.data, "\n99998\n99999\n100000\n");
	assert_int_equal(cmd.out_dropped, total - 20);
	runcmd_release(&cmd);
}

static void test_cap_keeps_head(void **state UNUSED)
{
	const char *argv[] = { "seq", "1", "100000", NULL };
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, argv, 10);
	cmd.out.cap = 10;
	cmd.keep_tail = 0;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(runcmd_ok(&cmd));
	assert_string_equal(cmd.out.data, "1\n2\n3\n4\n5\n");
	runcmd_release(&cmd);
}

static void test_log_fd_gets_everything(void **state UNUSED)
{
	const char *argv[] = { "seq", "1", "5000", NULL };
	char path[] = "/tmp/test_runcmd.XXXXXX";
	char *text = NULL;
	size_t len = 0;
	struct runcmd cmd;
	struct err e;
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	runcmd_init(&cmd, argv, 10);
	cmd.out.cap = 8;
	cmd.log_fd = fd;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	close(fd);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(getdelim(&text, &len, '\0', f) > 0);
	fclose(f);
	unlink(path);
	assert_int_equal(strlen(text), 9 * 2 + 90 * 3 + 900 * 4 + 4001 * 5);
	assert_memory_equal(text, "1\n2\n3\n", 6);
	assert_string_equal(cmd.out.data, "99\n5000\n");
	free(text);
	runcmd_release(&cmd);
}

/* State of a process in /proc: 0 when it is gone (or a zombie waiting for init). */
static int process_alive(pid_t pid)
{
	char path[64], line[512];
	FILE *f;
	char *p;
	int alive = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f) && (p = strrchr(line, ')')) && p[1] == ' ')
		alive = p[2] != 'Z' && p[2] != 'X';
	fclose(f);
	return alive;
}

static int wait_gone(pid_t pid)
{
	int i;

	for (i = 0; i < 100 && process_alive(pid); i++)
		usleep(20000);
	return !process_alive(pid);
}

static void test_timeout_kills_group(void **state UNUSED)
{
	/* the background sleep is in the child's process group: both must die */
	const char *argv[] = { "sh", "-c", "sleep 60 & echo $!; wait", NULL };
	struct runcmd cmd;
	struct err e;
	char desc[64];
	long bg;

	runcmd_init(&cmd, argv, 1);
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(cmd.timed_out);
	assert_true(cmd.signaled);
	assert_int_equal(cmd.term_signal, SIGTERM);
	assert_false(runcmd_ok(&cmd));
	assert_string_equal(runcmd_describe(&cmd, desc, sizeof(desc)), "timed out after 1 s");
	bg = strtol(cmd.out.data, NULL, 10);
	assert_true(bg > 1);
	assert_true(wait_gone((pid_t)bg));
	runcmd_release(&cmd);
}

static void test_strays_killed_after_exit(void **state UNUSED)
{
	/* the leader exits at once; the sleep it left in its group is killed */
	const char *argv[] = { "sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!", NULL };
	struct runcmd cmd;
	struct err e;
	long bg;

	runcmd_init(&cmd, argv, 30);
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(runcmd_ok(&cmd));
	assert_false(cmd.timed_out);
	bg = strtol(cmd.out.data, NULL, 10);
	assert_true(bg > 1);
	assert_true(wait_gone((pid_t)bg));
	runcmd_release(&cmd);
}

static void test_child_dies_with_caller(void **state UNUSED)
{
	/* a helper process runs `sleep` through runcmd and is killed by
	 * SIGALRM meanwhile: the sleep must not outlive it */
	char path[] = "/tmp/test_runcmd_pid.XXXXXX";
	char line[32] = "";
	int fd = mkstemp(path), status;
	pid_t helper;
	FILE *f;
	long pid;

	assert_true(fd >= 0);
	close(fd);
	helper = fork();
	assert_true(helper >= 0);
	if (helper == 0) {
		char *script = xstrfmt("echo $$ > %s; exec sleep 60", path);
		const char *argv[] = { "sh", "-c", script, NULL };
		struct runcmd cmd;
		struct err e;

		signal(SIGALRM, SIG_DFL);
		alarm(1);
		runcmd_init(&cmd, argv, 120);
		if (runcmd_run(&cmd, &e) < 0)
			_exit(3);
		_exit(4); /* not reached: SIGALRM ends us first */
	}
	assert_int_equal(waitpid(helper, &status, 0), helper);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGALRM);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	unlink(path);
	pid = strtol(line, NULL, 10);
	assert_true(pid > 1);
	assert_true(wait_gone((pid_t)pid));
}

static void test_sigkill_after_grace(void **state UNUSED)
{
	/* a child ignoring SIGTERM is SIGKILLed after the grace period */
	const char *argv[] = { "sh", "-c", "trap '' TERM; while :; do sleep 1; done", NULL };
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, argv, 1);
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(cmd.timed_out);
	assert_true(cmd.signaled);
	assert_int_equal(cmd.term_signal, SIGKILL);
	runcmd_release(&cmd);
}

static void test_cancel(void **state UNUSED)
{
	const char *argv[] = { "sleep", "60", NULL };
	volatile sig_atomic_t cancel = 1;
	struct runcmd cmd;
	struct err e;
	char desc[64];

	runcmd_init(&cmd, argv, 60);
	cmd.cancel = &cancel;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(cmd.cancelled);
	assert_false(cmd.timed_out);
	assert_string_equal(runcmd_describe(&cmd, desc, sizeof(desc)), "cancelled");
	runcmd_release(&cmd);
}

/* abort: the caller's own reason to end the command (not the job's cancel) */
static void test_abort(void **state UNUSED)
{
	const char *argv[] = { "sleep", "60", NULL };
	volatile sig_atomic_t abort_now = 1;
	struct runcmd cmd;
	struct err e;
	char desc[64];

	runcmd_init(&cmd, argv, 60);
	cmd.abort = &abort_now;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(cmd.aborted);
	assert_false(cmd.cancelled);
	assert_false(cmd.timed_out);
	assert_false(runcmd_ok(&cmd));
	assert_true(cmd.elapsed_s < 30);
	assert_string_equal(runcmd_describe(&cmd, desc, sizeof(desc)), "aborted");
	runcmd_release(&cmd);
}

static void test_exec_failure(void **state UNUSED)
{
	const char *argv[] = { "regtrack-no-such-program", NULL };
	const char *argv2[] = { "/nonexistent/prog", NULL };
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, argv, 10);
	assert_int_equal(runcmd_run(&cmd, &e), -1);
	assert_int_equal(e.id, ERR_SPAWN);
	assert_string_equal(e.detail, "regtrack-no-such-program");
	runcmd_release(&cmd);

	runcmd_init(&cmd, argv2, 10);
	assert_int_equal(runcmd_run(&cmd, &e), -1);
	assert_int_equal(e.id, ERR_SPAWN);
	assert_non_null(strstr(e.message, strerror(ENOENT)));
	runcmd_release(&cmd);
}

static void test_cwd(void **state UNUSED)
{
	const char *argv[] = { "pwd", NULL };
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, argv, 10);
	cmd.cwd = "/usr/share";
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_string_equal(cmd.out.data, "/usr/share\n");
	runcmd_release(&cmd);

	runcmd_init(&cmd, argv, 10);
	cmd.cwd = "/nonexistent-dir-for-test";
	assert_int_equal(runcmd_run(&cmd, &e), -1);
	assert_int_equal(e.id, ERR_SPAWN);
	runcmd_release(&cmd);
}

static void test_stdin_path(void **state UNUSED)
{
	const char *argv[] = { "wc", "-l", NULL };
	char path[] = "/tmp/runcmd-stdin-XXXXXX";
	int fd = mkstemp(path);
	struct runcmd cmd;
	struct err e;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a\nb\nc\n", 6), 6);
	close(fd);
	runcmd_init(&cmd, argv, 10);
	cmd.stdin_path = path;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_string_equal(cmd.out.data, "3\n");
	runcmd_release(&cmd);
	unlink(path);

	/* without it: /dev/null, 0 lines */
	runcmd_init(&cmd, argv, 10);
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_string_equal(cmd.out.data, "0\n");
	runcmd_release(&cmd);

	runcmd_init(&cmd, argv, 10);
	cmd.stdin_path = path; /* gone now */
	assert_int_equal(runcmd_run(&cmd, &e), -1);
	assert_int_equal(e.id, ERR_SPAWN);
	assert_non_null(strstr(e.message, "for stdin"));
	runcmd_release(&cmd);
}

static void test_env(void **state UNUSED)
{
	const char *argv[] = { "sh", "-c", "echo \"[$RT_A][$RT_B][${RT_C-unset}]\"", NULL };
	const char *env[] = { "RT_A=one two", "RT_B=x", "RT_B=y", "RT_C", NULL };
	struct runcmd cmd;
	struct err e;

	setenv("RT_C", "inherited", 1);
	setenv("RT_A", "inherited", 1);
	runcmd_init(&cmd, argv, 10);
	cmd.env = env;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	/* of two entries for one name the later wins; a bare name removes it */
	assert_string_equal(cmd.out.data, "[one two][y][unset]\n");
	runcmd_release(&cmd);
	unsetenv("RT_C");
	unsetenv("RT_A");
}

static void test_killed_by_signal(void **state UNUSED)
{
	const char *argv[] = { "sh", "-c", "kill -SEGV $$", NULL };
	struct runcmd cmd;
	struct err e;
	char desc[64];

	runcmd_init(&cmd, argv, 10);
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(cmd.signaled);
	assert_int_equal(cmd.term_signal, SIGSEGV);
	assert_false(cmd.timed_out);
	assert_string_equal(runcmd_describe(&cmd, desc, sizeof(desc)), "killed by signal 11");
	runcmd_release(&cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_and_exit_code),
		cmocka_unit_test(test_merge_stderr),
		cmocka_unit_test(test_cap_keeps_tail),
		cmocka_unit_test(test_cap_keeps_head),
		cmocka_unit_test(test_log_fd_gets_everything),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_strays_killed_after_exit),
		cmocka_unit_test(test_sigkill_after_grace),
		cmocka_unit_test(test_child_dies_with_caller),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_cwd),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_stdin_path),
		cmocka_unit_test(test_killed_by_signal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
