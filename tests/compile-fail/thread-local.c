// expect-error: 'per_thread' is thread-local; the 'multiverse' attribute is allowed only on functions
__attribute__((multiverse)) _Thread_local int per_thread;
