/* SPDX-License-Identifier: MIT */
/*
 * Writing patch areas in the x86 kernel, through the kernel's own text
 * patching (arch/x86/kernel/alternative.c).  The only file of the kernel
 * platform that knows the architecture; poke.c queues the areas.
 *
 * The protocol is the kernel's, not ours: each API call queues its areas
 * in address order with text_poke_queue() and writes them with
 * text_poke_finish(), under text_mutex.  For a batch (up to a page of
 * areas; a larger one is split by the kernel) it writes int3 over the
 * first byte of every area, syncs every CPU (an IPI that runs
 * sync_core()), writes the remaining bytes, syncs, writes the first
 * bytes, and syncs.  A CPU that meets an int3 meanwhile, in any context,
 * NMIs included, has the area's new instruction emulated by
 * poke_int3_handler(); so every execution of an area runs its old or its
 * new instruction, never a mix.  These are the same rules the user-space
 * protocol relies on (docs/patching.md): int3 is one byte, and a CPU
 * that serialized after a write fetches no older bytes.
 *
 * The int3 handler emulates only some instructions, and text_poke_queue()
 * BUG()s on any other: call and jmp rel32, and the kernel's 5-byte NOP,
 * each as long as the area.  The runtime writes nothing else here
 * (mv_poke_writable): an area whose old or new bytes are another
 * instruction is left as it is, or bound by a call instead of an inlined
 * body.  The kernel's writes do not fail (they BUG), so no batch is left
 * half written and no area is ever stuck; a batch is refused whole if an
 * area changed under it (write_live).
 *
 * Before the scheduler runs (SYSTEM_BOOTING, in start_kernel(): one CPU,
 * the text not yet read-only) the areas are written by text_poke_early(),
 * as the kernel applies its alternatives then.  From rest_init() on,
 * early initcalls included, the live protocol above is used: with one CPU
 * online its syncs cost next to nothing.
 */
#include <linux/kernel.h>
#include <linux/memory.h>
#include <linux/mutex.h>
#include <asm/nops.h>
#include <asm/text-patching.h>

#include "internal.h"
#include "linux-kernel.h"

int mv_poke_writable(const uint8_t *bytes, size_t len)
{
	return len == 5 && (bytes[0] == 0xe8 || bytes[0] == 0xe9 ||
			    !memcmp(bytes, x86_nops[5], 5));
}

/* text_poke_early() is __init_or_module: gone after boot without
 * modules, when it is never called. */
static void __ref write_early(const struct mv_kernel_poke *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		text_poke_early(p[i].area->addr, p[i].bytes, p[i].area->len);
}

/* The core checked every area's bytes without text_mutex; another
 * writer of the kernel's text (a kprobe, say) may have changed one
 * since.  Under the mutex nobody else writes: checked again there, the
 * batch is written whole or, if any area changed, not at all. */
static int write_live(const struct mv_kernel_poke *p, size_t n)
{
	char hex[3 * MV_AREA_MAX];

	mutex_lock(&text_mutex);
	for (size_t i = 0; i < n; i++)
		if (!mv_area_matches(p[i].area)) {
			mutex_unlock(&text_mutex);
			return mv_error(-EBUSY, "area at %pS changed while it was checked: it holds %s; nothing was written",
					p[i].area->addr, mv_hex(hex, p[i].area->addr, p[i].area->len));
		}
	for (size_t i = 0; i < n; i++)
		text_poke_queue(p[i].area->addr, p[i].bytes, p[i].area->len, NULL);
	text_poke_finish();
	mutex_unlock(&text_mutex);
	return 0;
}

int mv_kernel_write_text(const struct mv_kernel_poke *p, size_t n)
{
	if (system_state == SYSTEM_BOOTING) {
		write_early(p, n);
		return 0;
	}
	return write_live(p, n);
}
