// expect-error: 'wide' has a 16-byte type '__int128'; a multiverse switch must be 1, 2, 4 or 8 bytes wide
__attribute__((multiverse)) __int128 wide;
