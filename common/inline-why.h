/* SPDX-License-Identifier: MIT */
/*
 * Why a variant may not be copied into a call site (MV_INLINE_*), in the
 * words both plugins' compile reports use (gcc/report.cc,
 * clang/report.cpp); tools/multiverse-inspect has the same table.
 */
#ifndef MULTIVERSE_INLINE_WHY_H
#define MULTIVERSE_INLINE_WHY_H

#include "descriptor.h"

inline const char *mv_inline_why_text(unsigned why)
{
	switch (why) {
	case MV_INLINE_OK: return "inlinable";
	case MV_INLINE_UNKNOWN: return "not analysed";
	case MV_INLINE_CALLS: return "makes a call";
	case MV_INLINE_STACK: return "uses the stack";
	case MV_INLINE_ASM: return "holds an asm statement";
	case MV_INLINE_RETURNS: return "does not end in its only return";
	case MV_INLINE_BRANCHES: return "has a branch that may leave it";
	case MV_INLINE_REFERENCE: return "refers to an address in a form that cannot be moved";
	case MV_INLINE_TOO_LARGE: return "is larger than a call site may be";
	}
	return "?";
}

#endif
