#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Instructions per call site of start-up and commit (callgrind,
deterministic, unlike the wall-clock figures of latency.py), on the
generated program of latency.py, built by each compiler.

    latency_counts.py [--compilers gcc,clang] [--sites 10000] [--csv FILE]
    latency_counts.py --compilers aarch64-gcc --sites 1000 --build-only
    latency_counts.py --compilers aarch64-gcc --sites 1000 --lines FILE [--csv FILE]

The program (latency/main.c --count) runs each operation once: init,
first-commit, first-revert, commit, revert, then commit-live and
revert-live with a second thread present; callgrind's counters are
zeroed before each and dumped after it.  Only user-space instructions
count: the system calls that patching makes are the kernel's.
--build-only builds and prints the executable's path, and --lines reads
the dumps from `grep -H` output taken elsewhere: tools/aarch64_counts.sh
does both for the arm64 guest.  Appends CSV rows:

    compiler,arch,sites,functions,op,instructions,per_site
"""
import argparse
import os
import subprocess
import sys
import tempfile

import genbuild
import results
from callgrind_counts import dumps, dumps_from_lines

WORK = os.path.join(genbuild.BENCH, "build", "gen")


def build(compiler, sites, functions):
    """The generated program linked with compiler's latency driver, which
    bench/Makefile builds (or finds up to date)."""
    if compiler.bench_dir is None:
        sys.exit(f"bench/Makefile builds no latency driver for {compiler.key}")
    obj = os.path.join(compiler.bench_dir, "latency.o")
    subprocess.run(["make", "-s", "-C", genbuild.BENCH, *compiler.make_vars, obj], check=True)
    d = os.path.join(WORK, f"lat_s{sites}_f{functions}")
    genbuild.generate(d, functions=functions, sites=sites)
    return genbuild.build(d, plugin=True, extra_objs=[os.path.join(genbuild.BENCH, obj)],
                          exe_name="latency", compiler=compiler)


def count(exe):
    """(op, instructions) of each operation, run under callgrind here."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", "--smc-check=all",
               "--callgrind-out-file=" + os.path.join(tmp, "cg.out"), exe, "--count"]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
        return list(dumps(tmp))


def rows_of(compiler, sites, functions, ops):
    # The warm-up dump only absorbs callgrind's own start-up (latency/main.c).
    return [dict(compiler=compiler.name, arch=compiler.arch, sites=sites, functions=functions,
                 op=op, instructions=n, per_site=f"{n / sites:.2f}")
            for op, n in ops if op != "warm-up"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compilers", default="gcc,clang",
                    help=f"some of {','.join(genbuild.COMPILERS)}")
    ap.add_argument("--sites", type=int, default=10000)
    ap.add_argument("--functions", type=int, default=100)
    ap.add_argument("--csv", help="append rows here (header if new)")
    ap.add_argument("--build-only", action="store_true",
                    help="build, print the executable's path, count nothing")
    ap.add_argument("--lines", help="do not run: read the dumps' lines as `grep -H -e "
                    "'^desc: Trigger' -e '^totals:' cg.out.*` printed them (one compiler)")
    a = ap.parse_args()
    compilers = [genbuild.COMPILERS[k] for k in a.compilers.split(",") if k]
    if a.lines and len(compilers) != 1:
        sys.exit("--lines: give one compiler")

    rows = []
    for c in compilers:
        if a.lines:
            ops = list(dumps_from_lines(a.lines))
        else:
            exe = build(c, a.sites, a.functions)
            if a.build_only:
                print(exe)
                continue
            ops = count(exe)
        if not ops:
            sys.exit(f"no callgrind dumps for {c.key}")
        rows += rows_of(c, a.sites, a.functions, ops)
    if not rows:
        return
    for r in rows:
        print(f"{r['compiler']:<9} {r['arch']:<8} {r['sites']:>7} {r['op']:<13}"
              f" {r['instructions']:>11} instructions {r['per_site']:>8}/site")
    if a.csv:
        results.append(a.csv, rows)


if __name__ == "__main__":
    main()
