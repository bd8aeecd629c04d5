/* SPDX-License-Identifier: MIT */
/* Redirecting a function into a module loaded later, beyond a direct
 * call's reach: the sites call it through far-call gates, the entry
 * jumps there.  dlclose() of a module with records gives the function
 * back to what commit chose before the code goes; a module without
 * records is kept loaded while calls may reach it, also while another
 * thread loads and unloads modules.  argv[1] is the
 * folder holding plugin.so and plugin_bare.so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include "check.h"
#include "text.h"
#include "redirect_checks.h"

MULTIVERSE int mode;

MULTIVERSE __attribute__((noinline)) int handle(int x)
{
	return mode ? 100 + x : x;
}

__attribute__((noinline)) int via_site(int x)
{
	int r = handle(x);

	__asm__ volatile("" ::: "memory");      /* no tail call */
	return r;
}
__attribute__((noinline)) int via_tail(int x) { return handle(x); }
__attribute__((noinline)) int via_pointer(int x) { return OPAQUE(&handle)(x); }

static int (*const callers[3])(int) = { via_site, via_tail, via_pointer };
#define EXPECT_ALL(base) expect_calls(__LINE__, callers, base)

static const char *loader_path;
static atomic_int loader_stop;
static atomic_long loads;

static void *loader(void *arg)
{
	(void)arg;
	while (!atomic_load(&loader_stop)) {
		void *h = dlopen(loader_path, RTLD_NOW);
		if (h) {
			atomic_fetch_add(&loads, 1);
			dlclose(h);
		}
		/* neither lock is fair: leave the other thread a turn */
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096], bare[4096];
	const struct mv_info_fn *f;
	void *h, *v2, *v3;

	if (argc < 2)
		return 2;
	snprintf(path, sizeof path, "%s/plugin.so", argv[1]);
	snprintf(bare, sizeof bare, "%s/plugin_bare.so", argv[1]);

	mode = 1;
	CHECK(multiverse_commit() >= 0);
	EXPECT_ALL(100);

	/* into a module with records: dlclose gives handle back */
	h = dlopen(path, RTLD_NOW);
	v2 = h ? dlsym(h, "handle_v2") : NULL;
	CHECK(v2 != NULL);
	if (!v2)
		CHECK_DONE();
	CHECK_EQ(multiverse_redirect((void *)handle, v2), 0);
	EXPECT_ALL(1000);
	EXPECT_SITES(handle, v2);
	CHECK_EQ(*(int *)dlsym(h, "v2_calls"), 3);
	mode = 0;
	CHECK(multiverse_commit() >= 0);        /* chooses, writes nothing */
	EXPECT_ALL(1000);
	CHECK_EQ(dlclose(h), 0);
	f = multiverse_info_fn((void *)handle);
	CHECK(f && !f->redirect && f->committed);  /* to mode 0 */
	EXPECT_ALL(0);
	mode = 1;
	CHECK(multiverse_commit() >= 0);
	EXPECT_ALL(100);

	/* into a module without records: kept loaded */
	h = dlopen(bare, RTLD_NOW);
	v3 = h ? dlsym(h, "handle_v3") : NULL;
	CHECK(v3 != NULL);
	if (!v3)
		CHECK_DONE();
	CHECK_EQ(multiverse_redirect((void *)handle, v3), 0);
	EXPECT_ALL(3000);
	EXPECT_SITES(handle, v3);
	dlclose(h);
	CHECK(dlopen(bare, RTLD_NOW | RTLD_NOLOAD) != NULL);   /* still there */
	EXPECT_ALL(3000);
	f = multiverse_info_fn((void *)handle);
	CHECK(f && f->redirect == v3);

	/* pinning it again and again while another thread loads and
	 * unloads a module with records: the dynamic linker's lock and
	 * ours, taken in both orders, must not deadlock */
	{
		pthread_t t;
		struct timespec t0, t1;
		long rounds = 0;

		loader_path = path;
		pthread_create(&t, NULL, loader, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			CHECK_EQ(multiverse_redirect((void *)handle, NULL), 0);
			CHECK_EQ(multiverse_redirect((void *)handle, v3), 0);
			clock_gettime(CLOCK_MONOTONIC, &t1);
		} while (++rounds < 300 && (t1.tv_sec - t0.tv_sec) * 1000000000L +
					  t1.tv_nsec - t0.tv_nsec < 500000000L);
		atomic_store(&loader_stop, 1);
		pthread_join(t, NULL);
		CHECK(atomic_load(&loads) > 0);
	}

	CHECK_EQ(multiverse_redirect((void *)handle, NULL), 0);
	EXPECT_ALL(100);
	CHECK(multiverse_revert() >= 0);
	CHECK_EQ(text_diffs(), 0);
	CHECK_DONE();
}
