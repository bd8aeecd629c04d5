/* SPDX-License-Identifier: MIT */
// expect-error: 'flags' and 'level' share their storage in union 'union state', and both are or hold multiverse switches; a union may have switches in one of its members only
// expect-clang-error: multiverse: 'flags' and 'level' share their storage in 'union state', and both are or hold switches; a union may have switches in one of its members only
union state {
	struct { __attribute__((multiverse)) short on; } flags;
	__attribute__((multiverse)) int level;
	int raw;
};
// The related declaration: the member that holds switches first.
// expect-note: @5 'flags' declared here
// expect-clang-note: @5 'flags' declared here
