/* SPDX-License-Identifier: MIT */
#include "one_registration/a.c"
