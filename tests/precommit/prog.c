/* SPDX-License-Identifier: MIT */
/*
 * A program that multiverse-precommit commits at build time
 * (tests/precommit/check.sh).  Run as
 *   prog plain        the file as linked: nothing committed at start
 *   prog precommitted precommitted for every switch: committed at start
 *   prog revert-first precommitted, then reverted before anything else
 *   prog trace-only   precommitted with --switch trace
 *   prog hold         precommitted, waits for tests/precommit/inspect.py
 *   prog stale        precommitted, a precommitted site changed behind
 *                     the runtime's back
 * Each checks what the runtime reports and what the calls return, then
 * commits and reverts, which must go on as in any committed program.
 */
#include "check.h"
#include "site_write.h"
#include <errno.h>

MULTIVERSE int mode = 1;        /* initialized: the file's data */
MULTIVERSE _Bool trace;         /* zero: the file's .bss */
int hooked, worked;

/* empty for trace == 0: commit inlines nothing in place of the call */
MULTIVERSE void hook(void)
{
	if (trace)
		hooked++;
}

/* a constant for each mode: inlined as one instruction */
MULTIVERSE int level(void)
{
	return mode ? 7 : 3;
}

/* too much to inline: sites branch to the variant */
MULTIVERSE int work(int x)
{
	worked++;
	if (mode)
		return x * 3 + worked;
	return x - 1;
}

__attribute__((noinline)) int bump(int x)
{
	__asm__("");
	return x + 100;
}

/* variants that call: never inlined or copied, so its sites are never
 * padded or read before they are needed, and commit points them at the
 * variant itself */
MULTIVERSE int far(int x)
{
	return mode ? bump(x) : bump(x) - 99;
}

/* probes, function-pointer switches compared with NULL: tracer starts
 * NULL, so traced() is precommitted to its variant that calls nothing;
 * logger starts set, and the variant for "not NULL", whose call the
 * switch's commit binds, is left to the first commit */
int traces, logs;
static void count_trace(int x) { traces += x; }
static void count_log(int x) { logs += x; }
MULTIVERSE void (*tracer)(int);
MULTIVERSE void (*logger)(int) = count_log;

MULTIVERSE __attribute__((noinline)) int traced(int x)
{
	if (tracer)
		tracer(x);
	return x + 1;
}

MULTIVERSE __attribute__((noinline)) int logged(int x)
{
	if (logger)
		logger(x);
	return x + 2;
}

/* padded sites (16 bytes) whose variant for quiet == 0 is empty: it
 * goes into the call, and the padding keeps its NOPs, which precommit
 * keeps too */
MULTIVERSE _Bool quiet;
int noise;
__attribute__((multiverse("inline", 16))) void noisy(void);
MULTIVERSE void noisy(void)
{
	if (quiet)
		noise++;
}

static MULTIVERSE int twice(int x)
{
	return mode ? 2 * x : x;
}

__attribute__((noinline)) void call_hook(void) { hook(); }   /* a tail jump at -O2 */
__attribute__((noinline)) int call_level(void) { return level() + 1; }
__attribute__((noinline)) int call_work(int x) { return work(x) + 1; }
__attribute__((noinline)) int call_twice(int x) { return twice(x) + 1; }
__attribute__((noinline)) int call_far(int x) { return far(x) + 1; }
__attribute__((noinline)) int call_far_tail(int x) { return far(x); }   /* a jump */
__attribute__((noinline)) void call_noisy(void) { noisy(); noise += 10; }

/* what the sites of fn hold: how many are not the compiler's call */
static unsigned sites_changed(void *fn)
{
	const struct mv_info_fn *f = multiverse_info_fn(fn);
	unsigned n = 0;

	for (unsigned i = 0; f && i < f->n_sites; i++) {
		const struct mv_info_site *s = multiverse_info_site(fn, i);

		CHECK(s && s->holds != MULTIVERSE_SITE_SKIPPED);
		n += s && s->holds != MULTIVERSE_SITE_ORIGINAL;
	}
	return n;
}

static int committed(void *fn)
{
	return multiverse_is_committed(fn) == 1;
}

/* the calls as the values of mode and trace select them */
static void expect(int m, int t)
{
	int w = worked;

	hooked = 0;
	call_hook();
	CHECK_EQ(hooked, t);
	CHECK_EQ(call_level(), m ? 8 : 4);
	CHECK_EQ(call_work(10), m ? 30 + w + 1 + 1 : 10);
	CHECK_EQ(call_twice(5), m ? 11 : 6);
	CHECK_EQ(call_far(1), m ? 102 : 3);
	CHECK_EQ(call_far_tail(1), m ? 101 : 2);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	if (!strcmp(how, "plain")) {
		CHECK(!committed(hook) && !committed(level) && !committed(work));
		CHECK_EQ(sites_changed(level), 0);
		expect(1, 0);
		mode = 0;               /* the generic reads it at once */
		expect(0, 0);
	} else if (!strcmp(how, "precommitted")) {
		CHECK(committed(hook) && committed(level) && committed(work));
		CHECK(committed(traced) && !committed(logged));
		tracer = count_trace;           /* waits for the next commit */
		CHECK_EQ(traced(1), 2);
		CHECK_EQ(logged(1), 3);
		CHECK_EQ(traces, 0);
		CHECK_EQ(logs, 1);
		CHECK(multiverse_info_fn(level)->active != multiverse_info_fn(level)->generic);
		/* far's sites hold the branch to its variant; the others
		 * may keep calls padded for copies (docs/precommit.md),
		 * which reach their variants through the entries */
		CHECK(sites_changed(far) >= 2);        /* a call and (-O1 up) a jump */
		CHECK(sites_changed(noisy) >= 1);
		CHECK(multiverse_info_site(noisy, 0) && multiverse_info_site(noisy, 0)->pad > 0);
#ifdef __OPTIMIZE__
		/* optimized, its variant is empty: inlined in the call */
		CHECK(multiverse_info_site(noisy, 0)->holds == MULTIVERSE_SITE_INLINED);
#endif
		sites_changed(level);
		sites_changed(hook);
		sites_changed(work);
		expect(1, 0);
		/* as after a commit: a change waits for the next one */
		mode = 0;
		trace = 1;
		expect(1, 0);
		CHECK(multiverse_commit() >= 0);
		expect(0, 1);
		CHECK_EQ(traced(1), 2);
		CHECK_EQ(traces, 1);
		CHECK(multiverse_revert() >= 0);
		CHECK(!committed(level) && sites_changed(level) == 0 && sites_changed(hook) == 0);
		mode = 1;
		expect(1, 1);           /* the generics read the switches */
	} else if (!strcmp(how, "revert-first")) {
		/* nothing asked before: revert must find the sites itself */
		mode = 0;
		CHECK(multiverse_revert() >= 0);
		expect(0, 0);
		CHECK(!committed(level) && sites_changed(level) == 0 && sites_changed(far) == 0);
	} else if (!strcmp(how, "stale")) {
		/* a precommitted site changed behind the runtime's back, as
		 * a debugger's breakpoint would: a commit fails and changes
		 * nothing while it is there, and succeeds once it is gone */
		uint8_t *site = site_in(call_far, far), saved[8];
		int fd = open("/proc/self/mem", O_RDWR);

		CHECK(site && fd >= 0);
		if (!site || fd < 0)
			CHECK_DONE();
		memcpy(saved, site, sizeof saved);
		write_call(site, bump);
		mode = 0;
		CHECK_EQ(multiverse_commit(), -EAGAIN);
		CHECK(strstr(multiverse_last_error(), "far: precommitted, but"));
		CHECK_EQ(multiverse_revert(), -EAGAIN);
		CHECK_EQ(call_level(), 8);      /* nothing was written */
		CHECK(committed(level) && committed(far));
		CHECK(pwrite(fd, saved, sizeof saved, (off_t)(uintptr_t)site) == sizeof saved);
		__builtin___clear_cache((char *)site, (char *)site + sizeof saved);
		close(fd);
		CHECK(multiverse_commit() >= 0);
		expect(0, 0);
	} else if (!strcmp(how, "hold")) {
		/* for tests/precommit/inspect.py: as precommitted until a
		 * line comes in; then reverted until standard input closes */
		char line[16];

		puts("ready");
		fflush(stdout);
		if (!fgets(line, sizeof line, stdin))
			return 1;
		CHECK(multiverse_revert() >= 0);
		puts("reverted");
		fflush(stdout);
		while (getchar() != EOF)
			;
		CHECK_DONE();
	} else if (!strcmp(how, "trace-only")) {
		CHECK(committed(hook));
		CHECK(!committed(level) && !committed(work));
		CHECK_EQ(sites_changed(level), 0);
		trace = 1;
		expect(1, 0);           /* hook stays committed for trace == 0 */
		mode = 0;
		expect(0, 0);           /* level and work are generic */
		CHECK(multiverse_commit_refs(&trace) >= 0);
		expect(0, 1);
	} else {
		fprintf(stderr, "usage: prog plain|precommitted|revert-first|trace-only|hold|stale\n");
		return 2;
	}
	CHECK(multiverse_commit() >= 0);
	CHECK(multiverse_revert() >= 0);
	CHECK_DONE();
}
