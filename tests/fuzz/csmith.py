#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Differential fuzzing of the plugin and runtime with csmith.

For each seed, csmith generates a program (`csmith --seed S`).  Every
function in it becomes multiversed, and two to five integer globals that
the functions read and the program never writes become switches: csmith's
const globals (the const is dropped), globals whose address is never taken
and that still compile when declared const, and, first, globals made of a
few of the functions' literals (see lift_constants).  Their explicit domain
holds the initial value and one or two others, so committed variants really
run.  The switches are left out of csmith's checksum.  The program is built, at an optimization level and PIE setting drawn
from the seed, with plain gcc and with the plugin, and csmith's checksum
must be the same in every mode:

  plain        gcc without the plugin
  generic      with the plugin, nothing committed
  commit       committed before csmith's main runs
  recommit     committed, reverted, committed again

and again with every switch first set to its second domain value ("alt"),
where the plain build reads the new values and the committed build runs
the variants for them.  A last run commits and then sets the other values,
which bound switches ignore: when its checksum differs from the plain
build's with those values, the committed variants decided the output (the
summary counts these; csmith's programs seldom let a constant through).  After each commit, every function with variants
must be committed, since every switch holds a value of its domain.  A run
that commits nothing proves nothing, so the summary counts the programs
that ran committed variants; a batch in which none did fails.

    tests/fuzz/csmith.py N [--seed S] [--cc clang] [-v] [--keep]   seeds S .. S+N-1 (S = 1)

Programs whose plain build runs longer than --timeout seconds are skipped.
A mismatch, a crash, an internal compiler error or a failed API check keeps
the sources in build/fuzz/seed-S/ (seed-S-clang/ under --cc clang) with a
repro.sh, and the exit status is 1.
"""
import argparse
import glob
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVER = os.path.join(ROOT, "tests", "fuzz", "driver.h")
MVCC = os.path.join(ROOT, "build", "multiverse-gcc")
CC = shutil.which("gcc-12") or "gcc"
GCC = CC                  # finds the globals a program writes (never_written)

# Switch types the plugin takes, with their width and signedness.
INT_TYPES = {f"{s}int{w}_t": (w, s == "") for s in ("", "u") for w in (8, 16, 32, 64)}

GLOBAL_RE = re.compile(r"^static (?P<qual>(?:const |volatile )*)(?P<type>u?int(?:8|16|32|64)_t) "
                       r"(?P<name>(?:g|mvk)_\d+) = (?P<init>[^;{]+);$")
FUNC_RE = re.compile(r"^static .*\b(func_\d+)\(.*\);?$")
MAIN_RE = re.compile(r"^int main \((.*)\)$", re.M)
LITERAL_RE = re.compile(r"^\(?(-?)(0[xX][0-9A-Fa-f]+|\d+)[uUlL]*\)?$")

PREAMBLE = """\
/* Multiverse fuzzing: FUZZ_MV is defined only in the plugin build. */
#ifdef FUZZ_MV
#include <multiverse.h>
#define MV_FN __attribute__((multiverse))
#define MV_SW(...) __attribute__((multiverse("values", __VA_ARGS__)))
#else
#define MV_FN
#define MV_SW(...)
#endif
"""


def wrap(v, bits, signed):
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def c_literal(v, signed):
    return f"{v}LL" if signed else f"{v}ULL"


# A literal with a suffix: csmith spells values in expressions this way, and
# loop bounds, array sizes and indices without one.
SUFFIXED_RE = re.compile(r"(?<![\w.])(0[xX][0-9A-Fa-f]+|\d+)([uU]?[lL]{1,2}|[uU])(?![\w.])")


def literal_type(digits, suffix):
    """The stdint type of a suffixed literal on x86-64, or None."""
    v, suffix = int(digits, 0), suffix.upper()
    if "U" in suffix:
        return "uint32_t" if suffix == "U" and v < 1 << 32 else "uint64_t" if v < 1 << 64 else None
    if v < 1 << 63:
        return "int64_t"
    return "uint64_t" if digits[:2].lower() == "0x" and v < 1 << 64 else None


def lift_constants(src, rng):
    """csmith's read-only globals rarely influence what its programs
    compute (changing them left the checksum of every one of 8 sampled
    programs as it was), so switches made of them alone test little.  This turns a few
    literals of the functions into read-only globals mvk_N of the literal's
    type, initialized to it: the program is unchanged, and the switches'
    values now matter."""
    start = src.find("/* --- FUNCTIONS --- */")
    end = MAIN_RE.search(src).start()
    body = src[start:end]
    lits = sorted({m[0] for m in SUFFIXED_RE.finditer(re.sub(r"/\*.*?\*/", "", body, flags=re.S))
                   if literal_type(m[1], m[2])})
    decls = []
    for i, lit in enumerate(rng.sample(lits, min(len(lits), rng.randint(2, 6)))):
        m = SUFFIXED_RE.fullmatch(lit)
        name = f"mvk_{i}"
        decls.append(f"static {literal_type(m[1], m[2])} {name} = {lit};")
        body = re.sub(r"(?<![\w.])" + lit + r"(?![\w.])", name, body)
    marker = "/* --- FORWARD DECLARATIONS --- */"
    head = src[:start].replace(marker, "\n".join(decls) + "\n\n" + marker, 1)
    return head + body + src[end:]


def candidates(src, wide_unsigned):
    """Scalar integer globals that the functions read and that are const or
    whose address is never taken, by name, with the initial value
    converted to the type."""
    # Without csmith's comments, which list the globals each function uses.
    body = re.sub(r"/\*.*?\*/", "", src[src.find("/* --- FUNCTIONS --- */"):
                                         MAIN_RE.search(src).start()], flags=re.S)
    out = {}
    for line in src.splitlines():
        m = GLOBAL_RE.match(line)
        if not m or m["qual"] not in ("", "const "):
            continue
        lit = LITERAL_RE.match(m["init"].strip())
        name = m["name"]
        # Only main's checksum reads many globals; switching those tests
        # nothing.
        if not lit or not re.search(r"\b" + name + r"\b", body):
            continue
        # csmith spells address-of as "&g_1" and the binary operator with
        # spaces; a pointer to the global could write it behind our back.
        # A pointer to a const one is a pointer to const, but functions
        # that take the address are not specialized for it.
        addressed = bool(re.search(r"(?<![&\w)\]])&" + name + r"\b", src))
        if addressed and not m["qual"]:
            continue
        bits, signed = INT_TYPES[m["type"]]
        v = wrap(int(lit[2], 0) * (-1 if lit[1] else 1), bits, signed)
        if usable(v, bits, signed, wide_unsigned):
            out[name] = {"init": v, "bits": bits, "signed": signed,
                         "const": bool(m["qual"]), "addressed": addressed}
    return out


def usable(v, bits, signed, wide_unsigned):
    if signed:
        # INT64_MIN has no literal spelling as one constant.
        return v != -(1 << 63)
    # The plugin sign-extends unsigned domain values whose top bit is set
    # (254 in a uint8_t becomes -2), so they never match: a known bug,
    # fixed separately.  --wide-unsigned includes them.
    return wide_unsigned or v < 1 << (bits - 1)


def never_written(src, names, inc):
    """The subset of names the program never writes: declare them const
    and let the compiler name every global that is assigned or stepped."""
    names = set(names)
    while names:
        text = "\n".join(
            re.sub(r"^static ", "static const ", l) if (m := GLOBAL_RE.match(l)) and m["name"] in names
            else l for l in src.splitlines())
        r = subprocess.run([GCC, "-fsyntax-only", "-w", "-Werror=discarded-qualifiers",
                            "-I" + inc, "-x", "c", "-"], input=text, capture_output=True,
                           text=True, env=dict(os.environ, LC_ALL="C"))
        if r.returncode == 0:
            return names
        written = set(re.findall(r"read-only variable '(g_\d+)'", r.stderr)) & names
        if not written:     # an error that names no global: trust none
            return set()
        names -= written
    return names


def instrument(src, switches, functions):
    """The program with attributes on the switches and functions, main
    renamed, and the driver appended."""
    lines = []
    for line in src.splitlines():
        m = GLOBAL_RE.match(line)
        if m and m["name"] in switches:
            dom = switches[m["name"]]["domain"]
            signed = switches[m["name"]]["signed"]
            line = (f"static {m['type']} {m['name']} "
                    f"MV_SW({', '.join(c_literal(v, signed) for v in dom)}) = {m['init']};")
        elif FUNC_RE.match(line):
            line = "MV_FN " + line
        lines.append(line)
    text = "\n".join(lines) + "\n"
    # The checksum covers what the program computed, not the switches
    # themselves, so that it shows whether their values mattered.
    for n in switches:
        text = re.sub(r"^\s*transparent_crc\(" + n + r", .*\n", "", text, flags=re.M)
    text, n = MAIN_RE.subn(r"static int csmith_main (\1)", text)
    if n != 1:
        raise RuntimeError("csmith's main not found")
    text = text.replace('#include "csmith.h"', PREAMBLE + '#include "csmith.h"', 1)
    sets = " ".join(f"{n} = {c_literal(s['alt'], s['signed'])};" for n, s in switches.items())
    text += ("\n#define FUZZ_FUNCTIONS " + ", ".join(f"(void *){f}" for f in functions) +
             "\n#define FUZZ_SET_ALT " + sets + "\n#include \"driver.h\"\n")
    return text


def pick_switches(cands, rng, wide_unsigned):
    # Those whose address is taken last: they are specialized nowhere.
    order = sorted(cands, key=lambda n: (not n.startswith("mvk_"), cands[n]["addressed"],
                                         rng.random()))
    switches = {}
    for name in order[:rng.randint(2, 5)]:
        init, bits, signed = (cands[name][k] for k in ("init", "bits", "signed"))
        # Neighbours of the initial value often behave the same, and their
        # variants get merged; values far away make the variants differ.
        others = {wrap(x, bits, signed) for x in
                  (0, 1, -1, init ^ 1, ~init, -init, init >> 1, rng.getrandbits(bits),
                   rng.getrandbits(bits), rng.getrandbits(rng.randint(2, bits)))}
        others = sorted(x for x in others
                        if x != init and usable(x, bits, signed, wide_unsigned))
        dom = [init] + rng.sample(others, min(len(others), rng.choice((1, 1, 2))))
        switches[name] = {"domain": dom, "alt": dom[1], "signed": signed}
    return switches


def run(exe, env, timeout):
    t = time.monotonic()
    try:
        r = subprocess.run([exe], env=dict(os.environ, **env), capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    m = re.search(r"^checksum = ([0-9A-F]+)$", r.stdout, re.M)
    return {"rc": r.returncode, "sum": m[1] if m else None, "err": r.stderr,
            "secs": time.monotonic() - t}


def csmith_include():
    for d in sorted(glob.glob("/usr/include/csmith*")) + [os.environ.get("CSMITH_INC", "")]:
        if d and os.path.exists(os.path.join(d, "csmith.h")):
            return d
    sys.exit("csmith.py: csmith.h not found (apt-get install libcsmith-dev, or set CSMITH_INC)")


class Fuzz:
    def __init__(self, args):
        self.args = args
        self.inc = csmith_include()
        self.work = os.path.join(ROOT, "build", "fuzz")
        # the GCC and Clang runs of make test run side by side
        self.seed_dir = "seed-{}" + ("-clang" if args.cc == "clang" else "")
        os.makedirs(self.work, exist_ok=True)
        self.n = self.skipped = self.ran_variant = self.committed = self.switches = 0
        self.alt_checked = self.observable = self.mismatches = self.failures = 0

    def fail(self, seed, d, kind, detail, flags):
        self.failures += 1
        if kind == "mismatch":
            self.mismatches += 1
        keep = os.path.join(self.work, self.seed_dir.format(seed))
        if keep != d:
            shutil.rmtree(keep, ignore_errors=True)
            os.makedirs(keep)
            for f in ("orig.c", "prog.c", "mv.log", "driver.h"):
                if os.path.exists(os.path.join(d, f)):
                    shutil.copy(os.path.join(d, f), keep)
        inc = f"-I{self.inc} -I{keep}"
        with open(os.path.join(keep, "repro.sh"), "w") as f:
            f.write(f"#!/bin/sh\n# seed {seed}: {kind}: {detail}\nset -x\ncd {keep}\n"
                    f"{CC} {flags} -w {inc} prog.c -o plain && ./plain\n"
                    f"{MVCC} -DFUZZ_MV {flags} -w {inc} prog.c -o mv\n"
                    f"./mv; FUZZ_MODE=commit ./mv; FUZZ_MODE=recommit ./mv\n"
                    f"FUZZ_ALT=1 ./plain; FUZZ_ALT=1 FUZZ_MODE=commit ./mv\n")
        os.chmod(os.path.join(keep, "repro.sh"), 0o755)
        print(f"FAIL seed {seed} {flags}: {kind}: {detail}\n"
              f"     kept in {keep}; reproduce with {keep}/repro.sh", flush=True)

    def one(self, seed):
        a = self.args
        rng = random.Random(seed)
        if a.keep:
            d = os.path.join(self.work, self.seed_dir.format(seed))
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        else:
            d = os.path.join(self.tmp, str(seed))
            os.makedirs(d)
        orig = os.path.join(d, "orig.c")
        subprocess.run(["csmith", "--seed", str(seed), "--no-packed-struct",
                        "--max-funcs", str(rng.randint(4, 12)), "-o", orig],
                       check=True, capture_output=True, cwd=d)   # it writes platform.info
        src = lift_constants(open(orig).read(), rng)
        functions = [m[1] for l in src.splitlines() if (m := FUNC_RE.match(l)) and l.endswith(";")]
        cands = candidates(src, a.wide_unsigned)
        kept = never_written(src, [n for n, c in cands.items() if not c["const"]], self.inc)
        cands = {n: c for n, c in cands.items() if c["const"] or n in kept}
        switches = pick_switches(cands, rng, a.wide_unsigned)
        prog = os.path.join(d, "prog.c")
        with open(prog, "w") as f:
            f.write(instrument(src, switches, functions))
        shutil.copy(DRIVER, d)
        flags = rng.choice(("-O2", "-O2", "-O3", "-O1", "-Os", "-O0"))
        flags += rng.choice(("", " -fno-pie -no-pie"))
        inc = ["-I" + self.inc, "-I" + d]
        self.n += 1
        tag = f"seed {seed} {flags}"

        r = subprocess.run([CC, *flags.split(), "-w", *inc, prog, "-o", os.path.join(d, "plain")],
                           capture_output=True, text=True)
        if r.returncode:
            self.fail(seed, d, "plain build failed", r.stderr.strip()[-300:], flags)
            return
        plain = run(os.path.join(d, "plain"), {}, a.timeout)
        if plain is None or plain["rc"] or not plain["sum"]:
            self.skipped += 1
            self.n -= 1
            print(f"skip {tag}: plain build " +
                  ("timed out" if plain is None else f"exited {plain['rc']}"), flush=True)
            return

        r = subprocess.run([MVCC, "-DFUZZ_MV", *flags.split(), *inc, prog,
                            "-o", os.path.join(d, "mv")], capture_output=True, text=True,
                           env=dict(os.environ, LC_ALL="C"))
        with open(os.path.join(d, "mv.log"), "w") as f:
            f.write(r.stderr)
        if "internal compiler error" in r.stderr or r.returncode:
            self.fail(seed, d, "plugin build failed", r.stderr.strip()[-300:], flags)
            return

        limit = 5 + 5 * plain["secs"]
        modes = [("generic", {}, plain), ("commit", {"FUZZ_MODE": "commit"}, plain),
                 ("recommit", {"FUZZ_MODE": "recommit"}, plain)]
        alt = run(os.path.join(d, "plain"), {"FUZZ_ALT": "1"}, a.timeout) if switches else None
        if alt and not alt["rc"] and alt["sum"]:
            self.alt_checked += 1
            modes += [("alt " + m, dict(e, FUZZ_ALT="1"), alt) for m, e, _ in modes]
        committed = 0
        for name, env, want in modes:
            got = run(os.path.join(d, "mv"), env, limit)
            if got is None:
                self.fail(seed, d, "timeout", f"mode {name}: over {limit:.1f} s", flags)
                return
            if "fuzz: FAIL" in got["err"] or got["rc"] != want["rc"]:
                said = re.search(r"^fuzz: FAIL.*", got["err"], re.M)
                self.fail(seed, d, "run failed", f"mode {name}: exit {got['rc']}: " +
                          (said[0] if said else got["err"].strip()[-300:]), flags)
                return
            if got["sum"] != want["sum"]:
                self.fail(seed, d, "mismatch", f"mode {name}: checksum {got['sum']}, "
                          f"plain {os.path.basename(CC)} {want['sum']}", flags)
                return
            m = re.search(r"fuzz: (\d+) functions, (\d+) with variants, (\d+) committed",
                          got["err"])
            if name == "commit":
                committed = int(m[3])
        if len(modes) > 3:
            got = run(os.path.join(d, "mv"), {"FUZZ_MODE": "stale"}, limit)
            # Not a check: the program may do anything with switches that
            # disagree with the code, but a different checksum shows that
            # the variants were run and mattered.
            if got and got["sum"] and got["sum"] != alt["sum"]:
                self.observable += 1
        self.switches += len(switches)
        self.committed += committed
        self.ran_variant += committed > 0
        if a.verbose:
            print(f"ok   {tag}: {len(switches)} switches, {committed}/{len(functions)} "
                  f"functions committed, {len(modes)} modes", flush=True)

    def main(self):
        a = self.args
        t = time.monotonic()
        # Per run, so that runs in one tree do not collide.
        self.tmp = tempfile.mkdtemp(prefix="run-", dir=self.work)
        try:
            for seed in range(a.seed, a.seed + a.count):
                self.one(seed)
                shutil.rmtree(os.path.join(self.tmp, str(seed)), ignore_errors=True)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        print(f"{self.n} programs ({self.skipped} more skipped: plain run over {a.timeout:g} s), "
              f"{self.ran_variant} ran a committed variant, {self.committed} functions "
              f"committed in total, {self.switches} switches, {self.alt_checked} also with "
              f"other switch values ({self.observable} where the bound variants "
              f"changed the output), {self.mismatches} mismatches, {self.failures} failures "
              f"({time.monotonic() - t:.0f} s)")
        # A batch that commits nothing has tested nothing.
        if self.n and not self.ran_variant:
            print("no program ran a committed variant")
            return 1
        return 1 if self.failures else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("count", type=int, nargs="?", default=100)
    p.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    p.add_argument("--timeout", type=float, default=2, help="skip programs whose plain run takes longer")
    p.add_argument("--wide-unsigned", action="store_true",
                   help="allow unsigned domain values with the type's top bit set")
    p.add_argument("--keep", action="store_true",
                   help="keep every program's files in build/fuzz/seed-S/ (seed-S-clang/), not only failures")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per program")
    p.add_argument("--cc", choices=("gcc", "clang"), default="gcc",
                   help="the front end: multiverse-gcc against gcc-12 (default), or"
                        " multiverse-clang against clang-19")
    a = p.parse_args()
    if a.cc == "clang":
        global MVCC, CC
        MVCC = os.path.join(ROOT, "build", "multiverse-clang")
        CC = "clang-19"
    for tool in ("csmith", MVCC, CC):
        if not shutil.which(tool):
            sys.exit(f"csmith.py: {tool} not found (apt-get install csmith; make)")
    sys.exit(Fuzz(a).main())


if __name__ == "__main__":
    main()
