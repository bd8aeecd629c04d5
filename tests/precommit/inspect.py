#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""multiverse-inspect on a precommitted program (tests/precommit/prog.c),
its file and its process, before and after a revert.

  inspect.py INSPECT PLAIN PRECOMMITTED

PLAIN is the program as linked, PRECOMMITTED the same precommitted.  The
file must show each function precommitted (but logged(), whose probe
starts set), and each site marked
precommitted of the kind (call, tail call) it has in PLAIN; the process,
each function committed to that variant and those sites patched or
inlined; after the program's revert, all generic and original.
"""
import json
import subprocess
import sys

inspect, plain, pre = sys.argv[1:4]
failures = []


def view(*args):
    r = subprocess.run([sys.executable, inspect, "--json", *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"multiverse-inspect {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)["modules"][0]


def by_address(module):
    return {s["address"]: s for s in module["sites"]}


before, after = view(plain), view(pre)
sites_plain = by_address(before)
marked = [s for s in after["sites"] if s["precommitted"]]
if not marked:
    failures.append("no site is marked precommitted in the file")
for s in after["sites"]:
    if s["kind"] != sites_plain[s["address"]]["kind"]:
        failures.append(f"site {s['address']:#x}: {s['kind']}, not {sites_plain[s['address']]['kind']}")
# logged() starts with its probe set: left to the first commit (prog.c)
for f in after["functions"]:
    if (f["precommitted"] is None) != (f["name"] == "logged"):
        failures.append(f"{f['name']}: precommitted {f['precommitted']} in the file")
if any(f["precommitted"] is not None for f in before["functions"]):
    failures.append("the plain file has a precommitted function")

p = subprocess.Popen([pre, "hold"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
if p.stdout.readline().strip() != "ready":
    sys.exit("the program did not start")
live = view("--pid", str(p.pid))
bias = live["sites"][0]["address"] - after["sites"][0]["address"]
for f in live["functions"]:
    want = next(g["precommitted"] for g in after["functions"] if g["name"] == f["name"])
    if f["committed"] != (want is not None) or (want is not None and f["variant"] != want):
        failures.append(f"live: {f['name']} is not as precommitted (variant {want}): {f}")
for s in live["sites"]:
    was = next(x for x in after["sites"] if x["address"] + bias == s["address"])
    if was["precommitted"] and s["state"] not in ("patched", "inlined"):
        failures.append(f"live: precommitted site {s['address']:#x} is {s['state']}")
    if not was["precommitted"] and s["state"] != "original":
        failures.append(f"live: site {s['address']:#x}, not precommitted, is {s['state']}")
p.stdin.write("revert\n")
p.stdin.flush()
if p.stdout.readline().strip() != "reverted":
    failures.append("the program did not revert")
live = view("--pid", str(p.pid))
p.stdin.close()
if p.wait():
    failures.append(f"the program exited with {p.returncode}")
for f in live["functions"]:
    if f["committed"]:
        failures.append(f"live, reverted: {f['name']} is committed")
for s in live["sites"]:
    if s["state"] != "original":
        failures.append(f"live, reverted: site {s['address']:#x} is {s['state']}")
for text in failures:
    print(text)
sys.exit(1 if failures else 0)
