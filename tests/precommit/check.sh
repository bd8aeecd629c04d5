#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/precommit/check.sh TOOL DIR: multiverse-precommit (TOOL) on the
# programs tests/run built into DIR, run where they run (here, or in the
# arm64 guest):
#   prog      prog.c, the runtime linked in: precommitted whole, for one
#             switch, and not at all, each run checks what it finds;
#   shared    prog.c with the runtime a shared library: refused;
#   copied    (non-PIE) copied.c, reading lib.c's switch: refused;
#   reloc     (PIE) reloc.c, a switch a relocation fills: refused;
#   libpc1.so, libpc2.so (PIE runs) lib2.c as a shared object: refused,
#             and with -Bsymbolic-functions precommitted (uselib runs it);
#   a symbolic link to a copy of prog, and a truncated copy;
# and the tool's refusals of other input, each with its message.  The
# input files are never changed by a refusal.
set -u
tool=$1 d=$2
fail() { echo "precommit: $*" >&2; exit 1; }
# refused EXPECTED-TEXT ARGS...: the tool must fail, saying that
refused() {
	want=$1
	shift
	if "$tool" "$@" >"$d/out" 2>&1; then
		fail "multiverse-precommit $* succeeded"
	fi
	grep -q -F -- "$want" "$d/out" || { cat "$d/out" >&2; fail "no \"$want\" from multiverse-precommit $*"; }
}

"$d/prog" plain || fail "prog plain"
cp "$d/prog" "$d/prog.all"
"$tool" "$d/prog.all" || fail "multiverse-precommit prog.all"
cmp -s "$d/prog" "$d/prog.all" && fail "prog.all is unchanged"
"$d/prog.all" precommitted || fail "prog.all precommitted"
"$d/prog.all" revert-first || fail "prog.all revert-first"
"$d/prog.all" stale 2>"$d/out" || { cat "$d/out" >&2; fail "prog.all stale"; }
grep -q "precommitted, but it holds" "$d/out" || fail "prog.all stale: no message about the site"
# once more: what is precommitted stays as it is
cp "$d/prog.all" "$d/prog.again"
"$tool" "$d/prog.again" || fail "multiverse-precommit on a precommitted file"
cmp -s "$d/prog.all" "$d/prog.again" || fail "precommitting twice changed the file"
"$tool" --switch trace "$d/prog" -o "$d/prog.trace" || fail "multiverse-precommit --switch trace"
"$d/prog.trace" trace-only || fail "prog.trace trace-only"
"$tool" --dry-run "$d/prog" 2>"$d/out" || fail "multiverse-precommit --dry-run"
grep -q "7 functions precommitted" "$d/out" || fail "--dry-run says: $(cat "$d/out")"
"$d/prog" plain || fail "the dry run changed prog"

cp "$d/prog" "$d/keep"
refused "has no switch named nosuch" --switch nosuch "$d/prog"
refused "not an ELF file" "$0"
refused "not a regular file" "$d"
refused "No such file" "$d/missing"
refused "does not carry a runtime that reads precommitted records" "$d/shared"
refused "usage:" --frobnicate "$d/prog"
if [ -e "$d/reloc" ]; then
	refused "switch out gets its value from a relocation" "$d/reloc"
	refused "calls __multiverse_register_module through a dynamic relocation" "$d/libpc1.so"
	"$tool" "$d/libpc2.so" || fail "multiverse-precommit libpc2.so"
	"$d/uselib" || fail "uselib"
fi
# a symbolic link: its target is precommitted, the link stays
cp "$d/prog" "$d/target"
ln -s target "$d/link"
"$tool" "$d/link" || fail "multiverse-precommit link"
[ -L "$d/link" ] || fail "the symbolic link was replaced"
cmp -s "$d/prog" "$d/target" && fail "the link's target is unchanged"
"$d/target" precommitted || fail "target precommitted"
head -c 3000 "$d/prog" >"$d/trunc"
refused "truncated or corrupt" "$d/trunc"
if [ -e "$d/copied" ]; then
	"$d/copied" >/dev/null || fail "copied does not run"
	refused "switch lib_mode is another module's, copied into this one" "$d/copied"
fi
cmp -s "$d/prog" "$d/keep" || fail "a refusal changed prog"
echo "precommit: ok"
