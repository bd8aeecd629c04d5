# SPDX-License-Identifier: MIT
"""Allocation-heavy micro-benchmarks in the style of pyperformance, each
creating many objects that the collector tracks, so that every iteration
runs _PyObject_GC_Link, the function the patch multiverses.

    python bench.py NAME N on|off

runs benchmark NAME for N iterations with automatic collection on or off
(gc.disable() before the loop, as programs that manage their memory do).
N = 0 measures everything but the loop: the run script subtracts it.
"""
import gc
import sys


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


def objects(n):
    """Instances of a plain class: one tracked object each."""
    for i in range(n):
        Point(i, i)


def containers(n):
    """A list of a tuple and a dict: three tracked objects, some from
    free lists (which skip the allocation path)."""
    for i in range(n):
        [(i, i), {"a": i}]


def closures(n):
    """A function object and its cell per iteration."""
    for i in range(n):
        def add(y, i=i):
            return i + y
        add(1)


def generators(n):
    """A generator object per iteration, run to its end."""
    for i in range(n):
        sum(x for x in (i, i))


def tree(n):
    """Binary trees of lists, as in pyperformance's gc benchmarks."""
    def make(depth):
        return [make(depth - 1), make(depth - 1)] if depth else []
    for _ in range(n // 64):
        make(6)


BENCHMARKS = {f.__name__: f for f in (objects, containers, closures, generators, tree)}

if __name__ == "__main__":
    name, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if mode == "off":
        gc.disable()
    BENCHMARKS[name](n)
