/*
 * Tests of lib/parse/perf_fold: real `perf script` output (captured on the
 * host and in the worker's guest kernels, tests/fixtures/parse/perf-script-*)
 * folded and compared with golden folded files made by an independent fold
 * (a Python transcription of FlameGraph's stackcollapse-perf.pl rules),
 * hand-made cases of each rule, the bound, and the per-symbol shares.
 * Run from the repo root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/perf_fold.h"
#include "attr.h"
#include "buf.h"
#include "xalloc.h"

#define FIXDIR "tests/fixtures/parse/"

static char *load(const char *name, size_t *len)
{
	char *path = xstrfmt(FIXDIR "%s", name);
	struct buf b = BUF_INIT(0);

	if (buf_read_file(&b, path))
		fail_msg("cannot read fixture '%s' (run from the repo root)", path);
	free(path);
	return buf_detach(&b, len);
}

static long long sum_counts(const char *folded)
{
	long long total = 0;
	const char *p = folded;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *sp;

		assert_non_null(nl);
		for (sp = nl; sp > p && sp[-1] != ' '; sp--)
			;
		assert_true(sp > p);
		total += strtoll(sp, NULL, 10);
		p = nl + 1;
	}
	return total;
}

static void check_golden(const char *script, const char *golden, long long samples)
{
	size_t len, glen;
	char *text = load(script, &len), *want = load(golden, &glen);
	struct perf_fold_result r;

	assert_int_equal(perf_fold_script(text, len, PERF_FOLD_MAX_BYTES, NULL, &r), 0);
	assert_int_equal(r.samples, samples);
	assert_int_equal(r.dropped, 0);
	assert_int_equal(r.len, glen);
	assert_string_equal(r.folded, want);
	assert_int_equal(sum_counts(r.folded), samples);
	perf_fold_result_release(&r);
	free(text);
	free(want);
}

/* perf 6.1 on the host, default fields ("COMM PID [CPU] TIME: PERIOD EVENT:",
 * frames "ADDR SYM+0xOFF (DSO)"): 60 samples of small-allocs. */
static void test_host_default_fields(void **state UNUSED)
{
	size_t len;
	char *text = load("perf-script-host-x86_64.txt", &len);
	struct perf_fold_result r;

	check_golden("perf-script-host-x86_64.txt", "perf-script-host-x86_64.folded", 60);
	/* root first: the syscall entry comes before what it calls */
	assert_int_equal(perf_fold_script(text, len, PERF_FOLD_MAX_BYTES, NULL, &r), 0);
	assert_non_null(strstr(r.folded, ";entry_SYSCALL_64_after_hwframe;do_syscall_64;"
					 "__x64_sys_munmap;__vm_munmap;"));
	assert_null(strstr(r.folded, "+0x"));
	assert_null(strstr(r.folded, "([kernel.kallsyms])"));
	perf_fold_result_release(&r);
	free(text);
}

/* Each rule on a hand-made `-F comm,tid,ip,sym` text (what /init asks for). */
static void test_rules(void **state UNUSED)
{
	static const char text[] = "Warning:\n"
				   "1 out of order events recorded.\n"
				   "DOM Worker  1200/1201 \n" /* comm with a space, pid/tid */
				   "\t ffffffff81000001 leaf_fn\n"
				   "\t ffffffff81000002 mid;fn\n" /* ';' in a name */
				   "\t           401000 [unknown]\n"
				   "\n"
				   "swapper     0 \n" /* no frames: the comm alone */
				   "\n"
				   "a 7 \n"
				   "\t  ffff0001 x+0x10 ([kernel.kallsyms])\n"
				   "\t  ffff0002 y+0x2f ([kernel.kallsyms])\n"
				   "a 7 \n" /* the next sample ends the last without a blank line */
				   "\t  ffff0001 x+0x99 ([kernel.kallsyms])\n"
				   "\t  ffff0002 y+0x30 ([kernel.kallsyms])\n";
	static const char want[] = "DOM_Worker;[unknown];mid:fn;leaf_fn 1\n"
				   "a;y;x 2\n"
				   "swapper 1\n";
	struct perf_fold_result r;

	assert_int_equal(perf_fold_script(text, sizeof(text) - 1, PERF_FOLD_MAX_BYTES, NULL, &r),
			 0);
	assert_string_equal(r.folded, want);
	assert_int_equal(r.samples, 4);
	assert_int_equal(r.stacks, 3);
	perf_fold_result_release(&r);

	assert_int_equal(perf_fold_script("", 0, PERF_FOLD_MAX_BYTES, NULL, &r), 0);
	assert_string_equal(r.folded, "");
	assert_int_equal(r.samples, 0);
	perf_fold_result_release(&r);
}

/* Past the bound the heaviest stacks stay, the rest become "COMM;[other] N":
 * every sample is still counted and the text is within the bound. */
static void test_bound(void **state UNUSED)
{
	size_t len, bounds[] = { 64, 600, 3000, 6000 };
	char *text = load("perf-script-host-x86_64.txt", &len);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bounds); i++) {
		struct perf_fold_result r;

		assert_int_equal(perf_fold_script(text, len, bounds[i], NULL, &r), 0);
		assert_true(r.len <= bounds[i]);
		assert_int_equal(sum_counts(r.folded), 60);
		assert_true(r.dropped > 0);
		assert_non_null(strstr(r.folded, ";[other] "));
		if (bounds[i] >= 3000)
			/* the heaviest stack of the fixture (4 samples) is kept whole */
			assert_non_null(strstr(r.folded,
					       "do_anonymous_page;vma_alloc_folio_noprof;"
					       "alloc_pages_mpol;__alloc_frozen_pages_noprof;"
					       "get_page_from_freelist;clear_page_erms 4\n"));
		perf_fold_result_release(&r);
	}
	free(text);
}

struct seen {
	char names[16][64];
	double children[16], self[16];
	int n;
};

static void on_sym(void *ctx, const char *sym, double children, double self)
{
	struct seen *s = ctx;

	assert_true(s->n < 16);
	snprintf(s->names[s->n], sizeof(s->names[s->n]), "%s", sym);
	s->children[s->n] = children;
	s->self[s->n] = self;
	s->n++;
}

/* children: recursion counted once; self: the leaf; suffixes stripped;
 * the comm, [unknown] and [other] are no symbol; the floor. */
static void test_symbols(void **state UNUSED)
{
	static const char folded[] = "prog;main;f;g;f 3\n"    /* f twice in one stack */
				     "prog;main;g.isra.0 1\n" /* g.isra.0 is g */
				     "prog;[unknown];h.constprop.3 4\n"
				     "prog;[other] 2\n"
				     "junk line\n"; /* no count: skipped */
	struct seen s = { .n = 0 };
	long long total = perf_fold_symbols(folded, sizeof(folded) - 1, 0.0, on_sym, &s);

	assert_int_equal(total, 10);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.names[0], "f");
	assert_true(fabs(s.children[0] - 30.0) < 1e-9 && fabs(s.self[0] - 30.0) < 1e-9);
	assert_string_equal(s.names[1], "g");
	assert_true(fabs(s.children[1] - 40.0) < 1e-9 && fabs(s.self[1] - 10.0) < 1e-9);
	assert_string_equal(s.names[2], "h");
	assert_true(fabs(s.children[2] - 40.0) < 1e-9 && fabs(s.self[2] - 40.0) < 1e-9);
	assert_string_equal(s.names[3], "main");
	assert_true(fabs(s.children[3] - 40.0) < 1e-9 && fabs(s.self[3]) < 1e-9);

	/* the floor: only symbols with a share of 35 % or more */
	s.n = 0;
	assert_int_equal(perf_fold_symbols(folded, sizeof(folded) - 1, 35.0, on_sym, &s), 10);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.names[0], "g");

	s.n = 0;
	assert_int_equal(perf_fold_symbols("", 0, 0.0, on_sym, &s), 0);
	assert_int_equal(s.n, 0);
}

/* User symbols (perf_fold_syms): "[unknown] (DSO)" frames named by their
 * offset in DSO, the table's bounds and dsos kept apart, other frames left
 * as perf named them. */
static void test_user_syms(void **state UNUSED)
{
	static const char table[] = "# comment lines and junk are skipped\n"
				    "dso /cases/small-allocs\n"
				    "1600 201 main\n"
				    "1400 40 do_round\n" /* out of order: sorted on reading */
				    "4a2c0 54 __mmap64\n"
				    "4a320 21 __munmap\n"
				    "4b000 0 zero_size\n" /* size 0: skipped */
				    "nothex 10 junk\n"
				    "dso /cases/execl\n"
				    "1600 10 execl_main\n";
	static const char text[] =
		"small-allocs   90/91 \n"
		"\tffffffff81234567 do_mmap+0x10 ([kernel.kallsyms])\n"
		"\t           4a2da [unknown] (/cases/small-allocs)\n"
		"\t            1433 [unknown] (/cases/small-allocs)\n"
		"\t            1600 [unknown] (/cases/small-allocs)\n"
		"\t            1801 [unknown] (/cases/small-allocs)\n" /* past main */
		"\t    7ffd12345678 [unknown] ([unknown])\n"
		"\n"
		"execl   92/92 \n"
		"\t            1605 [unknown] (/cases/execl)\n"
		"\t            1605 [unknown] (/bin/perf)\n" /* no table */
		"\n"
		"small-allocs   90/90 \n"
		"\t           4a320 [unknown] (/cases/small-allocs)\n"
		"\t            1800 named_by_perf (/cases/small-allocs)\n";
	struct perf_fold_syms syms;
	struct perf_fold_result r;
	const struct perf_fold_sym *e;

	perf_fold_syms_parse(&syms, table, sizeof(table) - 1);
	assert_int_equal(syms.n, 5);
	e = perf_fold_syms_find(&syms, "/cases/small-allocs", 19, 0x17ff);
	assert_non_null(e);
	assert_int_equal(e->namelen, 4);
	assert_memory_equal(e->name, "main", 4);
	assert_null(perf_fold_syms_find(&syms, "/cases/small-allocs", 19, 0x1801));
	assert_null(perf_fold_syms_find(&syms, "/cases/small-allocs", 19, 0x13ff));
	assert_null(perf_fold_syms_find(&syms, "/cases/small-alloc", 18, 0x1600));
	assert_null(perf_fold_syms_find(NULL, "/cases/small-allocs", 19, 0x1600));

	assert_int_equal(perf_fold_script(text, sizeof(text) - 1, PERF_FOLD_MAX_BYTES, &syms, &r),
			 0);
	assert_int_equal(r.samples, 3);
	assert_string_equal(r.folded,
			    "execl;[unknown];execl_main 1\n"
			    "small-allocs;[unknown];[unknown];main;do_round;__mmap64;do_mmap 1\n"
			    "small-allocs;named_by_perf;__munmap 1\n");
	assert_int_equal(r.frames_named, 5);
	assert_int_equal(r.frames_unknown, 3);
	perf_fold_result_release(&r);

	/* without the table the same text keeps every user frame [unknown] */
	assert_int_equal(perf_fold_script(text, sizeof(text) - 1, PERF_FOLD_MAX_BYTES, NULL, &r),
			 0);
	assert_int_equal(r.frames_named, 0);
	assert_int_equal(r.frames_unknown, 8);
	assert_non_null(strstr(r.folded, "small-allocs;[unknown];[unknown];[unknown];[unknown];"
					 "[unknown];do_mmap 1\n"));
	perf_fold_result_release(&r);
	perf_fold_syms_release(&syms);
}

/* The guest's static perf (no ELF reader) on the host: every user frame of
 * small-allocs "[unknown] (/cases/small-allocs)" with its file offset;
 * named from the binary's table (worker/usersyms.c's, stored beside it) the
 * folded stacks are byte for byte those of Debian's perf, which reads the
 * ELF itself, on the same perf.data: all 580 frames in the binary named, the
 * 98 left "[unknown]" are in no mapping (where the frame-pointer walk ends). */
static void test_static_perf_user_frames(void **state UNUSED)
{
	size_t len, tlen, glen;
	char *text = load("perf-script-static-x86_64.txt", &len);
	char *table = load("perf-script-static-x86_64.usersyms", &tlen);
	char *want = load("perf-script-static-x86_64.folded", &glen);
	struct perf_fold_syms syms;
	struct perf_fold_result r;

	perf_fold_syms_parse(&syms, table, tlen);
	assert_int_equal(syms.n, 1270);
	assert_int_equal(perf_fold_script(text, len, PERF_FOLD_MAX_BYTES, NULL, &r), 0);
	assert_int_equal(r.samples, 100);
	assert_int_equal(r.frames_named, 0);
	assert_int_equal(r.frames_unknown, 678);
	assert_null(strstr(r.folded, ";main;"));
	perf_fold_result_release(&r);

	assert_int_equal(perf_fold_script(text, len, PERF_FOLD_MAX_BYTES, &syms, &r), 0);
	assert_int_equal(r.samples, 100);
	assert_int_equal(r.frames_named, 580);
	assert_int_equal(r.frames_unknown, 98);
	assert_int_equal(r.len, glen);
	assert_string_equal(r.folded, want);
	assert_non_null(strstr(r.folded, ";__libc_start_call_main;main;case_tasks_start;task;"
					 "__mmap64;entry_SYSCALL_64_after_hwframe;"));
	assert_non_null(strstr(r.folded, ";task;__munmap;entry_SYSCALL_64_after_hwframe;"));
	perf_fold_result_release(&r);
	perf_fold_syms_release(&syms);
	free(text);
	free(table);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_default_fields),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_user_syms),
		cmocka_unit_test(test_static_perf_user_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
