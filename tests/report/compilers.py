#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The same source means the same with both plugins (tests/run:
report/compilers).

  compilers.py GCC CLANG GXX CLANGXX DIR [-OLEVEL]

Compiles every one-file tests/e2e program with the C wrappers GCC and
CLANG, and every one-file tests/cxx program with the C++ wrappers GXX
and CLANGXX, at -O2 (or -OLEVEL), and compares their JSON compile reports: the same
functions, by the names users see, each reading the same switches, with
the same domains, getting as many variants before merging, and leaving
the same switches unspecialized.  The differences
the README lists ("Value domains") are in ALLOWED,
each with its reason; one that no longer shows is reported too, so that
the list stays true.
"""
import concurrent.futures
import glob
import os
import sys

import reports

gcc, clang, gxx, clangxx, d = sys.argv[1:6]
OPT = sys.argv[6] if len(sys.argv) > 6 else "-O2"

# (source, function, field): why the plugins may differ there.
ALLOWED = {
    ("label_tables.c", "constant", "variants made"):
        "GCC cannot copy a body with a static table of label addresses and keeps the generic",
    ("label_tables.c", "constant", "generic only"): "the same",
}


def report(cc, src, flags, tag):
    objects, err = reports.compile_report(cc, src, flags, d, tag, OPT)
    if objects is None:
        return None, err
    return {o["function"]: {
        "switches": sorted(o["switches"]),
        "domains": sorted(zip(o["switches"], o["domains"])),
        "variants made": o["variants_made"],
        "generic only": o["generic_only"] is not None,
        "left dynamic": sorted(set(x["switch"] for x in o["not_specialized"])),
    } for o in objects}, ""


def check(job):
    i, src = job
    cc, cl = (gxx, clangxx) if src.endswith(".cc") else (gcc, clang)
    gflags, skip = reports.source_flags(src, False)
    cflags, _ = reports.source_flags(src, True)
    if skip:
        return [], set()
    g, err = report(cc, src, gflags, "%d-gcc" % i)
    if g is None:
        return ["%s: GCC's build fails: %s" % (src, err.strip()[:300])], set()
    c, err = report(cl, src, cflags, "%d-clang" % i)
    if c is None:
        return ["%s: Clang's build fails: %s" % (src, err.strip()[:300])], set()
    problems, seen = [], set()
    name = os.path.basename(src)
    for fn in sorted(set(g) | set(c)):
        if fn not in c or fn not in g:
            key = (name, fn, "reported")
            if key in ALLOWED:
                seen.add(key)
                continue
            problems.append("%s: '%s' is in %s's report only" % (src, fn, "GCC" if fn in g else "Clang"))
            continue
        for field in g[fn]:
            if g[fn][field] == c[fn][field]:
                continue
            key = (name, fn, field)
            if key in ALLOWED:
                seen.add(key)
                continue
            problems.append("%s: '%s': %s: GCC %s, Clang %s" % (src, fn, field, g[fn][field], c[fn][field]))
    return problems, seen


sources = sorted(glob.glob("tests/e2e/*.c") + glob.glob("tests/cxx/*.cc"))
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    results = list(pool.map(check, enumerate(sources)))
problems = [p for r, _ in results for p in r]
seen = set().union(*(s for _, s in results))
for key in sorted(set(ALLOWED) - seen):
    problems.append("allowed difference no longer seen, remove it from ALLOWED and the README: %s" % (key,))
for p in problems:
    print(p)
print("%d sources, %d differences, %d allowed" % (len(sources), len(problems), len(seen)))
sys.exit(1 if problems else 0)
