/* SPDX-License-Identifier: MIT */
/* Variadic multiversed functions (va_list walked in every variant, also
 * handed on to a v* function) and old-style K&R definitions. */
#include <stdarg.h>
#include "torture.h"

__attribute__((multiverse)) int verbose;

__attribute__((multiverse)) long sum(int n, ...)
{
	va_list ap;
	long s = 0;
	int i;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return verbose ? -s : s;
}

/* Doubles and a va_copy: the register save area must be set up by each
 * variant's own prologue. */
__attribute__((multiverse)) double dsum(int n, ...)
{
	va_list ap, aq;
	double s = 0;
	int i;

	va_start(ap, n);
	va_copy(aq, ap);
	for (i = 0; i < n; i++)
		s += va_arg(ap, double);
	if (verbose)
		for (i = 0; i < n; i++)
			s += va_arg(aq, double);
	va_end(aq);
	va_end(ap);
	return s;
}

__attribute__((multiverse)) int format(char *buf, unsigned len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = verbose ? vsnprintf(buf, len, fmt, ap) : 0;
	va_end(ap);
	if (!verbose && len)
		buf[0] = 0;
	return n;
}

/* K&R: no prototype in the definition; promoted arguments. */
__attribute__((multiverse)) int kr_scale();
__attribute__((multiverse)) int kr_scale(a, c, s)
	int a;
	char c;
	short s;
{
	return verbose ? a * c + s : a + c + s;
}

__attribute__((noinline)) int use_kr(void) { return kr_scale(3, (char)4, (short)5); }

static void check_all(int v)
{
	char buf[32];
	long (*sp)(int, ...) = OPAQUE(&sum);

	CHECK_EQ(sum(4, 1, 2, 3, 4), v ? -10 : 10);
	CHECK_EQ(sp(2, 7, 8), v ? -15 : 15);
	CHECK_EQ((long)dsum(3, 0.5, 1.5, 2.0), v ? 8 : 4);
	CHECK_EQ(format(buf, sizeof buf, "%d-%s-%ld", 42, "x", 7L), v ? 6 : 0);
	CHECK_EQ(strcmp(buf, v ? "42-x-7" : ""), 0);
	CHECK_EQ(use_kr(), v ? 17 : 12);
}

int main(void)
{
	int v;

	for (v = 0; v < 2; v++) {
		verbose = v;
		check_all(v);
		CHECK(multiverse_commit() >= 0);
		verbose = !v;
		CHECK_COMMITTED(sum);
		CHECK_COMMITTED(dsum);
		CHECK_COMMITTED(format);
		CHECK_COMMITTED(kr_scale);
		check_all(v);
		CHECK(multiverse_revert() >= 4);
	}
	CHECK_DONE();
}
