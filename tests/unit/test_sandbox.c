#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "worker/sandbox.h"
#include "runcmd.h"
#include "attr.h"

/*
 * worker/sandbox.c: the config it accepts, the argv it makes (what is
 * bound where, the user and the limits), and, with bwrap installed (it is
 * part of deploy/install-deps), what a command inside sees.
 */

static int has(char **argv, const char *const *seq)
{
	for (size_t i = 0; argv[i]; i++) {
		size_t j = 0;

		while (seq[j] && argv[i + j] && !strcmp(argv[i + j], seq[j]))
			j++;
		if (!seq[j])
			return 1;
	}
	return 0;
}

static void test_config(void **state UNUSED)
{
	struct sandbox sb;
	struct err e;

	assert_int_equal(sandbox_init(&sb, "maybe", NULL, &e), -1);
	assert_string_equal(e.code, "config_invalid");
	assert_string_equal(e.detail, "sandbox");
	assert_int_equal(sandbox_init(&sb, "off", NULL, &e), 0);
	assert_true(sb.off);
	assert_false(sandbox_usable(&sb));
	sandbox_release(&sb);
	if (geteuid() == 0) {
		assert_int_equal(sandbox_init(&sb, "on", "no-such-user-xyz", &e), -1);
		assert_string_equal(e.detail, "build_user");
		assert_int_equal(sandbox_init(&sb, "on", "0", &e), -1);
		assert_string_equal(e.detail, "build_user");
	}
}

static void test_argv(void **state UNUSED)
{
	struct sandbox sb = { .bwrap = "/usr/bin/bwrap", .uid = 1234, .gid = 99 };
	const char *rw[] = { "/w/build", NULL }, *ro[] = { "/w/src", NULL };
	const char *env[] = { "CCACHE_DIR=/w/ccache", "NOVALUE", NULL };
	const char *cmd[] = { "make", "O=/w/build", NULL };
	struct sandbox_spec spec = { .rw = rw, .ro = ro, .env = env, .cwd = "/w/src", .cpu_s = 60 };
	char **argv = sandbox_argv(&sb, &spec, cmd);

	assert_string_equal(argv[0], "/usr/bin/bwrap");
	assert_true(has(argv, (const char *const[]){ "--unshare-net", NULL }));
	assert_false(has(argv, (const char *const[]){ "--share-net", NULL }));
	assert_true(has(argv, (const char *const[]){ "--bind", "/w/build", "/w/build", NULL }));
	assert_true(has(argv, (const char *const[]){ "--ro-bind-try", "/w/src", "/w/src", NULL }));
	assert_true(has(argv, (const char *const[]){ "--perms", "0755", "--dir", "/w", NULL }));
	assert_true(has(argv, (const char *const[]){ "--chdir", "/w/src", "--clearenv", NULL }));
	assert_true(
		has(argv, (const char *const[]){ "--setenv", "CCACHE_DIR", "/w/ccache", NULL }));
	assert_false(has(argv, (const char *const[]){ "NOVALUE", NULL }));
	assert_true(has(argv, (const char *const[]){ "/usr/bin/setpriv", "--reuid=1234",
						     "--regid=99", "--clear-groups", NULL }));
	assert_true(has(argv, (const char *const[]){ "--cpu=60", NULL }));
	assert_true(
		has(argv, (const char *const[]){ "--core=0", "--", "make", "O=/w/build", NULL }));
	sandbox_argv_free(argv);

	/* not root: bwrap's user namespace, no setpriv */
	sb.uid = sb.gid = -1;
	argv = sandbox_argv(&sb, &spec, cmd);
	assert_true(has(argv, (const char *const[]){ "--unshare-all", NULL }));
	assert_false(has(argv, (const char *const[]){ "/usr/bin/setpriv", NULL }));
	sandbox_argv_free(argv);
}

/*
 * What a command inside sees: its uid, its environment, no /root, and no
 * way to the host's loopback (a port listening here is refused there).
 */
static void test_inside(void **state UNUSED)
{
	struct sandbox sb;
	struct err e;
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	char script[512], want[64], **argv;
	const char *cmd[] = { "sh", "-c", script, NULL };
	struct sandbox_spec spec = { .cpu_s = 10 };
	struct runcmd rc;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &alen), 0);
	snprintf(script, sizeof(script),
		 "id -u; env | sort | tr '\\n' ' '; echo; ls /root 2>/dev/null || echo no-root; "
		 "touch /tmp/t && echo tmp-writable; awk 'BEGIN { print \"awk-runs\" }'; "
		 "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", %d), 2)' "
		 "2>/dev/null && echo connected || echo no-net",
		 ntohs(a.sin_port));
	setenv("REGTRACK_SECRET_TEST", "leak", 1);
	assert_int_equal(sandbox_init(&sb, "on", NULL, &e), 0);
	if (!sb.bwrap) {
		/* deploy/install-deps installs it: a missing one is a broken setup */
		fail_msg("no usable bwrap: %s", sb.why);
	}
	argv = sandbox_argv(&sb, &spec, cmd);
	runcmd_init(&rc, (const char *const *)argv, 30);
	assert_int_equal(runcmd_run(&rc, &e), 0);
	if (!runcmd_ok(&rc))
		fail_msg("sandboxed sh failed: %s", rc.err.data);
	snprintf(want, sizeof(want), "%ld\n", geteuid() == 0 ? 65534L : (long)geteuid());
	assert_memory_equal(rc.out.data, want, strlen(want));
	assert_null(strstr(rc.out.data, "REGTRACK"));
	assert_non_null(strstr(rc.out.data, "HOME=/tmp"));
	assert_non_null(strstr(rc.out.data, "no-root"));
	assert_non_null(strstr(rc.out.data, "no-net"));
	assert_non_null(strstr(rc.out.data, "tmp-writable")); /* compilers write there */
	assert_non_null(strstr(rc.out.data, "awk-runs"));     /* via /etc/alternatives */
	runcmd_release(&rc);
	sandbox_argv_free(argv);
	sandbox_release(&sb);
	unsetenv("REGTRACK_SECRET_TEST");
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_inside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
