/* SPDX-License-Identifier: MIT */
/* Switches of each kind, functions committed, left generic and inlined
 * at their sites, calls through a function-pointer switch, and a shared
 * library: the program commits, reports itself through the API and
 * waits on standard input while compare.py inspects it. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "report.h"
#include "../../common/descriptor.h"

extern const struct mv_desc_site __start___multiverse_site[]
	__attribute__((visibility("hidden")));
extern const struct mv_desc_site __stop___multiverse_site[]
	__attribute__((visibility("hidden")));

enum level { LOW, MID, HIGH };

MULTIVERSE_VALUES(0, 2, 4) int width;
MULTIVERSE enum level level;
MULTIVERSE_TRACKED int tracked;           /* unbound: its readers stay generic */
MULTIVERSE int (*hook)(int);
MULTIVERSE void (*watch)(int);            /* a probe */
struct config {
	MULTIVERSE _Bool fast;
	int other;
} config;

int lib_use(int x);
MULTIVERSE int lib_scale(int x); /* the library's */
void lib_report(void);

static int twice(int x) { return 2 * x; }

/* width 0 and 2 give one body, which -O2 merges: two variants, three guards */
MULTIVERSE int by_width(int x) { return width == 4 ? x << 2 : x + 1; }
MULTIVERSE int by_level(int x) { return level == HIGH ? x * 3 : level == MID ? x - 1 : x; }
MULTIVERSE int by_tracked(int x) { return tracked ? x : -x; }
MULTIVERSE int tiny(void) { return config.fast; }
static int watched;
static void count(int x) { watched += x; }
MULTIVERSE int probed(int x)
{
	if (watch)
		watch(x);
	return x + 1;
}

/* padded sites bound by calls (its variants call out): their padding
 * starts with a jump to the call, which is no copy */
__attribute__((noinline)) int other(int x);
__attribute__((multiverse("inline", 40))) int called(int x);
MULTIVERSE int called(int x) { return level == HIGH ? other(x) * 2 : other(x) + 3; }

/* a plain function, redirected to a new version of it */
MULTIVERSE int served(int x) { return x + 1; }
__attribute__((noinline)) int served_v2(int x) { return x + 2; }

__attribute__((noinline)) int use(int x)
{
	return by_width(x) + by_level(x) + by_tracked(x) + tiny() + hook(x) + lib_use(x) +
	       lib_scale(x) +          /* a site calling into the library */
	       called(x) + probed(x) + served(x);
}
__attribute__((noinline)) int tail(int x) { return by_level(x); }
__attribute__((noinline)) int other(int x) { __asm__ volatile(""); return x; }
__attribute__((noinline)) int rewritten(int x) { return by_width(x) + 1; }

/* The program itself makes rewritten()'s call go to other(), after the
 * runtime has read the code: commit must leave that site alone. */
static int redirect_site(void)
{
#ifdef __x86_64__
	for (const struct mv_desc_site *s = __start___multiverse_site;
	     s < __stop___multiverse_site; s++) {
		uint8_t *p = mv_desc_site_addr(s), call[5];
		if (mv_desc_site_callee(s) != (void *)by_width || p < (uint8_t *)rewritten ||
		    p >= (uint8_t *)rewritten + 64 || p[0] != 0xe8)
			continue;
		int32_t rel = (int32_t)((intptr_t)other - (intptr_t)(p + 5));
		call[0] = 0xe8;
		memcpy(call + 1, &rel, 4);
		int fd = open("/proc/self/mem", O_RDWR);
		int ok = fd >= 0 && pwrite(fd, call, 5, (off_t)(uintptr_t)p) == 5;
		if (fd >= 0)
			close(fd);
		return ok ? 0 : -1;
	}
	return -1;
#else
	return 0;
#endif
}

int main(void)
{
	width = 4;
	level = MID;
	hook = twice;
	watch = count;
	config.fast = 1;
	if (multiverse_init() < 0 || redirect_site() < 0) {
		printf("error\tcannot rewrite the site in rewritten()\n");
		return 1;
	}
	if (multiverse_commit() < 0) {
		printf("error\tcommit: %s\n", multiverse_last_error());
		return 1;
	}
	if (multiverse_redirect(served, served_v2) < 0) {
		printf("error\tredirect: %s\n", multiverse_last_error());
		return 1;
	}
	use(1);
	tail(1);
	rewritten(1);
	report_fn(by_width);
	report_fn(by_level);
	report_fn(by_tracked);
	report_fn(tiny);
	report_fn(called);
	report_fn(probed);
	report_fn(served);
	report_var(&width, width);
	report_var(&level, level);
	report_var(&tracked, tracked);
	report_var(&config.fast, config.fast);
	report_var(&hook, (long long)(unsigned long)hook);
	report_var(&watch, (long long)(unsigned long)watch);
	lib_report();
	printf("ready\n");
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
