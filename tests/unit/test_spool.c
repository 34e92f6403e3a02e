/* Unit tests of worker/spool.c: write/list/get/remove/set aside, torn files, locking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker/spool.h"
#include "attr.h"

struct fixture {
	char dir[64];
	char spool_dir[128];
};

static int rm_one(const char *path, const struct stat *st UNUSED, int flag UNUSED,
		  struct FTW *ftw UNUSED)
{
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/regtrack-test-spool-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	/* spool_open() must create missing parents */
	snprintf(f->spool_dir, sizeof(f->spool_dir), "%s/work/spool", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int ret = nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);

	free(f);
	return ret;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *s = NULL;
	size_t n = 0;

	if (!fp)
		return NULL;
	if (getdelim(&s, &n, '\0', fp) < 0) {
		free(s);
		s = NULL;
	}
	fclose(fp);
	return s;
}

static void spit(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static size_t count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

static json_t *completion(long long job_id, const char *status)
{
	return json_pack("{s:s, s:I, s:{s:s, s:[{s:s, s:{s:[f,f]}}]}}", "kind", "complete",
			 "job_id", (json_int_t)job_id, "body", "status", status, "results",
			 "run_id", "6f1c7a5e-2a4b-4c1d-9e1f-3b2a1c0d9e8f", "metrics",
			 "small-allocs.ops_per_s", 1.25e7, 1.5e7);
}

static void test_put_list_get_remove(void **state)
{
	struct fixture *f = *state;
	struct spool s;
	struct err e;
	char *names[3], **list, path[300];
	size_t nr;
	json_t *entry, *got;

	assert_int_equal(spool_open(&s, f->spool_dir, &e), 0);
	for (int i = 0; i < 3; i++) {
		entry = completion(17 + i, i == 1 ? "build-failed" : "ok");
		assert_int_equal(spool_put(&s, entry, &names[i], &e), 0);
		json_decref(entry);
	}
	/* no temporary file is left behind */
	assert_int_equal(count_files(f->spool_dir, ".tmp-"), 0);

	assert_int_equal(spool_list(&s, &list, &nr, &e), 0);
	assert_int_equal(nr, 3);
	for (int i = 0; i < 3; i++)
		assert_string_equal(list[i], names[i]); /* oldest first */
	spool_names_free(list, nr);

	assert_int_equal(spool_get(&s, names[1], &got, &e), 0);
	entry = completion(18, "build-failed");
	assert_true(json_equal(got, entry));
	assert_int_equal(json_integer_value(json_object_get(got, "job_id")), 18);
	json_decref(entry);
	json_decref(got);

	assert_int_equal(spool_remove(&s, names[0], &e), 0);
	assert_int_equal(spool_remove(&s, names[0], &e), 0); /* already gone: fine */
	assert_int_equal(spool_get(&s, names[0], &got, &e), -1);
	assert_string_equal(e.code, "not_found");

	assert_int_equal(spool_set_aside(&s, names[2], "dropped", &e), 0);
	snprintf(path, sizeof(path), "%s/dropped/%s", f->spool_dir, names[2]);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(spool_set_aside(&s, names[1], "../x", &e), -1);

	assert_int_equal(spool_list(&s, &list, &nr, &e), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(list[0], names[1]);
	spool_names_free(list, nr);

	entry = json_array();
	assert_int_equal(spool_put(&s, entry, NULL, &e), -1);
	assert_int_equal(e.id, ERR_INVALID_FIELD);
	json_decref(entry);

	for (int i = 0; i < 3; i++)
		free(names[i]);
	spool_close(&s);
}

static void test_torn_files_set_aside(void **state)
{
	struct fixture *f = *state;
	static const char torn[] = "{\"kind\":\"complete\",\"job_id\":17,\"body\":{\"status\":\"o";
	struct spool s;
	struct err e;
	char path[300], *name, **list, *kept;
	size_t nr;
	json_t *entry, *got;

	assert_int_equal(spool_open(&s, f->spool_dir, &e), 0);
	entry = completion(40, "ok");
	assert_int_equal(spool_put(&s, entry, &name, &e), 0);

	/* a truncated entry, sorted before the good one */
	snprintf(path, sizeof(path), "%s/0000000000000000001-1-0.json", f->spool_dir);
	spit(path, torn);
	/* valid JSON but not an object */
	snprintf(path, sizeof(path), "%s/0000000000000000002-1-0.json", f->spool_dir);
	spit(path, "[1, 2]\n");
	/* an unfinished write left by a crash */
	snprintf(path, sizeof(path), "%s/.tmp-0000000000000000003-1-0.json", f->spool_dir);
	spit(path, "{\"kind\":");
	/* not a spool entry at all: left alone */
	snprintf(path, sizeof(path), "%s/README", f->spool_dir);
	spit(path, "notes\n");

	assert_int_equal(spool_list(&s, &list, &nr, &e), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(list[0], name);
	spool_names_free(list, nr);
	assert_int_equal(spool_get(&s, name, &got, &e), 0);
	assert_true(json_equal(got, entry));
	json_decref(got);

	/* kept aside byte for byte, not deleted */
	snprintf(path, sizeof(path), "%s/corrupt/0000000000000000001-1-0.json", f->spool_dir);
	kept = slurp(path);
	assert_non_null(kept);
	assert_string_equal(kept, torn);
	free(kept);
	snprintf(path, sizeof(path), "%s/corrupt", f->spool_dir);
	assert_int_equal(count_files(path, "0000000000000000002-1-0.json"), 1);
	assert_int_equal(count_files(path, ".tmp-0000000000000000003-1-0.json"), 1);
	assert_int_equal(count_files(f->spool_dir, "README"), 1);
	assert_int_equal(count_files(f->spool_dir, ".tmp-"), 0);

	/* an entry torn after it was listed: spool_get() sets it aside too */
	snprintf(path, sizeof(path), "%s/%s", f->spool_dir, name);
	assert_int_equal(truncate(path, 10), 0);
	assert_int_equal(spool_get(&s, name, &got, &e), -1);
	assert_string_equal(e.code, "torn");
	assert_null(got);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/corrupt/%s", f->spool_dir, name);
	assert_int_equal(access(path, F_OK), 0);

	assert_int_equal(spool_list(&s, &list, &nr, &e), 0);
	assert_int_equal(nr, 0);
	spool_names_free(list, nr);
	json_decref(entry);
	free(name);
	spool_close(&s);
}

static void test_lock(void **state)
{
	struct fixture *f = *state;
	struct spool a, b;
	struct err e;

	assert_int_equal(spool_open(&a, f->spool_dir, &e), 0);
	assert_int_equal(spool_open(&b, f->spool_dir, &e), -1);
	assert_string_equal(e.code, "busy");
	spool_close(&b);
	spool_close(&a);
	assert_int_equal(spool_open(&b, f->spool_dir, &e), 0);
	spool_close(&b);
	assert_int_equal(spool_open(&b, "/proc/regtrack-no-such/spool", &e), -1);
	assert_int_equal(e.id, ERR_IO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put_list_get_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_files_set_aside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
