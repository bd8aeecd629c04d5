#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A torture program under a debugger.  $1: the executable, $2: a
# multiversed function the program commits and then calls (default: the
# first that has variants; every corpus program calls all of them after
# a commit).  Variants are named <fn>.multiverse.<n>.
#   - readelf and objdump parse its debug info, if it has any, without
#     complaint;
#   - gdb stops in a variant of fn;
#   - with gdb's `break fn`, which covers the generic's first
#     instruction (and, with debug info, the variants), the program
#     still commits fn and runs to its end.
set -u
exe=$1
fn=${2:-$(nm "$exe" | sed -n 's/.* [tT] \(.*\)\.multiverse\.[0-9]*$/\1/p' | sort | head -n 1)}
status=0
if readelf -S "$exe" | grep -q '\.debug_info'; then
	for tool in "readelf --debug-dump=info" "objdump --dwarf=info"; do
		if ! $tool "$exe" 2>&1 >/dev/null | (! grep .); then
			echo "$tool complained"; status=1
		fi
	done
fi
# 77: skipped, and why (./make.sh test installs gdb)
command -v gdb >/dev/null || { echo "no gdb: the breakpoint is not checked"; [ $status = 0 ] && exit 77; exit $status; }
# The program calls fn before its first commit too; only a stop in a
# variant can come after it.
breaks=()
for v in $(nm "$exe" | sed -n "s/.* [tT] \($fn\.multiverse\.[0-9]*\)$/\1/p"); do
	breaks+=(-ex "break $v")
done
[ ${#breaks[@]} -gt 0 ] || { echo "no variant symbols $fn.multiverse.*"; exit 1; }
log=$(timeout 60 gdb -batch -nx "${breaks[@]}" -ex run \
	-ex 'info symbol $pc' -ex kill "$exe" 2>&1)
if ! grep -q "^Breakpoint [0-9]*, \($fn \|0x[0-9a-f]* in $fn\.multiverse\)" <<<"$log" ||
   ! grep -q "^$fn\.multiverse.* in section" <<<"$log"; then
	echo "gdb did not stop in a variant of $fn:"; echo "$log"; status=1
fi
# gdb writes its breakpoint over the generic's first instruction: the
# entry patch area must not be that one, or commit leaves fn generic
# and the program's checks fail.
log=$(timeout 120 gdb -batch -nx -ex "break $fn" -ex run -ex 'continue 1000000' "$exe" 2>&1)
if ! grep -q "^Breakpoint 1[.0-9]*, " <<<"$log" || ! grep -q "exited normally" <<<"$log"; then
	echo "under gdb's break $fn, the program did not stop there and run to its end:"
	echo "$log"; status=1
fi
exit $status
