#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Pools the samples of several runs of one micro-benchmark program.

    aggregate.py OUT.csv SUMMARY.csv SAMPLES.csv [SAMPLES.csv ...]

Each process places code and data at other addresses (ASLR), and on this
CPU the steady state of a tight call loop depends on where its branches
fall: the same code settles at 3, 4 or 5 core cycles per iteration from
one placement to the next.  One process would report one placement's
luck, for or against a candidate.  Pooling the samples of many processes
reports the spread over placements instead.

Writes the harness's CSV columns (see common/harness.c), min and median
over the pooled samples, each minus the empty loop's; calibration rows
are copied from SUMMARY.csv (the first process's own output).

Two more columns compare each candidate with the static build and with
the dynamic one (for PV-ops: the indirect call; for a live update: the
direct call, and the table) of the same benchmark,
operation and mode: the median over rounds of the difference between the
candidate's sample and the other's sample of the same round and process.
Samples of one round were taken microseconds apart, so load from other
processes on this shared machine, which comes and goes over seconds,
cancels in the difference instead of shifting one median against the
other.
"""
import csv
import statistics
import sys

# The builds each benchmark's candidates are compared with: "static" and
# "dynamic" unless named here (PV-ops: the indirect call is its dynamic
# build; a live update: the direct call of the new version stands for
# the static build, the indirection table for the dynamic one).
STATIC = {"redirect": "direct"}
DYNAMIC = {"pvops": "indirect", "redirect": "table"}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, summary, sample_files = sys.argv[1], sys.argv[2], sys.argv[3:]
    pooled, inner, by_round = {}, {}, {}
    for proc, path in enumerate(sample_files):
        with open(path, newline="") as fh:
            for r in csv.DictReader(fh):
                key = (r["bench"], r["op"], r["build"], r["mode"], r["predictor"])
                pooled.setdefault(key, []).append(float(r["ticks"]))
                inner[key] = r["inner"]
                by_round.setdefault(key, {})[(proc, r["round"])] = float(r["ticks"])
    with open(summary, newline="") as fh:
        rows = list(csv.DictReader(fh))
    fields = list(rows[0].keys()) + ["processes", "paired_vs_static", "paired_vs_dynamic"]

    def paired(key, build):
        """Median over rounds of (candidate - other build), or ""."""
        other = (key[0], key[1], build, key[3], key[4])
        a, b = by_round[key], by_round.get(other)
        if not b or other == key:
            return ""
        return f"{statistics.median(a[k] - b[k] for k in a if k in b):.3f}"

    stats = {k: (min(v), statistics.median(v)) for k, v in pooled.items()}
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for r in rows:
            if r["bench"] == "calibration":
                w.writerow(dict(r, processes=1))
        for key, (mn, med) in stats.items():
            emin, emed = stats[("empty", "empty loop", "-", "-", key[4])]
            w.writerow(dict(zip(["bench", "op", "build", "mode", "predictor"], key),
                            samples=len(pooled[key]), inner=inner[key],
                            min=f"{mn:.3f}", median=f"{med:.3f}",
                            net_min=f"{mn - emin:.3f}", net_median=f"{med - emed:.3f}",
                            processes=len(sample_files),
                            paired_vs_static=paired(key, STATIC.get(key[0], "static")),
                            paired_vs_dynamic=paired(key, DYNAMIC.get(key[0], "dynamic"))))


if __name__ == "__main__":
    main()
