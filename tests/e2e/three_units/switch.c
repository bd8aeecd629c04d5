/* SPDX-License-Identifier: MIT */
/* Unit 1: defines the switches. */
#include "config.h"

int config_fast;
int (*config_hook)(int);
