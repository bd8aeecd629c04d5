#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the compile report of unit.c (tests/run: report/*).

  check.py COMPILER OPT DIR

Compiles unit.c with COMPILER (a wrapper) and the report flags into DIR,
then checks the JSON report against what unit.c must get, each
variant's bytes against its symbol's size in the object (GCC), the text
report's lines, that two units append to one file, and that an
unwritable report file is an error.
"""
import json
import os
import subprocess
import sys

cc, opt, d = sys.argv[1:4]
src = "tests/report/unit.c"
failures = []


def fail(text):
    failures.append(text)


def compile(*flags, out=None, link=False, env=None):
    return subprocess.run([cc, opt, *([] if link else ["-c"]), src, "-o", out or f"{d}/unit.o",
                           "-fplugin-arg-multiverse-max-variants=8", *flags],
                          capture_output=True, text=True, env=env)


r = compile(f"--multiverse-report-json={d}/report.json")
if r.returncode:
    sys.exit(f"compile failed:\n{r.stderr}")
report = {}
for line in open(f"{d}/report.json"):
    o = json.loads(line)
    report[o["function"]] = o
if sorted(report) != ["dyn", "fenced", "hinted", "none", "small", "spec", "wide"]:
    fail(f"functions reported: {sorted(report)}")
merging = opt != "-O0"

spec = report.get("spec", {})
if spec.get("switches") != ["mode", "fast"] or spec.get("variants_made") != 6 or \
   spec.get("domains") != [[0, 1, 2], [0, 1]]:
    fail(f"spec: {spec}")
kept = len(spec.get("variants", []))
if spec.get("variants_merged") != 6 - kept or (merging and kept != 3) or (not merging and kept != 6):
    fail(f"spec at {opt}: {kept} kept, {spec.get('variants_merged')} merged")
if sum(len(v["guards"]) for v in spec.get("variants", [])) < kept or \
   any("mode in [" not in g for v in spec.get("variants", []) for g in v["guards"]):
    fail(f"spec's guards: {spec.get('variants')}")

dyn = report.get("dyn", {})
why = {w["switch"]: w["why"] for w in dyn.get("not_specialized", [])}
if why.get("level") != "the function writes it" or "through a pointer" not in why.get("on", ""):
    fail(f"dyn's switches left dynamic: {why}")
if dyn.get("variants_made") != 0 or dyn.get("switches") != []:
    fail(f"dyn: {dyn}")

wide = report.get("wide", {})
if "12 variants, more than max-variants (8)" not in (wide.get("generic_only") or ""):
    fail(f"wide: {wide.get('generic_only')}")
if report.get("none", {}).get("variants_made") != 0:
    fail(f"none: {report.get('none')}")

# Inlining: each plugin analyses each variant's final code, and pads the
# unit's calls of a function to its largest inlinable variant.  GCC
# estimates that size and reports it; Clang's sizes are the assembler's,
# so it reports none (null).
gcc = "clang" not in cc
small = report.get("small", {})
if merging:
    if any(not v["inlinable"] or (v["inline_bytes"] is None) == gcc
           for v in small.get("variants", [])) or small.get("calls") != 1:
        fail(f"small's inlining: {small}")
    if gcc and (small.get("padded_calls") != 1 or small.get("site_size") !=
                max(v["inline_bytes"] for v in small.get("variants", [{"inline_bytes": 0}]))):
        fail(f"small's padding: {small}")
    if not gcc and (small.get("padded_calls") != 1 or small.get("site_size") is not None):
        fail(f"small's padding under Clang, sized by the assembler: {small}")
    if any(v["inlinable"] or v["not_inlinable"] != "makes a call" for v in spec.get("variants", [])):
        fail(f"spec's variants call none(), so they cannot be inlined: {spec.get('variants')}")
    if any(not v["inlinable"] for v in report.get("fenced", {}).get("variants", [1])):
        fail(f"fenced's empty asm kept it from being inlined: {report.get('fenced')}")
else:       # -O0: every variant has a frame
    if any(v["inlinable"] or v["not_inlinable"] != "uses the stack" for v in small.get("variants", [])):
        fail(f"small at -O0: {small.get('variants')}")

# A function without variants (plain) is described for copies through
# function-pointer switches: none() is one instruction when optimized.
none = report.get("none", {})
if merging and (none.get("plain_inlinable") is not True or
                (none.get("plain_inline_bytes") is None) == gcc):
    fail(f"none's own code, optimized: {none}")
if not merging and (none.get("plain_inlinable") is not False or
                    none.get("plain_not_inlinable") != "uses the stack"):
    fail(f"none's own code at -O0: {none}")
if spec.get("plain_inlinable") is not None:
    fail(f"spec has variants, so nothing is said of its own code: {spec}")

if any(v["inlinable"] or v["not_inlinable"] != "holds an asm statement"
       for v in report.get("hinted", {}).get("variants", [1])):
    fail(f"hinted's asm must keep it from being inlined: {report.get('hinted')}")

# The bytes: each variant's symbol size in the object; Clang's plugin
# cannot measure them, and says null.
measured = "clang" not in cc
sizes = {}
for line in subprocess.run(["nm", "-S", f"{d}/unit.o"], capture_output=True,
                           text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4:
        sizes[f[3]] = int(f[1], 16)
for name, o in report.items():
    if not measured:
        if o["bytes_added"] is not None or o["bytes_exact"] or \
           any(v["bytes"] is not None for v in o["variants"]):
            fail(f"{name}: Clang's report claims sizes: {o}")
        continue
    total = 0
    for v in o["variants"]:
        if v["bytes"] is None:
            total = None
            break
        size = sizes.get(v["symbol"])
        if size is None or (size != v["bytes"] if o["bytes_exact"] else size > v["bytes"]):
            fail(f"{name}: variant {v['symbol']} of {'' if o['bytes_exact'] else 'at most '}"
                 f"{v['bytes']} bytes, {size} in the object")
        total += v["bytes"]
    if o["bytes_added"] != total:
        fail(f"{name}: {o['bytes_added']} bytes added, its variants have {total}")
if measured and spec.get("bytes_added") == 0:
    fail("spec: no bytes added")

# The text report: one line per function, its variants and its reasons;
# appended to by a second unit.
# (GCC counts an asm statement as its longest instruction per line: hinted's
# sizes are upper bounds)
if measured and report and any(o["bytes_exact"] != (merging and n != "hinted")
                               for n, o in report.items()):
    fail(f"bytes_exact is not {merging} at {opt}, or hinted's sizes claim to be exact")
open(f"{d}/report.txt", "w").close()
r = compile(f"--multiverse-report={d}/report.txt")
r2 = compile(f"--multiverse-report={d}/report.txt", out=f"{d}/unit2.o")
text = open(f"{d}/report.txt").read()
for want in ("unit.c:21:16: multiverse: 'spec' on mode, fast: 6 variants made",
             "'dyn': 'level' not specialized: the function writes it",
             "'dyn': 'on' not specialized: read through a pointer",
             "'wide': only the generic: it would need 12 variants",
             "unit.c:37:16: multiverse: 'none': reads no switch it can be specialized on"):
    if text.count(want) != 2:
        fail(f"the text report has {text.count(want)} lines with {want!r}, not 2 (one per unit):\n{text}")
want = ("; inlinable through function-pointer switches" if merging else
        "; not inlinable through function-pointer switches: uses the stack")
if text.count("'none': reads no switch it can be specialized on; only the generic" + want) != 2:
    fail(f"the text report does not say{want!r} of none:\n{text}")

# Compiled and linked by one command (a shared library, which needs the
# runtime: a wrapper outside the loader's folders links twice to add the
# run path, unless MULTIVERSE_RUNPATH, which tests/run sets, says), each
# function is reported once.
open(f"{d}/once.txt", "w").close()
default_env = {k: v for k, v in os.environ.items() if k != "MULTIVERSE_RUNPATH"}
r = compile("-shared", "-fPIC", f"--multiverse-report={d}/once.txt", out=f"{d}/libunit.so", link=True,
            env=default_env)
once = open(f"{d}/once.txt").read()
if r.returncode or once.count("'spec' on mode, fast") != 1:
    fail(f"compiled and linked in one command, the report has 'spec' {once.count(chr(39) + 'spec')} "
         f"times:\n{once}{r.stderr}")

# A report that cannot be written is an error, not a silent loss.
r = compile("--multiverse-report=/nonexistent/dir/report.txt")
if r.returncode == 0 or "cannot write the report to" not in r.stderr:
    fail(f"an unwritable report file: exit {r.returncode}, {r.stderr.strip()}")

for f in failures:
    print(f)
sys.exit(1 if failures else 0)
