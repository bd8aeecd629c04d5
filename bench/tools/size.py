#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Binary size the machinery adds, per switch, per call site and per
function, next to the paper's figures (§5).

    size.py [--csv FILE] [--quick]

Each experiment builds two generated programs that differ only in the
number of one kind of item, with and without the plugin, and divides the
size differences by the difference in items, so everything constant
(the runtime, registration code, main) cancels.  Section sizes come from
`size -A` of the object files, where the multiverse sections keep their
names; the linked (PIE) executables add .rela.dyn, the relocations the
dynamic loader applies to the descriptors' absolute addresses.
"""
import argparse
import csv
import glob
import os
import subprocess
from collections import defaultdict

import genbuild

WORK = os.path.join(genbuild.BENCH, "build", "gen")

MV_SECTIONS = ["__multiverse_var", "__multiverse_fn", "__multiverse_site",
               ".data.rel.ro.multiverse", ".rodata.multiverse"]

# name, unit, paper's bytes per unit, program A, program B, items added,
# and the plugin's arguments if any
EXPERIMENTS = [
    ("switch", "switch", 32,
     dict(functions=10, sites=100, unused_switches=0),
     dict(functions=10, sites=100, unused_switches=1000), 1000),
    ("call site", "site", 16,
     dict(functions=10, sites=1000), dict(functions=10, sites=11000), 10000),
    ("call site padded to 16 bytes (inline-size=16)", "site", 16,
     dict(functions=10, sites=1000), dict(functions=10, sites=11000), 10000,
     ["-fplugin-arg-multiverse-inline-size=16"]),
    ("function, 1 switch (2 variants x 1 guard)", "function", 48 + 2 * (32 + 1 * 16),
     dict(functions=100, sites=0), dict(functions=1100, sites=0), 1000),
    ("function, 2 switches (4 variants x 2 guards)", "function", 48 + 4 * (32 + 2 * 16),
     dict(functions=100, sites=0, switches=2, reads=2),
     dict(functions=1100, sites=0, switches=2, reads=2), 1000),
]


def sections(path):
    """Section name -> size, from size -A."""
    out = subprocess.run(["size", "-A", path], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    sizes = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1].isdigit() and parts[0] != "Total":
            sizes[parts[0]] = int(parts[1])
    return sizes


def measure(directory, plugin, plugin_flags=()):
    """Sizes by category for one build of one generated program."""
    exe = genbuild.build(directory, plugin, plugin_flags=plugin_flags)
    tag = "mv" if plugin else "plain"
    total = defaultdict(int)
    for obj in glob.glob(os.path.join(directory, f"*.{tag}.o")):
        for name, size in sections(obj).items():
            if name in MV_SECTIONS:
                total[name] += size
            elif name.startswith(".text"):
                total["text (all .text*)"] += size
            elif name == ".eh_frame":
                total[".eh_frame"] += size
    ex = sections(exe)
    total["exe .rela.dyn"] = ex.get(".rela.dyn", 0)
    total["exe loaded bytes"] = sum(v for k, v in ex.items()
                                    if not k.startswith((".debug", ".comment", ".gnu_debug")))
    total["exe file bytes"] = os.path.getsize(exe)
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv")
    ap.add_argument("--quick", action="store_true",
                    help="programs 5x smaller (per-item figures stay exact)")
    a = ap.parse_args()
    rows = []
    for name, unit, paper, pa, pb, n, *flags in EXPERIMENTS:
        flags = flags[0] if flags else ()
        if a.quick:
            pa, pb, n = scaled(pa), scaled(pb), n // 5
        per = {}
        for plugin in (False, True):
            sa = measure(genbuild_dir(name, "a", pa), plugin, flags)
            sb = measure(genbuild_dir(name, "b", pb), plugin, flags)
            per[plugin] = {k: (sb[k] - sa[k]) / n for k in set(sa) | set(sb)}
        keys = MV_SECTIONS + ["text (all .text*)", ".eh_frame", "exe .rela.dyn",
                              "exe loaded bytes", "exe file bytes"]
        descriptor = sum(per[True].get(k, 0) for k in MV_SECTIONS)
        print(f"\nper {name} (paper: {paper} bytes of descriptors)")
        print(f"  {'section':<26} {'with plugin':>12} {'without':>9} {'added':>9}")
        for k in keys:
            w, wo = per[True].get(k, 0.0), per[False].get(k, 0.0)
            print(f"  {k:<26} {w:>12.2f} {wo:>9.2f} {w - wo:>9.2f}")
            rows.append(dict(item=name, unit=unit, section=k, with_plugin=f"{w:.2f}",
                             without=f"{wo:.2f}", added=f"{w - wo:.2f}", paper=""))
        print(f"  {'descriptors (sum above)':<26} {descriptor:>12.2f}"
              f"   paper: {paper}")
        rows.append(dict(item=name, unit=unit, section="descriptors", with_plugin=f"{descriptor:.2f}",
                         without="0", added=f"{descriptor:.2f}", paper=str(paper)))

    lib = os.path.join(genbuild.ROOT, "build", "libmultiverse.a")
    text = subprocess.run(["size", "-t", lib], check=True, stdout=subprocess.PIPE,
                          text=True).stdout.splitlines()[-1].split()
    print(f"\nruntime library: text {text[0]} bytes, data {text[1]}, bss {text[2]}"
          f" (paper: 6.5 KiB of code)")
    rows.append(dict(item="runtime library", unit="library", section="text",
                     with_plugin=text[0], without="0", added=text[0], paper=str(int(6.5 * 1024))))
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


def scaled(params):
    return {k: (v // 5 if k in ("functions", "sites", "unused_switches") and v >= 50 else v)
            for k, v in params.items()}


def genbuild_dir(name, which, params):
    d = os.path.join(WORK, "size_" + "".join(c if c.isalnum() else "_" for c in name) + "_" + which)
    genbuild.generate(d, **params)
    # A main that does nothing: the same in every program, so it cancels.
    with open(os.path.join(d, "stub_main.c"), "w") as fh:
        fh.write("int main(void) { return 0; }\n")
    return d


if __name__ == "__main__":
    main()
