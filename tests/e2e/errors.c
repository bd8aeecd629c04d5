/* SPDX-License-Identifier: MIT */
/* Misuse of the API gets a negative errno value and a message, never a
 * crash, and changes nothing. */
#include <errno.h>
#include "check.h"

__attribute__((multiverse)) int sw;
__attribute__((multiverse)) int f(void) { return sw ? 1 : 2; }
int plain_var;
int plain_fn(void) { return 3; }

#define CHECK_ERR(call, err) do { \
	int r_ = (call); \
	CHECK_EQ(r_, -(err)); \
	CHECK(strlen(multiverse_last_error()) > 0); \
} while (0)

int main(void)
{
	CHECK_ERR(multiverse_commit_fn(NULL), EINVAL);
	CHECK_ERR(multiverse_revert_fn(NULL), EINVAL);
	CHECK_ERR(multiverse_commit_refs(NULL), EINVAL);
	CHECK_ERR(multiverse_revert_refs(NULL), EINVAL);
	CHECK_ERR(multiverse_is_committed(NULL), EINVAL);
	CHECK_ERR(multiverse_bind(NULL, 1), EINVAL);
	CHECK_ERR(multiverse_commit_fn(plain_fn), ENOENT);
	CHECK_ERR(multiverse_commit_fn(&plain_var), ENOENT);
	CHECK_ERR(multiverse_commit_refs(&plain_var), ENOENT);
	CHECK_ERR(multiverse_commit_refs(f), ENOENT);   /* a function, not a switch */
	CHECK_ERR(multiverse_is_committed(plain_fn), ENOENT);
	CHECK_ERR(multiverse_bind(&plain_var, 1), ENOENT);
	CHECK_ERR(multiverse_bind(&sw, 2), EINVAL);
	CHECK(multiverse_info_fn(plain_fn) == NULL);
	CHECK(multiverse_info_var(&plain_var) == NULL);

	/* Nothing was patched by the failed calls. */
	CHECK_EQ(multiverse_is_committed(f), 0);
	sw = 1;
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_init(), 0);
	CHECK_EQ(multiverse_commit(), 0);
	CHECK_EQ(f(), 1);
	CHECK_DONE();
}
