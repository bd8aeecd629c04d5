#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PNG plots of the CSV files in a results directory (matplotlib).

    plot.py RESULTS_DIR

Writes micro_cycles.png, micro_instructions.png, latency.png, size.png
and compile_time.png next to the CSV files, for whichever CSV exists.
Exits 3 if matplotlib cannot be imported, so run.sh can say so.
"""
import os
import sys

from results import read

try:
    import matplotlib
    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(3)


SHORT_OP = {"tail call": "tail call", "call via pointer to generic": "via ptr to generic",
            "tail call via fn-ptr switch": "fn-ptr switch tail"}


def label(r):
    mode = "" if r["mode"] in ("-", "native") else f" {r['mode']}"
    op = "" if r["bench"] != "tailcall" else SHORT_OP.get(r["op"], r["op"]) + "\n"
    return f"{op}{r['build']}{mode}"


def micro_cycles(rows, out):
    benches = [b for b in ("spinlock", "pvops", "tailcall", "probe", "redirect")
               if any(r["bench"] == b for r in rows)]
    fig, axes = plt.subplots(len(benches), 1, figsize=(11, 4.2 * len(benches)))
    axes = axes if len(benches) > 1 else [axes]
    for ax, b in zip(axes, benches):
        warm = [r for r in rows if r["bench"] == b and r["predictor"] == "warm"]
        cold = {label(r): r for r in rows if r["bench"] == b and r["predictor"] == "cold"}
        names = [label(r) for r in warm]
        x = range(len(names))
        ax.bar([i - 0.2 for i in x], [float(r["net_median"]) for r in warm], 0.4,
               label="warm predictor (median)", color="tab:blue")
        ax.plot([i - 0.2 for i in x], [float(r["net_min"]) for r in warm], "k_", ms=12,
                label="min (minus the empty loop's min)")
        if cold:
            ax.bar([i + 0.2 for i in x], [float(cold[n]["net_median"]) if n in cold else 0
                                          for n in names], 0.4,
                   label="cold predictor (median)", color="tab:orange")
            ax.plot([i + 0.2 for i in x], [float(cold[n]["net_min"]) if n in cold else 0
                                           for n in names], "k_", ms=12)
        ax.set_xticks(list(x))
        ax.set_xticklabels(names, fontsize=7, rotation=20, ha="right")
        ax.set_ylabel("TSC ticks per iteration\n(empty loop subtracted)")
        ax.set_title({"spinlock": "spin_irq_lock + spin_irq_unlock (paper Fig. 1/4)",
                      "pvops": "PV-ops analog: irq disable + enable",
                      "tailcall": "tail calls and calls through pointers",
                      "probe": "a probe off and on",
                      "redirect": "a call of an updated function: direct, redirected, table"}[b])
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def micro_instructions(rows, out):
    rows = [r for r in rows if r["bench"] != "empty"]
    fig, ax = plt.subplots(figsize=(11, 5))
    names = [f"{r['bench']}: {label(r)}".replace("\n", " ") for r in rows]
    ax.barh(range(len(rows)), [float(r["net_ir"]) for r in rows], color="tab:green")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("instructions per iteration (callgrind, empty loop subtracted)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def latency(rows, out):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    by_sites = [r for r in rows if r["functions"] == "100"]
    by_fns = [r for r in rows if r["sites"] == "10000"]
    for ax, data, xkey, xlabel in ((a1, by_sites, "sites", "call sites (100 functions)"),
                                   (a2, by_fns, "functions", "functions (10,000 call sites)")):
        for op in ("init", "first-commit", "commit", "revert", "commit-live"):
            pts = sorted((int(r[xkey]), float(r["median_us"])) for r in data if r["op"] == op)
            if len(pts) > 1:
                ax.plot(*zip(*pts), "o-", label=op)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("µs (median)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.suptitle("Start-up, commit and revert latency")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def size(rows, out):
    items = [i for i in dict.fromkeys(r["item"] for r in rows) if i != "runtime library"]
    # matplotlib hides legend labels that start with "_": say what they are.
    parts = {"__multiverse_var": "switch records (__multiverse_var)",
             "__multiverse_fn": "function records (__multiverse_fn)",
             "__multiverse_site": "site records (__multiverse_site)",
             ".data.rel.ro.multiverse": "variants and guards (.data.rel.ro.multiverse)",
             ".rodata.multiverse": "names (.rodata.multiverse)",
             "text (all .text*)": "code (.text*)",
             ".eh_frame": "unwind tables (.eh_frame)",
             "exe .rela.dyn": "PIE relocations (.rela.dyn)"}
    get = {(r["item"], r["section"]): r for r in rows}
    fig, ax = plt.subplots(figsize=(11, 4.5))
    bottom = [0.0] * len(items)
    for p, name in parts.items():
        vals = [float(get[(i, p)]["added"]) if (i, p) in get else 0 for i in items]
        ax.bar(range(len(items)), vals, 0.5, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, vals)]
    paper = [float(get[(i, "descriptors")]["paper"]) for i in items]
    ax.plot(range(len(items)), paper, "k*", ms=12, label="paper: descriptors")
    ax.set_xticks(range(len(items)))
    ax.set_xticklabels([i.replace(" (", "\n(") for i in items], fontsize=8)
    ax.set_ylabel("bytes added per item")
    ax.legend(fontsize=7)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def compile_time(rows, out):
    """One panel per compiler and target: each unit without and with the
    plugin (medians)."""
    # Files from before other compilers were measured hold gcc-12, x86-64.
    key = lambda r: f"{r.get('compiler') or 'gcc-12'}, {r.get('arch') or 'x86-64'}"
    compilers = list(dict.fromkeys(key(r) for r in rows))
    units = list(dict.fromkeys(r["unit"] for r in rows))
    get = {(key(r), r["unit"], r["plugin"]): float(r["median_s"]) for r in rows}
    fig, axes = plt.subplots(1, len(compilers), figsize=(4.5 * len(compilers), 4), squeeze=False)
    x = range(len(units))
    for ax, c in zip(axes[0], compilers):
        ax.bar([i - 0.2 for i in x], [get.get((c, u, "0"), 0) for u in units], 0.4,
               label="without plugin")
        ax.bar([i + 0.2 for i in x], [get.get((c, u, "1"), 0) for u in units], 0.4,
               label="with plugin")
        ax.set_title(c, fontsize=9)
        ax.set_xticks(list(x))
        ax.set_xticklabels([u.replace(" (", "\n(") for u in units], fontsize=7)
        ax.set_ylabel("seconds (median)")
        ax.legend(fontsize=7)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    res = sys.argv[1]
    made = []
    for csv_name, fn, png in (("micro.csv", micro_cycles, "micro_cycles.png"),
                              ("instructions.csv", micro_instructions, "micro_instructions.png"),
                              ("latency.csv", latency, "latency.png"),
                              ("size.csv", size, "size.png"),
                              ("compile_time.csv", compile_time, "compile_time.png")):
        rows = read(res, csv_name)
        if not rows:
            continue
        if csv_name == "micro.csv":
            rows = [r for r in rows if r["bench"] not in ("calibration", "empty")]
        fn(rows, os.path.join(res, png))
        made.append(png)
    print("plots: " + ", ".join(os.path.join(res, m) for m in made))


if __name__ == "__main__":
    main()
