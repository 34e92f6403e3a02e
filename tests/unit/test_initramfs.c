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

#include "runcmd.h"
#include "xalloc.h"
#include "worker/initramfs.h"
#include "attr.h"

/* The exact newc bytes of one directory entry, written out by hand from
 * the format description (buffer-format.rst): 110-byte header, the name
 * "d" + NUL, padded to a multiple of 4 (110 + 2 = 112). */
static void test_header_bytes(void **state UNUSED)
{
	static const char expect[] = "070701"
				     "00000001" /* ino */
				     "000041ED" /* mode: S_IFDIR | 0755 */
				     "00000000" /* uid */
				     "00000000" /* gid */
				     "00000002" /* nlink */
				     "00000000" /* mtime */
				     "00000000" /* filesize */
				     "00000000" /* devmajor */
				     "00000000" /* devminor */
				     "00000000" /* rdevmajor */
				     "00000000" /* rdevminor */
				     "00000002" /* namesize incl. NUL */
				     "00000000" /* check */
				     "d";
	struct initramfs ir;

	initramfs_init(&ir);
	initramfs_add_dir(&ir, "/d", 0755);
	assert_int_equal(ir.data.len, 112);
	assert_memory_equal(ir.data.data, expect, 111);
	assert_int_equal(ir.data.data[111], '\0');
	initramfs_release(&ir);
}

/* File data starts 4-aligned and is padded to 4: "abcde" (5 bytes) after a
 * 110-byte header and "f" + NUL (112) ends at 117, padded to 120. */
static void test_file_padding(void **state UNUSED)
{
	struct initramfs ir;

	initramfs_init(&ir);
	initramfs_add_file(&ir, "f", 0644, "abcde", 5);
	assert_int_equal(ir.data.len, 120);
	assert_memory_equal(ir.data.data + 54, "00000005", 8); /* filesize field */
	assert_memory_equal(ir.data.data + 112, "abcde\0\0\0", 8);
	initramfs_finish(&ir);
	/* trailer: header + "TRAILER!!!\0" (11) = 121, padded to 124 */
	assert_int_equal(ir.data.len, 120 + 124);
	assert_memory_equal(ir.data.data + 120 + 110, "TRAILER!!!", 11);
	initramfs_release(&ir);
}

static char *tmpdir_make(void)
{
	char tmpl[] = "/tmp/test_initramfs.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static void rm_rf(const char *dir)
{
	const char *argv[] = { "rm", "-rf", dir, NULL };
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, argv, 30);
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	runcmd_release(&cmd);
}

static char *slurp(const char *path, size_t *len)
{
	struct buf b = BUF_INIT(0);

	assert_int_equal(buf_read_file(&b, path), 0);
	return buf_detach(&b, len);
}

/* GNU cpio, an independent reader, lists and extracts what we wrote. */
static void test_cpio_reads_it(void **state UNUSED)
{
	char *dir = tmpdir_make();
	char *archive = xstrfmt("%s/initramfs.cpio", dir);
	char *outdir = xstrfmt("%s/x", dir);
	char *exe = xstrfmt("%s/exe", dir);
	char *got, *p;
	size_t len;
	struct initramfs ir;
	struct runcmd cmd;
	struct err e;
	struct stat st;
	FILE *f;
	const char *list_argv[] = { "cpio", "-itv", "-F", archive, NULL };
	const char *extract_argv[] = { "cpio", "-id", "--quiet", "-F", archive, NULL };

	/* a 70000-byte file with a non-repeating pattern */
	f = fopen(exe, "wb");
	assert_non_null(f);
	for (int i = 0; i < 70000; i++)
		fputc((i * 7 + i / 251) & 0xff, f);
	fclose(f);

	initramfs_init(&ir);
	initramfs_add_dir(&ir, "dev", 0755);
	initramfs_add_node(&ir, "dev/console", S_IFCHR, 0600, 5, 1);
	initramfs_add_dir(&ir, "cases", 0755);
	assert_int_equal(initramfs_add_path(&ir, "cases/exe", 0755, exe, &e), 0);
	initramfs_add_dir(&ir, "regtrack", 0755);
	initramfs_add_file(&ir, "regtrack/job", 0644, "case x\narg a=1\n", 15);
	initramfs_add_symlink(&ir, "bin", "cases");
	assert_int_equal(initramfs_add_path(&ir, "nope", 0644, "/nonexistent/file", &e), -1);
	assert_string_equal(e.code, "io_error");
	assert_string_equal(e.detail, "/nonexistent/file");
	initramfs_finish(&ir);
	assert_int_equal(ir.data.len % 4, 0);
	assert_int_equal(initramfs_write(&ir, archive, &e), 0);
	initramfs_release(&ir);

	runcmd_init(&cmd, list_argv, 30);
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(runcmd_ok(&cmd));
	p = cmd.out.data;
	assert_non_null(strstr(p, "drwxr-xr-x   2 root     root            0 Jan  1  1970 dev\n"));
	assert_non_null(
		strstr(p, "crw-------   1 root     root       5,   1 Jan  1  1970 dev/console\n"));
	assert_non_null(
		strstr(p, "-rwxr-xr-x   1 root     root        70000 Jan  1  1970 cases/exe\n"));
	assert_non_null(
		strstr(p, "-rw-r--r--   1 root     root           15 Jan  1  1970 regtrack/job\n"));
	assert_non_null(
		strstr(p, "lrwxrwxrwx   1 root     root            5 Jan  1  1970 bin -> cases\n"));
	assert_null(strstr(p, "nope"));
	runcmd_release(&cmd);

	/* extract without the device node (mknod may be refused here) */
	{
		struct initramfs ir2;

		initramfs_init(&ir2);
		initramfs_add_dir(&ir2, "cases", 0755);
		assert_int_equal(initramfs_add_path(&ir2, "cases/exe", 0755, exe, &e), 0);
		initramfs_add_dir(&ir2, "regtrack", 0755);
		initramfs_add_file(&ir2, "regtrack/job", 0644, "case x\narg a=1\n", 15);
		initramfs_finish(&ir2);
		assert_int_equal(initramfs_write(&ir2, archive, &e), 0);
		initramfs_release(&ir2);
	}
	assert_int_equal(mkdir(outdir, 0755), 0);
	runcmd_init(&cmd, extract_argv, 30);
	cmd.cwd = outdir;
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	assert_true(runcmd_ok(&cmd));
	runcmd_release(&cmd);
	{
		char *path = xstrfmt("%s/cases/exe", outdir);
		char *orig;
		size_t olen;

		got = slurp(path, &len);
		orig = slurp(exe, &olen);
		assert_int_equal(len, 70000);
		assert_int_equal(olen, 70000);
		assert_memory_equal(got, orig, 70000);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0755);
		free(got);
		free(orig);
		free(path);
		path = xstrfmt("%s/regtrack/job", outdir);
		got = slurp(path, &len);
		assert_string_equal(got, "case x\narg a=1\n");
		free(got);
		free(path);
	}

	rm_rf(dir);
	free(exe);
	free(outdir);
	free(archive);
	free(dir);
}

static void test_write_error(void **state UNUSED)
{
	struct initramfs ir;
	struct err e;

	initramfs_init(&ir);
	initramfs_finish(&ir);
	assert_int_equal(initramfs_write(&ir, "/nonexistent-dir/x.cpio", &e), -1);
	assert_string_equal(e.code, "io_error");
	assert_string_equal(e.detail, "/nonexistent-dir/x.cpio");
	initramfs_release(&ir);
}

/* Same inputs, same bytes. */
static void test_reproducible(void **state UNUSED)
{
	struct initramfs a, b;

	initramfs_init(&a);
	initramfs_init(&b);
	initramfs_add_dir(&a, "x", 0700);
	initramfs_add_file(&a, "x/y", 0600, "123", 3);
	initramfs_finish(&a);
	initramfs_add_dir(&b, "x", 0700);
	initramfs_add_file(&b, "x/y", 0600, "123", 3);
	initramfs_finish(&b);
	assert_int_equal(a.data.len, b.data.len);
	assert_memory_equal(a.data.data, b.data.data, a.data.len);
	initramfs_release(&a);
	initramfs_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_bytes),  cmocka_unit_test(test_file_padding),
		cmocka_unit_test(test_cpio_reads_it), cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_reproducible),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
