/* SPDX-License-Identifier: MIT */
/* dlopen() and dlclose() in one thread while another commits and reverts
 * and workers run the executable's patched code: every call gives the
 * result of some configuration, and after the last revert the text is
 * as on disk.  argv[1] is the folder of the built plugin. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <multiverse.h>

#include "check.h"
#include "text.h"

__attribute__((multiverse)) int mode;
__attribute__((multiverse)) int main_fn(int x) { return mode ? x + 100 : x - 100; }
__attribute__((noipa)) int main_call(int x) { return main_fn(x) * 2; }

static atomic_int stop;
static atomic_long bad, loads, rounds;
static char path[4096];

static void *worker(void *arg)
{
	(void)arg;
	for (int x = 0; !atomic_load(&stop); x = (x + 1) & 1023) {
		int r = main_call(x);
		if (r != 2 * (x + 100) && r != 2 * (x - 100))
			bad++;
		rounds++;
	}
	return NULL;
}

static void *loader(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		void *h = dlopen(path, RTLD_NOW);
		int (*call)(int);

		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			bad++;
			return NULL;
		}
		call = (int (*)(int))dlsym(h, "plug_call");
		for (int x = 0; x < 200 && call; x++) {
			int r = call(x);
			if (r != 2 * x + 1 && r != 3 * x + 1)
				bad++;
		}
		dlclose(h);
		loads++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w, l;
	struct timespec t0, t;
	long calls = 0;
	double elapsed;

	if (argc < 2)
		return 2;
	snprintf(path, sizeof path, "%s/plugin.so", argv[1]);
	CHECK_EQ(text_diffs(), 0);
	pthread_create(&w, NULL, worker, NULL);
	pthread_create(&l, NULL, loader, NULL);
	/* Run for half a second and until the loader has had its turns: on a
	 * loaded machine the scheduler may starve it for a while, which is
	 * no failure; only a loader that never gets on within the bound is.
	 * Once enough API calls are made, pause between them, so that a
	 * slow loader (emulated, where every commit takes milliseconds) is
	 * not kept off the runtime's lock by back-to-back commits. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		mode = calls & 1;
		CHECK(calls % 3 == 2 ? multiverse_revert() >= 0 : multiverse_commit() >= 0);
		calls++;
		if (calls >= 20 && loads < 3)
			nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
		else
			sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
		elapsed = (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9;
	} while (elapsed < 0.5 || ((loads < 3 || calls < 20) && elapsed < 30));
	atomic_store(&stop, 1);
	pthread_join(w, NULL);
	pthread_join(l, NULL);
	CHECK(multiverse_revert() >= 0);
	printf("concurrent: %ld API calls, %ld loads, %ld worker rounds\n",
	       calls, (long)loads, (long)rounds);
	CHECK_EQ(bad, 0);
	CHECK(loads >= 3 && calls >= 20);
	CHECK_EQ(multiverse_is_committed(main_fn), 0);
	CHECK_EQ(text_diffs(), 0);
	CHECK_DONE();
}
