/* SPDX-License-Identifier: MIT */
/*
 * Multiverse's version, in one place.  The plugins predefine it for the
 * sources they compile: __MULTIVERSE_VERSION__ (include/multiverse.h).  The
 * Makefile reads it for the runtime's file name (libmultiverse.so.0.9.0)
 * and soname, and for the wrappers' --version.  Releases are listed in
 * CHANGELOG.md.
 */
#ifndef MULTIVERSE_VERSION_H_
#define MULTIVERSE_VERSION_H_

#define MV_VERSION_MAJOR 0
#define MV_VERSION_MINOR 9
#define MV_VERSION_PATCH 0

/* The runtime's soname is libmultiverse.so.MV_ABI.  Bumped by any change
 * that breaks programs linked against an older runtime: the API's
 * functions or structs, or a descriptor version the runtime stops reading
 * (common/descriptor.h). */
#define MV_ABI 0

/* What __MULTIVERSE_VERSION__ expands to. */
#define MV_VERSION_NUMBER (MV_VERSION_MAJOR * 10000 + MV_VERSION_MINOR * 100 + MV_VERSION_PATCH)

/* "0.9.0": what multiverse_version(), the wrappers' --version and the
 * plugins' "version" argument print. */
#define MV_VERSION_STR_(x) #x
#define MV_VERSION_STR(x) MV_VERSION_STR_(x)
#define MV_VERSION_STRING MV_VERSION_STR(MV_VERSION_MAJOR) "." \
	MV_VERSION_STR(MV_VERSION_MINOR) "." MV_VERSION_STR(MV_VERSION_PATCH)

#endif
