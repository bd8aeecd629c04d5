#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Instrumentation changes nothing of what is specialized (tests/run:
report/instrumented).

  instrumented.py COMPILER DIR

Compiles every one-file tests/e2e program with COMPILER (a wrapper) at
-O2, plain and with each instrumentation flag set (sanitizers, -pg,
-finstrument-functions, coverage, -fcf-protection, profile generation,
stack protection), and compares the JSON reports: each function must
read the same switches, get as many variants, and leave the same reads
unspecialized.  Sanitizers instrument the reads themselves (UBSan checks
a _Bool's value, the size and alignment of the object behind a member's
address), which the plugins must still see as reads.
"""
import concurrent.futures
import glob
import json
import os
import shlex
import sys

import reports

cc, d = sys.argv[1:3]
clang = "clang" in os.path.basename(cc)
flag_sets = [
    "-fsanitize=undefined", "-fsanitize=address", "-fsanitize=thread",
    "-pg", "-finstrument-functions", "--coverage", "-fcf-protection",
    "-fstack-protector-all",
    "-fprofile-instr-generate" if clang else "-fprofile-generate",
]


def report(src, flags, tag):
    objects, err = reports.compile_report(cc, src, flags, d, tag)
    if objects is None:
        return None, err
    return {o["function"]: {
        "switches": o["switches"],
        "variants made": o["variants_made"],
        "generic only": o["generic_only"],
        "left dynamic": sorted(json.dumps(x, sort_keys=True) for x in o["not_specialized"]),
    } for o in objects}, ""


def check(job):
    i, src = job
    flags, skip = reports.source_flags(src, clang)
    if skip and clang:
        return []
    name = os.path.basename(src)[:-2]
    plain, err = report(src, flags, "%d-plain" % i)
    if plain is None:
        return ["%s: the plain build fails: %s" % (src, err.strip()[:300])]
    problems = []
    for k, fs in enumerate(flag_sets):
        got, err = report(src, flags + shlex.split(fs), "%d-%d" % (i, k))
        if got is None:
            problems.append("%s %s: the build fails: %s" % (src, fs, err.strip()[:300]))
            continue
        for fn in sorted(set(plain) | set(got)):
            a, b = plain.get(fn), got.get(fn)
            if a != b:
                problems.append("%s %s, %s(): plain %s, instrumented %s" % (src, fs, fn, a, b))
    return problems


sources = sorted(glob.glob("tests/e2e/*.c"))
with concurrent.futures.ThreadPoolExecutor(2) as pool:
    problems = [p for ps in pool.map(check, enumerate(sources)) for p in ps]
for p in problems:
    print(p)
print("%d sources, %d flag sets: %d differences" % (len(sources), len(flag_sets), len(problems)))
sys.exit(1 if problems else 0)
