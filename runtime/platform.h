/* SPDX-License-Identifier: MIT */
/*
 * The interface between the portable core of the runtime and a platform,
 * one folder of runtime/platform/ each:
 *   linux-user/    Linux processes: writes its own text through
 *                  /proc/self/mem with a breakpoint protocol (poke.c);
 *   linux-kernel/  the Linux kernel: writes text through the kernel's
 *                  text_poke_queue()/text_poke_finish().
 *
 * A platform gives the core its C environment (env.h, found on the
 * include path), a lock, a way to print, memory reads that may fail, the
 * bounds of a module, far-call gates, and the protocol that writes a
 * batch of patch areas (the mv_poke_* calls).
 */
#ifndef MV_PLATFORM_H
#define MV_PLATFORM_H

#include "env.h"

struct mv_area;

/* The lock every API call holds (internal.h: "guarded by mv_lock"). */
void mv_lock(void);
void mv_unlock(void);

/* Prints one message of the runtime, without its "multiverse: " prefix. */
void mv_print(const char *msg);

/* The address ranges of the loaded module (executable, shared object,
 * vmlinux or kernel module) that contains inside: up to max of them;
 * returns how many. */
struct mv_span {
	uintptr_t lo, hi;
};
#define MV_SPANS_MAX 16
size_t mv_module_spans(const void *inside, struct mv_span *spans, size_t max);

/* Whether the module that contains inside stays as long as the runtime
 * can run: the program itself, whose memory goes only with the process,
 * or the module the runtime is linked into (a C library's), which goes
 * only with the runtime.  The caller holds the lock. */
int mv_module_stays(const void *inside);

/* For multiverse_redirect() (redirect.c; user space only, the kernel
 * has livepatch): whether p lies in the executable code of a loaded
 * module; whether it lies in the runtime's own module, where the runtime
 * is one (a shared library); and keeping p's module loaded for good,
 * since its unloading would go unseen: 0 or a negative errno value. */
int mv_is_code(const void *p);
int mv_in_runtime_module(const void *p);
int mv_module_pin(const void *p);

/* Copies len bytes from src, which may be unmapped.  Returns 0, or a
 * negative errno value (not reported). */
int mv_mem_read(void *dst, const void *src, size_t len);

/* Relearns which memory is mapped, for mv_mem_read(); call it whenever
 * modules may have been loaded or unloaded. */
void mv_mem_refresh(void);

/* A module is going: what is mapped is learnt again before the next
 * read, not now (its destructor runs while it is still listed). */
void mv_mem_forget(void);

/* A far-call gate (mv_arch_gate) to target, within MV_ARCH_GATE_REACH of
 * near: one already there, or a new one, complete before this returns;
 * NULL if the platform has none or no room near.  A gate never changes
 * and is never freed, since a thread may be inside it at any time.  The
 * caller holds the lock. */
const void *mv_gate(uintptr_t near, const void *target);

/*
 * Writing patch areas: every area one API call changes is queued, then
 * the queue is written as one batch while other threads or CPUs may run
 * it.  Each platform documents its protocol where it defines these.
 */
/* Makes room, before the tables grow to n_areas areas, for everything a
 * batch needs, so that no batch allocates.  0 or -ENOMEM. */
int mv_poke_reserve(size_t n_areas);
/* Queues bytes (a->len of them) for a; state follows once written. */
int mv_poke_queue(struct mv_area *a, const uint8_t *bytes, int state);
/* Whether the protocol can write bytes (len of them) as an area's old or
 * new instruction; the core chooses no form it cannot.  Asked for every
 * site of every batch: a platform that writes any form says so in its
 * env.h (MV_PLATFORM_WRITES_ANY), and the question costs nothing. */
#if MV_PLATFORM_WRITES_ANY
static inline int mv_poke_writable(const uint8_t *bytes, size_t len)
{
	(void)bytes, (void)len;
	return 1;
}
#else
int mv_poke_writable(const uint8_t *bytes, size_t len);
#endif
int mv_poke_copies_allowed(void);
/* Writes the queue: all of it, or nothing that runs differently. */
int mv_poke_flush(void);
/* Drops the queue unwritten. */
void mv_poke_cancel(void);
/* The areas inside spans are gone with their module. */
void mv_poke_forget(const struct mv_span *spans, size_t n);
/* The tables' set of areas changed (tables.c, mv_link). */
void mv_poke_areas_changed(void);
/* Areas a failed batch left mid-protocol, rewritten by later batches. */
extern size_t mv_poke_n_stuck;
/* The last failed batch took effect (its new code is what runs). */
extern int mv_poke_forward;
/* Set around a batch that may not be rolled back (unloading). */
extern int mv_poke_must_forward;

#endif
