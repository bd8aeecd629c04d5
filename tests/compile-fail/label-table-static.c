/* SPDX-License-Identifier: MIT */
/* Multiversed interpreters whose label tables are static: GCC cannot copy
 * such a body, so the plugin says why, what to do, and keeps the generic.
 * Clang's copies get their own copy of a constant table (interp; see
 * tests/e2e/label_tables.c), but not of a writable one (interp_rw).
 * expect-warning: 'interp' cannot be specialized: it stores the address of a local label in a static variable
 * expect-warning: 'interp_rw' cannot be specialized: it stores the address of a local label in a static variable
 * expect-note: build the label table in an automatic (non-static) array instead
 * expect-clang-warning: multiverse: 'interp_rw' cannot be specialized: the address of one of its labels is stored where a copy of the function cannot follow it (a table that is not constant, or that another function uses); only the generic is used
 * expect-nothing-else
 */
__attribute__((multiverse)) int fast;

__attribute__((multiverse)) int interp(const unsigned char *code)
{
	static void *const tbl[] = { &&op_halt, &&op_inc };
	int acc = 0;

	goto *tbl[*code++];
op_inc:
	acc += fast ? 2 : 1;
	goto *tbl[*code++];
op_halt:
	return acc;
}

__attribute__((multiverse)) int interp_rw(const unsigned char *code)
{
	static void *tbl[] = { &&op_halt, &&op_inc };
	int acc = 0;

	goto *tbl[*code++];
op_inc:
	acc += fast ? 2 : 1;
	goto *tbl[*code++];
op_halt:
	return acc;
}
