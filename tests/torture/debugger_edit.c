/* SPDX-License-Identifier: MIT */
/*
 * A debugger's change to the code between a batch's patch areas, made
 * while the batch is between two steps, survives the batch.  Run by
 * tests/torture/debugger_edit.sh under gdb, which stops the commit after
 * its first write and puts an int3 on edit_at, the instruction after
 * the first call site: a breakpoint gdb inserts when the process
 * resumes.  The steps after it must write what the text holds then
 * (docs/patching.md, "Writing a batch").  The program prints that byte
 * after the commit, and never runs it.
 */
#include <multiverse.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((multiverse)) int sel;

__attribute__((noipa)) int twice(int x) { return 2 * x; }

__attribute__((multiverse)) int h(int x) { return sel ? twice(x) + 1 : twice(x) - 1; }

__attribute__((noipa)) long calls(void)
{
	long s = 0;

	s += h(1);
	s += h(2);
	s += h(3);
	return s;
}

volatile unsigned char *edit_at;    /* gdb writes here */

static void *idle(void *arg)
{
	(void)arg;
	pause();
	return 0;
}

int main(void)
{
	const struct mv_info_site *first = 0;
	pthread_t t;

	/* another thread: the commit takes the live protocol's three steps */
	if (pthread_create(&t, 0, idle, 0) || multiverse_init() < 0)
		return 2;
	for (unsigned i = 0; multiverse_info_site(h, i); i++) {
		const struct mv_info_site *s = multiverse_info_site(h, i);

		if ((uintptr_t)s->addr >= (uintptr_t)calls &&
		    (!first || (uintptr_t)s->addr < (uintptr_t)first->addr))
			first = s;
	}
	if (!first)
		return 2;
#if defined(__x86_64__)
	edit_at = (unsigned char *)first->addr + 5;     /* after call rel32 */
#else
	edit_at = (unsigned char *)first->addr + 4;     /* after bl */
#endif
	printf("calls %ld\n", calls());
	printf("byte before %02x\n", *edit_at);
	sel = 1;
	if (multiverse_commit() < 0)
		return 2;
	printf("byte after %02x\n", *edit_at);
	return 0;
}
