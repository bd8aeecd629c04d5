/* SPDX-License-Identifier: MIT */
// only-with-clang: GCC knows each object by its declaration, Clang's IR by a name
// expect-clang-warning: multiverse: 'st' is not the only static object called 'st' in this function, so the Clang plugin cannot tell them apart and specializes the member switches of neither; rename one
// expect-nothing-else
struct config { __attribute__((multiverse)) int mode; };

__attribute__((multiverse)) int f(int x)
{
	if (x) {
		static struct config st;
		return st.mode;
	}
	static struct config st;
	return st.mode + 1;
}
