/* SPDX-License-Identifier: MIT */
/*
 * The batch of patch areas one API call writes, in the kernel: queued
 * here, checked, sorted, and handed whole to the architecture's text
 * patching (text-<arch>.c, whose header tells the protocol).  The
 * kernel's text patching does not fail halfway, so no area is ever left
 * stuck and a batch never has to be rolled back: it is written whole, or
 * not at all.
 */
#include "internal.h"
#include "linux-kernel.h"
#include "sort.h"

static struct mv_kernel_poke *queue, *sort_buf;
static size_t n_queue, cap_queue;
size_t mv_poke_n_stuck;
int mv_poke_forward;
int mv_poke_must_forward;

int mv_poke_reserve(size_t n_areas)
{
	struct mv_kernel_poke *q, *s;

	if (n_areas <= cap_queue)
		return 0;
	q = kmalloc_array(n_areas, sizeof *q, GFP_KERNEL);
	s = kmalloc_array(n_areas, sizeof *s, GFP_KERNEL);
	if (!q || !s) {
		kfree(q);
		kfree(s);
		return -ENOMEM;
	}
	kfree(queue);           /* empty between batches */
	kfree(sort_buf);
	queue = q;
	sort_buf = s;
	cap_queue = n_areas;
	return 0;
}

/* Regions (runtime/region.c) are not set up in the kernel yet
 * (MV_PLATFORM_REGIONS). */
int mv_poke_copies_allowed(void)
{
	return 0;
}

/* Refuses, before anything is written, what the architecture's text
 * patching cannot write: the core chooses other forms where it can
 * (mv_poke_writable), so this only meets areas changed behind its back. */
int mv_poke_queue(struct mv_area *a, const uint8_t *bytes, int state)
{
	char old[3 * MV_AREA_MAX], new[3 * MV_AREA_MAX];

	if (a->queued)
		return 0;
	if (!mv_poke_writable(mv_cur(a), a->len) || !mv_poke_writable(bytes, a->len))
		return mv_error(-EINVAL, "area at %pS: the kernel's text patching cannot change %s into %s; nothing was written",
				a->addr, mv_hex(old, mv_cur(a), a->len), mv_hex(new, bytes, a->len));
	if (n_queue == cap_queue)
		return mv_error(-ENOMEM, "out of memory queueing a patch; nothing was written");
	a->queued = 1;
	queue[n_queue] = (struct mv_kernel_poke){ .at = (uintptr_t)a->addr, .area = a, .state = state };
	memcpy(queue[n_queue].bytes, bytes, a->len);
	n_queue++;
	return 0;
}

static void drop_queue(void)
{
	for (size_t i = 0; i < n_queue; i++)
		queue[i].area->queued = 0;
	n_queue = 0;
}

void mv_poke_cancel(void)
{
	drop_queue();
}

int mv_poke_flush(void)
{
	int err = 0;

	mv_poke_forward = 0;
	if (n_queue) {
		/* in address order: the kernel's queue flushes at every
		 * step back */
		mv_sort(queue, sort_buf, n_queue, sizeof *queue, 1);
		err = mv_kernel_write_text(queue, n_queue);
	}
	for (size_t i = 0; i < n_queue && !err; i++) {
		struct mv_area *a = queue[i].area;

		memcpy(mv_cur(a), queue[i].bytes, a->len);
		a->state = queue[i].state;
	}
	drop_queue();
	return err;
}

/* No area is ever stuck, and the kernel's int3 handler knows the areas
 * of a batch by itself. */
void mv_poke_forget(const struct mv_span *spans, size_t n)
{
	(void)spans, (void)n;
}

void mv_poke_areas_changed(void)
{
}
