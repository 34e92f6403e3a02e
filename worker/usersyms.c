/*
 * usersyms: a case binary's ELF function symbols at their file offsets,
 * for the guest's /init (see usersyms.h). libelf (elfutils) reads the file.
 */
#include "usersyms.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

struct usym {
	unsigned long long off, size;
	const char *name; /* borrowed from the ELF string table */
	int bind;	  /* STB_* */
	size_t index;	  /* in the symbol table: the order for full ties */
};

static int cmp_off(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: 1 when b names the offset better than a. */
static int better(const struct usym *a, const struct usym *b)
{
	size_t ua, ub, la, lb;

	if ((a->size == 0) != (b->size == 0))
		return a->size == 0;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return a->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return b->bind == STB_GLOBAL;
	ua = underscores(a->name);
	ub = underscores(b->name);
	if (ua != ub)
		return ub < ua;
	la = strlen(a->name);
	lb = strlen(b->name);
	return lb > la;
}

/* The file offset of address addr through the PT_LOAD segment holding it. */
static int addr_to_off(Elf *elf, size_t nphdr, unsigned long long addr, unsigned long long *off)
{
	size_t i;

	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

/* The functions of the first SHT_SYMTAB in elf (n of them, new array). */
static struct usym *read_funcs(Elf *elf, size_t *n)
{
	struct usym *v = NULL;
	size_t alloc = 0, nphdr = 0;
	Elf_Scn *scn = NULL;

	*n = 0;
	if (elf_getphdrnum(elf, &nphdr))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, count;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			break;
		count = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *name;
			unsigned long long off;
			int type;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name || strchr(name, '\n') ||
			    addr_to_off(elf, nphdr, sym.st_value, &off))
				continue;
			ALLOC_GROW(v, *n + 1, alloc);
			v[*n].off = off;
			v[*n].size = sym.st_size;
			v[*n].name = name;
			v[*n].bind = GELF_ST_BIND(sym.st_info);
			v[*n].index = i;
			(*n)++;
		}
		break;
	}
	return v;
}

int usersyms_add(struct buf *out, const char *elf_path, const char *dso, struct err *e)
{
	struct usym *v;
	size_t n, i, kept = 0;
	Elf *elf;
	int fd, rc;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		err_setc(e, ERR_INTERNAL, elf_path, "libelf: %s", elf_errmsg(-1));
		return -1;
	}
	fd = open(elf_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err_setc(e, ERR_IO, elf_path, "cannot open '%s': %s", elf_path, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err_setc(e, ERR_IO, elf_path, "'%s' is not an ELF file", elf_path);
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	v = read_funcs(elf, &n);
	if (n)
		qsort(v, n, sizeof(*v), cmp_off);
	/* one entry per offset, the best name of its aliases */
	for (i = 0; i < n; i++) {
		if (kept && v[kept - 1].off == v[i].off) {
			if (better(&v[kept - 1], &v[i]))
				v[kept - 1] = v[i];
			continue;
		}
		v[kept++] = v[i];
	}
	for (i = 0; i < kept; i++)
		if (!v[i].size && i + 1 < kept)
			v[i].size = v[i + 1].off - v[i].off;
	rc = 0;
	for (i = 0; i < kept; i++) {
		if (!v[i].size)
			continue;
		if (!rc && buf_addf(out, "dso %s\n", dso))
			abort(); /* uncapped */
		if (buf_addf(out, "%llx %llx %s\n", v[i].off, v[i].size, v[i].name))
			abort();
		rc++;
	}
	free(v);
	elf_end(elf);
	close(fd);
	return rc;
}
