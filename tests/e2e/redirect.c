/* SPDX-License-Identifier: MIT */
/* multiverse_redirect(): every call of a multiversed function, through a
 * site, a tail call or a pointer, reaches the new function until the
 * redirect is undone.  Commits and reverts meanwhile choose a body
 * without writing it, and the undo writes what they chose.  Refusals
 * write nothing, also for an entry found changed during the batch; the
 * child of a fork keeps the redirect; a function-pointer switch bound to
 * a plain function follows its redirect. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "text.h"
#include "redirect_checks.h"
#include "../../common/descriptor.h"

extern const struct mv_desc_fn __start___multiverse_fn[] __attribute__((visibility("hidden")));
extern const struct mv_desc_fn __stop___multiverse_fn[] __attribute__((visibility("hidden")));

MULTIVERSE int mode;
MULTIVERSE int mode2;
int calls_old, calls_new, calls_newer;
int not_code = 7;          /* data: in no executable segment */

/* old: the generic reads mode at run time; the variant for mode 1 returns
 * 100 + x even after mode changes */
MULTIVERSE __attribute__((noinline)) int handle(int x)
{
	calls_old++;
	return mode == 1 ? 100 + x : mode == 2 ? 200 + x : x;
}

/* a plain multiversed function: a handler with no switch */
MULTIVERSE __attribute__((noinline)) int serve(int x)
{
	calls_old++;
	return x + 1;
}

__attribute__((noinline)) int handle_v2(int x)
{
	calls_new++;
	return 1000 + x;
}

__attribute__((noinline)) int handle_v3(int x)
{
	calls_newer++;
	return 3000 + x;
}

/* a multiversed new version: its own variants follow its commits */
MULTIVERSE __attribute__((noinline)) int handle_mv(int x)
{
	calls_new++;
	return mode2 ? 5000 + x : 4000 + x;
}

/* a function-pointer switch bound to a plain multiversed function: its
 * padded sites hold a copy of it once committed, which must follow a
 * redirect of the function */
volatile int flag;
__attribute__((multiverse)) void plain_on(void) { flag = 1; }
__attribute__((noinline)) void plain_on_v2(void) { flag = 2; }
__attribute__((multiverse("inline", 24))) void (*pv_set)(void) = plain_on;
__attribute__((noinline)) int through_switch(void)
{
	flag = 0;
	pv_set();
	__asm__ volatile("" ::: "memory");
	return flag;
}

/* a function whose entry the program rewrites behind the runtime's back */
MULTIVERSE __attribute__((noinline)) int tampered(int x) { return x + 7; }
__attribute__((noinline)) int call_tampered(int x)
{
	int r = tampered(x);

	__asm__ volatile("" ::: "memory");
	return r;
}

/* the callers: a direct call site, a tail call, a call through a
 * pointer that reaches the generic's entry */
__attribute__((noinline)) int via_site(int x)
{
	int r = handle(x);

	__asm__ volatile("" ::: "memory");      /* no tail call */
	return r;
}
__attribute__((noinline)) int via_tail(int x) { return handle(x); }
__attribute__((noinline)) int via_pointer(int x) { return OPAQUE(&handle)(x); }
__attribute__((noinline)) int serve_site(int x) { return serve(x) * 2; }

static int (*const callers[3])(int) = { via_site, via_tail, via_pointer };
#define EXPECT_ALL(base) expect_calls(__LINE__, callers, base)

static void check_refusal(int r, int err, const char *words)
{
	CHECK_EQ(r, -err);
	if (!strstr(multiverse_last_error(), words)) {
		fprintf(stderr, "error \"%s\" lacks \"%s\"\n", multiverse_last_error(), words);
		check_failures++;
	}
	CHECK(strstr(multiverse_last_error(), "nothing was written"));
}

int main(void)
{
	const struct mv_info_fn *info;
	void *variant;
	pid_t pid;
	int status;

	/* refusals, before anything is written */
	CHECK_EQ(multiverse_redirect(NULL, (void *)handle_v2), -EINVAL);
	check_refusal(multiverse_redirect((void *)handle_v2, (void *)handle_v3), ENOENT,
		      "not a multiversed function");
	check_refusal(multiverse_redirect((void *)&mode, (void *)handle_v3), ENOENT,
		      "not a multiversed function");
	check_refusal(multiverse_redirect((void *)handle, (void *)handle), ELOOP,
		      "the function itself");
	check_refusal(multiverse_redirect((void *)handle, (void *)multiverse_commit), EINVAL,
		      "inside the multiverse runtime");
	check_refusal(multiverse_redirect((void *)handle, (void *)&not_code), EFAULT,
		      "not in an executable segment");
	CHECK_EQ(text_diffs(), 0);
	EXPECT_ALL(0);

	/* redirected: every caller reaches handle_v2 */
	CHECK_EQ(multiverse_redirect((void *)handle, (void *)handle_v2), 0);
	calls_old = calls_new = 0;
	EXPECT_ALL(1000);
	EXPECT_SITES(handle, handle_v2);
	CHECK_EQ(calls_old, 0);
	CHECK_EQ(calls_new, 3);
	info = multiverse_info_fn((void *)handle);
	CHECK(info && info->redirect == (void *)handle_v2);
	CHECK(info && !info->committed);
	CHECK_EQ(multiverse_redirect((void *)handle, (void *)handle_v2), 0);   /* again: no change */
	EXPECT_ALL(1000);

	/* a loop through two redirects is refused */
	CHECK_EQ(multiverse_redirect((void *)serve, (void *)handle), 0);
	check_refusal(multiverse_redirect((void *)handle, (void *)serve), ELOOP,
		      "redirected back to it");
	CHECK_EQ(multiverse_redirect((void *)serve, NULL), 0);

	/* commit while redirected chooses, but writes nothing */
	mode = 1;
	CHECK(multiverse_commit() >= 0);
	EXPECT_ALL(1000);
	info = multiverse_info_fn((void *)handle);
	CHECK(info && info->committed && info->redirect == (void *)handle_v2);
	CHECK_EQ(multiverse_is_committed((void *)handle), 1);
	variant = info ? info->active : NULL;

	/* a variant's body is no redirect target */
	check_refusal(multiverse_redirect((void *)serve, variant), EINVAL, "is a variant of handle");

	/* from one new version to the next */
	CHECK_EQ(multiverse_redirect((void *)handle, (void *)handle_v3), 0);
	EXPECT_ALL(3000);
	EXPECT_SITES(handle, handle_v3);

	/* undone: the variant the commit chose, still for mode 1 */
	mode = 2;
	CHECK_EQ(multiverse_redirect((void *)handle, NULL), 0);
	EXPECT_ALL(100);
	EXPECT_SITES(handle, VARIANT);
	info = multiverse_info_fn((void *)handle);
	CHECK(info && !info->redirect && info->active == variant);

	/* revert while redirected: undone, the generic reads mode again */
	CHECK_EQ(multiverse_redirect((void *)handle, (void *)handle_v2), 0);
	CHECK(multiverse_revert() >= 0);
	EXPECT_ALL(1000);
	CHECK_EQ(multiverse_redirect((void *)handle, NULL), 0);
	EXPECT_ALL(200);
	EXPECT_SITES(handle, NULL);

	/* the child of a fork inherits the redirect, and undoes its own */
	CHECK_EQ(multiverse_redirect((void *)handle, (void *)handle_v2), 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		check_failures = 0;
		EXPECT_ALL(1000);
		CHECK_EQ(multiverse_redirect((void *)handle, NULL), 0);
		EXPECT_ALL(200);
		_exit(check_failures ? 1 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	EXPECT_ALL(1000);               /* the parent's text is its own */

	/* to a multiversed function: its commits choose its variant */
	CHECK_EQ(multiverse_redirect((void *)handle, (void *)handle_mv), 0);
	mode2 = 1;
	CHECK(multiverse_commit_fn((void *)handle_mv) >= 0);
	mode2 = 0;
	EXPECT_ALL(5000);               /* handle_mv's committed variant */
	CHECK(multiverse_revert_fn((void *)handle_mv) >= 0);
	EXPECT_ALL(4000);

	/* a plain multiversed function is redirected as well */
	CHECK_EQ(multiverse_redirect((void *)serve, (void *)handle_v3), 0);
	CHECK_EQ(serve_site(1), 2 * 3001);
	CHECK_EQ(OPAQUE(&serve)(2), 3002);
	CHECK_EQ(multiverse_redirect((void *)serve, NULL), 0);
	CHECK_EQ(serve_site(1), 4);

	/* a switch bound to a plain function follows its redirect */
	CHECK(multiverse_commit() >= 0);
	CHECK_EQ(through_switch(), 1);
	CHECK_EQ(multiverse_redirect((void *)plain_on, (void *)plain_on_v2), 0);
	CHECK_EQ(through_switch(), 2);
	CHECK(multiverse_commit() >= 0);        /* no copy of plain_on comes back */
	CHECK_EQ(through_switch(), 2);
	CHECK_EQ(multiverse_redirect((void *)plain_on, NULL), 0);
	CHECK_EQ(through_switch(), 1);
	CHECK(multiverse_revert() >= 0);

	/* an entry changed behind the runtime's back: the redirect is
	 * refused whole, the sites untouched; undoing still works */
	{
		unsigned char *entry = NULL, was[8];
#ifdef __aarch64__
		static const unsigned char jump[4] = { 0x01, 0x00, 0x00, 0x14 }; /* b .+4 */
#else
		static const unsigned char jump[5] = { 0xe9, 0, 0, 0, 0 };        /* jmp .+5 */
#endif
		int fd = open("/proc/self/mem", O_RDWR);

		/* the entry patch area, as the descriptor names it */
		for (const struct mv_desc_fn *d = __start___multiverse_fn;
		     d < __stop___multiverse_fn; d++)
			if (mv_desc_fn_generic(d) == (void *)tampered)
				entry = mv_desc_fn_entry(d);
		CHECK(entry && fd >= 0);
		if (entry && fd >= 0) {
			memcpy(was, entry, sizeof jump);
			CHECK_EQ(pwrite(fd, jump, sizeof jump, (off_t)(uintptr_t)entry),
				 (long)sizeof jump);
			check_refusal(multiverse_redirect((void *)tampered, (void *)handle_v2), EINVAL,
				      "changed behind our back");
			CHECK_EQ(call_tampered(1), 8);
			EXPECT_SITES(tampered, NULL);
			check_refusal(multiverse_redirect((void *)tampered, (void *)handle_v2), EINVAL,
				      "cannot be patched");
			CHECK_EQ(multiverse_redirect((void *)tampered, NULL), 0);
			CHECK_EQ(pwrite(fd, was, sizeof jump, (off_t)(uintptr_t)entry),
				 (long)sizeof jump);
		}
		if (fd >= 0)
			close(fd);
	}

	/* the runtime's own entry points, found as a plugin would */
	{
		void *reg = dlsym(RTLD_DEFAULT, "__multiverse_register_module");
		if (reg)
			check_refusal(multiverse_redirect((void *)handle, reg), EINVAL,
				      "inside the multiverse runtime");
	}

	/* the dump says where calls go */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		multiverse_dump_info(f);
		fclose(f);
		CHECK(buf && strstr(buf, "function handle at") && strstr(buf, "redirected to"));
		free(buf);
	}

	/* undone and reverted, the text is the file's again */
	CHECK_EQ(multiverse_redirect((void *)handle, NULL), 0);
	CHECK(multiverse_revert() >= 0);
	CHECK_EQ(text_diffs(), 0);
	EXPECT_ALL(200);
	CHECK_DONE();
}
