/* SPDX-License-Identifier: MIT */
// not-with-clang: GNU nested functions, which Clang does not compile
/* A GNU nested function jumps to a label of its multiversed parent: GCC
 * cannot copy a body that receives a non-local goto.
 * expect-warning: 'parse' cannot be specialized: it receives a non-local goto
 * expect-note: move the target label out of the multiversed function
 * expect-nothing-else
 */
__attribute__((multiverse)) int strict;

__attribute__((multiverse)) int parse(const char *s)
{
	__label__ fail;
	int n = 0;
	void digit(char c)
	{
		if (c < '0' || c > '9')
			goto fail;
		n = n * 10 + (c - '0');
	}

	while (*s)
		digit(*s++);
	return n;
fail:
	return strict ? -1 : n;
}
