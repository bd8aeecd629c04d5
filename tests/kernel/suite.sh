#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel suite, run in the guest by tests/kernel/run.sh (tests/run
# boots it on 1 and on 2 CPUs): the boot-time commit of vmlinux's
# selftest functions, the debugfs interface, and the test module
# (mvtest/mvtest.ko), which checks the API and commits and reverts while
# kthreads on the other CPUs run the patched code.  Each check prints
# "ok - NAME" or "not ok - NAME: why"; the last line counts them.
cd "$(dirname "$0")"
. ./checks.sh

state=/sys/kernel/debug/multiverse/state
control=/sys/kernel/debug/multiverse/control
call_hook=/sys/kernel/debug/multiverse_selftest/call_hook
cpus=$(grep -c ^processor /proc/cpuinfo)
# the negative checks below mean something only if these are there
for f in $state $control $call_hook mvtest/mvtest.ko; do
	[ -e $f ] || { echo "not ok - $f is missing"; echo "kernel ($cpus CPUs): 0 passed, 1 failed"; exit 1; }
done

# Committed by an early initcall, before the second CPU started: bound to
# one CPU whatever the machine has.
check "boot commit" sh -c "dmesg | grep -q 'committed at boot with 1 CPU(s) online: 1, reads 1, 1'"
check "state lists vmlinux's function" grep -q "^function mv_selftest_boot_cpus: committed to" $state
check "state lists the switch" grep -q "^switch boot_cpus: 4-byte unsigned, value 0" $state
# function or switch NAME's lines of the state file hold PATTERN
function_has() {
	sed -n "/^function $1:/,/^[a-z]/p" $state | grep -q "$2"
}
switch_has() {
	sed -n "/^switch $1:/,/^[a-z]/p" $state | grep -q "$2"
}
check "state lists its sites" function_has mv_selftest_boot_cpus "site mv_selftest_calls+.* patched"
check "init sites dropped" sh -c "! grep -q 'site mv_selftest_boot+' $state"

# debugfs control
check "control: revert_fn" sh -c "echo revert_fn mv_selftest_boot_cpus >$control"
check "control: reverted" grep -q "^function mv_selftest_boot_cpus: generic, entry original" $state
check "control: commit" sh -c "echo commit >$control"
check "control: committed" grep -q "^function mv_selftest_vmlinux: committed to mv_selftest_vmlinux" $state
check "control: revert" sh -c "echo revert >$control"
check "control: bad command refused" sh -c "! echo frobnicate >$control"
check "control: unknown name refused" sh -c "! echo commit_fn no_such_function >$control"

# A module's own checks, printed to the kernel log since the last
# "dmesg -c": shown and counted.
count_log() {
	dmesg | sed -n 's/^\[[ 0-9.]*\] //p' | grep -E "^(not )?ok - |^stress:" >/tmp/module.log
	cat /tmp/module.log
	passed=$((passed + $(grep -c "^ok - " /tmp/module.log)))
	failed=$((failed + $(grep -c "^not ok - " /tmp/module.log)))
}

# the test module
dmesg -c >/dev/null
if insmod mvtest/mvtest.ko stress_rounds=${MV_STRESS_ROUNDS:-2000}; then
	ok "mvtest loads"
else
	not_ok "mvtest loads"
fi
count_log
# the record names the label: its own symbol, or its function's start
check "bogus site reported" sh -c "dmesg | grep -qE 'site (mvtest_bogus_site|bogus_site_holder)\\+0x0/.* \\[mvtest\\] calling mvtest_compute holds 0f 1f 44 00 00 c3, not a call we can patch; left alone'"
check "state lists the module's function" grep -q "^function mvtest_compute: generic" $state
check "vmlinux site bound into the module" switch_has mv_selftest_hook "site mv_selftest_call_hook+.* patched"
check "vmlinux site calls the module" grep -qx 3 $call_hook
# unloaded while committed: the module's function committed, and
# vmlinux's site bound to the module's add_two, which must be restored
# before the module's text goes
check "commit with the module loaded" sh -c "echo commit_fn mvtest_compute >$control"
check "module's function committed" grep -q "^function mvtest_compute: committed to" $state
check "mvtest unloads" rmmod mvtest
check "module's records gone" sh -c "! grep -q mvtest_compute $state"
check "vmlinux site restored" switch_has mv_selftest_hook "site mv_selftest_call_hook+.* original"
check "vmlinux switch unbound" grep -q "^switch mv_selftest_hook: function pointer mv_selftest_negate, not committed" $state
# the site itself: bound to the module's add_two it would crash or give 3
check "vmlinux site calls through the pointer again" grep -qx -- -1 $call_hook
check "vmlinux commit after unload" sh -c "echo commit >$control && echo revert >$control"

# a module loaded while the kernel is committed: bound at load
check "commit before loading" sh -c "echo commit >$control"
dmesg -c >/dev/null
if insmod mvlate/mvlate.ko; then ok "mvlate loads"; else not_ok "mvlate loads"; fi
count_log
check "its site into vmlinux bound at load" function_has mv_selftest_vmlinux "site call_vmlinux[.a-z0-9]*+.* \[mvlate\] patched"
check "mvlate unloads" rmmod mvlate
# ... and one whose init fails once it was bound: dropped whole
dmesg -c >/dev/null
check "failing init refused" sh -c "! insmod mvlate/mvlate.ko fail=1"
count_log
check "failed module's records gone" sh -c "! grep -q 'late_fn\|mvlate' $state"
check "revert after the failed load" sh -c "echo revert >$control"

# a module with records of another descriptor version: not read, runs
# its generics, and says why
dmesg -c >/dev/null
check "other descriptor version loads" insmod mvbadver/mvbadver.ko
check "other descriptor version refused" sh -c "dmesg | grep -q 'multiverse: mvbadver was compiled for descriptor version 999 and ELF machine 62; this runtime reads versions 4 to 6 for 62 (x86-64): its code stays generic'"
check "its records not read" sh -c "! grep -q badver_fn $state && dmesg | grep -q 'mvbadver: is_committed -2'"
check "other descriptor version unloads" rmmod mvbadver

# a site changed behind the runtime's back: left alone, reported, and
# nothing written, while the rest of the batch is
corrupt=/sys/kernel/debug/multiverse_selftest/corrupt_site
check "site changed behind our back" sh -c "echo 1 >$corrupt && grep -qx '0f 1f 44 00 00' $corrupt"
check "commit over a changed site" sh -c "echo commit >$control"
check "changed site reported" sh -c "dmesg | grep -q 'site mv_selftest_calls+0x[0-9a-f]*/0x[0-9a-f]* of mv_selftest_vmlinux holds unexpected bytes 0f 1f 44 00 00; left alone'"
check "changed site skipped" function_has mv_selftest_vmlinux "site mv_selftest_calls+.* skipped"
check "changed site not written" grep -qx '0f 1f 44 00 00' $corrupt
check "the rest committed" grep -q "^function mv_selftest_vmlinux: committed to mv_selftest_vmlinux.multiverse.0, entry patched" $state
check "changed site restored by hand" sh -c "echo 0 >$corrupt && echo revert >$control && ! grep -qx '0f 1f 44 00 00' $corrupt"

echo "kernel ($cpus CPUs): $passed passed, $failed failed"
[ $failed = 0 ]
