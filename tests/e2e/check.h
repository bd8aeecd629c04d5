/* SPDX-License-Identifier: MIT */
/* Assertions for the end-to-end tests: a failed check names itself and
 * exits non-zero, so the harness reports the test as failed. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <multiverse.h>
#include "clang_stub.h"

static int check_failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		check_failures++; \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) { \
		fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n", \
			__FILE__, __LINE__, #a, #b, a_, b_); \
		check_failures++; \
	} \
} while (0)

/* Calls through a pointer the optimizer cannot see through, so the call
 * reaches the generic's entry rather than a recorded call site. */
#define OPAQUE(p) ({ __typeof__(p) p_ = (p); __asm__("" : "+r"(p_)); p_; })

#define CHECK_DONE() do { \
	if (check_failures) { \
		fprintf(stderr, "%d check(s) failed\n", check_failures); \
		multiverse_dump_info(stderr); \
		return 1; \
	} \
	return 0; \
} while (0)

#endif
