#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where gdb's `break fn` would go, for a program it does not run.

    debug-static.py GDB INSPECT EXE

For each multiversed function of EXE (from its descriptors, through
multiverse-inspect), GDB resolves `break NAME` from the file alone, as it
does before `run`: its prologue analysis, or with debug info the line
table, and with debug info also the variants.  No location may fall in
an entry patch area, which commit writes and which a debugger's
breakpoint would block (docs/patching.md, "Debuggers").

This is tests/torture/debug.sh's check for a target the host's gdb
cannot run (AArch64: qemu-user cannot run the runtime).  Exit status 0
when every location is clear, 1 otherwise.
"""
import json
import re
import subprocess
import sys

ENTRY_LEN = {"x86-64": 5, "aarch64": 4}


def main(gdb, inspect, exe):
    report = json.loads(subprocess.run([inspect, "--json", exe], check=True,
                                       capture_output=True, text=True).stdout)
    modules = report["modules"] if isinstance(report, dict) else report
    functions = [f for m in modules for f in m["functions"] if "entry" in f]
    if not functions:
        print(f"{exe}: no multiversed function with an entry patch area")
        return 1
    length = ENTRY_LEN[modules[0]["machine"]]
    areas = {f["entry"]: f["name"] for f in functions}
    status = 0
    for f in functions:
        out = subprocess.run([gdb, "-batch", "-nx", "-ex", f"break {f['name']}",
                              "-ex", "info breakpoints", exe],
                             capture_output=True, text=True).stdout
        where = [int(a, 16) for a in
                 re.findall(r"^1(?:\.\d+)?\s.*?\b(0x[0-9a-f]+)\b", out, re.M)]
        if not where:
            print(f"{f['name']}: gdb placed no breakpoint:\n{out}")
            status = 1
        for at in where:
            hit = [e for e in areas if e <= at < e + length]
            if hit:
                print(f"{f['name']}: gdb's breakpoint at {at:#x} covers the entry patch "
                      f"area of {areas[hit[0]]} at {hit[0]:#x}")
                status = 1
        print(f"{f['name']}: entry {f['entry']:#x}, breakpoints "
              + ", ".join(f"{a:#x}" for a in where))
    return status


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
