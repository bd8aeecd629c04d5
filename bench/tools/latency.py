#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Commit and revert latency against the number of call sites and of
functions, and start-up cost, on generated programs.

    latency.py [--sites 1000,10000,100000] [--functions-sweep 1,10,...]
               [--reps R] [--procs P] [--csv FILE]

Sweep 1: the given numbers of call sites over 100 functions.
Sweep 2 (--functions-sweep): 10,000 call sites over that many functions.
Prints a table (total and per site/function) and appends CSV rows.
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import sys

import genbuild
import results
from results import latency_table

WORK = os.path.join(genbuild.BENCH, "build", "gen")
LATENCY_OBJ = os.path.join(genbuild.BENCH, "build", "latency.o")


def measure(sites, functions, reps, procs):
    """Runs the program procs times: start-up happens once per process, so
    its min and median are over processes; for commit and revert, the
    minimum over all runs and the median of the processes' medians."""
    d = os.path.join(WORK, f"lat_s{sites}_f{functions}")
    genbuild.generate(d, functions=functions, sites=sites)
    exe = genbuild.build(d, plugin=True, extra_objs=[LATENCY_OBJ], exe_name="latency")
    by_op = {}
    for _ in range(procs):
        out = subprocess.run([exe, str(reps)], check=True, stdout=subprocess.PIPE,
                             text=True).stdout
        for r in csv.DictReader(io.StringIO(out)):
            by_op.setdefault(r["op"], []).append(r)
    rows = []
    for op, runs in by_op.items():
        rows.append(dict(runs[0], reps=sum(int(r["reps"]) for r in runs),
                         min_us=f"{min(float(r['min_us']) for r in runs):.3f}",
                         median_us=f"{statistics.median(float(r['median_us']) for r in runs):.3f}",
                         processes=procs))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sites", default="1000,10000,100000")
    ap.add_argument("--functions-sweep", default="")
    ap.add_argument("--reps", type=int, default=20, help="commits and reverts per process")
    ap.add_argument("--procs", type=int, default=3, help="processes per program")
    ap.add_argument("--csv")
    a = ap.parse_args()
    if not os.path.exists(LATENCY_OBJ):
        sys.exit(f"{LATENCY_OBJ} missing: run make -C bench programs")

    runs = [(int(s), 100) for s in a.sites.split(",") if s]
    runs += [(10000, int(f)) for f in a.functions_sweep.split(",") if f]
    rows = []
    for sites, functions in runs:
        rows += measure(sites, functions, a.reps, a.procs)

    latency_table(rows)
    if a.csv:
        results.append(a.csv, rows)


if __name__ == "__main__":
    main()
