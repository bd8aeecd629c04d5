#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compile time with and without the plugin, on the same sources.

    compile_time.py [--reps R] [--functions F] [--sites S] [--csv FILE]

Sources: a generated unit of F (1,000) multiversed functions (the plugin
specializes each), a generated unit of S (10,000) call sites (the plugin
records each), and the benchmark harness, which uses no multiverse
attribute at all (what the plugin costs every other unit).  The same
gcc-12 -O2 -c, with -fplugin (multiverse-gcc) or without; the
generated sources turn the attribute off with -DNO_MULTIVERSE.  The
builds are interleaved, R rounds, and we report min and median
wall-clock seconds.
"""
import argparse
import csv
import os
import statistics
import tempfile

import genbuild

WORK = os.path.join(genbuild.BENCH, "build", "gen", "compile_time")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--functions", type=int, default=1000)
    ap.add_argument("--sites", type=int, default=10000)
    ap.add_argument("--csv")
    a = ap.parse_args()
    # One chunk: all call sites in calls_0.c.
    genbuild.generate(WORK, functions=a.functions, sites=a.sites, chunk=a.sites)
    harness = os.path.join(genbuild.BENCH, "common", "harness.c")
    units = [(f"{a.functions:,} multiversed functions", os.path.join(WORK, "fns.c"), []),
             (f"{a.sites:,} call sites", os.path.join(WORK, "calls_0.c"), []),
             ("no multiverse attribute (harness.c)", harness,
              ["-I" + os.path.join(genbuild.BENCH, "common")])]
    times = {(u, p): [] for u, _, _ in units for p in (False, True)}
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "unit.o")
        for _ in range(a.reps):
            for name, src, extra in units:
                for plugin in (False, True):
                    times[(name, plugin)].append(
                        genbuild.compile_one(src, obj, plugin, extra))
    rows = []
    print(f"{'unit':<37} {'without min/med s':>18} {'with min/med s':>16} {'added (median)':>15}")
    for name, _, _ in units:
        wo, w = times[(name, False)], times[(name, True)]
        mwo, mw = statistics.median(wo), statistics.median(w)
        print(f"{name:<37} {min(wo):>8.3f} /{mwo:>7.3f} {min(w):>7.3f} /{mw:>7.3f}"
              f" {100 * (mw - mwo) / mwo:>+13.1f}%")
        for plugin, v in ((False, wo), (True, w)):
            rows.append(dict(unit=name, plugin=int(plugin), reps=len(v),
                             min_s=f"{min(v):.4f}", median_s=f"{statistics.median(v):.4f}"))
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
