/* SPDX-License-Identifier: MIT */
/*
 * What the files of the Linux kernel platform share among themselves.
 */
#ifndef MV_LINUX_KERNEL_H
#define MV_LINUX_KERNEL_H

#include "internal.h"

/* One area of a batch, with the bytes it gets (poke.c). */
struct mv_kernel_poke {
	uintptr_t at;                   /* area->addr: the queue sorts by it */
	struct mv_area *area;
	uint8_t bytes[MV_AREA_MAX];
	uint8_t state;
};

/* Whether a module with records has (version, machine) pairs, n of them
 * (__multiverse_version, one per unit), and every one is this runtime's:
 * 0, or -ENOEXEC, reported with who's name (unless who is NULL). */
int mv_kernel_check_versions(const u32 *pairs, unsigned int n, const char *who);

/* Writes the batch, sorted by address, with the architecture's text
 * patching (text-<arch>.c).  Returns 0, or a negative errno value
 * (reported) with nothing written. */
int mv_kernel_write_text(const struct mv_kernel_poke *p, size_t n);

#endif
