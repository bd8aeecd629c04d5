/* SPDX-License-Identifier: MIT */
/*
 * Member switches: a scheduler's policy and queue depth kept in its
 * configuration struct, next to a counter the function updates.  Each
 * variant must be the #ifdef build's function, in which the same struct
 * has plain members and the reads are constants.
 *
 * codegen: enqueue.multiverse.0 enqueue -DSTATIC_POLICY=FIFO -DSTATIC_DEPTH=16
 * codegen: enqueue.multiverse.1 enqueue -DSTATIC_POLICY=FIFO -DSTATIC_DEPTH=64
 * codegen: enqueue.multiverse.2 enqueue -DSTATIC_POLICY=RR -DSTATIC_DEPTH=16
 * codegen: enqueue.multiverse.3 enqueue -DSTATIC_POLICY=RR -DSTATIC_DEPTH=64
 */
enum policy { FIFO, RR };

#ifdef STATIC_POLICY
#define MV
#define POLICY STATIC_POLICY
#define DEPTH STATIC_DEPTH
#else
#define MV __attribute__((multiverse))
#define POLICY sched.policy
#define DEPTH sched.depth
#endif

struct sched {
	long queued;
	MV enum policy policy;
#ifdef STATIC_POLICY
	unsigned depth;
#else
	__attribute__((multiverse("values", 16, 64))) unsigned depth;
#endif
} sched;

void rotate(void);

MV int enqueue(int prio)
{
	if (sched.queued >= DEPTH)
		return -1;
	sched.queued++;
	if (POLICY == RR && prio > 3)
		rotate();
	return 0;
}
