__attribute__((multiverse)) extern int mode;
__attribute__((multiverse)) int from_gcc(int x);
__attribute__((multiverse)) int from_clang(int x);
int call_from_gcc(int x);
int call_from_clang(int x);
