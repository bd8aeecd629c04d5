/* SPDX-License-Identifier: MIT */
/* A program whose sites call its own functions, in this file and in
 * other.c, and the two libraries' (lib.c); check.py reads the
 * relocations of all three files. */
#include <multiverse.h>
#include "check.h"

extern __attribute__((multiverse)) int lib_mode, nsi_lib_mode;
__attribute__((multiverse)) int public_f(int x), nsi_public_f(int x), other_f(int x);
int lib_all(int x), nsi_lib_all(int x), lib_public_sites(void), nsi_lib_public_sites(void);
int lib_local_sites(void), nsi_lib_local_sites(void);
int lib_local_committed(void), nsi_lib_local_committed(void);

__attribute__((multiverse)) int mode;
static __attribute__((multiverse, noinline)) int own(int x) { return mode ? x + 10 : x; }

int main(void)
{
	CHECK_EQ(lib_all(3), 3 + 3 + 3 + 6);
	CHECK_EQ(nsi_lib_all(3), 3 + 3 + 3 + 6);
	CHECK_EQ(own(1) + public_f(1) + nsi_public_f(1) + other_f(1), 4);
	lib_mode = 1, nsi_lib_mode = 1, mode = 1;
	CHECK(multiverse_commit() > 0);
	CHECK_EQ(lib_all(3), 4 + 6 + 2 + 6);
	CHECK_EQ(nsi_lib_all(3), 4 + 6 + 2 + 6);
	CHECK_EQ(own(1) + public_f(1) + nsi_public_f(1) + other_f(1), 11 + 0 + 0 + 101);
	/* the library's site and this file's two */
	/* records that hold their callees as distances: found too */
	CHECK_EQ(multiverse_info_fn(own)->n_sites, 2);
	CHECK_EQ(multiverse_info_fn(other_f)->n_sites, 2);
	CHECK_EQ(lib_local_sites(), 11);
	CHECK_EQ(nsi_lib_local_sites(), 11);
	CHECK_EQ(lib_public_sites(), 3);
	CHECK_EQ(lib_local_committed(), 1);
	CHECK_EQ(nsi_lib_local_committed(), 1);
	CHECK_EQ(nsi_lib_public_sites(), 3);
	CHECK(multiverse_revert() > 0);
	lib_mode = 0, nsi_lib_mode = 0, mode = 0;
	CHECK_EQ(lib_all(3), 15);
	CHECK_DONE();
}
