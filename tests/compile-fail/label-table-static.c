/* A multiversed interpreter whose label table is static: GCC cannot copy
 * such a body, so the plugin says why, what to do, and keeps the generic.
 * expect-warning: 'interp' cannot be specialized: it stores the address of a local label in a static variable
 * expect-warning: note: build the label table in an automatic (non-static) array instead
 * expect-clang-warning: multiverse: 'interp' cannot be specialized: it takes the address of a label; only the generic is used
 * (Clang's copy could not remap the label addresses in any table, static
 * or automatic, which it also builds as data.)
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
