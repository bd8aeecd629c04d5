/* SPDX-License-Identifier: MIT */
// only-with-clang: GCC knows each object by its declaration, Clang's IR by a name
// expect-clang-warning: multiverse: 'st' is not the only static object called 'st' in this function, so the Clang plugin cannot tell them apart and specializes the member switches of neither; rename one
// expect-clang-warning: multiverse: 'twin' is not the only static object called 'twin' in this function
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

/* the other one has no switch: still two objects called twin */
__attribute__((multiverse)) int g(int x)
{
	if (x) {
		static int twin;
		return twin;
	}
	static struct config twin;
	return twin.mode;
}
