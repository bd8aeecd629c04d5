/* SPDX-License-Identifier: MIT */
/*
 * What the Linux platform files share among themselves.
 */
#ifndef MV_PLATFORM_LINUX_H
#define MV_PLATFORM_LINUX_H

#include <signal.h>
#include <stddef.h>

/* For the SIGTRAP handler: if si is the signal of mv_world_stop(), waits
 * until mv_world_resume() and returns 1; otherwise returns 0. */
int mv_linux_park(const siginfo_t *si);

/* Threads: in /proc/self/status, or -1 if it cannot be read; and
 * /proc/self/task/TID/NAME read into buf, 0 if the thread is gone.  Both
 * take no lock and allocate nothing. */
long mv_linux_thread_count(void);
int mv_linux_task_file(const char *tid, const char *name, char *buf, size_t size);

#endif
