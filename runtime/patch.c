/* SPDX-License-Identifier: MIT */
/*
 * Patch areas: the call sites and entries we rewrite, and the protocol by
 * which we rewrite them.
 */
#include "internal.h"

/* For messages: buf holds 3 * n characters. */
char *mv_hex(char *buf, const uint8_t *p, size_t n)
{
	char *s = buf;

	*s = 0;
	for (size_t i = 0; i < n; i++)
		s += sprintf(s, i ? " %02x" : "%02x", p[i]);
	return buf;
}

/* The original bytes are read once: an entry's when its function is
 * merged, a site's when it is first needed (mv_check_sites).  From then on
 * they are the only bytes we accept there besides our own. */
int mv_area_capture(struct mv_area *a, void *addr, size_t len)
{
	a->addr = addr;
	a->len = len;
	a->order = MV_AREA_NO_ORDER;    /* until the platform counts it */
	if (len > (a->wide ? MV_REGION_MAX : MV_AREA_MAX) ||
	    mv_mem_read(mv_orig(a), addr, len)) {
		a->state = MV_AREA_INVALID;
		return -EFAULT;
	}
	memcpy(mv_cur(a), mv_orig(a), len);
	a->state = MV_AREA_ORIG;
	return 0;
}

/* mv_area_set() found text it did not leave there (internal.h). */
void mv_area_skip(struct mv_area *a, const char *what, const char *name)
{
	char hex[3 * MV_REGION_MAX];

	a->state = MV_AREA_SKIPPED;
	mv_report("%s %" MV_PRIaddr " of %s holds unexpected bytes %s; left alone",
		  what, (void *)a->addr, name, mv_hex(hex, a->addr, a->len));
}
