#ifndef REGTRACK_WORKER_USERSYMS_H
#define REGTRACK_WORKER_USERSYMS_H

/*
 * usersyms: the function symbols of a case binary as the guest's /init
 * names user frames with them. The guest's perf is a static
 * build without an ELF reader, so it names kernel frames only; the worker
 * reads each case binary's ELF symbol table here, on the host, with libelf,
 * and packs the table in the initramfs of a profiled boot
 * (/regtrack/usersyms; its format and its reader: lib/parse/perf_fold.h,
 * struct perf_fold_syms).
 *
 * Each function (STT_FUNC and STT_GNU_IFUNC, defined) is written at its
 * file offset, the address converted through the PT_LOAD segment that holds
 * it, because perf script prints a user frame's ip as the offset into the
 * mapped file; so ET_EXEC and ET_DYN (PIE) binaries need no load base. Of
 * aliases at one offset (libc's mmap, __mmap, mmap64, __mmap64) the name is
 * chosen by perf's own rules (tools/perf/util/symbol.c choose_best_symbol:
 * non-weak over weak, global over local, fewer leading underscores, the
 * longer name), so a guest profile names a frame as the host's perf does.
 * A symbol of size 0 extends to the next one, as perf's symbols__fixup_end
 * does. A binary without a symbol table (stripped) gives no entries.
 */

#include "buf.h"
#include "err.h"

/*
 * Appends the table of ELF file elf_path to out: a "dso DSO" line, then one
 * "OFF SIZE NAME" line (hex) per function, sorted by OFF. dso is the name
 * perf gives the binary in the guest (the path it runs from, e.g.
 * "/cases/small-allocs"; no newline). Returns the number of functions
 * written (0: no symbol table; then nothing is appended), or -1 with e
 * filled (ERR_IO, detail elf_path: the file cannot be opened or is not
 * ELF).
 */
int usersyms_add(struct buf *out, const char *elf_path, const char *dso, struct err *e)
	__attribute__((warn_unused_result));

#endif
