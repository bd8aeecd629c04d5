// expect-warning: calls through multiverse function pointer 'hook' go through the GOT in position-independent code and stay indirect after commit; declare it 'static' or with hidden visibility
// expect-nothing-else
// mvflags: -fPIC
__attribute__((multiverse)) int (*hook)(int);
__attribute__((multiverse, visibility("hidden"))) int (*hidden_hook)(int);
int call(int x) { return hook(x) + hidden_hook(x); }
