// expect-error: 'flags' and 'level' share their storage in union 'union state', and both are or hold multiverse switches; a union may have switches in one of its members only
// not-with-clang: member switches are not in the Clang plugin yet
union state {
	struct { __attribute__((multiverse)) short on; } flags;
	__attribute__((multiverse)) int level;
	int raw;
};
