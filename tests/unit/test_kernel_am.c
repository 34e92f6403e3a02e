/*
 * kernel_fetch() with patches (an A/B request's head job): the mbox is
 * applied on base with `git am` in the worker's source dir, the committer
 * taken from the mbox, so two workers (two work dirs here) derive the same
 * head sha; a series that does not apply fails with code apply_failed and
 * git's reason, and the next job in that source dir still applies; the
 * series' `git patch-id --stable` is recorded (a known value). Uses a
 * small git tree made here; no kernel is built.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "runcmd.h"
#include "xalloc.h"
#include "worker/kernel.h"

static const char *const ident[] = {
	"GIT_AUTHOR_NAME=Patch Author",
	"GIT_AUTHOR_EMAIL=pa@example.org",
	"GIT_AUTHOR_DATE=Tue, 1 Dec 2026 10:00:00 +0000",
	"GIT_COMMITTER_NAME=Tree Owner",
	"GIT_COMMITTER_EMAIL=owner@example.org",
	"GIT_COMMITTER_DATE=Tue, 1 Dec 2026 11:00:00 +0000",
	NULL,
};

struct fixture {
	char *dir, *repo, *base, *mbox, *bad_mbox;
};

/* git ARGS in dir; its stdout (new, trailing newline cut) */
static char *git(const char *dir, const char *a1, const char *a2, const char *a3, const char *a4,
		 const char *a5)
{
	const char *argv[] = { "git", "-C", dir, a1, a2, a3, a4, a5, NULL };
	struct runcmd cmd;
	struct err e;
	char *out;

	runcmd_init(&cmd, argv, 60);
	cmd.env = ident;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	if (!runcmd_ok(&cmd))
		fail_msg("git %s %s: %s", a1, a2 ? a2 : "", cmd.err.data);
	out = xstrdup(cmd.out.data);
	if (*out && out[strlen(out) - 1] == '\n')
		out[strlen(out) - 1] = '\0';
	runcmd_release(&cmd);
	return out;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	char tmpl[] = "/tmp/regtrack-am-XXXXXX", *p, *s;

	fx->dir = xstrdup(mkdtemp(tmpl));
	fx->repo = xstrfmt("%s/repo", fx->dir);
	free(git(fx->dir, "init", "-q", "-b", "master", fx->repo));
	p = xstrfmt("%s/mm.c", fx->repo);
	write_text(p, "one\n");
	free(git(fx->repo, "add", "mm.c", NULL, NULL, NULL));
	free(git(fx->repo, "commit", "-q", "-m", "mm: base", NULL));
	fx->base = git(fx->repo, "rev-parse", "HEAD", NULL, NULL, NULL);
	free(git(fx->repo, "checkout", "-q", "-b", "topic", NULL));
	write_text(p, "one\ntwo\n");
	free(git(fx->repo, "commit", "-q", "-am", "mm: two", NULL));
	fx->mbox = git(fx->repo, "format-patch", "--stdout", "-1", "HEAD", NULL);
	s = xstrfmt("%s\n", fx->mbox);
	free(fx->mbox);
	fx->mbox = s;
	free(git(fx->repo, "checkout", "-q", "master", NULL, NULL));
	/* the same patch against a line base does not have */
	fx->bad_mbox = xstrdup(fx->mbox);
	s = strstr(fx->bad_mbox, "\n one\n");
	assert_non_null(s);
	memcpy(s, "\n eno\n", 6);
	free(p);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	const char *rm[] = { "rm", "-rf", fx->dir, NULL };
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, rm, 60);
	if (runcmd_run(&cmd, &e) < 0)
		fprintf(stderr, "cannot remove %s: %s\n", fx->dir, e.message);
	runcmd_release(&cmd);
	free(fx->dir);
	free(fx->repo);
	free(fx->base);
	free(fx->mbox);
	free(fx->bad_mbox);
	free(fx);
	return 0;
}

/* `git patch-id --stable` of the fixture's patch (mm.c: "one" -> "one\ntwo"), as git
 * 2.39 prints it for that diff: a known value, independent of shas and dates */
#define PATCH_ID "fbfcf66f204f5dc2cc6aca7fa7473a6067bc302c"

static char last_patch_id[41], *last_patch_ids;

/* kernel_fetch of base + patches in work dir NAME; returns its result, sha in sha, the
 * patch-ids in last_patch_id, last_patch_ids */
static int fetch(struct fixture *fx, const char *name, const char *patches, char sha[41],
		 char **src, struct err *e)
{
	struct kernel k;
	struct utsname u;
	char *work = xstrfmt("%s/%s", fx->dir, name);
	int rc;

	uname(&u);
	kernel_init(&k);
	k.work_dir = work;
	k.tree = "demo";
	k.url = fx->repo;
	k.commit = fx->base;
	k.patches = patches;
	k.arch = !strcmp(u.machine, "aarch64") ? "aarch64" : "x86_64";
	k.kconfig = !strcmp(u.machine, "aarch64") ? "arm64-defconfig" : "x86_64-defconfig";
	k.compiler = "gcc";
	rc = kernel_fetch(&k, e);
	memcpy(sha, k.sha, 41);
	memcpy(last_patch_id, k.patch_id, 41);
	free(last_patch_ids);
	last_patch_ids = k.patch_ids ? xstrdup(k.patch_ids) : NULL;
	if (!rc)
		assert_string_equal(k.base_sha, fx->base);
	if (src)
		*src = xstrdup(k.src_dir ? k.src_dir : "");
	kernel_release(&k);
	free(work);
	return rc;
}

static void test_same_sha_on_two_workers(void **state)
{
	struct fixture *fx = *state;
	char a[41], b[41], *src, *who;
	struct err e;

	assert_int_equal(fetch(fx, "w1", fx->mbox, a, &src, &e), 0);
	assert_string_not_equal(a, fx->base);
	sleep(1); /* a committer date taken from the clock would differ now */
	assert_int_equal(fetch(fx, "w2", fx->mbox, b, NULL, &e), 0);
	assert_string_equal(a, b);
	/* the series' patch-id (one patch: the whole diff's and the patch's are one) */
	assert_string_equal(last_patch_id, PATCH_ID);
	assert_non_null(last_patch_ids);
	assert_string_equal(last_patch_ids, PATCH_ID);
	/* committer from the mbox's first patch, author from the patch */
	who = git(src, "log", "-1", "--format=%cn|%ce|%cD|%an|%s", NULL, NULL);
	assert_string_equal(who, "Patch Author|pa@example.org|Tue, 1 Dec 2026 10:00:00 +0000|"
				 "Patch Author|mm: two");
	free(who);
	who = git(src, "rev-parse", "HEAD^", NULL, NULL, NULL);
	assert_string_equal(who, fx->base);
	free(who);
	free(src);
}

static void test_series_that_does_not_apply(void **state)
{
	struct fixture *fx = *state;
	char sha[41];
	struct err e;

	assert_int_equal(fetch(fx, "w3", fx->bad_mbox, sha, NULL, &e), -1);
	assert_string_equal(e.code, "apply_failed");
	assert_non_null(strstr(e.message, "git am failed"));
	assert_non_null(strstr(e.message, "patch failed: mm.c:1"));
	assert_null(strstr(e.message, "hint:"));
	/* the same source dir takes the next job: no am session left behind */
	assert_int_equal(fetch(fx, "w3", fx->mbox, sha, NULL, &e), 0);
	assert_int_equal(fetch(fx, "w3", NULL, sha, NULL, &e), 0);
	assert_string_equal(sha, fx->base);
	/* no patches, no patch-id */
	assert_string_equal(last_patch_id, "");
	assert_null(last_patch_ids);
}

static void test_mbox_without_patch(void **state)
{
	struct fixture *fx = *state;
	char sha[41];
	struct err e;

	assert_int_equal(fetch(fx, "w4", "From x\nSubject: hi\n\nno diff\n", sha, NULL, &e), -1);
	assert_string_equal(e.code, "apply_failed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_sha_on_two_workers),
		cmocka_unit_test(test_series_that_does_not_apply),
		cmocka_unit_test(test_mbox_without_patch),
	};

	int rc = cmocka_run_group_tests(tests, setup, teardown);

	free(last_patch_ids);
	return rc;
}
