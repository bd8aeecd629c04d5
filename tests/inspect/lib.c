/* SPDX-License-Identifier: MIT */
/* A shared library with switches and functions of its own: a second
 * module in the process. */
#include "report.h"

MULTIVERSE _Bool lib_verbose;

MULTIVERSE int lib_scale(int x) { return lib_verbose ? x * 7 : x; }

__attribute__((noinline)) int lib_use(int x) { return lib_scale(x) + 1; }

void lib_report(void)
{
	report_fn(lib_scale);
	report_var(&lib_verbose, lib_verbose);
}
