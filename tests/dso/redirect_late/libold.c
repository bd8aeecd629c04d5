/* SPDX-License-Identifier: MIT */
/* The function main.c redirects, in a shared library. */
__attribute__((multiverse)) int handle(int x)
{
	return x + 1;
}
