#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints object files in the link order of code layout SEED.

    link_order.py SEED FILE...

Layout 0 keeps the given order; any other seed shuffles it, reproducibly.
The Makefile links each micro-benchmark program in several layouts: how
fast a tight call loop runs on this CPU depends on where its code falls
(which cache-line slots, which predictor sets), and a different link order
moves every candidate's code relative to the others'.  Pooling samples
over layouts (run.sh) keeps one candidate's lucky or unlucky placement
from passing for a property of the candidate.  (ASLR alone cannot do
this: it moves code by whole pages, so offsets within a page never
change.)
"""
import random
import sys

seed, files = int(sys.argv[1]), sys.argv[2:]
if seed:
    random.Random(seed).shuffle(files)
print(" ".join(files))
