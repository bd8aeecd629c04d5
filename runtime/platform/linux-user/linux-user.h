/* SPDX-License-Identifier: MIT */
/*
 * What the files of the Linux user-space platform share among themselves:
 * the operating-system calls of the breakpoint protocol (poke.c), and the
 * tables its trap handler reads (trap-tables.c).
 */
#ifndef MV_LINUX_USER_H
#define MV_LINUX_USER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

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
/* The same for code no thread can be running yet (a new gate on a page
 * whose other gates may be running), outside a batch too. */
int mv_text_write_new(void *dst, const void *src, size_t len);

/* 1 if the process has threads besides the caller (or that is unknown),
 * 0 if the caller is alone. */
int mv_other_threads(void);

/* Makes sure mv_cpu_sync() will work: the first call sets it up, every
 * later call synchronizes once.  Returns 0, or a negative errno value
 * (reported) when there is no safe way to synchronize the other threads
 * now. */
int mv_cpu_sync_ready(void);

/* Returns once every other thread has executed a core-serializing
 * instruction, so none runs code bytes it fetched before the call. */
int mv_cpu_sync(void);

/*
 * Parks every other thread where it runs none of the text, until
 * mv_world_resume(); then each fetches the text anew.  For changes that
 * the architecture does not let running threads see happen
 * (mv_arch_live_safe), and changes of several instructions (regions,
 * runtime/region.c): then inside(pc) says whether pc lies inside one,
 * and the stop succeeds only with no thread there nor in a handler.  mv_trap_ready() must have succeeded.  While the
 * others are parked, the caller must not allocate or take a lock that one
 * of them may hold; messages are kept until the resume.  Returns 0, or a
 * negative errno value (reported) with no thread parked.
 */
int mv_world_stop(int (*inside)(uintptr_t pc));
void mv_world_resume(void);

/*
 * The in-handler mark: a signal the runtime adds to the mask of every
 * signal handler the application installs (trap.c), and keeps out of
 * every mask it sets otherwise, so that a thread's mask holds it exactly
 * while the thread runs a handler.  A parked thread whose interrupted
 * mask holds it may have interrupted code further out, which no one can
 * see; mv_world_stop() with inside waits for it to leave (stop.c).  The
 * signal itself is never sent.
 */
#define MV_MARK_SIGNAL 64

/* Gives every installed handler the mark; returns the first signal whose
 * handler lacked it (installed by the system call, unseen), or 0. */
int mv_trap_mark_handlers(void);

/* Whether another thread blocks the in-handler mark now (trap.c). */
int mv_trap_thread_marked(void);

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

/* trap-tables.c: what the trap handler reads, swapped in whole */
struct mv_trap_area {
	uintptr_t addr;
	uintptr_t emu;                /* where that instruction is: addr, or
					 a region's call (poke.c) */
	uint8_t len;
	uint8_t bytes[MV_AREA_MAX];   /* the instruction the trap emulates */
};

struct mv_trap_table {
	size_t cap, n;
	struct mv_trap_area a[];      /* sorted by addr */
};

int mv_trap_tables_reserve(size_t n_areas);
struct mv_trap_table *mv_trap_batch(int old);  /* to fill, then publish */
void mv_trap_publish_batch(struct mv_trap_table *t);   /* NULL: withdraw */
const struct mv_trap_table *mv_trap_stuck(void);
struct mv_trap_table *mv_trap_stuck_spare(void);       /* to fill, then: */
void mv_trap_publish_stuck(void);
struct mv_trap_table *mv_trap_known_spare(void);       /* to fill, then: */
void mv_trap_publish_known(void);
const struct mv_trap_table *mv_trap_known(void);       /* as published */
/* t's area at at, or NULL (t may be NULL); async-signal-safe. */
const struct mv_trap_area *mv_trap_find(const struct mv_trap_table *t, uintptr_t at);
int mv_poke_trap(struct mv_cpu *cpu);                  /* the handler's part */
void mv_poke_lost_trap(struct mv_cpu *cpu);            /* for other SIGTRAPs */
void mv_trap_tables_forked(void);                      /* in a fork() child */

/* For the SIGTRAP handler: if si is the signal of mv_world_stop(), notes
 * where the thread was interrupted (pc, and whether in a signal handler)
 * and waits until mv_world_resume(), and returns 1; otherwise returns 0. */
int mv_linux_park(const siginfo_t *si, uintptr_t pc, int in_handler);

/* Threads: in /proc/self/status, or -1 if it cannot be read; and
 * /proc/self/task/TID/NAME read into buf, 0 if the thread is gone.  Both
 * take no lock and allocate nothing. */
long mv_linux_thread_count(void);
int mv_linux_traced(void);
int mv_linux_task_file(const char *tid, const char *name, char *buf, size_t size);
/* Thread tid's state letter ('R', 'S', 'Z', ...) and the signals 1 to 31
 * it blocks (bit sig - 1), from its stat file, which costs about two
 * thirds of its status file to format; 0 if the thread is gone or the
 * line cannot be read.  With caught, also the signals 1 to 31 that have
 * a handler: the process's, which its threads share (0 once the thread
 * is exiting). */
int mv_linux_task_stat(const char *tid, char *state, unsigned long *blocked,
		       unsigned long *caught);
/* Milliseconds on the monotonic clock. */
long mv_linux_now_ms(void);

#endif

