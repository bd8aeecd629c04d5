/* SPDX-License-Identifier: MIT */
/*
 * Whether the executable segments in memory equal the executable file on
 * disk: after a revert, no byte the runtime wrote (a jmp, an int3, a NOP)
 * may be left behind.  Shared by the e2e and live tests.
 */
#ifndef TEXT_H
#define TEXT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The executable file, read once; compared with the executable segments in
 * memory, so a revert that leaves any byte (a jmp, an int3, a NOP) behind
 * is caught. */
static unsigned char *text_file;
static size_t text_file_len;

static int text_segments;

static int text_cmp_segments(struct dl_phdr_info *info, size_t size, void *diffs)
{
	(void)size;     /* the executable comes first (named "" by glibc, by
			 * its path by musl); returning 1 stops at it */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (ph->p_offset + ph->p_filesz > text_file_len) {
			*(long *)diffs = -1;
			return 1;
		}
		text_segments++;
		const unsigned char *mem = (const void *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *disk = text_file + ph->p_offset;
		for (size_t j = 0; j < ph->p_filesz; j++)
			if (mem[j] != disk[j] && *(long *)diffs >= 0) {
				if (*(long *)diffs < 5)
					fprintf(stderr, "text differs at %p: %02x, file has %02x\n",
						(void *)(mem + j), mem[j], disk[j]);
				++*(long *)diffs;
			}
	}
	return 1;
}

/* Bytes of executable segments that differ from the file (-1: unreadable). */
static inline long text_diffs(void)
{
	long diffs = 0;

	if (!text_file) {
		struct stat st;
		int fd = open("/proc/self/exe", O_RDONLY);

		if (fd < 0 || fstat(fd, &st))
			return -1;
		text_file = malloc(st.st_size);
		for (ssize_t n = 1; text_file && n > 0 && text_file_len < (size_t)st.st_size;
		     text_file_len += n > 0 ? n : 0)
			n = read(fd, text_file + text_file_len, st.st_size - text_file_len);
		close(fd);
		if (!text_file || text_file_len != (size_t)st.st_size) {
			free(text_file);
			text_file = NULL;
			text_file_len = 0;
			return -1;
		}
	}
	text_segments = 0;
	dl_iterate_phdr(text_cmp_segments, &diffs);
	return text_segments ? diffs : -1;     /* nothing compared is no pass */
}

/* Where the direct branch (call or jump) at site goes, or 0. */
static inline uintptr_t text_branch_target(const void *at)
{
	const uint8_t *site = at;
#if defined(__x86_64__)
	int32_t rel;

	if (*site == 0x2e)              /* the cs prefix of a 6-byte site */
		site++;
	if (*site != 0xe8 && *site != 0xe9)
		return 0;
	memcpy(&rel, site + 1, 4);
	return (uintptr_t)site + 5 + rel;
#elif defined(__aarch64__)
	uint32_t i;

	memcpy(&i, site, 4);
	if ((i & 0x7c000000) != 0x14000000)     /* b, bl */
		return 0;
	return (uintptr_t)site + (uintptr_t)((int64_t)((uint64_t)i << 38) >> 36);
#endif
}

/* Where the runtime's far-call gate at p jumps (runtime/arch/,
 * mv_arch_gate), or p if it is no gate. */
static inline uintptr_t text_through_gate(uintptr_t p)
{
#if defined(__x86_64__)
	static const uint8_t gate[8] = { 0xff, 0x25, 0x02, 0, 0, 0, 0xcc, 0xcc };
#else
	static const uint32_t gate[2] = { 0x58000050, 0xd61f0200 };   /* ldr x16, .+8; br x16 */
#endif
	uintptr_t to;

	if (!p || memcmp((const void *)p, gate, 8))
		return p;
	memcpy(&to, (const void *)(p + 8), sizeof to);
	return to;
}

/* Whether a padded site (addr and pad from multiverse_info_site()) starts
 * with a jump over its padding, as the compiler pads with more than one
 * NOP. */
static inline int text_jumps_over_padding(const void *addr, unsigned pad)
{
	const unsigned char *p = (const unsigned char *)addr - pad;
#ifdef __aarch64__
	uint32_t i;

	memcpy(&i, p, 4);
	return i == (0x14000000u | (pad / 4));         /* b .+pad */
#else
	return p[0] == 0xeb && p[1] == pad - 2;          /* jmp rel8 */
#endif
}

/* Whether the len bytes at p are one NOP instruction. */
static inline int text_one_nop(const unsigned char *p, unsigned len)
{
#ifdef __aarch64__
	uint32_t i;

	memcpy(&i, p, 4);
	return len == 4 && i == 0xd503201f;
#else
	/* 66 and 2e prefixes, then 90, or 0f 1f with a ModRM byte of no
	 * register and 0, 1 (with SIB), 4 or 5 (with SIB) more bytes */
	unsigned n = 0, tail;

	while (n < len && (p[n] == 0x66 || p[n] == 0x2e))
		n++;
	if (n < len && p[n] == 0x90)
		return n + 1 == len;
	if (n + 3 > len || p[n] != 0x0f || p[n + 1] != 0x1f)
		return 0;
	switch (p[n + 2]) {
	case 0x00: tail = 0; break;
	case 0x40: tail = 1; break;
	case 0x44: tail = 2; break;
	case 0x80: tail = 4; break;
	case 0x84: tail = 5; break;
	default: return 0;
	}
	return n + 3 + tail == len;
#endif
}

#endif
