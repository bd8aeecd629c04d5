/* SPDX-License-Identifier: MIT */
/*
 * multiverse-precommit: commits a linked program or shared object at
 * build time, so that it starts as a commit at load would leave it and
 * nothing is committed when it starts (docs/precommit.md).
 *
 *   multiverse-precommit [--switch NAME]... [--dry-run] [--verbose] FILE [-o OUT]
 *
 * It maps FILE's segments into this process (relocated for an address of
 * its own, as a dynamic linker would with no symbols to look up),
 * registers its records with the runtime it is linked with, and commits
 * them: every function, or those that read the switches named.  Of what
 * that commit wrote, it keeps what the runtime can tell again from the
 * file alone: each committed function's entry, and each of its sites that
 * was the compiler's direct call or jump to it and now holds what commit
 * writes there (inlined or a direct branch).  The records say so
 * (MV_FN_PRECOMMITTED, MV_SITE_PRECOMMITTED); everything else keeps its
 * bytes, and reaches the variant through the entry.  Before writing OUT,
 * it loads the result into a child process and checks that the runtime
 * takes every precommitted function and site for committed, and that a
 * revert gives back the file's original text, byte for byte.
 *
 * Example, musl's C library, committed for one thread:
 *
 *   multiverse-precommit --switch __libc.threaded lib/libc.so
 *
 * The switches take the values FILE gives them (its data; zero in .bss).
 * FILE must carry the runtime that will read it (a static program, or a
 * library built with the runtime inside): a runtime of another version
 * might not know precommitted records.  Exit status: 0, or 1 with a
 * message on standard error, FILE unchanged.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "multiverse.h"

static const char *prog = "multiverse-precommit";
static const char *path;
static int verbose;

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", prog, path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The file as read, and its headers, each checked to lie inside it. */
static uint8_t *file;
static size_t file_size;
static const Elf64_Ehdr *eh;
static const Elf64_Phdr *ph;
static const Elf64_Shdr *sh;

static const void *at_offset(uint64_t off, uint64_t len, const char *what)
{
	if (off > file_size || len > file_size - off)
		fail("truncated or corrupt: no room in the file for its %s", what);
	return file + off;
}

static void read_file(void)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		fail("%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		fail("not a regular file");
	file_size = st.st_size;
	file = malloc(file_size ? file_size : 1);
	if (!file)
		fail("out of memory");
	for (size_t got = 0; got < file_size;) {
		ssize_t n = read(fd, file + got, file_size - got);
		if (n <= 0)
			fail("read: %s", n ? strerror(errno) : "file shrank");
		got += n;
	}
	close(fd);
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

static const char *section_name(const Elf64_Shdr *s)
{
	const Elf64_Shdr *names = &sh[eh->e_shstrndx];
	const char *p = at_offset(names->sh_offset, names->sh_size, "section names");

	if (s->sh_name >= names->sh_size || !memchr(p + s->sh_name, 0, names->sh_size - s->sh_name))
		fail("a section's name lies outside the section names");
	return p + s->sh_name;
}

static const Elf64_Shdr *find_section(const char *name)
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
static int defines(const char *name)
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
static int relocated_against(const char *name)
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
static uint8_t *base;
static uint64_t lo, hi;

static int prot_of(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

static void map_file(void)
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

static int inside(uint64_t vaddr, uint64_t len)
{
	return vaddr >= lo && vaddr <= hi && len <= hi - vaddr;
}

/* The relative relocations a dynamic linker applies before anything else
 * (RELA and RELR); an executable linked to its address has none. */
static void relocate(void)
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

static void protect(void)
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

/* The records, in the mapping. */
static struct mv_module mod;
static const Elf64_Shdr *sec_var, *sec_fn, *sec_site;

static const void *records(const Elf64_Shdr *s, size_t size, const void **end)
{
	if (!s) {
		*end = 0;
		return 0;
	}
	if (s->sh_size % size || s->sh_addr % 8 || s->sh_type == SHT_NOBITS ||
	    !inside(s->sh_addr, s->sh_size))
		fail("its section %s is corrupt", section_name(s));
	*end = base + s->sh_addr + s->sh_size;
	return base + s->sh_addr;
}

static uint64_t vaddr_of(const void *p)
{
	return (uint64_t)((const uint8_t *)p - base);
}

/* Whether the len bytes at p lie in the mapping. */
static int in_file(const void *p, size_t len)
{
	const uint8_t *q = p;

	return q >= base + lo && q <= base + hi && len <= (size_t)(base + hi - q);
}

/* Whether a string starts at p and ends in the mapping. */
static int string_in_file(const char *p)
{
	return in_file(p, 1) && memchr(p, 0, (size_t)((const char *)base + hi - p));
}

/* Whether the len bytes at p are code the file holds: in an executable
 * segment, within its bytes in the file. */
static int code_in_file(const void *p, size_t len)
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
static uint32_t relocated_at(uint64_t vaddr, uint64_t len)
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
			if (type == (MV_ARCH_MACHINE == EM_X86_64 ? R_X86_64_COPY : R_AARCH64_COPY)) {
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

/*
 * Every address the runtime will read must lie in the file, each name end
 * there, each piece of code be code the file holds: an address outside
 * is another module's (or an exported symbol a shared object resolves
 * only when it is loaded), which this process does not have.  And each
 * switch's value must be the file's.
 */
static void check_addresses(void)
{
	const char *outside = "defined in another module, or exported by a shared object "
			      "(which resolves it only when loaded)";

	for (const struct mv_desc_var *v = mod.var; v < mod.var_end; v++) {
		const char *name = mv_desc_var_name(v);
		uint32_t type;

		if (!string_in_file(name))
			fail("a switch record's name lies outside the file");
		if (v->width != 1 && v->width != 2 && v->width != 4 && v->width != 8)
			fail("switch %s: its record is corrupt", name);
		if (!in_file(mv_desc_var_addr(v), v->width))
			fail("switch %s is %s; %s commits only what one file holds", name, outside, prog);
		type = relocated_at(vaddr_of(mv_desc_var_addr(v)), v->width);
		if (type == (MV_ARCH_MACHINE == EM_X86_64 ? R_X86_64_COPY : R_AARCH64_COPY))
			fail("switch %s is another module's, copied into this one when it is "
			     "loaded: its value is not in the file", name);
		if (type)
			fail("switch %s gets its value from a relocation (type %u) when the file is "
			     "loaded, not from the file: %s cannot tell it", name, type, prog);
	}
	for (const struct mv_desc_fn *f = mod.fn; f < mod.fn_end; f++) {
		const char *name = mv_desc_fn_name(f);
		const struct mv_desc_variant *vs = mv_desc_fn_variants(f);

		if (!string_in_file(name))
			fail("a function record's name lies outside the file");
		if (!in_file(mv_desc_fn_generic(f), 1) || !code_in_file(mv_desc_fn_entry(f), MV_ARCH_ENTRY_LEN))
			fail("function %s is %s; %s commits only what one file holds", name, outside, prog);
		if (f->n_variants > (size_t)(base + hi - (const uint8_t *)vs) / sizeof *vs ||
		    (f->n_variants && !in_file(vs, f->n_variants * sizeof *vs)))
			fail("function %s: its variant records lie outside the file", name);
		for (uint32_t k = 0; k < f->n_variants; k++) {
			const struct mv_desc_guard *g = mv_desc_variant_guards(&vs[k]);
			const struct mv_desc_reloc *r = mv_desc_variant_relocs(&vs[k]);

			if (!code_in_file(mv_desc_variant_body(&vs[k]), 1) ||
			    (vs[k].inlining == MV_INLINE_OK &&
			     !code_in_file(mv_desc_variant_body(&vs[k]), (size_t)vs[k].copy_off + vs[k].copy_len + 1)) ||
			    vs[k].n_guards > (size_t)(base + hi - (const uint8_t *)g) / sizeof *g ||
			    (vs[k].n_guards && !in_file(g, vs[k].n_guards * sizeof *g)) ||
			    vs[k].n_relocs > (size_t)(base + hi - (const uint8_t *)r) / sizeof *r ||
			    (vs[k].n_relocs && !in_file(r, vs[k].n_relocs * sizeof *r)))
				fail("function %s: a variant record is corrupt or lies outside the file", name);
			for (uint32_t j = 0; j < vs[k].n_guards; j++)
				if (!in_file(mv_desc_guard_var(&vs[k], &g[j]), 1))
					fail("function %s reads a switch %s; %s commits only what one "
					     "file holds", name, outside, prog);
		}
	}
	for (const struct mv_desc_site *s = mod.site; s < mod.site_end; s++) {
		const uint8_t *at = mv_desc_site_addr(s);

		if (s->pad > MV_INLINE_MAX || !code_in_file(at - s->pad, s->pad + MV_ARCH_SITE_MIN))
			fail("a call site record (at %#lx) is corrupt or lies outside the file's code",
			     (unsigned long)vaddr_of(at));
		if (!in_file(mv_desc_site_callee(s), 1))
			fail("the call site at %#lx calls a function or switch %s; %s commits only "
			     "what one file holds", (unsigned long)vaddr_of(at), outside, prog);
	}
}

static void register_records(void)
{
	int err;

	sec_var = find_section(MV_SECTION_VAR);
	sec_fn = find_section(MV_SECTION_FN);
	sec_site = find_section(MV_SECTION_SITE);
	mod.var = records(sec_var, sizeof *mod.var, (const void **)&mod.var_end);
	mod.fn = records(sec_fn, sizeof *mod.fn, (const void **)&mod.fn_end);
	mod.site = records(sec_site, sizeof *mod.site, (const void **)&mod.site_end);
	check_addresses();
	err = __multiverse_register_module(MV_DESCRIPTOR_VERSION, MV_ARCH_MACHINE,
					   mod.var, mod.var_end, mod.fn, mod.fn_end,
					   mod.site, mod.site_end);
	if (err)
		fail("the runtime does not take its records: %s", multiverse_last_error());
}

static void *switch_named(const char *name)
{
	for (const struct mv_desc_var *v = mod.var; v < mod.var_end; v++)
		if (!strcmp(mv_desc_var_name(v), name)) {
			if (v->flags & MV_VAR_FNPTR)
				fail("switch %s is a function pointer; %s commits functions only",
				     name, prog);
			return mv_desc_var_addr(v);
		}
	fail("has no switch named %s", name);
	return 0;
}

static void commit(char **switches, int n)
{
	int err = 0;

	if (!n)
		err = multiverse_commit();
	for (int i = 0; i < n && err >= 0; i++)
		err = multiverse_commit_refs(switch_named(switches[i]));
	if (err < 0)
		fail("commit failed: %s", multiverse_last_error());
}

/* The output: the file, with what commit wrote where the runtime can
 * tell it again (precommitted), and the records saying so. */
static uint8_t *out;

static uint8_t *out_at(uint64_t vaddr, uint64_t len)
{
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr - ph[i].p_vaddr <= ph[i].p_filesz &&
		    len <= ph[i].p_filesz - (vaddr - ph[i].p_vaddr))
			return out + ph[i].p_offset + (vaddr - ph[i].p_vaddr);
	fail("an address to precommit, %#lx, has no bytes in the file", (unsigned long)vaddr);
	return 0;
}

/* The output's copy of a record that lies in section s of the mapping. */
static void *out_record(const void *rec, size_t len)
{
	return out_at(vaddr_of(rec), len);
}

static unsigned n_fns, n_sites, n_sites_all;

/* The variant whose jump commit wrote at f's entry, or -1 for none. */
static int committed_variant(const struct mv_desc_fn *f)
{
	const uint8_t *entry = mv_desc_fn_entry(f);
	const struct mv_desc_variant *vs = mv_desc_fn_variants(f);
	uint8_t jmp[MV_ARCH_ENTRY_LEN];

	if (!memcmp(entry, out_at(vaddr_of(entry), MV_ARCH_ENTRY_LEN), MV_ARCH_ENTRY_LEN))
		return -1;
	for (uint32_t k = 0; k < f->n_variants && k <= 0xffff; k++)
		if (!mv_arch_entry_jump(jmp, (uintptr_t)entry, (uintptr_t)mv_desc_variant_body(&vs[k])) &&
		    !memcmp(entry, jmp, MV_ARCH_ENTRY_LEN))
			return k;
	return -1;
}

/* Site s, calling f, precommitted to body: if commit changed it from
 * the compiler's direct call or jump to f into a form the runtime tells
 * again (mv_precommitted_form), its padding untouched, marks it and
 * takes its bytes.  A site the commit gave a copy in its padding, or left
 * alone, keeps its call, which reaches body through f's entry. */
static void take_site(const struct mv_desc_site *s, const struct mv_desc_fn *f, const void *body)
{
	const uint8_t *at = mv_desc_site_addr(s);
	uint8_t *o = out_at(vaddr_of(at), MV_ARCH_SITE_MIN);
	uint8_t orig[MV_AREA_MAX];
	struct mv_insn insn, again;
	struct mv_desc_site *rec;

	n_sites_all++;
	/* a padded site, only if its padding kept the compiler's NOPs
	 * (commit did not copy a variant there) */
	if (!memcmp(at, o, MV_ARCH_SITE_MIN) || s->pad > MV_INLINE_MAX ||
	    memcmp(at - s->pad, out_at(vaddr_of(at) - s->pad, s->pad), s->pad) ||
	    mv_arch_decode(o, MV_ARCH_SITE_MIN, (uintptr_t)at, &insn) ||
	    insn.indirect || insn.len != MV_ARCH_SITE_MIN ||
	    insn.ref != (uintptr_t)mv_desc_fn_generic(f) ||
	    mv_precommitted_form(at, (uintptr_t)at, insn.is_jmp, insn.ref, body, orig, &again) < 0 ||
	    memcmp(orig, o, MV_ARCH_SITE_MIN))
		return;
	memcpy(o, at, MV_ARCH_SITE_MIN);
	rec = out_record(s, sizeof *s);
	rec->flags |= MV_SITE_PRECOMMITTED | (insn.is_jmp ? MV_SITE_PRECOMMITTED_JMP : 0);
	n_sites++;
}

/* Whether variant v is a probe's for "not NULL" (a guard on a
 * function-pointer switch other than NULL's): its calls through that
 * switch are bound by a commit of the switch, which this tool does not
 * keep, so the variant is not precommitted.  The variant for NULL calls
 * nothing through it. */
static int probes(const struct mv_desc_variant *v)
{
	const struct mv_desc_guard *g = mv_desc_variant_guards(v);

	for (uint32_t j = 0; j < v->n_guards; j++)
		for (const struct mv_desc_var *x = mod.var; x < mod.var_end; x++)
			if (x->flags & MV_VAR_FNPTR && mv_desc_var_addr(x) == mv_desc_guard_var(v, &g[j]) &&
			    (g[j].low || g[j].high))
				return 1;
	return 0;
}

static int by_callee(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)mv_desc_site_callee(*(const struct mv_desc_site *const *)a);
	uintptr_t y = (uintptr_t)mv_desc_site_callee(*(const struct mv_desc_site *const *)b);

	return x < y ? -1 : x > y;
}

static void precommit(void)
{
	size_t n = mod.site_end - mod.site;
	const struct mv_desc_site **sites = malloc((n ? n : 1) * sizeof *sites);

	out = malloc(file_size);
	if (!out || !sites)
		fail("out of memory");
	memcpy(out, file, file_size);
	for (size_t i = 0; i < n; i++)
		sites[i] = &mod.site[i];
	qsort(sites, n, sizeof *sites, by_callee);
	for (const struct mv_desc_fn *f = mod.fn; f < mod.fn_end; f++) {
		int k = f->flags & MV_FN_PLAIN ? -1 : committed_variant(f);
		struct mv_desc_fn *rec;

		if (k < 0 || probes(&mv_desc_fn_variants(f)[k]))
			continue;
		memcpy(out_at(vaddr_of(mv_desc_fn_entry(f)), MV_ARCH_ENTRY_LEN),
		       mv_desc_fn_entry(f), MV_ARCH_ENTRY_LEN);
		rec = out_record(f, sizeof *f);
		rec->flags = (rec->flags & ~MV_FN_PRECOMMITTED_MASK) | MV_FN_PRECOMMITTED |
			     (uint32_t)k << MV_FN_PRECOMMITTED_SHIFT;
		n_fns++;
		if (verbose)
			fprintf(stderr, "%s: %s: %s: variant %d\n", prog, path, mv_desc_fn_name(f), k);
		/* its sites: the run of them that call its generic */
		size_t a = 0, b = n;
		while (a < b) {
			size_t m = a + (b - a) / 2;
			if ((uintptr_t)mv_desc_site_callee(sites[m]) < (uintptr_t)mv_desc_fn_generic(f))
				a = m + 1;
			else
				b = m;
		}
		for (; a < n && mv_desc_site_callee(sites[a]) == mv_desc_fn_generic(f); a++)
			take_site(sites[a], f, mv_desc_variant_body(&mv_desc_fn_variants(f)[k]));
	}
	free(sites);
}

/* The first byte of the executable segments that differs from ref's,
 * or 0 if none: *at is its address. */
static int text_differs(const uint8_t *ref, uint64_t *at)
{
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		for (uint64_t o = 0; o < ph[i].p_filesz; o++)
			if (base[ph[i].p_vaddr + o] != ref[ph[i].p_offset + o]) {
				*at = ph[i].p_vaddr + o;
				return 1;
			}
	}
	return 0;
}

static void commit(char **switches, int n);

/*
 * The check before the output replaces anything: this program again, in
 * a fresh process (--check), loads the output as the file was loaded and
 * asks its runtime what it finds.  Every precommitted function must read
 * as committed to its variant, none of its sites left alone; the same
 * commit as the precommit's must then write nothing, as a commit at
 * load would have left nothing to do; and a revert must give back the
 * original file's text, byte for byte.
 */
static int check(const char *original, char **switches, int n_switches)
{
	int fd = open(original, O_RDONLY);
	uint8_t *orig = malloc(file_size);
	size_t got = 0;
	uint64_t at;

	while (fd >= 0 && orig && got < file_size) {
		ssize_t n = read(fd, orig + got, file_size - got);
		if (n <= 0)
			break;
		got += n;
	}
	if (got != file_size)
		fail("check: cannot read %s", original);
	for (const struct mv_desc_fn *f = mod.fn; f < mod.fn_end; f++) {
		int k = mv_desc_fn_precommitted(f);
		const struct mv_info_fn *info;

		if (k < 0)
			continue;
		info = multiverse_info_fn(mv_desc_fn_generic(f));
		if (!info || !info->committed || info->n_sites_skipped ||
		    info->active != mv_desc_variant_body(&mv_desc_fn_variants(f)[k]))
			fail("check: %s does not read as committed to variant %d",
			     mv_desc_fn_name(f), k);
	}
	/* a commit at load would have found what precommit kept committed
	 * already (the rest, calls left to reach variants through the
	 * entries, it writes) */
	commit(switches, n_switches);
	for (const struct mv_desc_fn *f = mod.fn; f < mod.fn_end; f++) {
		const uint8_t *entry = mv_desc_fn_entry(f);
		int k = mv_desc_fn_precommitted(f);

		if (k < 0)
			continue;
		if (memcmp(entry, out_at(vaddr_of(entry), MV_ARCH_ENTRY_LEN), MV_ARCH_ENTRY_LEN) ||
		    multiverse_info_fn(mv_desc_fn_generic(f))->active !=
		    mv_desc_variant_body(&mv_desc_fn_variants(f)[k]))
			fail("check: committing it again changed %s", mv_desc_fn_name(f));
	}
	for (const struct mv_desc_site *st = mod.site; st < mod.site_end; st++) {
		const uint8_t *a = mv_desc_site_addr(st);

		if (st->flags & MV_SITE_PRECOMMITTED &&
		    memcmp(a, out_at(vaddr_of(a), MV_ARCH_SITE_MIN), MV_ARCH_SITE_MIN))
			fail("check: committing it again changed the call site at %#lx",
			     (unsigned long)vaddr_of(a));
	}
	if (multiverse_revert() < 0)
		fail("check: revert failed: %s", multiverse_last_error());
	if (text_differs(orig, &at))
		fail("check: after a revert, the byte at %#lx is %02x, not as in %s",
		     (unsigned long)at, base[at], original);
	return 0;
}

/* The switches the check commits, as the precommit did. */
static char **check_switches;
static int n_check_switches;

/* Runs check() on tmp, in a fresh process of this program. */
static int checked(const char *tmp)
{
	pid_t pid;
	int status;

	fflush(stderr);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (!pid) {
		/* --check ORIGINAL OUTPUT [SWITCH...] */
		char **argv = calloc(n_check_switches + 5, sizeof *argv);

		if (argv) {
			argv[0] = (char *)prog;
			argv[1] = "--check";
			argv[2] = (char *)path;
			argv[3] = (char *)tmp;
			memcpy(argv + 4, check_switches, n_check_switches * sizeof *argv);
			execv("/proc/self/exe", argv);
		}
		_exit(127);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status);
}

/* The file being written, removed if a signal ends this process. */
static char *tmp;

static void remove_tmp(int sig)
{
	if (tmp)
		unlink(tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A file beside dst (a dry run's: in $TMPDIR), open for writing. */
static int create_tmp(const char *dst, int dry_run)
{
	const char *dir = getenv("TMPDIR");
	const char *stem = dry_run ? (dir && *dir ? dir : "/tmp") : dst;
	const char *tail = dry_run ? "/multiverse-precommit-XXXXXX" : ".precommit-XXXXXX";
	size_t a = strlen(stem), b = strlen(tail);
	int fd;

	tmp = malloc(a + b + 1);
	if (!tmp)
		fail("out of memory");
	memcpy(tmp, stem, a);
	memcpy(tmp + a, tail, b + 1);
	signal(SIGINT, remove_tmp);
	signal(SIGTERM, remove_tmp);
	signal(SIGHUP, remove_tmp);
	fd = mkstemp(tmp);
	if (fd < 0)
		fail("cannot create a file beside %s: %s", dst, strerror(errno));
	return fd;
}

static void drop_tmp(void)
{
	unlink(tmp);
	free(tmp);
	tmp = 0;
}

/* Writes out to output (NULL: the file itself; a symbolic link's
 * target) through a file beside it, synced, with the input's mode and,
 * as far as this process may, owner; it must pass check() first if
 * verify says so.  Extended attributes are not kept. */
static void write_output(const char *output, int dry_run, int verify)
{
	char *dst = realpath(output ? output : path, 0);
	struct stat st;
	int fd;

	if (!dst && output && errno == ENOENT)
		dst = strdup(output);
	if (!dst)
		fail("%s: %s", output ? output : path, strerror(errno));
	fd = create_tmp(dst, dry_run);
	if (!stat(path, &st)) {
		if (fchown(fd, st.st_uid, st.st_gid))
			(void)0;        /* another owner's file: ours is as good */
		fchmod(fd, st.st_mode & 07777);
	}
	for (size_t done = 0; done < file_size;) {
		ssize_t n = write(fd, out + done, file_size - done);
		if (n <= 0) {
			drop_tmp();
			fail("write %s: %s", dst, n ? strerror(errno) : "nothing written");
		}
		done += n;
	}
	if (fsync(fd) || close(fd)) {
		drop_tmp();
		fail("write %s: %s", dst, strerror(errno));
	}
	if (verify && !checked(tmp)) {
		drop_tmp();
		fail("the precommitted file did not pass its check (above); %s is unchanged", dst);
	}
	if (dry_run) {
		drop_tmp();
		return;
	}
	if (rename(tmp, dst)) {
		drop_tmp();
		fail("rename to %s: %s", dst, strerror(errno));
	}
	free(tmp);
	tmp = 0;
	free(dst);
}

/* Whether a function record says the file was precommitted before. */
static int precommitted_already(void)
{
	const Elf64_Shdr *s = find_section(MV_SECTION_FN);
	const struct mv_desc_fn *f = at_offset(s->sh_offset, s->sh_size, "function records");

	if (s->sh_type == SHT_NOBITS)
		fail("its section %s holds no bytes", MV_SECTION_FN);
	for (size_t i = 0; i < s->sh_size / sizeof *f; i++)
		if (f[i].flags & MV_FN_PRECOMMITTED)
			return 1;
	return 0;
}

static void load(void)
{
	map_file();
	relocate();
	protect();
	register_records();
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [--switch NAME]... [--dry-run] [--verbose] FILE [-o OUT]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	char **switches = calloc(argc, sizeof *switches);
	const char *output = 0;
	int n_switches = 0, dry_run = 0;

	if (argc >= 4 && !strcmp(argv[1], "--check")) {
		path = argv[3];
		read_file();
		out = file;             /* the output, to compare with */
		load();
		return check(argv[2], argv + 4, argc - 4);
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--switch") && i + 1 < argc)
			switches[n_switches++] = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			output = argv[++i];
		else if (!strcmp(argv[i], "--dry-run") || !strcmp(argv[i], "-n"))
			dry_run = 1;
		else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v"))
			verbose = 1;
		else if (argv[i][0] == '-' || path)
			usage();
		else
			path = argv[i];
	}
	if (!path)
		usage();
	read_file();
	if (!find_section(MV_SECTION_FN)) {
		if (n_switches)
			fail("has no multiversed function, so no switch %s to commit", switches[0]);
		if (verbose)
			fprintf(stderr, "%s: %s: no multiversed function: nothing to precommit\n", prog, path);
		out = file;
		if (output && !dry_run)
			write_output(output, 0, 0);
		return 0;
	}
	if (precommitted_already()) {
		fprintf(stderr, "%s: %s: already precommitted; left as it is (precommit the file "
			"as linked to commit something else)\n", prog, path);
		out = file;
		if (output && !dry_run)
			write_output(output, 0, 0);
		return 0;
	}
	if (!defines("__multiverse_reads_precommitted"))
		fail("does not carry a runtime that reads precommitted records (no such symbol: "
		     "__multiverse_reads_precommitted); precommit only a program or library "
		     "that links the runtime in, and before stripping it");
	/* a shared object's registration, reached through a relocation,
	 * may reach another module's runtime, which might not read what
	 * this one does */
	if (relocated_against("__multiverse_register_module"))
		fail("calls __multiverse_register_module through a dynamic relocation: its "
		     "records would go to whichever runtime the dynamic linker finds first, "
		     "perhaps one that does not read precommitted records; link it with "
		     "-Wl,-Bsymbolic-functions, or keep the runtime's symbols inside it");
	load();
	commit(switches, n_switches);
	precommit();
	check_switches = switches;
	n_check_switches = n_switches;
	write_output(output, dry_run, 1);
	if (verbose || dry_run)
		fprintf(stderr, "%s: %s: %u functions precommitted, %u of their %u sites%s\n",
			prog, path, n_fns, n_sites, n_sites_all, dry_run ? " (dry run: nothing written)" : "");
	return 0;
}
