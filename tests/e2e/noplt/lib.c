/* SPDX-License-Identifier: MIT */
/* Defines the switch and function that main.c calls across units with
 * -fno-plt, i.e. through the GOT, which the linker may relax. */
#include "noplt.h"

int scale;

int scaled(int x)
{
	return scale ? x * 4 : x;
}
