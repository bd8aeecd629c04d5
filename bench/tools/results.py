# SPDX-License-Identifier: MIT
"""Reading and printing the suite's result files, shared by the tools."""
import csv
import os


def read(results, name):
    """The rows of results/name as dicts, or None if the file is missing."""
    path = os.path.join(results, name)
    if not os.path.exists(path):
        return None
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def append(path, rows):
    """Appends rows (dicts) to the CSV file at path, with a header if the
    file is new or empty: several runs of a tool fill one file."""
    if not rows:
        return
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        if new:
            w.writeheader()
        w.writerows(rows)


def latency_table(rows, indent=""):
    """Prints latency rows: total and per-site and per-function costs."""
    print(f"{indent}{'sites':>7} {'functions':>9} {'op':<13} {'min':>9} {'median':>9}"
          f" {'µs/site':>8} {'µs/function':>11}")
    for r in rows:
        s, fn, med = int(r["sites"]), int(r["functions"]), float(r["median_us"])
        print(f"{indent}{s:>7} {fn:>9} {r['op']:<13} {float(r['min_us']):>9.1f}"
              f" {med:>9.1f} {med / s:>8.3f} {med / fn:>11.2f}")
