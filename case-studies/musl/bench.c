/* SPDX-License-Identifier: MIT */
/* Micro-benchmarks of the paper's Figure 5: one C library function called
 * in a tight loop, in a single-threaded process or with a second thread
 * alive.  Prints nanoseconds per call.
 *
 *   bench random|malloc0|malloc1|fputc st|mt N
 *
 * malloc0 and malloc1 call malloc(n) and free() it, while another block
 * of that size stays allocated; fputc writes to
 * /dev/null through a fully buffered FILE.  With N = 0 the loop is
 * skipped, so that instruction counts of N calls minus those of none
 * give the cost of the calls alone. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int pipefd[2];

static void *idle(void *arg)
{
	char c;
	(void)arg;
	return read(pipefd[0], &c, 1) < 0 ? NULL : NULL;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	pthread_t other;
	unsigned long n, i, sink = 0;
	FILE *out;
	double t0, t1;

	if (argc != 4 || (strcmp(argv[2], "st") && strcmp(argv[2], "mt"))) {
		fprintf(stderr, "usage: bench random|malloc0|malloc1|fputc st|mt N\n");
		return 2;
	}
	n = strtoul(argv[3], NULL, 10);
	out = fopen("/dev/null", "w");
	if (!out || pipe(pipefd))
		return 1;
	setvbuf(out, NULL, _IOFBF, 1 << 16);
	if (!strcmp(argv[2], "mt") && pthread_create(&other, NULL, idle, NULL))
		return 1;

	t0 = now();
	if (!strcmp(argv[1], "random")) {
		for (i = 0; i < n; i++)
			sink += random();
	} else if (!strcmp(argv[1], "malloc0") || !strcmp(argv[1], "malloc1")) {
		size_t size = argv[1][6] - '0';
		/* a block that stays, so that the loop's block is not the
		 * only one in use and free() keeps its group */
		void *keep = malloc(size);
		__asm__ volatile("" : : "r"(keep) : "memory");
		for (i = 0; i < n; i++) {
			void *p = malloc(size);
			__asm__ volatile("" : : "r"(p) : "memory");
			free(p);
		}
	} else if (!strcmp(argv[1], "fputc")) {
		for (i = 0; i < n; i++)
			fputc('x', out);
	} else {
		fprintf(stderr, "bench: no function %s\n", argv[1]);
		return 2;
	}
	t1 = now();

	if (!strcmp(argv[2], "mt")) {
		if (write(pipefd[1], "", 1) != 1 || pthread_join(other, NULL))
			return 1;
	}
	printf("%.3f\n", n ? (t1 - t0) / n : 0.0);
	return sink == 42;
}
