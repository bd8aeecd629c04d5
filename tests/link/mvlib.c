/* SPDX-License-Identifier: MIT */
/* A shared library with multiversed code and no call of the API: its
 * registration needs the runtime (tests/run, "link/"). */
__attribute__((multiverse)) int lib_sw;

__attribute__((multiverse)) int lib_f(int x)
{
	return lib_sw ? x : -x;
}
