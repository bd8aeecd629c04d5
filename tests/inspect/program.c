/* SPDX-License-Identifier: MIT */
/* Switches of each kind, functions committed, left generic and inlined
 * at their sites, calls through a function-pointer switch, and a shared
 * library: the program commits, reports itself through the API and
 * waits on standard input while compare.py inspects it. */
#include <unistd.h>
#include "report.h"

enum level { LOW, MID, HIGH };

MULTIVERSE_VALUES(0, 2, 4) int width;
MULTIVERSE enum level level;
MULTIVERSE_TRACKED int tracked;           /* unbound: its readers stay generic */
MULTIVERSE int (*hook)(int);
struct config {
	MULTIVERSE _Bool fast;
	int other;
} config;

int lib_use(int x);
void lib_report(void);

static int twice(int x) { return 2 * x; }

MULTIVERSE int by_width(int x) { return width == 4 ? x << 2 : width ? x + width : x; }
MULTIVERSE int by_level(int x) { return level == HIGH ? x * 3 : level == MID ? x - 1 : x; }
MULTIVERSE int by_tracked(int x) { return tracked ? x : -x; }
MULTIVERSE int tiny(void) { return config.fast; }

__attribute__((noinline)) int use(int x)
{
	return by_width(x) + by_level(x) + by_tracked(x) + tiny() + hook(x) + lib_use(x);
}
__attribute__((noinline)) int tail(int x) { return by_level(x); }

int main(void)
{
	width = 4;
	level = MID;
	hook = twice;
	config.fast = 1;
	if (multiverse_commit() < 0) {
		printf("error\tcommit: %s\n", multiverse_last_error());
		return 1;
	}
	use(1);
	tail(1);
	report_fn(by_width);
	report_fn(by_level);
	report_fn(by_tracked);
	report_fn(tiny);
	report_var(&width, width);
	report_var(&level, level);
	report_var(&tracked, tracked);
	report_var(&config.fast, config.fast);
	report_var(&hook, (long long)(unsigned long)hook);
	lib_report();
	printf("ready\n");
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
