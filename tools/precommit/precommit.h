/* SPDX-License-Identifier: MIT */
/*
 * multiverse-precommit (docs/precommit.md): what its files share.
 *   elf.c      the linked file: read, checked, mapped, relocated
 *   records.c  its descriptor records: checked and registered
 *   keep.c     what the output keeps of the commit, marked in the records
 *   main.c     the command: commit, the check in a fresh process, writing
 * It is built with the runtime (libmultiverse.a) and its internal header,
 * for the architecture of the files it precommits.
 */
#ifndef MV_PRECOMMIT_H
#define MV_PRECOMMIT_H

#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "multiverse.h"

/* main.c */
extern const char *prog, *path;
extern int verbose;
__attribute__((noreturn, format(printf, 1, 2))) void fail(const char *fmt, ...);

/* elf.c: the file as read, its segments at base + their addresses
 * (lo to hi, page-aligned) */
extern uint8_t *file;
extern size_t file_size;
extern const Elf64_Ehdr *eh;
extern const Elf64_Phdr *ph;
extern uint8_t *base;
extern uint64_t hi;
uint8_t *read_whole(const char *name, size_t *size);
void read_file(void);
const void *at_offset(uint64_t off, uint64_t len, const char *what);
const char *section_name(const Elf64_Shdr *s);
const Elf64_Shdr *find_section(const char *name);
int defines(const char *name);
int relocated_against(const char *name);
uint32_t relocated_at(uint64_t vaddr, uint64_t len);
void map_file(void);
void relocate(void);
void protect(void);
int inside(uint64_t vaddr, uint64_t len);
uint64_t vaddr_of(const void *p);
int in_file(const void *p, size_t len);
int string_in_file(const char *p);
int code_in_file(const void *p, size_t len);
/* the architecture's copy relocation, which fills a switch from another
 * object at load */
#define R_COPY_HERE (MV_ARCH_MACHINE == EM_X86_64 ? R_X86_64_COPY : R_AARCH64_COPY)

/* records.c */
extern struct mv_module mod;
void register_records(void);
void *switch_named(const char *name);
int precommitted_already(void);

/* keep.c: the output, and what it precommitted */
extern uint8_t *out;
extern unsigned n_fns, n_sites, n_sites_all;
uint8_t *out_at(uint64_t vaddr, uint64_t len);
void precommit(void);

#endif
