/* SPDX-License-Identifier: MIT */
/*
 * The operating-system interface: writing text, synchronizing the other
 * threads' instruction fetch, and catching the breakpoint traps of the
 * patching protocol (runtime/poke.c).
 */
#ifndef MV_PLATFORM_H
#define MV_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* Opens the way to write code (again after fork(), or after a failure).
 * Returns 0, or a negative errno value (reported); called before a batch
 * writes anything. */
int mv_text_ready(void);

/* Closes what mv_text_ready() opened; called after each batch. */
void mv_text_done(void);

/* Overwrites len bytes of code at dst with src, without ever making any
 * memory writable and executable.  Returns 0, or a negative errno value
 * (already reported).  mv_text_ready() must have succeeded. */
int mv_text_write(void *dst, const void *src, size_t len);

/* 1 if the process has threads besides the caller (or that is unknown),
 * 0 if the caller is alone. */
int mv_other_threads(void);

/* Makes sure mv_cpu_sync() will work; the first call sets it up.
 * Returns 0, or a negative errno value (reported) when there is no safe
 * way to synchronize the other threads. */
int mv_cpu_sync_ready(void);

/* Returns once every other thread has executed a core-serializing
 * instruction, so none runs code bytes it fetched before the call. */
int mv_cpu_sync(void);

/*
 * Parks every other thread where it runs none of the text, until
 * mv_world_resume(); then each fetches the text anew.  For changes that
 * the architecture does not let running threads see happen
 * (mv_arch_live_safe).  mv_trap_ready() must have succeeded.  While the
 * others are parked, the caller must not allocate or take a lock that one
 * of them may hold; messages are kept until the resume.  Returns 0, or a
 * negative errno value (reported) with no thread parked.
 */
int mv_world_stop(void);
void mv_world_resume(void);

/* Makes every thread able to take the breakpoint trap, or says why not:
 * installs the trap handler (again, if the application replaced it) and
 * checks that no thread or signal handler blocks the trap.  Called before
 * a live batch writes anything.  Returns 0, or a negative errno value
 * (reported) when breakpoints cannot be used safely. */
int mv_trap_ready(void);

/* Installs the trap handler (again, if the application replaced it),
 * without the checks of mv_trap_ready().  Returns 0 or a negative errno
 * value (reported). */
int mv_trap_install(void);

/* For a caller alone in the process: blocks every signal but the trap in
 * the calling thread, so that none of its handlers runs code while a
 * batch is half written, until mv_signals_release().  Returns 0 or a
 * negative errno value (reported). */
int mv_signals_hold(void);
void mv_signals_release(void);

/* The address ranges of the loaded module (executable or shared object)
 * that contains inside: up to max of them; returns how many. */
struct mv_span {
	uintptr_t lo, hi;
};
#define MV_SPANS_MAX 16
size_t mv_module_spans(const void *inside, struct mv_span *spans, size_t max);

/* Copies len bytes from src, which may be unmapped.  Returns 0, or a
 * negative errno value (not reported). */
int mv_mem_read(void *dst, const void *src, size_t len);

/* Relearns which memory is mapped, for mv_mem_read(); call it whenever
 * objects may have been loaded or unloaded. */
void mv_mem_refresh(void);

#endif
