#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Instructions per iteration of every candidate of a micro-benchmark,
counted by callgrind (deterministic, unlike cycles).

    callgrind_counts.py PROGRAM [--iters N] [--csv FILE] [--lines FILE]

Runs PROGRAM --count N under callgrind.  The program dumps callgrind's
counters after running each candidate's warm loop for N and for 2N
iterations (common/harness.c); the difference of the two dumps is the
cost of exactly N iterations, free of constant costs.  net_ir subtracts
the empty loop's count.  --smc-check=all makes valgrind notice code the
runtime patches; without it, valgrind could keep running its translation
of the unpatched code.
"""
import argparse
import csv
import glob
import os
import re
import subprocess
import sys
import tempfile


def parse_dump(lines):
    """(name, Ir) of one dump file's lines, or None."""
    name = total = None
    for line in lines:
        m = re.match(r"desc: Trigger: Client Request: (.*)", line)
        if m:
            name = m.group(1).strip()
        m = re.match(r"totals: (\d+)", line)
        if m:
            total = int(m.group(1))
    return (name, total) if name and total is not None else None


def dump_number(path):
    return int(path.rsplit(".", 1)[1])


def dumps(directory):
    """Yields (name, Ir) for every client-request dump, in dump order,
    which is the program's candidate order."""
    paths = glob.glob(os.path.join(directory, "cg.out.*"))
    for path in sorted(paths, key=dump_number):
        with open(path) as fh:
            d = parse_dump(fh)
        if d:
            yield d


def dumps_from_lines(path):
    """The same from `grep -H` output taken elsewhere (the arm64 guest):
    "FILE:LINE" for each dump file's desc and totals lines."""
    files = {}
    with open(path) as fh:
        for line in fh:
            m = re.match(r"(\S*cg\.out\.\d+):(.*)", line.rstrip("\r\n"))
            if m:
                files.setdefault(m.group(1), []).append(m.group(2))
    for f in sorted(files, key=dump_number):
        d = parse_dump(files[f])
        if d:
            yield d


def per_iteration(all_dumps, iters):
    runs = {}  # insertion-ordered: candidate order
    for name, total in all_dumps:
        if name == "warm-up":   # common/harness.c
            continue
        *key, n = name.split("|")
        runs.setdefault(tuple(key), {})[int(n)] = total
    per_iter = {}
    for key, by_n in runs.items():
        if set(by_n) != {iters, 2 * iters}:
            sys.exit(f"incomplete dumps for {key}: {sorted(by_n)}")
        per_iter[key] = (by_n[2 * iters] - by_n[iters]) / iters
    if not per_iter:
        sys.exit("no callgrind dumps found")
    return per_iter


def count(program, iters):
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", "--smc-check=all",
               "--callgrind-out-file=" + os.path.join(tmp, "cg.out"),
               program, "--count", str(iters)]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
        return per_iteration(dumps(tmp), iters)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("--iters", type=int, default=1000)
    ap.add_argument("--csv", help="append rows here (header if new)")
    ap.add_argument("--lines", help="do not run PROGRAM: read the dumps' lines "
                    "as `grep -H -e '^desc: Trigger' -e '^totals:' cg.out.*` printed them")
    a = ap.parse_args()
    if a.lines:
        per_iter = per_iteration(dumps_from_lines(a.lines), a.iters)
    else:
        per_iter = count(a.program, a.iters)
    empty = [v for k, v in per_iter.items() if k[0] == "empty"]
    base = empty[0] if empty else 0.0
    rows = [list(k) + [f"{v:.3f}", f"{v - base:.3f}"] for k, v in per_iter.items()]
    header = ["bench", "op", "build", "mode", "ir_per_iter", "net_ir"]
    out = open(a.csv, "a", newline="") if a.csv else sys.stdout
    w = csv.writer(out)
    if not a.csv or os.path.getsize(a.csv) == 0:
        w.writerow(header)
    w.writerows(rows)


if __name__ == "__main__":
    main()
