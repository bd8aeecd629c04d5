/* SPDX-License-Identifier: MIT */
/*
 * The checks of the suite's test modules: each prints "ok - NAME" or
 * "not ok - NAME: why" to the kernel log, which suite.sh counts.
 */
#ifndef MV_KERNEL_CHECK_H
#define MV_KERNEL_CHECK_H

#include <linux/printk.h>

static int failed, passed;

#define check(cond, name, fmt, ...) do {					\
	if (cond) {								\
		passed++;							\
		pr_info("ok - %s\n", name);					\
	} else {								\
		failed++;							\
		pr_info("not ok - %s: " fmt "\n", name, ##__VA_ARGS__);		\
	}									\
} while (0)

#endif
