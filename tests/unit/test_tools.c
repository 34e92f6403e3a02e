/* worker/tools.c: the tool cases' table, versions from a log, metrics by parser, root trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attr.h"
#include "buf.h"
#include "xalloc.h"
#include "worker/tools.h"

static void test_table(void **state UNUSED)
{
	const struct tool_case *t = tools_case("stress-ng");

	assert_non_null(t);
	assert_string_equal(t->parser, "stress-ng");
	assert_string_equal(t->root, "stress-ng");
	/* perf-bench's tool is the tree's perf: no root of its own */
	t = tools_case("perf-bench");
	assert_non_null(t);
	assert_string_equal(t->parser, "perf-bench");
	assert_null(t->root);
	assert_int_equal(t->tree_perf, 1);
	assert_int_equal(tools_case("sysbench")->tree_perf, 0);
	/* fio: fio's JSON parser, a root tree of its static build */
	t = tools_case("fio");
	assert_non_null(t);
	assert_string_equal(t->parser, "fio");
	assert_string_equal(t->root, "fio");
	assert_int_equal(t->tree_perf, 0);
	/* built-in cases print "key: value": no parser of their own */
	assert_null(tools_case("small-allocs"));
	assert_null(tools_case(NULL));
}

/* the console may put a kernel message or a carriage return around the line */
static void test_versions_from_a_serial_log(void **state UNUSED)
{
	static const char log[] =
		"[    0.5] Run /init as init process\r\n"
		"regtrack-tool: stress-ng stress-ng, version 0.15.06 (gcc 12.2.0, x86_64 Linux 6.1.0) \r\n"
		"==== regtrack-result-begin ====\n"
		"[    1.0] random: crng init done regtrack-tool: hackbench hackbench 2.4";
	json_t *v = tools_versions(log, sizeof(log) - 1);

	assert_non_null(v);
	assert_int_equal(json_object_size(v), 2);
	assert_string_equal(json_string_value(json_object_get(v, "stress-ng")),
			    "stress-ng, version 0.15.06 (gcc 12.2.0, x86_64 Linux 6.1.0)");
	assert_string_equal(json_string_value(json_object_get(v, "hackbench")), "hackbench 2.4");
	json_decref(v);
	assert_null(tools_versions("no tool here\nregtrack-tool: \n", 30));
	assert_null(tools_versions("", 0));
}

static void test_metrics_by_the_parser(void **state UNUSED)
{
	struct buf text = BUF_INIT(0);
	json_t *m;

	assert_int_equal(buf_read_file(&text,
				       "tests/fixtures/parse/stress-ng-0.15.06-brk-debian12.txt"),
			 0);
	m = tools_metrics(tools_case("stress-ng"), text.data, text.len);
	assert_non_null(m);
	assert_int_equal(json_object_size(m), 4);
	assert_true(json_number_value(json_array_get(json_object_get(m, "stress-ng.brk.ops"), 0)) >
		    0);
	assert_non_null(json_object_get(m, "stress-ng.brk.ops_per_sec"));
	assert_non_null(json_object_get(m, "stress-ng.brk.nanosecs_per_sbrk_page_expand"));
	json_decref(m);
	/* a failed run or a run cut short is no measurement */
	assert_null(tools_metrics(tools_case("stress-ng"),
				  "stress-ng: info:  [1] unsuccessful run completed in 1s\n", 55));
	assert_null(tools_metrics(tools_case("stress-ng"), "key: 1\n", 7));
	buf_release(&text);
}

/* the root tree: dirs, files with their modes, links; VERSION left out */
static void test_root_into_initramfs(void **state UNUSED)
{
	char tmpl[] = "/tmp/regtrack-tools-XXXXXX";
	char *dir = mkdtemp(tmpl), *p;
	struct initramfs ir;
	struct err e;
	FILE *f;

	assert_non_null(dir);
	p = xstrfmt("mkdir -p %s/tools/x86_64/stress-ng/usr/bin %s/tools/x86_64/stress-ng/lib64",
		    dir, dir);
	assert_int_equal(system(p), 0);
	free(p);
	p = xstrfmt("%s/tools/x86_64/stress-ng/usr/bin/stress-ng", dir);
	f = fopen(p, "w");
	fputs("ELF", f);
	fclose(f);
	chmod(p, 0755);
	free(p);
	p = xstrfmt("%s/tools/x86_64/stress-ng/VERSION", dir);
	f = fopen(p, "w");
	fputs("stress-ng 0.15.06-2\n", f);
	fclose(f);
	free(p);
	p = xstrfmt("%s/tools/x86_64/stress-ng/lib64/ld-linux-x86-64.so.2", dir);
	assert_int_equal(symlink("../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", p), 0);
	free(p);

	initramfs_init(&ir);
	assert_int_equal(tools_add_root(&ir, dir, "x86_64", tools_case("stress-ng"), &e), 0);
	/* newc names, in sorted order: lib64, its link, usr, usr/bin, the binary */
	assert_non_null(memmem(ir.data.data, ir.data.len, "lib64", 6));
	assert_non_null(memmem(ir.data.data, ir.data.len, "lib64/ld-linux-x86-64.so.2", 27));
	assert_non_null(memmem(ir.data.data, ir.data.len, "../lib/x86_64-linux-gnu/", 24));
	assert_non_null(memmem(ir.data.data, ir.data.len, "000081ED", 8)); /* file 0755 */
	assert_non_null(memmem(ir.data.data, ir.data.len, "usr/bin/stress-ng", 18));
	assert_null(memmem(ir.data.data, ir.data.len, "VERSION", 7));
	assert_true((char *)memmem(ir.data.data, ir.data.len, "lib64", 6) <
		    (char *)memmem(ir.data.data, ir.data.len, "usr/bin/stress-ng", 18));
	initramfs_release(&ir);

	/* a tool without a root (the tree's perf) adds nothing */
	initramfs_init(&ir);
	assert_int_equal(tools_add_root(&ir, dir, "x86_64", tools_case("perf-bench"), &e), 0);
	assert_int_equal(ir.data.len, 0);
	initramfs_release(&ir);

	/* no root: the error names it and says how to get it */
	initramfs_init(&ir);
	assert_int_equal(tools_add_root(&ir, dir, "aarch64", tools_case("stress-ng"), &e), -1);
	assert_non_null(strstr(e.message, "deploy/fetch-tools"));
	initramfs_release(&ir);
	p = xstrfmt("rm -rf %s", dir);
	assert_int_equal(system(p), 0);
	free(p);
}

/* make a file at dir/rel, the directories above it too */
static void touch_at(const char *dir, const char *rel)
{
	char *p = xstrfmt("%s/%s", dir, rel), *slash = strrchr(p, '/'), *cmd;
	FILE *f;

	*slash = '\0';
	cmd = xstrfmt("mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
	*slash = '/';
	f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
	free(cmd);
	free(p);
}

/* every entry or an error naming the limit, never a tree cut short */
static void test_root_limits(void **state UNUSED)
{
	char tmpl[] = "/tmp/regtrack-tools-XXXXXX";
	char *dir = mkdtemp(tmpl), *p, *deep;
	struct initramfs ir;
	struct err e;
	int i;

	assert_non_null(dir);
	/* created out of order: the archive has them sorted */
	for (i = 1024; i > 0; i--) {
		p = xstrfmt("tools/x86_64/stress-ng/lib/f%04d", i);
		touch_at(dir, p);
		free(p);
	}
	initramfs_init(&ir);
	assert_int_equal(tools_add_root(&ir, dir, "x86_64", tools_case("stress-ng"), &e), 0);
	assert_non_null(memmem(ir.data.data, ir.data.len, "lib/f1024", 9));
	assert_true((char *)memmem(ir.data.data, ir.data.len, "lib/f0001", 9) <
		    (char *)memmem(ir.data.data, ir.data.len, "lib/f0002", 9));
	assert_true((char *)memmem(ir.data.data, ir.data.len, "lib/f0999", 9) <
		    (char *)memmem(ir.data.data, ir.data.len, "lib/f1000", 9));
	initramfs_release(&ir);
	/* one more: the error names the directory and the limit */
	touch_at(dir, "tools/x86_64/stress-ng/lib/f1025");
	initramfs_init(&ir);
	assert_int_equal(tools_add_root(&ir, dir, "x86_64", tools_case("stress-ng"), &e), -1);
	assert_non_null(strstr(e.message, "more than 1024 entries"));
	assert_non_null(strstr(e.message, "stress-ng/lib'"));
	initramfs_release(&ir);

	/* 16 levels below the root are read; a 17th is an error */
	deep = xstrdup("tools/x86_64/hackbench");
	for (i = 1; i <= 16; i++) {
		p = xstrfmt("%s/d%d", deep, i);
		free(deep);
		deep = p;
	}
	p = xstrfmt("%s/file", deep);
	touch_at(dir, p);
	free(p);
	initramfs_init(&ir);
	assert_int_equal(tools_add_root(&ir, dir, "x86_64", tools_case("hackbench"), &e), 0);
	assert_non_null(memmem(ir.data.data, ir.data.len, "d15/d16/file", 12));
	initramfs_release(&ir);
	p = xstrfmt("%s/d17/file", deep);
	touch_at(dir, p);
	free(p);
	initramfs_init(&ir);
	assert_int_equal(tools_add_root(&ir, dir, "x86_64", tools_case("hackbench"), &e), -1);
	assert_non_null(strstr(e.message, "more than 16 levels"));
	assert_non_null(strstr(e.message, "d16/d17'"));
	initramfs_release(&ir);
	free(deep);

	p = xstrfmt("rm -rf %s", dir);
	assert_int_equal(system(p), 0);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_versions_from_a_serial_log),
		cmocka_unit_test(test_metrics_by_the_parser),
		cmocka_unit_test(test_root_into_initramfs),
		cmocka_unit_test(test_root_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
