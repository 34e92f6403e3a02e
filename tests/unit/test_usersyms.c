/*
 * Tests of worker/usersyms (a case binary's function symbols at their file
 * offsets, read with libelf) together with their reader in
 * lib/parse/perf_fold (perf_fold_syms, what the guest's /init does with
 * the table): the real small-allocs binaries the Makefile builds for
 * x86_64 and aarch64 (check-unit builds them first). The expected names
 * and addresses come from the binary itself, read here on libelf's
 * symbol-by-symbol path (gelf_getsym by name, the address converted with the
 * program headers), not from the module's table. Run from the repo root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attr.h"
#include "buf.h"
#include "err.h"
#include "parse/perf_fold.h"
#include "worker/usersyms.h"

#define DSO "/cases/small-allocs"

struct elf_facts {
	int type;		   /* e_type */
	unsigned long long off[4]; /* file offsets of the names below */
	unsigned long long size[4];
};

/* The names the test looks up: the case's own main and do_round, libc's
 * mmap and munmap (their aliases' best names, as perf chooses them). */
static const char *const names[4] = { "main", "do_round", "__mmap64", "__munmap" };

/* Reads path's ELF type and, for each of names[], its symbol's address
 * converted to a file offset through the PT_LOAD that holds it. */
static void facts(const char *path, struct elf_facts *f)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t nph, i, k;

	if (fd < 0)
		fail_msg("no '%s' (make cases; run from the repo root)", path);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_non_null(gelf_getehdr(elf, &eh));
	f->type = eh.e_type;
	assert_int_equal(elf_getphdrnum(elf, &nph), 0);
	memset(f->off, 0xff, sizeof(f->off));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		assert_non_null(gelf_getshdr(scn, &sh));
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *nm;

			assert_non_null(gelf_getsym(d, (int)i, &s));
			nm = elf_strptr(elf, sh.sh_link, s.st_name);
			for (k = 0; k < 4; k++) {
				size_t p;

				if (!nm || strcmp(nm, names[k]))
					continue;
				for (p = 0; p < nph; p++) {
					GElf_Phdr ph;

					assert_non_null(gelf_getphdr(elf, (int)p, &ph));
					if (ph.p_type == PT_LOAD && s.st_value >= ph.p_vaddr &&
					    s.st_value < ph.p_vaddr + ph.p_filesz)
						f->off[k] = s.st_value - ph.p_vaddr + ph.p_offset;
				}
				f->size[k] = s.st_size;
			}
		}
	}
	for (k = 0; k < 4; k++)
		if (f->off[k] == ~0ull)
			fail_msg("'%s' has no symbol '%s'", path, names[k]);
	elf_end(elf);
	close(fd);
}

static void check_binary(const char *path)
{
	struct buf table = BUF_INIT(0), script = BUF_INIT(0);
	struct perf_fold_syms syms;
	struct perf_fold_result r;
	struct elf_facts f;
	struct err e;
	int n, k;

	facts(path, &f);
	/* Debian's gcc -static: not PIE, so file offset = address - 0x400000 */
	assert_int_equal(f.type, ET_EXEC);
	n = usersyms_add(&table, path, DSO, &e);
	assert_true(n > 500); /* the case and static libc: about 1500 functions */
	assert_memory_equal(table.data, "dso " DSO "\n", strlen("dso " DSO "\n"));
	perf_fold_syms_parse(&syms, table.data, table.len);
	assert_int_equal(syms.n, n);

	for (k = 0; k < 4; k++) {
		const struct perf_fold_sym *s;

		assert_true(f.size[k] > 1);
		/* the first byte, one in the middle, the last */
		s = perf_fold_syms_find(&syms, DSO, strlen(DSO), f.off[k]);
		assert_non_null(s);
		assert_int_equal(s->namelen, strlen(names[k]));
		assert_memory_equal(s->name, names[k], s->namelen);
		s = perf_fold_syms_find(&syms, DSO, strlen(DSO), f.off[k] + f.size[k] / 2);
		assert_non_null(s);
		assert_memory_equal(s->name, names[k], s->namelen);
		s = perf_fold_syms_find(&syms, DSO, strlen(DSO), f.off[k] + f.size[k] - 1);
		assert_non_null(s);
		assert_memory_equal(s->name, names[k], s->namelen);
	}
	/* the ELF header is no function; another dso has no table */
	assert_null(perf_fold_syms_find(&syms, DSO, strlen(DSO), 0x10));
	assert_null(perf_fold_syms_find(&syms, "/cases/execl", 12, f.off[0]));

	/* a sample as the guest's perf script prints it: user frames as
	 * offsets into the binary, kernel frames named from kallsyms */
	if (buf_addf(&script,
		     "small-allocs    77/78\n"
		     "\tffffffff8118a3b0 do_mmap+0x10 ([kernel.kallsyms])\n"
		     "\tffffffff81c0008a entry_SYSCALL_64_after_hwframe+0x63 ([kernel.kallsyms])\n"
		     "\t%16llx [unknown] (" DSO ")\n"
		     "\t%16llx [unknown] (" DSO ")\n"
		     "\t%16llx [unknown] (" DSO ")\n"
		     "\t    7ffc0badf00d [unknown] ([unknown])\n\n",
		     f.off[2] + 0x1a, f.off[1] + 0x20, f.off[0] + 0x31))
		abort();
	assert_int_equal(perf_fold_script(script.data, script.len, PERF_FOLD_MAX_BYTES, &syms, &r),
			 0);
	assert_string_equal(r.folded, "small-allocs;[unknown];main;do_round;__mmap64;"
				      "entry_SYSCALL_64_after_hwframe;do_mmap 1\n");
	assert_int_equal(r.frames_named, 3);
	assert_int_equal(r.frames_unknown, 1);
	perf_fold_result_release(&r);
	perf_fold_syms_release(&syms);
	buf_release(&script);
	buf_release(&table);
}

static void test_x86_64(void **state UNUSED)
{
	check_binary("bin/cases/x86_64/small-allocs");
}

static void test_aarch64(void **state UNUSED)
{
	if (access("bin/cases/aarch64/small-allocs", R_OK)) {
		fprintf(stderr, "no bin/cases/aarch64/small-allocs (no aarch64-linux-gnu-gcc)\n");
		skip();
	}
	check_binary("bin/cases/aarch64/small-allocs");
}

/* A file that is no ELF, or none at all, is refused naming it. */
static void test_not_elf(void **state UNUSED)
{
	struct buf table = BUF_INIT(0);
	struct err e;
	char path[] = "/tmp/regtrack-usersyms-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	assert_int_equal(usersyms_add(&table, path, DSO, &e), -1);
	assert_int_equal(e.id, ERR_IO);
	assert_string_equal(e.detail, path);
	assert_int_equal(table.len, 0);
	unlink(path);

	assert_int_equal(usersyms_add(&table, "/nonexistent/x", DSO, &e), -1);
	assert_int_equal(e.id, ERR_IO);
	assert_string_equal(e.detail, "/nonexistent/x");
	buf_release(&table);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_64),
		cmocka_unit_test(test_aarch64),
		cmocka_unit_test(test_not_elf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
