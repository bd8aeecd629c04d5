/* SPDX-License-Identifier: MIT */
/* Call sites of every binding in a shared object: to a static function,
 * a hidden one, one another module may interpose, and through a
 * function-pointer switch another module may interpose; and switches
 * static and global.  Built twice:
 * as is, and with -fno-semantic-interposition and PRE=nsi_, where the
 * code binds its own global definitions locally. */
#include <multiverse.h>

#ifndef PRE
#define PRE
#endif
#define CAT(a, b) a##b
#define NAME(a, b) CAT(a, b)
#define N(x) NAME(PRE, x)

__attribute__((multiverse)) int N(lib_mode);

static __attribute__((multiverse, noinline)) int local_f(int x) { return N(lib_mode) ? x + 1 : x; }
__attribute__((visibility("hidden"), multiverse, noinline)) int N(hidden_f)(int x)
{
	return N(lib_mode) ? x * 2 : x;
}
__attribute__((multiverse, noinline)) int N(public_f)(int x) { return N(lib_mode) ? x - 1 : x; }

/* A switch only this file sees: its record and the guards of the
 * variants that read it hold it as a distance. */
static __attribute__((multiverse)) int local_mode;
static __attribute__((multiverse, noinline)) int local_g(int x) { return local_mode ? x + 5 : x; }

static int twice(int x) { return 2 * x; }
__attribute__((multiverse)) int (*N(lib_hook))(int) = twice;

int N(lib_all)(int x)
{
	return local_f(x) + N(hidden_f)(x) + N(public_f)(x) + N(lib_hook)(x) + local_g(x) - x;
}

/* The sites the runtime found for public_f: the program's calls count
 * only if their records name the function as the library's do.  Asked
 * here, so that the program never takes the function's address (which
 * would make its PLT entry the function's address everywhere). */
static int sites(void *fn)
{
	const struct mv_info_fn *f = multiverse_info_fn(fn);
	return f ? (int)f->n_sites : -1;
}

int N(lib_public_sites)(void) { return sites(N(public_f)); }

/* The sites of the functions whose records hold them as distances. */
int N(lib_local_sites)(void) { return 10 * sites(local_f) + sites(N(hidden_f)); }

/* Whether commit bound local_g to a variant: it finds one only where it
 * reads the guards' switch, a distance, right. */
int N(lib_local_committed)(void)
{
	const struct mv_info_fn *f = multiverse_info_fn(local_g);
	return f ? f->committed : -1;
}
