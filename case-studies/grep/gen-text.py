#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes SIZE bytes of text to standard output: lines of words, mostly
English and ASCII, some with accented or CJK characters in UTF-8, the
same for a given SIZE every time.

    gen-text.py SIZE
"""
import random
import sys

WORDS = ("the of and to in is that for it as was with be by on not he this "
         "are or his from at which but have an they you were her she there "
         "would their we him been has when who will more no if out so said "
         "what up its about into than them can only other new some could "
         "time these two may then do first any my now such like our over "
         "man me even most made after also did many before must through "
         "back years where much your way well down should because each just "
         "those people how too little state good very make world still own "
         "see men work long get here between both life being under never day "
         "same another know while last might us great old year off come "
         "since against go came right used take three running thinking "
         "abacus alpaca banana cabana lambda panama saga drama").split()
WIDE = ("café naïve über straße façade déjà señor smörgåsbord "
        "日本語 中文 한국어 Ελληνικά русский").split()


def main():
    size = int(sys.argv[1])
    rng = random.Random(1)
    out = []
    n = 0
    while n < size:
        words = [rng.choice(WIDE) if rng.random() < 0.03 else rng.choice(WORDS)
                 for _ in range(rng.randint(3, 14))]
        line = " ".join(words).capitalize() + (". " if rng.random() < 0.5 else "") + "\n"
        out.append(line)
        n += len(line.encode())
    sys.stdout.buffer.write("".join(out).encode()[:size])


main()
