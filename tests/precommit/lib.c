/* SPDX-License-Identifier: MIT */
/* A switch in a shared library, which copied.c reads: a program that is
 * not position-independent gets a copy of it (a copy relocation), whose
 * value is this file's, not the program's (tests/precommit/check.sh). */
#include <multiverse.h>

MULTIVERSE int lib_mode = 1;
