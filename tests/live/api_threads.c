/* SPDX-License-Identifier: MIT */
/*
 * The API called from several threads at once: commits and reverts of
 * every scope, binding, queries and failing calls, while the same threads
 * change the switches.  No call may return anything but a valid result,
 * and each thread's failing call must find its own message in
 * multiverse_last_error().  Afterwards one commit from the main thread
 * must leave every function in the state the final switch values call
 * for, and a revert must leave the text as on disk.
 */
#include "live.h"

#define THREADS 4
#define SECONDS 0.8
#define MAX_OPS 50000             /* per thread */

__attribute__((multiverse)) int a_sw;
__attribute__((multiverse)) int lvl;             /* domain {0, 1, 5}; 7 is outside */
__attribute__((multiverse("tracked"))) int tr;
__attribute__((noipa)) int t_add(int x) { return x + 40; }
__attribute__((noipa)) int t_mul(int x) { return x * 4; }
__attribute__((multiverse)) int (*aop)(int) = t_add;

__attribute__((multiverse)) int fa(int x) { return a_sw ? x + 1 : x + 2; }
__attribute__((multiverse)) int fl(int x) { return lvl == 5 ? x * 5 : x - 5; }
__attribute__((multiverse)) int ft(int x) { return tr ? x - 3 : x + 3; }
__attribute__((multiverse)) int fboth(int x) { return (a_sw ? x : -x) + (tr ? 100 : 200); }

__attribute__((noipa)) int call_fa(int x) { return fa(x) * 2; }
__attribute__((noipa)) int call_fl(int x) { return fl(x) * 2; }
__attribute__((noipa)) int call_ft(int x) { return ft(x) * 2; }
__attribute__((noipa)) int call_fboth(int x) { return fboth(x) * 2; }
__attribute__((noipa)) int call_aop(int x) { return aop(x) * 2; }

static void *const fns[] = { (void *)fa, (void *)fl, (void *)ft, (void *)fboth };
static const char *const fn_names[] = { "fa", "fl", "ft", "fboth" };
/* What commit_fn, revert_fn and is_committed take: functions and the
 * function-pointer switch. */
static void *const patchable[] = { (void *)fa, (void *)fl, (void *)ft, (void *)fboth, &aop };
static void *const vars[] = { &a_sw, &lvl, &tr, &aop };
static const char *const var_names[] = { "a_sw", "lvl", "tr", "aop" };
#define N(a) (sizeof(a) / sizeof((a)[0]))

static atomic_long n_calls;

/* A patching call must succeed; it returns how much changed. */
#define PATCH_OK(call) do { \
	int r_ = (call); \
	if (r_ < 0) \
		LIVE_FAIL("%s returned %d: %s", #call, r_, multiverse_last_error()); \
} while (0)

/* A call with a bad address fails with err, and this thread's last error
 * names the function: messages are per thread. */
#define FAILS(call, err, api) do { \
	int r_ = (call); \
	const char *m_ = multiverse_last_error(); \
	if (r_ != -(err)) \
		LIVE_FAIL("%s returned %d, want %d", #call, r_, -(err)); \
	else if (!m_ || !strstr(m_, api)) \
		LIVE_FAIL("after %s, last error is \"%s\"", #call, m_ ? m_ : "(null)"); \
} while (0)

static void check_info_fn(unsigned i)
{
	const struct mv_info_fn *fi = multiverse_info_fn(fns[i]);

	if (!fi) {
		LIVE_FAIL("multiverse_info_fn(%s) returned NULL", fn_names[i]);
		return;
	}
	/* The view is this thread's: another thread's call cannot change it. */
	if (strcmp(fi->name, fn_names[i]) || fi->generic != fns[i] ||
	    (fi->committed != 0 && fi->committed != 1) ||
	    fi->committed != (fi->active != fi->generic) ||
	    fi->n_variants < 2 || fi->n_sites < 1 || fi->n_sites_skipped)
		LIVE_FAIL("multiverse_info_fn(%s): name %s, generic %p, active %p, committed %d, "
			  "%u variants, %u sites, %u skipped", fn_names[i], fi->name,
			  fi->generic, fi->active, fi->committed, fi->n_variants,
			  fi->n_sites, fi->n_sites_skipped);
}

static void check_info_var(unsigned i)
{
	const struct mv_info_var *vi = multiverse_info_var(vars[i]);

	if (!vi || strcmp(vi->name, var_names[i]) || vi->addr != vars[i] ||
	    vi->is_fnptr != (vars[i] == (void *)&aop) ||
	    vi->is_tracked != (vars[i] == (void *)&tr))
		LIVE_FAIL("multiverse_info_var(%s) is wrong", var_names[i]);
}

static void *api_thread(void *arg)
{
	unsigned s = 0x2545f491u * (unsigned)(uintptr_t)arg + 1;
	double t0 = live_now();
	long ops = 0;
	static const int levels[] = { 0, 1, 5, 7 };
	int (*const targets[])(int) = { t_add, t_mul };

	/* For SECONDS, and on until the threads have made 400 calls
	 * together, however long that takes: batches that stop the threads
	 * for copies are slow under emulation (193 calls in 0.8 s in the
	 * arm64 guest once). */
	for (; ops < MAX_OPS &&
	       (live_now() - t0 < SECONDS || atomic_load(&n_calls) < 400); ops++) {
		atomic_fetch_add(&n_calls, 1);
		unsigned r = live_rand(&s), f = (r >> 8) % N(fns), v = (r >> 8) % N(vars);
		void *pf = patchable[(r >> 8) % N(patchable)];
		int state, got;

		switch (r % 16) {
		case 0: __atomic_store_n(&a_sw, (r >> 8) & 1, __ATOMIC_RELAXED); break;
		case 1: __atomic_store_n(&lvl, levels[(r >> 8) % 4], __ATOMIC_RELAXED); break;
		case 2: __atomic_store_n(&tr, (r >> 8) & 1, __ATOMIC_RELAXED); break;
		case 3: __atomic_store_n(&aop, targets[(r >> 8) & 1], __ATOMIC_RELAXED); break;
		case 4: PATCH_OK(multiverse_commit()); break;
		case 5: PATCH_OK(multiverse_revert()); break;
		case 6: PATCH_OK(multiverse_commit_refs(vars[v])); break;
		case 7: PATCH_OK(multiverse_revert_refs(vars[v])); break;
		case 8: PATCH_OK(multiverse_commit_fn(pf)); break;
		case 9: PATCH_OK(multiverse_revert_fn(pf)); break;
		case 10:
			/* Binds, unbinds or queries a/tr; the answer is the state. */
			state = (int)((r >> 8) % 3) - 1;
			got = multiverse_bind((r >> 12) & 1 ? &tr : &a_sw, state);
			if (state >= 0 ? got != state : got != 0 && got != 1)
				LIVE_FAIL("multiverse_bind(.., %d) returned %d", state, got);
			break;
		case 11:
			got = multiverse_is_committed(pf);
			if (got != 0 && got != 1)
				LIVE_FAIL("multiverse_is_committed returned %d", got);
			break;
		case 12: check_info_fn(f); break;
		case 13: check_info_var(v); break;
		case 14:
			/* Not every time: each failure is also printed to stderr. */
			if ((r >> 8) % 16)
				break;
			switch ((r >> 12) % 3) {
			case 0: FAILS(multiverse_commit_fn(&a_sw), ENOENT, "multiverse_commit_fn"); break;
			case 1: FAILS(multiverse_revert_refs(NULL), EINVAL, "multiverse_revert_refs"); break;
			default: FAILS(multiverse_is_committed((void *)t_add), ENOENT,
				       "multiverse_is_committed"); break;
			}
			break;
		default:
			PATCH_OK(multiverse_commit_refs(&a_sw));
			break;
		}
	}
	return NULL;
}

/* Every path gives the results of these switch values. */
static void expect(int a, int l, int t, int (*o)(int))
{
	LIVE_CHECK_EQ(call_fa(10), 2 * (a ? 11 : 12));
	LIVE_CHECK_EQ(call_fl(10), 2 * (l == 5 ? 50 : 5));
	LIVE_CHECK_EQ(call_ft(10), 2 * (t ? 7 : 13));
	LIVE_CHECK_EQ(call_fboth(10), 2 * ((a ? 10 : -10) + (t ? 100 : 200)));
	LIVE_CHECK_EQ(call_aop(10), 2 * o(10));
	LIVE_CHECK_EQ(OPAQUE(&fa)(10), a ? 11 : 12);
	LIVE_CHECK_EQ(OPAQUE(&fboth)(10), (a ? 10 : -10) + (t ? 100 : 200));
}

static void expect_committed(int fa_c, int fl_c, int ft_c, int fboth_c, int aop_c)
{
	const int want[] = { fa_c, fl_c, ft_c, fboth_c };

	for (unsigned i = 0; i < N(fns); i++) {
		const struct mv_info_fn *fi = multiverse_info_fn(fns[i]);

		if (multiverse_is_committed(fns[i]) != want[i])
			LIVE_FAIL("%s: is_committed %d, want %d", fn_names[i],
				  multiverse_is_committed(fns[i]), want[i]);
		if (!fi || fi->committed != want[i] || fi->n_sites_skipped)
			LIVE_FAIL("%s: info says committed %d, %u sites skipped", fn_names[i],
				  fi ? fi->committed : -1, fi ? fi->n_sites_skipped : 0);
	}
	LIVE_CHECK_EQ(multiverse_is_committed(&aop), aop_c);
}

int main(void)
{
	pthread_t t[THREADS];

	live_guard(LIVE_HANG_SECONDS);
	LIVE_CHECK_EQ(text_diffs(), 0);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, api_thread, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("api_threads: %d threads, %ld calls\n", THREADS, atomic_load(&n_calls));
	LIVE_CHECK(atomic_load(&n_calls) >= 400);

	/* One commit from here decides everything, whatever the threads left
	 * bound, unbound, committed or reverted.  lvl = 7 has no variant, so
	 * fl stays generic. */
	a_sw = 1, lvl = 7, tr = 1, aop = t_mul;
	LIVE_CHECK_EQ(multiverse_bind(&a_sw, 1), 1);
	LIVE_CHECK_EQ(multiverse_bind(&lvl, 1), 1);
	LIVE_CHECK_EQ(multiverse_bind(&tr, 1), 1);
	LIVE_CHECK(multiverse_commit() >= 0);
	expect_committed(1, 0, 1, 1, 1);
	expect(1, 7, 1, t_mul);
	/* Bound: only the generic fl follows the new values. */
	a_sw = 0, lvl = 5, tr = 0, aop = t_add;
	LIVE_CHECK_EQ(call_fa(10), 2 * 11);
	LIVE_CHECK_EQ(call_fl(10), 2 * 50);
	LIVE_CHECK_EQ(call_ft(10), 2 * 7);
	LIVE_CHECK_EQ(call_fboth(10), 2 * 110);
	LIVE_CHECK_EQ(call_aop(10), 2 * 40);

	/* The revert restores everything, byte for byte. */
	LIVE_CHECK(multiverse_revert() >= 4);
	expect_committed(0, 0, 0, 0, 0);
	LIVE_CHECK_EQ(text_diffs(), 0);
	expect(0, 5, 0, t_add);
	return live_done("api_threads");
}
