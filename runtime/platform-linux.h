/*
 * What the Linux platform files share among themselves.
 */
#ifndef MV_PLATFORM_LINUX_H
#define MV_PLATFORM_LINUX_H

#include <signal.h>

/* For the SIGTRAP handler: if si is the signal of mv_world_stop(), waits
 * until mv_world_resume() and returns 1; otherwise returns 0. */
int mv_linux_park(const siginfo_t *si);

/* Threads: in /proc/self/status, or -1 if it cannot be read.  Takes no
 * lock and allocates nothing. */
long mv_linux_thread_count(void);

#endif
