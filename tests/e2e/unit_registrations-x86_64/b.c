/* SPDX-License-Identifier: MIT */
#include "one_registration/b.c"
