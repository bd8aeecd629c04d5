// expect-error: 'level': unknown 'multiverse' arguments; allowed are 'multiverse("tracked")' and 'multiverse(("values", V1, V2, ...))' with integer constants 'V1, V2, ...'
int x;
__attribute__((multiverse(("values", 1, x)))) int level;
