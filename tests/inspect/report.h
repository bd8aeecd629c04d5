/* SPDX-License-Identifier: MIT */
/* What a program reports of itself through the API, for compare.py to
 * hold multiverse-inspect's view against: one tab-separated line per
 * function and per switch. */
#include <stdio.h>
#include <multiverse.h>

static inline void report_fn(void *fn)
{
	const struct mv_info_fn *f = multiverse_info_fn(fn);
	if (!f) {
		printf("error\t%s\n", multiverse_last_error());
		return;
	}
	printf("fn\t%s\t%p\t%p\t%d\t%u\t%u\t%u\t%u\t%p\n", f->name, f->generic, f->active,
	       f->committed, f->n_variants, f->n_sites, f->n_sites_inlined,
	       f->n_sites_skipped, f->redirect);
}

static inline void report_var(void *var, long long value)
{
	const struct mv_info_var *v = multiverse_info_var(var);
	if (!v) {
		printf("error\t%s\n", multiverse_last_error());
		return;
	}
	printf("var\t%s\t%p\t%lld\t%u\n", v->name, v->addr, value, v->n_sites);
}
