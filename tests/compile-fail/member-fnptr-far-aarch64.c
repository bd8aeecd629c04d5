/* SPDX-License-Identifier: MIT */
// expect-error: calls through function-pointer switch 'big.hook' cannot be made patchable: it lies 40000 bytes into an object another module may define, and AArch64 stubs reach only 8-byte aligned members in the first 32 KiB of such an object
// expect-clang-error: multiverse: calls through function-pointer switch 'big.hook' cannot be made patchable: it lies 40000 bytes into an object another module may define, and AArch64 stubs reach only 8-byte aligned members in the first 32 KiB of such an object
// mvflags: -fPIC
/* A stub reaches the member with ldr's scaled 12-bit offset. */
struct big {
	char pad[40000];
	__attribute__((multiverse)) int (*hook)(int);
};
struct big big;
int call(int x) { return big.hook(x); }
