/* SPDX-License-Identifier: MIT */
/*
 * multiverse-precommit: the linked file, read and checked, its segments
 * mapped into this process and relocated as a dynamic linker would with
 * no symbols to look up, and what its symbol tables and relocations say.
 */
#include "precommit.h"

/* The file as read, and its headers, each checked to lie inside it. */
uint8_t *file;
size_t file_size;
const Elf64_Ehdr *eh;
const Elf64_Phdr *ph;
static const Elf64_Shdr *sh;

const void *at_offset(uint64_t off, uint64_t len, const char *what)
{
	if (off > file_size || len > file_size - off)
		fail("truncated or corrupt: no room in the file for its %s", what);
	return file + off;
}

/* The whole of the regular file name, and its size.  Failures name it,
 * unless it is the file precommitted, which every message names. */
uint8_t *read_whole(const char *name, size_t *size)
{
	const char *who = name == path ? "" : name, *sep = name == path ? "" : ": ";
	int fd = open(name, O_RDONLY);
	struct stat st;
	uint8_t *p;

	if (fd < 0 || fstat(fd, &st))
		fail("%s%s%s", who, sep, strerror(errno));
	if (!S_ISREG(st.st_mode))
		fail("%s%snot a regular file", who, sep);
	*size = st.st_size;
	p = malloc(*size ? *size : 1);
	if (!p)
		fail("out of memory");
	for (size_t got = 0; got < *size;) {
		ssize_t n = read(fd, p + got, *size - got);
		if (n <= 0)
			fail("%s%sread: %s", who, sep, n ? strerror(errno) : "file shrank");
		got += n;
	}
	close(fd);
	return p;
}

void read_file(void)
{
	file = read_whole(path, &file_size);
	eh = at_offset(0, sizeof *eh, "ELF header");
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
		fail("not an ELF file");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		fail("not a 64-bit little-endian ELF file");
	if (eh->e_machine != MV_ARCH_MACHINE)
		fail("its ELF machine is %u; this %s is for %s (%u): use the one built for "
		     "that architecture", eh->e_machine, prog, MV_ARCH_NAME, MV_ARCH_MACHINE);
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		fail("not a linked program or shared object (an object file is precommitted "
		     "after linking)");
	if (eh->e_phentsize != sizeof *ph || eh->e_shentsize != sizeof *sh || !eh->e_shnum)
		fail("has no section headers, or headers of an unknown size");
	ph = at_offset(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof *ph, "program headers");
	sh = at_offset(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *sh, "section headers");
	if (eh->e_shstrndx >= eh->e_shnum)
		fail("has no section names");
}

const char *section_name(const Elf64_Shdr *s)
{
	const Elf64_Shdr *names = &sh[eh->e_shstrndx];
	const char *p = at_offset(names->sh_offset, names->sh_size, "section names");

	if (s->sh_name >= names->sh_size || !memchr(p + s->sh_name, 0, names->sh_size - s->sh_name))
		fail("a section's name lies outside the section names");
	return p + s->sh_name;
}

const Elf64_Shdr *find_section(const char *name)
{
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (!strcmp(section_name(&sh[i]), name))
			return &sh[i];
	return 0;
}

/* Symbol k's name in the string table of symbol table s, or "" */
static const char *symbol_name(const Elf64_Shdr *s, const Elf64_Sym *sym)
{
	const Elf64_Shdr *strs = &sh[s->sh_link];
	const char *str = at_offset(strs->sh_offset, strs->sh_size, "symbol names");

	if (sym->st_name >= strs->sh_size ||
	    !memchr(str + sym->st_name, 0, strs->sh_size - sym->st_name))
		return "";
	return str + sym->st_name;
}

static int is_symbol_table(const Elf64_Shdr *s)
{
	return (s->sh_type == SHT_SYMTAB || s->sh_type == SHT_DYNSYM) &&
	       s->sh_link < eh->e_shnum && s->sh_entsize == sizeof(Elf64_Sym);
}

/* Whether a symbol table of the file defines the function name. */
int defines(const char *name)
{
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i];
		const Elf64_Sym *sym;

		if (!is_symbol_table(s))
			continue;
		sym = at_offset(s->sh_offset, s->sh_size, "symbol table");
		for (size_t k = 0; k < s->sh_size / sizeof *sym; k++)
			if (sym[k].st_shndx != SHN_UNDEF && ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC &&
			    !strcmp(symbol_name(s, &sym[k]), name))
				return 1;
	}
	return 0;
}

/* The first dynamic relocation against the symbol name: the dynamic
 * linker binds such a reference to whichever module defines the name
 * first, perhaps another. */
int relocated_against(const char *name)
{
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i];
		const Elf64_Rela *r;
		const Elf64_Sym *sym;

		if (s->sh_type != SHT_RELA || !(s->sh_flags & SHF_ALLOC) ||
		    s->sh_link >= eh->e_shnum || !is_symbol_table(&sh[s->sh_link]))
			continue;
		r = at_offset(s->sh_offset, s->sh_size, "relocations");
		sym = at_offset(sh[s->sh_link].sh_offset, sh[s->sh_link].sh_size, "symbol table");
		for (size_t k = 0; k < s->sh_size / sizeof *r; k++) {
			uint64_t n = ELF64_R_SYM(r[k].r_info);

			if (n && n < sh[s->sh_link].sh_size / sizeof *sym &&
			    !strcmp(symbol_name(&sh[s->sh_link], &sym[n]), name))
				return 1;
		}
	}
	return 0;
}

/* The file's segments in this process, at base + their addresses. */
uint8_t *base;
uint64_t lo, hi;

static int prot_of(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

void map_file(void)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *m;
	int loads = 0;

	lo = UINT64_MAX;
	hi = 0;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		at_offset(ph[i].p_offset, ph[i].p_filesz, "segment");
		if (ph[i].p_filesz > ph[i].p_memsz || ph[i].p_vaddr + ph[i].p_memsz < ph[i].p_vaddr)
			fail("a segment's sizes are corrupt");
		lo = ph[i].p_vaddr < lo ? ph[i].p_vaddr : lo;
		hi = ph[i].p_vaddr + ph[i].p_memsz > hi ? ph[i].p_vaddr + ph[i].p_memsz : hi;
		loads++;
	}
	if (!loads)
		fail("has no loadable segment");
	lo &= ~(uint64_t)(page - 1);
	hi = (hi + page - 1) & ~(uint64_t)(page - 1);
	/* A program that is not position-independent holds its own
	 * addresses: it goes where it was linked to be. */
	m = mmap(eh->e_type == ET_EXEC ? (void *)lo : 0, hi - lo, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | (eh->e_type == ET_EXEC ? MAP_FIXED_NOREPLACE : 0), -1, 0);
	if (m == MAP_FAILED || (eh->e_type == ET_EXEC && m != (uint8_t *)lo))
		fail("cannot map its segments at %#lx, where it was linked to run: %s",
		     (unsigned long)lo, m == MAP_FAILED ? strerror(errno) : "address taken");
	base = m - lo;
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			memcpy(base + ph[i].p_vaddr, file + ph[i].p_offset, ph[i].p_filesz);
}

static int is_relative(uint32_t type)
{
	return type == (MV_ARCH_MACHINE == EM_X86_64 ? R_X86_64_RELATIVE : R_AARCH64_RELATIVE);
}

int inside(uint64_t vaddr, uint64_t len)
{
	return vaddr >= lo && vaddr <= hi && len <= hi - vaddr;
}

/* The relative relocations a dynamic linker applies before anything else
 * (RELA and RELR); an executable linked to its address has none. */
void relocate(void)
{
	if (eh->e_type != ET_DYN)
		return;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i];

		if (!(s->sh_flags & SHF_ALLOC))
			continue;
		if (s->sh_type == SHT_RELA) {
			const Elf64_Rela *r = at_offset(s->sh_offset, s->sh_size, "relocations");

			for (size_t k = 0; k < s->sh_size / sizeof *r; k++) {
				uint64_t v = (uint64_t)(uintptr_t)base + r[k].r_addend;

				if (!is_relative(ELF64_R_TYPE(r[k].r_info)))
					continue;
				if (!inside(r[k].r_offset, 8))
					fail("a relocation lies outside its segments");
				memcpy(base + r[k].r_offset, &v, 8);
			}
		} else if (s->sh_type == SHT_RELR) {
			const uint64_t *r = at_offset(s->sh_offset, s->sh_size, "relocations");
			uint64_t where = 0;

			/* an address, then bitmaps of the 63 words after it */
			for (size_t k = 0; k < s->sh_size / 8; k++) {
				for (unsigned b = 0; b < 64; b++) {
					uint64_t at, v;

					if (!(r[k] & 1)) {
						if (b)
							break;
						at = r[k];
						where = at + 8;
					} else if (!b || !(r[k] >> b & 1)) {
						continue;
					} else {
						at = where + (b - 1) * 8;
					}
					if (!inside(at, 8))
						fail("a relocation lies outside its segments");
					memcpy(&v, base + at, 8);
					v += (uint64_t)(uintptr_t)base;
					memcpy(base + at, &v, 8);
				}
				if (r[k] & 1)
					where += 63 * 8;
			}
		}
	}
}

void protect(void)
{
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		uint64_t a, e;

		if (ph[i].p_type != PT_LOAD)
			continue;
		a = ph[i].p_vaddr & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
		e = (ph[i].p_vaddr + ph[i].p_memsz + sysconf(_SC_PAGESIZE) - 1) &
		    ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
		/* readable whatever the file says: this process reads it */
		mprotect(base + a, e - a, prot_of(ph[i].p_flags) | PROT_READ);
	}
}

uint64_t vaddr_of(const void *p)
{
	return (uint64_t)((const uint8_t *)p - base);
}

/* Whether the len bytes at p lie in the mapping. */
int in_file(const void *p, size_t len)
{
	const uint8_t *q = p;

	return q >= base + lo && q <= base + hi && len <= (size_t)(base + hi - q);
}

/* Whether a string starts at p and ends in the mapping. */
int string_in_file(const char *p)
{
	return in_file(p, 1) && memchr(p, 0, (size_t)((const char *)base + hi - p));
}

/* Whether the len bytes at p are code the file holds: in an executable
 * segment, within its bytes in the file. */
int code_in_file(const void *p, size_t len)
{
	uint64_t v = vaddr_of(p);

	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_flags & PF_X && v >= ph[i].p_vaddr &&
		    v - ph[i].p_vaddr <= ph[i].p_filesz && len <= ph[i].p_filesz - (v - ph[i].p_vaddr))
			return 1;
	return 0;
}

/* The type of a relocation other than a relative one that writes any of
 * the len bytes at vaddr when the file is loaded, or 0: the value there
 * is then not the file's (another symbol's address, a resolver's result,
 * a copy of another module's variable). */
uint32_t relocated_at(uint64_t vaddr, uint64_t len)
{
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i];
		const Elf64_Rela *r;

		if (s->sh_type != SHT_RELA || !(s->sh_flags & SHF_ALLOC))
			continue;
		r = at_offset(s->sh_offset, s->sh_size, "relocations");
		for (size_t k = 0; k < s->sh_size / sizeof *r; k++) {
			uint32_t type = ELF64_R_TYPE(r[k].r_info);
			uint64_t size = 8;

			if (is_relative(type) || type == 0)
				continue;
			if (type == R_COPY_HERE) {
				const Elf64_Shdr *t = s->sh_link < eh->e_shnum ? &sh[s->sh_link] : 0;
				uint64_t n = ELF64_R_SYM(r[k].r_info);

				size = 1;
				if (t && is_symbol_table(t) && n < t->sh_size / sizeof(Elf64_Sym))
					size = ((const Elf64_Sym *)at_offset(t->sh_offset, t->sh_size,
									 "symbol table"))[n].st_size;
			}
			if (r[k].r_offset < vaddr + len && vaddr < r[k].r_offset + (size ? size : 1))
				return type;
		}
	}
	return 0;
}
