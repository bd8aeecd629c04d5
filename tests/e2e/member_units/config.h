/* SPDX-License-Identifier: MIT */
/* A configuration struct whose members are switches, shared by the units:
 * object.c defines the objects, function.c reads them, main.c commits. */
#include <multiverse.h>

enum policy { POLICY_FIFO, POLICY_RR = 3 };

struct limits {
	MULTIVERSE_VALUES(16, 64) unsigned short depth;
};

struct sched {
	MULTIVERSE enum policy policy;
	struct limits lim;
	long ticks;
};

extern struct sched sched, per_cpu[2];
int schedule(int x);
int cpu1_depth(void);
