/* SPDX-License-Identifier: MIT */
/*
 * Checks shared by the torture corpus.  Each program commits, runs the
 * variants, reverts, and asserts that the runtime patched every recorded
 * site: a skipped site would still run correct code (through the
 * generic's entry), so only n_sites_skipped tells a silent miss apart.
 * Written in C89 so that every program also builds with -std=c89.
 */
#ifndef TORTURE_H
#define TORTURE_H

#include "check.h"

/* fn is bound to a variant other than its generic, with no site left. */
#define CHECK_COMMITTED(fn) do { \
	const struct mv_info_fn *fi_ = multiverse_info_fn((void *)(fn)); \
	CHECK(fi_ != NULL); \
	if (fi_) { \
		CHECK_EQ(fi_->committed, 1); \
		CHECK(fi_->active != fi_->generic); \
		CHECK_EQ(fi_->n_sites_skipped, 0); \
	} \
} while (0)

/* fn runs its generic again. */
#define CHECK_REVERTED(fn) do { \
	const struct mv_info_fn *fi_ = multiverse_info_fn((void *)(fn)); \
	CHECK(fi_ != NULL); \
	if (fi_) { \
		CHECK_EQ(fi_->committed, 0); \
		CHECK(fi_->active == fi_->generic); \
	} \
} while (0)

/* At least n call sites of fn were recorded by the plugin. */
#define CHECK_SITES(fn, n) do { \
	const struct mv_info_fn *fi_ = multiverse_info_fn((void *)(fn)); \
	CHECK(fi_ != NULL && fi_->n_sites >= (unsigned)(n)); \
} while (0)

#endif
