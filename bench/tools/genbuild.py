# SPDX-License-Identifier: MIT
"""Generating and compiling synthetic programs (gen/gen_program.py), for
latency.py, latency_counts.py, size.py and compile_time.py."""
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
MVCC = os.path.join(ROOT, "build", "multiverse-gcc")
CC = shutil.which("gcc-12") or "gcc"
CFLAGS = ["-O2"]
JOBS = os.cpu_count() or 2


@dataclass(frozen=True)
class Compiler:
    """A compiler for one target, plain and with Multiverse's wrapper.
    plain and mv are command prefixes: the same flags follow both."""
    key: str        # short name, on the command line of the tools
    name: str       # what the report calls it
    arch: str
    plain: tuple
    mv: tuple
    bench_dir: str  # where bench/Makefile builds for it (latency.o), or None
    make_vars: tuple = ()  # what tells bench/Makefile to build for it

    def available(self):
        """Both commands exist (whether they work, a compile tells)."""
        return shutil.which(self.plain[0]) is not None and os.access(self.mv[0], os.X_OK)


def _build(name):
    return os.path.join(ROOT, "build", name)


# The plain compiler of each is what its Multiverse wrapper runs
# (build/*multiverse-*: the Clang wrappers add --target for AArch64).
# bench/Makefile builds with both, for both targets (COMPILER=clang,
# ARCH=aarch64).
COMPILERS = {c.key: c for c in (
    Compiler("gcc", "gcc-12", "x86-64", (CC,), (MVCC,), "build"),
    Compiler("clang", "clang-19", "x86-64", ("clang-19",), (_build("multiverse-clang"),),
             "build/clang", ("COMPILER=clang",)),
    Compiler("aarch64-gcc", "gcc-12", "AArch64", ("aarch64-linux-gnu-gcc-12",),
             (_build("aarch64-linux-gnu-multiverse-gcc"),), "build/aarch64", ("ARCH=aarch64",)),
    Compiler("aarch64-clang", "clang-19", "AArch64", ("clang-19", "--target=aarch64-linux-gnu"),
             (_build("aarch64-linux-gnu-multiverse-clang"),), "build/aarch64-clang",
             ("ARCH=aarch64", "COMPILER=clang")),
)}
GCC = COMPILERS["gcc"]


def generate(outdir, **params):
    """Writes the program's sources; params are gen_program.py options."""
    cmd = [sys.executable, os.path.join(BENCH, "gen", "gen_program.py"), outdir]
    for k, v in params.items():
        cmd += ["--" + k.replace("_", "-"), str(v)]
    subprocess.run(cmd, check=True)
    return sorted(f for f in os.listdir(outdir) if f.endswith(".c"))


def compile_one(src, obj, plugin, extra=(), compiler=GCC):
    """Compiles one unit; returns the wall-clock seconds it took."""
    cmd = list(compiler.mv if plugin else compiler.plain) + CFLAGS + list(extra) + ["-c", "-o", obj, src]
    if not plugin:
        cmd.insert(len(compiler.plain), "-DNO_MULTIVERSE")
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    return t


def build(outdir, plugin, extra_objs=(), exe_name="prog", link_flags=(), plugin_flags=(),
          compiler=GCC):
    """Compiles every generated unit (in parallel), the plugin build with
    plugin_flags, and links them with extra_objs.  Returns the
    executable's path.  Objects and executable are named after the build
    (mv, plain) and, but for GCC on x86-64, the compiler."""
    srcs = sorted(f for f in os.listdir(outdir) if f.endswith(".c"))
    tag = "mv" if plugin else "plain"
    if compiler is not GCC:
        tag += "-" + compiler.key
    objs = [os.path.join(outdir, f"{s[:-2]}.{tag}.o") for s in srcs]
    with ThreadPoolExecutor(JOBS) as pool:
        list(pool.map(lambda so: compile_one(os.path.join(outdir, so[0]), so[1], plugin,
                                             plugin_flags if plugin else (), compiler),
                      zip(srcs, objs)))
    exe = os.path.join(outdir, f"{exe_name}.{tag}")
    # The wrapper links the runtime; the plain compiler links without it.
    cmd = (list(compiler.mv if plugin else compiler.plain) + CFLAGS + list(link_flags)
           + ["-o", exe] + objs + list(extra_objs))
    subprocess.run(cmd, check=True)
    return exe
