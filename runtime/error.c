/* SPDX-License-Identifier: MIT */
/*
 * Error reporting: every problem is printed once, as it is found, and kept
 * as the calling thread's last error.
 *
 * While the other threads are stopped (mv_world_stop), one of them may
 * hold a lock that printing takes: messages are then kept and printed
 * at mv_report_release().
 */
#include "internal.h"

static MV_THREAD_LOCAL char last[256];
static int holding;             /* only the thread that stopped the others */
static char held[1024];
static size_t n_held;

static void vreport(const char *fmt, va_list ap)
{
	vsnprintf(last, sizeof last, fmt, ap);
	if (!holding) {
		mv_print(last);
		return;
	}
	/* kept as NUL-terminated messages one after the other */
	int n = snprintf(held + n_held, sizeof held - n_held, "%s", last);
	if (n >= 0)
		n_held = n_held + n + 1 < sizeof held ? n_held + n + 1 : sizeof held;
}

void mv_report_hold(void)
{
	(void)*(volatile char *)last;   /* a first use may allocate (dynamic TLS) */
	n_held = 0;
	holding = 1;
}

void mv_report_release(void)
{
	holding = 0;
	held[sizeof held - 1] = 0;
	for (size_t i = 0; i < n_held; i += strlen(held + i) + 1)
		mv_print(held + i);
	n_held = 0;
}

void mv_report(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
}

int mv_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return err;
}

MV_API const char *multiverse_last_error(void)
{
	return last;
}
