#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/torture/debugger_edit.c under gdb: stops the commit after its
# first write (the breakpoints step), sets an int3 on the instruction
# after the first call site, lets the batch finish, and requires that
# the int3 is still there.  $1: the executable.  Exits 77 without gdb.
exe=$1
command -v gdb >/dev/null || { echo "no gdb: ./make.sh test installs it"; exit 77; }
out=$(gdb -q -batch -nx \
	-ex 'set pagination off' -ex 'set breakpoint pending on' \
	-ex 'break multiverse_commit' -ex 'run' \
	-ex 'break mv_text_write' -ex 'continue' -ex 'finish' \
	-ex 'set var *(unsigned char *)edit_at = 0xcc' \
	-ex 'delete' -ex 'continue' "$exe" 2>&1)
echo "$out"
echo "$out" | grep -q '^byte before [0-9a-f][0-9a-f]$' || { echo "FAIL: the program did not start as expected"; exit 1; }
echo "$out" | grep -q '^byte before cc$' && { echo "FAIL: the byte was an int3 already"; exit 1; }
echo "$out" | grep -q '^byte after cc$' || { echo "FAIL: the commit undid the debugger's int3"; exit 1; }
echo "ok: the debugger's int3 survived the commit"
