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
	if (len > (a->wide ? MV_REGION_MAX : MV_AREA_MAX) ||
	    mv_mem_read(mv_orig(a), addr, len)) {
		a->state = MV_AREA_INVALID;
		return -EFAULT;
	}
	memcpy(mv_cur(a), mv_orig(a), len);
	a->state = MV_AREA_ORIG;
	return 0;
}

/*
 * The checks before any write, the same for call sites and entries:
 *  1. An area that is UNRESOLVED, INVALID or SKIPPED is never written.
 *  2. Wanting the bytes the area already holds writes nothing, unless a
 *     failed batch left the area stuck with a breakpoint (poke.c).
 *  3. Otherwise the text must still hold exactly what we last wrote there
 *     (at first, the original bytes), or for a stuck area what the failed
 *     batch may have left (mv_poke_matches).  If anything else changed
 *     it, the area becomes SKIPPED: reported now, never written again.
 *  4. The new bytes are queued; the API call writes its whole queue with
 *     the protocol of poke.c, and cur and state follow only once that
 *     succeeded.  Each area is queued at most once per API call.
 */
int mv_area_set(struct mv_area *a, const uint8_t *bytes, int state,
		const char *what, const char *name)
{
	char hex[3 * MV_REGION_MAX];

	if (a->state < MV_AREA_ORIG)
		return 0;
	if (!a->stuck && mv_same_bytes(mv_cur(a), bytes, a->len)) {
		a->state = state;
		return 0;
	}
	if (!mv_poke_matches(a)) {
		a->state = MV_AREA_SKIPPED;
		mv_report("%s %" MV_PRIaddr " of %s holds unexpected bytes %s; left alone",
			  what, (void *)a->addr, name, mv_hex(hex, a->addr, a->len));
		return 0;
	}
	return mv_poke_queue(a, bytes, state);
}
