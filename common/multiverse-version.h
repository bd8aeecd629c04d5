/* SPDX-License-Identifier: MIT */
/*
 * Multiverse's version, in one place.  The plugins predefine it for the
 * sources they compile: __MULTIVERSE_VERSION__ (include/multiverse.h).
 */
#ifndef MULTIVERSE_VERSION_H_
#define MULTIVERSE_VERSION_H_

#define MV_VERSION_MAJOR 0
#define MV_VERSION_MINOR 9
#define MV_VERSION_PATCH 0

/* What __MULTIVERSE_VERSION__ expands to. */
#define MV_VERSION_NUMBER (MV_VERSION_MAJOR * 10000 + MV_VERSION_MINOR * 100 + MV_VERSION_PATCH)

#endif
