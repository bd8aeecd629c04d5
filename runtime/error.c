/*
 * Error reporting: every problem is printed once, as it is found, and kept
 * as the calling thread's last error.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"
#include "multiverse.h"

static _Thread_local char last[256];

static void vreport(const char *fmt, va_list ap)
{
	vsnprintf(last, sizeof last, fmt, ap);
	fprintf(stderr, "multiverse: %s\n", last);
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
