# SPDX-License-Identifier: MIT
"""Generating and compiling synthetic programs (gen/gen_program.py), for
latency.py, size.py and compile_time.py."""
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
MVCC = os.path.join(ROOT, "build", "multiverse-gcc")
CC = shutil.which("gcc-12") or "gcc"
CFLAGS = ["-O2"]
JOBS = os.cpu_count() or 2


def generate(outdir, **params):
    """Writes the program's sources; params are gen_program.py options."""
    cmd = [sys.executable, os.path.join(BENCH, "gen", "gen_program.py"), outdir]
    for k, v in params.items():
        cmd += ["--" + k.replace("_", "-"), str(v)]
    subprocess.run(cmd, check=True)
    return sorted(f for f in os.listdir(outdir) if f.endswith(".c"))


def compile_one(src, obj, plugin, extra=()):
    """Compiles one unit; returns the wall-clock seconds it took."""
    cmd = [MVCC if plugin else CC] + CFLAGS + list(extra) + ["-c", "-o", obj, src]
    if not plugin:
        cmd.insert(1, "-DNO_MULTIVERSE")
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    return t


def build(outdir, plugin, extra_objs=(), exe_name="prog", link_flags=(), plugin_flags=()):
    """Compiles every generated unit (in parallel), the plugin build with
    plugin_flags, and links them with extra_objs.  Returns the
    executable's path."""
    srcs = sorted(f for f in os.listdir(outdir) if f.endswith(".c"))
    tag = "mv" if plugin else "plain"
    objs = [os.path.join(outdir, f"{s[:-2]}.{tag}.o") for s in srcs]
    with ThreadPoolExecutor(JOBS) as pool:
        list(pool.map(lambda so: compile_one(os.path.join(outdir, so[0]), so[1], plugin,
                                             plugin_flags if plugin else ()),
                      zip(srcs, objs)))
    exe = os.path.join(outdir, f"{exe_name}.{tag}")
    # multiverse-gcc links the runtime; plain gcc links without it.
    cmd = [MVCC if plugin else CC] + CFLAGS + list(link_flags) + ["-o", exe] + objs + list(extra_objs)
    subprocess.run(cmd, check=True)
    return exe
