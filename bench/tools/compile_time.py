#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compile time with and without the plugin, on the same sources, for
each compiler and target.

    compile_time.py [--reps R] [--functions F] [--sites S]
                    [--compilers gcc,clang,aarch64-gcc,aarch64-clang] [--csv FILE]

Sources: a generated unit of F (1,000) multiversed functions (the plugin
specializes each), a generated unit of S (10,000) call sites (the plugin
records each), and the benchmark harness, which uses no multiverse
attribute at all (what the plugin costs every other unit).  The same
-O2 -c, by the plain compiler or by its Multiverse wrapper (gcc-12 and
build/multiverse-gcc, clang-19 and build/multiverse-clang, and the
AArch64 cross compilers and their wrappers: tools/genbuild.py); the
generated sources turn the attribute off with -DNO_MULTIVERSE.  The
builds are interleaved, R rounds, the plain and the plugin build of a
unit back to back, which of them first alternating by round; we report
min and median wall-clock seconds.  Compilers that are missing, or fail
on a trivial unit, are left out (said on stderr).
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

import genbuild

WORK = os.path.join(genbuild.BENCH, "build", "gen", "compile_time")


def works(compiler, tmp):
    """Whether both commands compile a trivial unit (the cross Clang
    needs the cross C library's headers, for one)."""
    if not compiler.available():
        return False
    src = os.path.join(tmp, "probe.c")
    with open(src, "w") as fh:
        fh.write("#include <stdio.h>\nint main(void) { return puts(\"\"); }\n")
    for cmd in (compiler.plain, compiler.mv):
        r = subprocess.run(list(cmd) + ["-O2", "-c", "-o", os.path.join(tmp, "probe.o"), src],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode != 0:
            return False
    return True


def measure(units, compilers, reps, tmp):
    """times[(compiler key, unit name, plugin)] = seconds of each round."""
    obj = os.path.join(tmp, "unit.o")
    times = {}
    for r in range(reps):
        # Alternating which build goes first: a compile that warms the
        # page cache or the CPU for the next one favours neither.
        order = (False, True) if r % 2 == 0 else (True, False)
        for name, src, extra in units:
            for c in compilers:
                for plugin in order:
                    times.setdefault((c.key, name, plugin), []).append(
                        genbuild.compile_one(src, obj, plugin, extra, c))
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--functions", type=int, default=1000)
    ap.add_argument("--sites", type=int, default=10000)
    ap.add_argument("--compilers", default=",".join(genbuild.COMPILERS),
                    help="some of " + ",".join(genbuild.COMPILERS))
    ap.add_argument("--csv")
    a = ap.parse_args()
    # One chunk: all call sites in calls_0.c.
    genbuild.generate(WORK, functions=a.functions, sites=a.sites, chunk=a.sites)
    harness = os.path.join(genbuild.BENCH, "common", "harness.c")
    units = [(f"{a.functions:,} multiversed functions", os.path.join(WORK, "fns.c"), []),
             (f"{a.sites:,} call sites", os.path.join(WORK, "calls_0.c"), []),
             ("no multiverse attribute (harness.c)", harness,
              ["-I" + os.path.join(genbuild.BENCH, "common")])]
    with tempfile.TemporaryDirectory() as tmp:
        compilers = []
        for key in a.compilers.split(","):
            c = genbuild.COMPILERS[key]
            if works(c, tmp):
                compilers.append(c)
            else:
                print(f"compile time: {' '.join(c.mv)} or {' '.join(c.plain)} is missing"
                      f" or does not work: {key} left out", file=sys.stderr)
        if not compilers:
            sys.exit("compile time: no compiler works")
        times = measure(units, compilers, a.reps, tmp)
    rows = []
    for c in compilers:
        print(f"{c.name}, {c.arch}:")
        print(f"  {'unit':<37} {'without min/med s':>18} {'with min/med s':>16}"
              f" {'added (median)':>15}")
        for name, _, _ in units:
            wo, w = times[(c.key, name, False)], times[(c.key, name, True)]
            mwo, mw = statistics.median(wo), statistics.median(w)
            print(f"  {name:<37} {min(wo):>8.3f} /{mwo:>7.3f} {min(w):>7.3f} /{mw:>7.3f}"
                  f" {100 * (mw - mwo) / mwo:>+13.1f}%")
            for plugin, v in ((False, wo), (True, w)):
                rows.append(dict(unit=name, plugin=int(plugin), reps=len(v),
                                 min_s=f"{min(v):.4f}", median_s=f"{statistics.median(v):.4f}",
                                 compiler=c.name, arch=c.arch))
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
