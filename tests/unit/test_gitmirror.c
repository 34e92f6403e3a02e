#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/track/gitmirror.h"
#include "runcmd.h"
#include "xalloc.h"
#include "attr.h"

/*
 * gitmirror_diffstat() on a real repository made here: a root commit, a
 * plain commit, a merge (against its first parent only), a binary file, a
 * rename (a delete plus an add) and a path with a space and non-ASCII
 * bytes (taken as stored, not quoted). The expected counts are what
 * `git diff --numstat` prints for the same changes.
 */

static char repo[64];

static const char *const git_env[] = { "GIT_AUTHOR_NAME=Dev One",
				       "GIT_AUTHOR_EMAIL=dev@example.org",
				       "GIT_COMMITTER_NAME=Dev One",
				       "GIT_COMMITTER_EMAIL=dev@example.org",
				       "GIT_CONFIG_NOSYSTEM=1",
				       "HOME=/nonexistent",
				       "LC_ALL=C",
				       NULL };

/* runs git -C repo ARGS...; returns its stdout's first line (new) */
static char *git(const char *a1, const char *a2, const char *a3, const char *a4, const char *a5)
{
	const char *argv[] = { "git", "-C", repo, a1, a2, a3, a4, a5, NULL };
	struct runcmd cmd;
	struct err e;
	char *out, *nl;

	runcmd_init(&cmd, argv, 60);
	cmd.env = git_env;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	if (!runcmd_ok(&cmd))
		fail_msg("git %s: %s", a1, cmd.err.data);
	out = xstrdup(cmd.out.data ? cmd.out.data : "");
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	runcmd_release(&cmd);
	return out;
}

static void put(const char *path, const char *text, size_t len)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", repo, path);
	f = fopen(full, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static char *commit(const char *msg)
{
	free(git("add", "-A", NULL, NULL, NULL));
	free(git("commit", "-q", "-m", msg, NULL));
	return git("rev-parse", "HEAD", NULL, NULL, NULL);
}

static void expect(const char *sha, size_t nr, const char *const *paths, const long *ins,
		   const long *del, long long tins, long long tdel)
{
	struct gitmirror_diffstat d;
	struct err e;

	assert_int_equal(gitmirror_diffstat(repo, sha, 60, &d, &e), 0);
	assert_int_equal(d.nr_files, nr);
	for (size_t i = 0; i < nr; i++) {
		assert_string_equal(d.files[i].path, paths[i]);
		assert_int_equal(d.files[i].insertions, ins[i]);
		assert_int_equal(d.files[i].deletions, del[i]);
	}
	assert_int_equal(d.insertions, tins);
	assert_int_equal(d.deletions, tdel);
	gitmirror_diffstat_release(&d);
}

static void test_diffstat(void **state UNUSED)
{
	char subdir[128], *root, *plain, *side, *merge, *bin, *ren, *odd, *empty;
	const char *argv[] = { "git", "init", "-q", "-b", "master", repo, NULL };
	struct runcmd cmd;
	struct err e;

	snprintf(repo, sizeof(repo), "/tmp/regtrack-gitmirror-XXXXXX");
	assert_non_null(mkdtemp(repo));
	runcmd_init(&cmd, argv, 60);
	cmd.env = git_env;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(runcmd_ok(&cmd));
	runcmd_release(&cmd);
	snprintf(subdir, sizeof(subdir), "%s/mm", repo);
	assert_int_equal(mkdir(subdir, 0755), 0);
	snprintf(subdir, sizeof(subdir), "%s/fs", repo);
	assert_int_equal(mkdir(subdir, 0755), 0);

	put("mm/mmap.c", "a\nb\nc\n", 6);
	put("fs/inode.c", "i\n", 2);
	root = commit("root");
	{
		const char *p[] = { "fs/inode.c", "mm/mmap.c" };
		const long ins[] = { 1, 3 }, del[] = { 0, 0 };
		expect(root, 2, p, ins, del, 4, 0);
	}

	put("mm/mmap.c", "a\nB\nc\nd\n", 8);
	plain = commit("mm: change");
	{
		const char *p[] = { "mm/mmap.c" };
		const long ins[] = { 2 }, del[] = { 1 };
		expect(plain, 1, p, ins, del, 2, 1);
	}

	/* a side branch touching fs/ merged into master, which touched mm/ meanwhile */
	free(git("checkout", "-q", "-b", "side", root));
	put("fs/inode.c", "i\nj\n", 4);
	side = commit("fs: side");
	free(git("checkout", "-q", "master", NULL, NULL));
	free(git("merge", "--no-ff", "-m", "merge side", "side"));
	merge = git("rev-parse", "HEAD", NULL, NULL, NULL);
	{
		const char *p[] = { "fs/inode.c" };
		const long ins[] = { 1 }, del[] = { 0 };
		expect(merge, 1, p, ins, del, 1, 0);
	}

	put("logo.png", "\x89PNG\r\n\x1a\n\0\0\0", 11);
	bin = commit("logo");
	{
		const char *p[] = { "logo.png" };
		const long ins[] = { -1 }, del[] = { -1 };
		expect(bin, 1, p, ins, del, 0, 0);
	}

	free(git("mv", "fs/inode.c", "fs/node.c", NULL, NULL));
	ren = commit("fs: rename");
	{
		const char *p[] = { "fs/inode.c", "fs/node.c" };
		const long ins[] = { 0, 2 }, del[] = { 2, 0 };
		expect(ren, 2, p, ins, del, 2, 2);
	}

	put("fs/a b\xc3\xa9.c", "x\n", 2);
	odd = commit("fs: odd name");
	{
		const char *p[] = { "fs/a b\xc3\xa9.c" };
		const long ins[] = { 1 }, del[] = { 0 };
		expect(odd, 1, p, ins, del, 1, 0);
	}

	free(git("commit", "-q", "--allow-empty", "-m", "empty"));
	empty = git("rev-parse", "HEAD", NULL, NULL, NULL);
	expect(empty, 0, NULL, NULL, NULL, 0, 0);

	/* not a full sha; a sha the repository does not have */
	{
		struct gitmirror_diffstat d;

		assert_int_equal(gitmirror_diffstat(repo, "HEAD", 60, &d, &e), -1);
		assert_int_equal(e.status, 400);
		gitmirror_diffstat_release(&d);
		assert_int_equal(gitmirror_diffstat(repo,
						    "0123456789012345678901234567890123456789", 60,
						    &d, &e),
				 -1);
		assert_int_equal(e.status, 502);
		assert_string_equal(e.code, "git_failed");
		gitmirror_diffstat_release(&d);
	}

	free(root);
	free(plain);
	free(side);
	free(merge);
	free(bin);
	free(ren);
	free(odd);
	free(empty);
	{
		const char *rm[] = { "rm", "-rf", "--", repo, NULL };
		runcmd_init(&cmd, rm, 60);
		assert_int_equal(runcmd_run(&cmd, &e), 0);
		runcmd_release(&cmd);
	}
}

/* runs argv; asserts it started and ended with status 0 */
static void run_ok(const char *const *argv)
{
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, argv, 60);
	cmd.env = git_env;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	if (!runcmd_ok(&cmd))
		fail_msg("%s %s: %s", argv[0], argv[1], cmd.err.data);
	runcmd_release(&cmd);
}

/*
 * The server's git on a mirror runs no program the repository names: a
 * reference-transaction hook (a fetch that moves a ref runs it) and a
 * core.fsmonitor command planted in the mirror stay unrun through a
 * gitmirror_sync that fetches a new commit; an ext:: url (a command as a
 * transport) is refused without running it.
 */
static void test_sync_runs_no_hooks(void **state UNUSED)
{
	char data[40], mirror[160], hook[200], marker[160], cfg[200], url[200];
	struct err e;
	FILE *f;

	snprintf(data, sizeof(data), "/tmp/regtrack-gmh-XXXXXX");
	assert_non_null(mkdtemp(data));
	snprintf(repo, sizeof(repo), "%s/src", data);
	snprintf(marker, sizeof(marker), "%s/ran", data);
	{
		const char *init[] = { "git", "init", "-q", "-b", "master", repo, NULL };

		run_ok(init);
	}
	put("a", "1\n", 2);
	free(commit("one"));
	assert_int_equal(gitmirror_sync(data, "t", repo, 60, &e), 0);
	snprintf(mirror, sizeof(mirror), "%s/mirrors/t.git", data);

	snprintf(hook, sizeof(hook), "%s/hooks/reference-transaction", mirror);
	f = fopen(hook, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho hook >> %s\n", marker);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(hook, 0755), 0);
	snprintf(cfg, sizeof(cfg), "%s/fsmon", data);
	f = fopen(cfg, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho fsmonitor >> %s\n", marker);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(cfg, 0755), 0);
	{
		const char *set[] = { "git", "-C", mirror, "config", "core.fsmonitor", cfg, NULL };

		run_ok(set);
	}
	/* the hook does run when git is left to itself (the test could not fail otherwise) */
	{
		const char *up[] = { "git", "-C", mirror, "update-ref", "refs/probe", "HEAD", NULL };

		run_ok(up);
		assert_int_equal(access(marker, F_OK), 0);
		assert_int_equal(unlink(marker), 0);
	}

	put("a", "2\n", 2);
	free(commit("two"));
	assert_int_equal(gitmirror_sync(data, "t", repo, 60, &e), 0);
	{
		char *want = git("rev-parse", "HEAD", NULL, NULL, NULL);
		const char *argv[] = { "git", "-C", mirror, "rev-parse", "refs/heads/master", NULL };
		struct runcmd cmd;

		runcmd_init(&cmd, argv, 60);
		assert_int_equal(runcmd_run(&cmd, &e), 0);
		assert_true(runcmd_ok(&cmd));
		assert_memory_equal(cmd.out.data, want, 40); /* the fetch did happen */
		runcmd_release(&cmd);
		free(want);
	}
	assert_int_equal(access(marker, F_OK), -1);

	snprintf(url, sizeof(url), "ext::sh -c touch%% %s", marker);
	assert_int_equal(gitmirror_sync(data, "x", url, 60, &e), -1);
	assert_string_equal(e.code, "git_failed");
	assert_int_equal(access(marker, F_OK), -1);

	/*
	 * a file:// URL of a directory that is no repository: git's stderr ends in advice
	 * ("and the repository exists."), the detail is the line naming it
	 */
	snprintf(url, sizeof(url), "file://%s", data);
	assert_int_equal(gitmirror_sync(data, "y", url, 60, &e), -1);
	assert_string_equal(e.code, "git_failed");
	assert_non_null(strstr(e.detail, "does not appear to be a git repository"));
	assert_int_equal(strncmp(e.detail, "fatal: ", 7), 0);
	assert_null(strchr(e.detail, '\n'));
	{
		const char *rm[] = { "rm", "-rf", "--", data, NULL };

		run_ok(rm);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diffstat),
		cmocka_unit_test(test_sync_runs_no_hooks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
