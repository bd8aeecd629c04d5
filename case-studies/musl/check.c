/* SPDX-License-Identifier: MIT */
/* A test of what the musl patch changes, for the baseline and the
 * multiversed build alike: random(), malloc()/free()/realloc() and
 * fputc(), first in a single-threaded process, then from four threads at
 * once, which needs every lock the patch elides before the first thread.
 * Standard output is the same for both builds (run.sh compares them);
 * the exit status says whether every check passed.
 *
 * Built with -DWITH_MULTIVERSE, for the C library that has the Multiverse
 * runtime, it also checks on standard error that the lock functions
 * run their lock-free variants until the first thread is created, and
 * the locking ones from then on, and that fork() in a process whose
 * other thread takes the runtime's lock leaves the child a free one. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The multiversed C library has it: a static link must pull it in. */
#ifdef WITH_MULTIVERSE
void multiverse_dump_info(FILE *);
#else
void multiverse_dump_info(FILE *) __attribute__((weak));
#endif

static int failures;
#define CHECK(c) do { if (!(c)) { failures++; \
	fprintf(stderr, "check.c:%d: check failed: %s\n", __LINE__, #c); } } while (0)

/* The guard of the variant __lock is committed to: "[0, 0]", or "" when
 * it runs its generic code. */
static void lock_variant(char *guard, size_t size)
{
	char *text = NULL, *line, *save = NULL, committed[32] = "";
	size_t len = 0;
	int in_lock = 0;
	FILE *f = open_memstream(&text, &len);

	guard[0] = 0;
	multiverse_dump_info(f);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "function ", 9))
			in_lock = !strncmp(line, "function __lock at", 18);
		if (!in_lock)
			continue;
		char *c = strstr(line, "committed to ");
		if (c)
			sscanf(c + 13, "%31[0-9a-fx]", committed);
		char *at = strstr(line, " at "), *b = strchr(line, '['), *e = b ? strchr(b, ']') : NULL;
		/* its guard's range, without what the line says after it */
		if (committed[0] && !strncmp(line, "  variant", 9) && at && e &&
		    !strncmp(at + 4, committed, strlen(committed)) &&
		    at[4 + strlen(committed)] == ':')
			snprintf(guard, size, "%.*s", (int)(e - b + 1), b);
	}
	free(text);
}

static void single_threaded(void)
{
	uint64_t sum = 0;
	char *blocks[2000];

	srandom(7);
	for (int i = 0; i < 100000; i++)
		sum = sum * 31 + random();
	printf("random: %016llx\n", (unsigned long long)sum);

	/* sizes from 0 to 200000 bytes, which covers the mmap path */
	for (int i = 0; i < 2000; i++) {
		size_t n = (size_t)(random() % 7 == 0 ? random() % 200000 : random() % 300);
		blocks[i] = malloc(n + 1);
		CHECK(blocks[i] != NULL);
		memset(blocks[i], i & 0xff, n + 1);
		if (i % 3 == 0) {
			blocks[i] = realloc(blocks[i], n + 50);
			CHECK(blocks[i] && (unsigned char)blocks[i][0] == (i & 0xff));
		}
	}
	for (int i = 1999; i >= 0; i -= 2)
		free(blocks[i]);
	for (int i = 0; i < 2000; i += 2) {
		CHECK((unsigned char)blocks[i][0] == (i & 0xff));
		free(blocks[i]);
	}
	CHECK(malloc(0) != (void *)1);

	FILE *f = tmpfile();
	CHECK(f != NULL);
	for (int i = 0; i < 100000; i++)
		CHECK(fputc('a' + i % 26, f) == 'a' + i % 26);
	rewind(f);
	int bad = 0;
	for (int i = 0; i < 100000; i++)
		bad += fgetc(f) != 'a' + i % 26;
	CHECK(bad == 0 && fgetc(f) == EOF);
	fclose(f);
	printf("single-threaded: done\n");
}

#define THREADS 4
#define PER_THREAD 200000
static FILE *shared;

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg, bad = 0;
	for (int i = 0; i < PER_THREAD; i++) {
		fputc('A' + id, shared);
		if (i % 16 == 0) {
			char *p = malloc(24 + i % 100);
			memset(p, id, 24 + i % 100);
			(void)random();
			bad += p[23 + i % 100] != id;
			free(p);
		}
	}
	return (void *)(intptr_t)bad;
}

static void multi_threaded(void)
{
	pthread_t t[THREADS];
	long count[THREADS] = { 0 };
	int c;

	shared = tmpfile();
	CHECK(shared != NULL);
	setvbuf(shared, NULL, _IOFBF, 4096);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);
	for (int i = 0; i < THREADS; i++) {
		void *bad;
		CHECK(pthread_join(t[i], &bad) == 0 && bad == NULL);
	}
	rewind(shared);
	while ((c = fgetc(shared)) != EOF)
		if (c >= 'A' && c < 'A' + THREADS)
			count[c - 'A']++;
	for (int i = 0; i < THREADS; i++) {
		printf("thread %d wrote %ld bytes\n", i, count[i]);
		CHECK(count[i] == PER_THREAD);
	}
	fclose(shared);
}

/* The runtime's lock, taken again and again (multiverse_dump_info takes
 * it) while the main thread forks: the C library's fork() waits for it
 * and gives the child a free one (the runtime's fork hook, docs/libc.md),
 * or a child that uses the runtime would wait forever. */
static volatile int forking;

static void dump_to_null(void)
{
	FILE *f = fopen("/dev/null", "w");

	if (f) {
		multiverse_dump_info(f);
		fclose(f);
	}
}

static void *dumper(void *arg)
{
	(void)arg;
	while (forking)
		dump_to_null();
	return NULL;
}

static void fork_while_locked(void)
{
	pthread_t t;

	forking = 1;
	CHECK(pthread_create(&t, NULL, dumper, NULL) == 0);
	for (int i = 0; i < 50; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			alarm(5);               /* a lock never released */
			dump_to_null();
			_exit(0);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0);
	}
	forking = 0;
	CHECK(pthread_join(t, NULL) == 0);
}

int main(void)
{
	char guard[64];

	if (multiverse_dump_info) {
		lock_variant(guard, sizeof guard);
		fprintf(stderr, "before the first thread, __lock runs variant %s\n", guard);
		CHECK(!strcmp(guard, "[0, 0]"));
	}
	single_threaded();
	multi_threaded();
	if (multiverse_dump_info)
		fork_while_locked();
	if (multiverse_dump_info) {
		lock_variant(guard, sizeof guard);
		fprintf(stderr, "after it, __lock runs variant %s\n", guard);
		CHECK(!strcmp(guard, "[1, 1]"));
	}
	printf("%s\n", failures ? "FAILED" : "all checks passed");
	return failures != 0;
}
