/* SPDX-License-Identifier: MIT */
/* The caller side of the PV-ops benchmark, in its own unit so the calls
 * stay calls (see irq.h for the builds; COMMIT: commit the switches). */
#include <stdio.h>

#include "irq.h"

#ifdef MULTIVERSE
#include <multiverse.h>
#endif

DEFINE_WARM(pair, irq_disable(); irq_enable())
DEFINE_COLD(pair, irq_disable(); irq_enable())

/* Commits if asked, and checks that the operations still work. */
int N(setup)(void)
{
#ifdef COMMIT
	if (multiverse_commit_fn(&N(pv_irq_disable)) < 0 ||
	    multiverse_commit_fn(&N(pv_irq_enable)) < 0 ||
	    multiverse_is_committed(&N(pv_irq_disable)) != 1 ||
	    multiverse_is_committed(&N(pv_irq_enable)) != 1) {
		fprintf(stderr, "commit failed: %s\n", multiverse_last_error());
		return 1;
	}
#endif
	irq_disable();
	int off = N(irq_flag);
	irq_enable();
	return off != 0 || N(irq_flag) != 1;
}
