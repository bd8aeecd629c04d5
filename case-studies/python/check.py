# SPDX-License-Identifier: MIT
"""The collector's flag, as the multiversed allocation path must honour it:
automatic collections run while it is on and stop when gc.disable()
turns it off (the patch commits there), in the main interpreter and,
with flags of their own, in subinterpreters.  Exits non-zero, naming the
check, when one fails; run against both builds by run.sh."""
import gc
import sys

failures = 0


def check(cond, what):
    global failures
    if not cond:
        print("check failed:", what, file=sys.stderr)
        failures += 1


class Node:
    def __init__(self):
        self.me = self          # a cycle: only the collector frees it


def churn(n=20000):
    for _ in range(n):
        Node()


def collections():
    return gc.get_stats()[0]["collections"]


gc.enable()
before = collections()
churn()
check(collections() > before, "no automatic collection while enabled")

gc.disable()
check(not gc.isenabled(), "gc.isenabled() after gc.disable()")
before = collections()
churn()
check(collections() == before, "an automatic collection while disabled")
check(gc.get_count()[0] > gc.get_threshold()[0],
      "the count did not pass the threshold while disabled")
check(gc.collect() > 0, "gc.collect() freed nothing while disabled")

gc.enable()
before = collections()
churn()
check(collections() > before, "no automatic collection after gc.enable()")

# a threshold of 0 turns automatic collection off too, flag or not
gc.set_threshold(0)
before = collections()
churn()
check(collections() == before, "an automatic collection with threshold 0")
gc.set_threshold(700)

# Subinterpreters keep their own flag, read at run time: the main
# interpreter's bound value must not leak into them, nor theirs into it.
try:
    import _xxsubinterpreters as interpreters
except ImportError:
    interpreters = None
if interpreters:
    sub = interpreters.create()
    interpreters.run_string(sub, """if 1:
        import gc
        class Node:
            def __init__(self): self.me = self
        def collections(): return gc.get_stats()[0]["collections"]
        gc.disable()
        before = collections()
        for _ in range(20000): Node()
        assert collections() == before, "sub: collected while disabled"
        gc.enable()
        for _ in range(20000): Node()
        assert collections() > before, "sub: no collection while enabled"
        gc.disable()
        """)
    check(gc.isenabled(), "a subinterpreter's gc.disable() reached the main one")
    before = collections()
    churn()
    check(collections() > before, "no collection in main after a subinterpreter's gc.disable()")
    gc.disable()
    interpreters.run_string(sub, """if 1:
        gc.enable()
        before = collections()
        for _ in range(20000): Node()
        assert collections() > before, "sub: no collection while main is disabled"
        """)
    gc.enable()
    interpreters.destroy(sub)

if failures:
    print(f"{failures} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("check.py: all checks passed")
