/* SPDX-License-Identifier: MIT */
/*
 * Where tools outside the process find the runtime's site table, as
 * debuggers find the dynamic linker's module list through _r_debug:
 * multiverse-inspect reads it through /proc/PID/mem, without stopping the
 * process, to tell the sites the runtime left alone (skipped for their
 * bytes) from those it never had to write.
 *
 * The record describes the table rather than fixing its layout: the
 * element size and the offsets of the two fields a tool reads, and the
 * state values that mean "left alone".  Site i has a record only where
 * index[i] has the bit `built` (internal.h): a site never built was
 * never read nor written.  A tool that reads while a commit runs, or
 * while the table grows, may see a stale or half-written state; the
 * inspector says so in its documentation.  Version 2 (1 had no index:
 * every site had its record).
 */
#include "internal.h"

struct mv_debug {
	uint32_t magic;               /* "MVDB" */
	uint32_t version;
	struct mv_site *const *sites; /* &mv.sites */
	const size_t *n_sites;        /* &mv.n_sites */
	uint32_t site_size;
	uint32_t offset_addr;         /* uint8_t *: the site's first byte */
	uint32_t offset_state;        /* uint8_t: enum mv_area_state */
	uint8_t left_alone[2];        /* the states of sites never written */
	uint8_t reserved[2];
	uintptr_t *const *index;      /* &mv.index */
	uintptr_t built;              /* MV_SITE_BUILT */
};

MV_API const struct mv_debug __multiverse_debug = {
	.magic = 0x4244564d,
	.version = 2,
	.sites = &mv.sites,
	.n_sites = &mv.n_sites,
	.site_size = sizeof(struct mv_site),
	.offset_addr = offsetof(struct mv_site, area.addr),
	.offset_state = offsetof(struct mv_site, area.state),
	.left_alone = { MV_AREA_SKIPPED, MV_AREA_INVALID },
	.index = &mv.index,
	.built = MV_SITE_BUILT,
};
