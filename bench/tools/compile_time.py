#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compile time with and without the plugin, on the same sources, for
each compiler and target.

    compile_time.py [--reps R] [--functions F] [--sites S]
                    [--compilers gcc,clang,aarch64-gcc,aarch64-clang] [--csv FILE]

Sources: a generated unit of F (1,000) multiversed functions (the plugin
specializes each), a generated unit of S (10,000) call sites (the plugin
records each), and the benchmark harness, which uses no multiverse
attribute at all (what the plugin costs every other unit).  One more
unit is compiled by the plain compiler only: the F functions with each
of their variants written out by hand as a function of its own (the
generic and one body per combination of the switches' values), what the
plugin's build cannot compile for less than with its passes as they are
(bench/README.md, "Compile time: the floor").  The same
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
import itertools
import os
import re
import statistics
import subprocess
import sys
import tempfile

import genbuild

WORK = os.path.join(genbuild.BENCH, "build", "gen", "compile_time")
# the units compiled by the plain compiler only (filled in by main())
PLAIN_ONLY = set()


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


FUNCTION = re.compile(r"^MV (\w[\w ]*?) (f_\d+)\((.*?)\) \{(.*)\}$")
SWITCH = re.compile(r"\bsw_\d+\b")


def write_by_hand(fns, out):
    """Writes out, as plain C, the bodies the plugin compiles for the
    generated unit fns: each function as it is (the generic) and, for each
    combination of the values of the _Bool switches it reads, a function
    of its own with those values in place of the switches (a variant).
    Returns how many functions it wrote."""
    lines, bodies = [], 0
    with open(fns) as fh:
        for line in fh:
            line = line.rstrip("\n")
            m = FUNCTION.match(line)
            if not m:
                if line.startswith("MV ") and "(" in line:
                    sys.exit(f"compile time: {fns}: cannot write out {line!r}")
                lines.append(line)
                continue
            ret, name, params, body = m.groups()
            lines.append(line)
            switches = sorted(set(SWITCH.findall(body)))
            for values in itertools.product((0, 1), repeat=len(switches)):
                value = dict(zip(switches, values))
                fixed = SWITCH.sub(lambda s: str(value[s.group(0)]), body)
                suffix = "".join(str(v) for v in values)
                lines.append(f"{ret} {name}_{suffix}({params}) {{{fixed}}}")
            bodies += 1 + 2 ** len(switches)
    with open(out, "w") as fh:
        fh.write("/* Written by compile_time.py from fns.c: every body by hand. */\n")
        fh.write("#define NO_MULTIVERSE\n" + "\n".join(lines) + "\n")
    return bodies


def measure(units, compilers, reps, tmp):
    """times[(compiler key, unit name, plugin)] = seconds of each round;
    a unit whose name is in PLAIN_ONLY by the plain compiler only."""
    obj = os.path.join(tmp, "unit.o")
    times = {}
    for r in range(reps):
        # Alternating which build goes first: a compile that warms the
        # page cache or the CPU for the next one favours neither.
        order = (False, True) if r % 2 == 0 else (True, False)
        for name, src, extra in units:
            for c in compilers:
                for plugin in order:
                    if plugin and name in PLAIN_ONLY:
                        continue
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
    by_hand = os.path.join(WORK, "fns_by_hand.c")
    bodies = write_by_hand(os.path.join(WORK, "fns.c"), by_hand)
    hand_name = f"the same {bodies:,} bodies by hand"
    PLAIN_ONLY.add(hand_name)
    units = [(f"{a.functions:,} multiversed functions", os.path.join(WORK, "fns.c"), []),
             (hand_name, by_hand, []),
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
            wo, w = times[(c.key, name, False)], times.get((c.key, name, True))
            mwo = statistics.median(wo)
            if w is None:
                print(f"  {name:<37} {min(wo):>8.3f} /{mwo:>7.3f} {'(plain compiler only)':>32}")
                rows.append(dict(unit=name, plugin=0, reps=len(wo), min_s=f"{min(wo):.4f}",
                                 median_s=f"{mwo:.4f}", compiler=c.name, arch=c.arch))
                continue
            mw = statistics.median(w)
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
