/* SPDX-License-Identifier: MIT */
/* Fix-it hints where the fix is mechanical, found again in the source
 * text: expectations at the end, so that the lines above keep their
 * numbers. */
__attribute__((multiverse("trackd"))) int mode;
__attribute__((multiverse("value", 1, 2))) int level;
__attribute__((multiverse))
int const
	flag;
const char *(*const pick)(void) __attribute__((multiverse));
static __thread int tl __attribute__((multiverse));
__attribute__((multiverse, always_inline)) inline int ai(void) { return mode; }
int __attribute__((always_inline, multiverse)) ai2(void) { return mode; }
// expect-error: 'mode': unknown 'multiverse' argument 'trackd'; did you mean 'tracked'?
// expect-error: 'level': unknown 'multiverse' argument 'value'; did you mean 'values'?
// expect-error: @9 'flag' is 'const'; a multiverse switch must be writable
// expect-error: @10 'pick' is 'const'
// expect-error: @11 'tl' is thread-local
// expect-error: @12 'ai' is 'always_inline'
// expect-error: @13 'ai2' is 'always_inline'
// expect-fixit: {5:27-5:35}:"\"tracked\""
// expect-fixit: {6:27-6:34}:"\"values\""
// expect-fixit: {8:5-8:10}:""
// expect-fixit: {10:15-10:21}:""
// expect-fixit: {11:8-11:17}:""
// expect-fixit: {12:26-12:41}:""
// expect-fixit: {13:20-13:35}:""
// expect-clang-error: @5 multiverse: unknown argument "trackd"; did you mean "tracked"?
// expect-clang-error: @6 multiverse: unknown argument "value"; did you mean "values"?
// expect-clang-error: @9 multiverse: switch 'flag' is const
// expect-clang-error: @10 multiverse: switch 'pick' is const
// expect-clang-error: @11 multiverse: 'tl' is thread-local
// expect-clang-error: @12 multiverse: 'ai' is 'always_inline'
// expect-clang-error: @13 multiverse: 'ai2' is 'always_inline'
// expect-clang-fixit: {5:27-5:35}:"\"tracked\""
// expect-clang-fixit: {6:27-6:34}:"\"values\""
// expect-clang-fixit: {8:5-8:10}:""
// expect-clang-fixit: {10:15-10:21}:""
// expect-clang-fixit: {11:8-11:17}:""
// expect-clang-fixit: {12:28-12:41}:""
// expect-clang-fixit: {13:20-13:35}:""
// expect-nothing-else
