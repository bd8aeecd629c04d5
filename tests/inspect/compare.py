#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs PROGRAM (program.c, built), which commits, reports itself through
the API (report.h) and waits; meanwhile runs multiverse-inspect on the
process and on the files, and checks that both views agree.

  compare.py INSPECT PROGRAM LIBRARY
"""
import json
import subprocess
import sys

inspect, program, library = sys.argv[1:4]
failures = []


def fail(text):
    failures.append(text)


def run_inspect(*args):
    r = subprocess.run([sys.executable, inspect, *args], capture_output=True, text=True)
    if r.returncode:
        fail(f"multiverse-inspect {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
        return None
    return r.stdout


p = subprocess.Popen([program], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
fns, variables = {}, {}
for line in p.stdout:
    f = line.rstrip("\n").split("\t")
    if f[0] == "ready":
        break
    if f[0] == "error":
        fail(f"the program: {f[1]}")
    elif f[0] == "fn":
        fns[f[1]] = dict(generic=int(f[2], 16), active=int(f[3], 16), committed=int(f[4]),
                         variants=int(f[5]), sites=int(f[6]), inlined=int(f[7]),
                         skipped=int(f[8]),
                         redirect=0 if f[9] in ("(nil)", "0") else int(f[9], 16))
    elif f[0] == "var":
        variables[f[1]] = dict(address=int(f[2], 16), value=int(f[3]), sites=int(f[4]))
live_text = run_inspect("--pid", str(p.pid))
live = run_inspect("--json", "--pid", str(p.pid))
p.stdin.close()
if p.wait():
    fail(f"the program exited with {p.returncode}")
if sum(f["skipped"] for f in fns.values()) != 1:
    fail("the program's rewritten site is not the one site the runtime skipped")
if len(fns) != 8 or len(variables) != 7:
    fail(f"the program reported {len(fns)} functions and {len(variables)} switches, not 8 and 7")
if not fns.get("served", {}).get("redirect"):
    fail("served() is not redirected by the API's account")

if live:
    modules = json.loads(live)["modules"]
    names = [m["module"] for m in modules]
    if len(modules) != 2:
        fail(f"the process has 2 modules with descriptors, the inspector found {names}")
    ifns = {f["name"]: f for m in modules for f in m["functions"]}
    home = {f["name"]: m["module"] for m in modules for f in m["functions"]}
    iswitches = {s["name"]: s for m in modules for s in m["switches"]}
    sites = [dict(s, module=m["module"]) for m in modules for s in m["sites"]]
    for name, api in fns.items():
        f = ifns.get(name)
        if not f:
            fail(f"function {name}: not found by the inspector")
            continue
        mine = [s for s in sites if s["callee"] == name]
        states = {k: sum(s["state"] == k for s in mine)
                  for k in ("original", "patched", "inlined", "skipped")}
        seen = dict(generic=f["generic"], active=f["active"], committed=int(f["committed"]),
                    variants=len(f["variants"]), sites=len(mine), inlined=states["inlined"],
                    skipped=states["skipped"])
        for k, v in seen.items():
            if api[k] != v:
                fail(f"function {name}: {k} is {api[k]:#x} by the API, {v:#x} by the inspector")
        if f.get("redirected_to", 0) != api["redirect"]:
            fail(f"function {name}: redirected to {api['redirect']:#x} by the API, "
                 f"{f.get('redirected_to')} by the inspector")
        if api["redirect"]:
            # every site calls the new function, none is inlined
            if states["patched"] != api["sites"] - api["skipped"] or any(
                    s.get("target") != api["redirect"] for s in mine if s["state"] == "patched"):
                fail(f"function {name}: redirected, but its sites are {mine}")
            continue
        # The API does not tell patched sites from those left original: a
        # call through another module's PLT entry whose slot was not bound
        # yet at the commit stays original.  Sites in the callee's own
        # module must all be patched, then.
        written = api["sites"] - api["inlined"] - api["skipped"] if api["committed"] else 0
        if states["patched"] + (states["original"] if api["committed"] else 0) != written:
            fail(f"function {name}: {written} sites bound or original by the API, "
                 f"{states} by the inspector")
        if api["committed"] and any(s["state"] == "original" and s["module"] == home[name]
                                    for s in mine):
            fail(f"function {name}: a site in its own module left original: {mine}")
    for name, api in variables.items():
        s = iswitches.get(name)
        if not s:
            fail(f"switch {name}: not found by the inspector")
            continue
        if s["address"] != api["address"] or s["value"] != api["value"]:
            fail(f"switch {name}: at {api['address']:#x} holds {api['value']} by the API; "
                 f"at {s['address']:#x} holds {s['value']} by the inspector")
        if s["function_pointer"]:
            through = [t for t in sites if t["callee"] == name]
            if len(through) != api["sites"] or any(t["state"] == "original" for t in through):
                fail(f"switch {name}: {api['sites']} bound sites by the API, "
                     f"{[t['state'] for t in through]} by the inspector")
    if live_text:
        for name in list(fns) + list(variables):
            if name not in live_text:
                fail(f"the text view does not show {name}")
        for text in ("watch == NULL", "watch != NULL", "served at", "redirected to"):
            if text not in live_text:
                fail(f"the text view does not show the probe's guard {text}")

# From the files alone: the same functions, variants and sites (a
# function's sites are in both files when the program calls it too).
in_files = {}
for path in (program, library):
    out = run_inspect("--json", path)
    if out:
        for s in json.loads(out)["modules"][0]["sites"]:
            in_files[s["callee"]] = in_files.get(s["callee"], 0) + 1
for name, api in fns.items():
    if in_files.get(name, 0) != api["sites"]:
        fail(f"{name}: {in_files.get(name, 0)} sites in the files, {api['sites']} by the API")
if in_files.get("lib_scale", 0) < 2:
    fail("no site in the program calls lib_scale")
for path, expect in ((program, ("by_width", "by_level", "by_tracked", "tiny", "called",
                                "probed", "served")),
                     (library, ("lib_scale",))):
    out = run_inspect("--json", path)
    if not out:
        continue
    (m,) = json.loads(out)["modules"]
    got = {f["name"]: f for f in m["functions"]}
    if sorted(got) != sorted(expect):
        fail(f"{path}: functions {sorted(got)}, expected {sorted(expect)}")
    for name in expect:
        if name in got and len(got[name]["variants"]) != fns.get(name, {}).get("variants"):
            fail(f"{path}: {name} has {len(got[name]['variants'])} variants in the file")
        clauses = sum(len(v["guards"]) for v in got.get(name, {}).get("variants", []))
        probes = sorted(g.get("probe") or "" for v in got.get(name, {}).get("variants", [])
                        for c in v["guards"] for g in c)
        if name == "probed" and probes != ["NULL", "not NULL"]:
            fail(f"{path}: probed's guards are {probes}, not NULL and not NULL")
    watch_sites = [s for s in m["sites"] if s["callee"] == "watch"]
    if path == program and sum(s["in_probe_variant"] for s in watch_sites) != 1:
        fail(f"{path}: of watch's sites {watch_sites}, not one in the variant for not NULL")
        if name == "by_width" and clauses != 3:
            fail(f"{path}: by_width's variants have {clauses} guards, not 3 (one per value)")
    if "live" in out and json.loads(out)["live"]:
        fail(f"{path}: a file's view is not live")

for f in failures:
    print(f)
print(f"{len(fns)} functions, {len(variables)} switches compared; {len(failures)} mismatches")
sys.exit(1 if failures else 0)
