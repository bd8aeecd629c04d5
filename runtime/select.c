/* SPDX-License-Identifier: MIT */
/*
 * Variant selection: which body is valid for the switches' current values.
 */
#include "internal.h"

/* Widens a switch to 64 bits as its guards' bounds were computed. */
int64_t mv_switch_read(const void *addr, unsigned width, int is_signed)
{
	switch (width) {
	case 1:
		return is_signed ? (int64_t)*(const int8_t *)addr : (int64_t)*(const uint8_t *)addr;
	case 2:
		return is_signed ? (int64_t)*(const int16_t *)addr : (int64_t)*(const uint16_t *)addr;
	case 4:
		return is_signed ? (int64_t)*(const int32_t *)addr : (int64_t)*(const uint32_t *)addr;
	default:
		return *(const int64_t *)addr;
	}
}

/* An unknown or unbound switch may have any value: no guard holds.  A
 * function-pointer switch's guards (a probe: NULL or not) hold for the
 * target it is committed to, never for its current value: a "not NULL"
 * variant calls without a test, which only a bound call makes safe. */
int mv_guard_holds(const struct mv_desc_guard *g, const struct mv_var *var)
{
	int64_t v;

	if (!var || !var->bound)
		return 0;
	if (var->flags & MV_VAR_FNPTR) {
		if (!var->committed)
			return 0;
		v = (int64_t)(uintptr_t)var->active;
	} else {
		v = mv_switch_read(var->addr, var->width, var->flags & MV_VAR_SIGNED);
	}
	if (var->flags & MV_VAR_SIGNED)
		return g->low <= v && v <= g->high;
	return (uint64_t)g->low <= (uint64_t)v && (uint64_t)v <= (uint64_t)g->high;
}

/*
 * The most specialized eligible variant: the one that binds the most
 * switches, the first of equals.  NULL means the generic must run.
 */
const struct mv_desc_variant *mv_select(const struct mv_desc_variant *v,
					unsigned n, mv_var_lookup *find)
{
	const struct mv_desc_variant *best = 0;

	for (; n--; v++) {
		const struct mv_desc_guard *g = mv_desc_variant_guards(v);
		uint32_t i = 0;

		while (i < v->n_guards && mv_guard_holds(&g[i], find(mv_desc_guard_var(v, &g[i]))))
			i++;
		if (i == v->n_guards && (!best || v->n_guards > best->n_guards))
			best = v;
	}
	return best;
}

/* Whether some variant of fn is specialized on the switch at var. */
int mv_reads(const struct mv_desc_fn *fn, const void *var)
{
	for (uint32_t i = 0; i < fn->n_variants; i++) {
		const struct mv_desc_variant *v = &mv_desc_fn_variants(fn)[i];

		for (uint32_t j = 0; j < v->n_guards; j++)
			if (mv_desc_guard_var(v, &mv_desc_variant_guards(v)[j]) == var)
				return 1;
	}
	return 0;
}
