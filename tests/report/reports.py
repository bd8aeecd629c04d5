# SPDX-License-Identifier: MIT
"""What instrumented.py and compilers.py share: a test source's own
flags, and its JSON compile report."""
import json
import os
import re
import shlex
import subprocess


def source_flags(src, clang):
    """The source's "// mvflags:" (and, for Clang, "// mvflags-clang:"),
    and whether it says "not-with-clang:"."""
    text = open(src).read()
    flags = []
    for key in ["mvflags"] + (["mvflags-clang"] if clang else []):
        m = re.search(r"// %s: (.*)" % key, text)
        if m:
            flags += shlex.split(m.group(1))
    return flags, "not-with-clang:" in text


def compile_report(cc, src, flags, d, tag, opt="-O2"):
    """Compiles src with the wrapper cc into d; returns the report's
    objects, or None and the compiler's messages."""
    out = os.path.join(d, tag + ".json")
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([cc, opt, "-w", "-Itests/e2e", "-c", src, "-o", os.path.join(d, tag + ".o"),
                        "--multiverse-report-json=" + out, *flags],
                       capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr
    if not os.path.exists(out):
        return [], ""
    return [json.loads(line) for line in open(out)], ""
