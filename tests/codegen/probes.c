/* SPDX-License-Identifier: MIT */
/*
 * Probes: a tracing hook tested on every call of a hot function.  The
 * variant for "NULL" must be the #ifdef build without tracing: neither
 * test nor call.  (The variant for "not NULL", the call without the test,
 * is compared in probes_set-x86_64.c.)
 *
 * codegen: account.multiverse.0 account -DTRACE=0
 * codegen: lookup.multiverse.0 lookup -DTRACE=0
 */
#include <stddef.h>

#ifdef TRACE
#define MV
#define TRACING TRACE
#else
#define MV __attribute__((multiverse))
#define TRACING (trace != NULL)
#endif

MV void (*trace)(const char *what, long n);

long total;
long table[64];

MV long account(long n)
{
	if (TRACING)
		trace("account", n);
	total += n;
	return total;
}

MV long lookup(unsigned i)
{
	long v = table[i & 63];
	if (!TRACING)
		return v;
	trace("lookup", v);
	return v + 1;
}
