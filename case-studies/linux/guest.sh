#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel case studies in a guest (run.sh boots each kernel with
# tests/kernel/run.sh):
#   guest.sh check KERNEL   the multiversed kernel's checks: the boot
#                           commits, the debugfs state, lock semantics, CPU
#                           hotplug flipping the mode, threads counting under
#                           a lock while CPUs go and come, the PV-ops
#                           switches bound, reverted and committed again;
#                           ends with a line
#                           "linux case study (N CPUs): N passed, N failed"
#   guest.sh bench KERNEL   the mode lines of the boot, mvspin's bench and
#                           bind lines, and the numbers of call sites
cd "$(dirname "$0")"
what=$1 kernel=$2
cpus=$(grep -c ^processor /proc/cpuinfo)
state=/sys/kernel/debug/multiverse/state
. ./checks.sh
log() { dmesg | sed -n 's/^\[[ 0-9.]*\] //p'; }
# mvspin's result lines since the last dmesg -c, shown and counted
module() { # insmod arguments
	dmesg -c >/dev/null
	insmod mvspin/$kernel/mvspin.ko "$@" || not_ok "insmod mvspin.ko $*"
	log | grep -E "^(not )?ok - |^bench: |^bind: |^mode: |^stress: " >/tmp/module.log
	cat /tmp/module.log
	passed=$((passed + $(grep -c "^ok - " /tmp/module.log)))
	failed=$((failed + $(grep -c "^not ok - " /tmp/module.log)))
}
unload() { rmmod mvspin || not_ok "rmmod mvspin"; }
# the functions of vmlinux and mvspin that read spinlock_smp, and their
# call sites
lock_functions="_raw_spin_lock _raw_spin_lock_irqsave _raw_spin_lock_irq _raw_spin_lock_bh _raw_spin_trylock _raw_spin_trylock_bh"
sites() { # [pattern]: the call sites of the lock functions
	for f in $lock_functions; do
		sed -n "/^function $f:/,/^[a-z]/p" $state | grep "^ *site ${1:-}"
	done
}
committed_to() { # variant: every lock function committed to its variant
	for f in $lock_functions; do
		grep -q "^function $f: committed to $f\.multiverse\.$1, entry patched" $state || {
			grep "^function $f:" $state
			return 1
		}
	done
}
all_patched() { # pattern min: at least min sites, all patched
	[ "$(sites "$1" | wc -l)" -ge "$2" ] && [ "$(sites "$1" | grep -vc ' patched')" = 0 ]
}
no_sites() { [ "$(sites "$1" | wc -l)" = 0 ]; }
one_stress_line() { [ "$(grep -c '^ok - stress:' /tmp/module.log)" = 1 ]; }
pv_ops="pv_ops.irq.irq_disable pv_ops.irq.irq_enable"
pv_sites() { # [pattern]: the call sites through the PV-ops switches
	for v in $pv_ops; do
		sed -n "/^switch $v:/,/^[a-z]/p" $state | grep "^ *site ${1:-}"
	done
}
pv_bound() { # to: both switches committed to pv_native_irq_*, or "generic"
	for v in $pv_ops; do
		line=$(grep "^switch $v:" $state)
		case $1 in
		native) echo "$line" | grep -q "committed to pv_native_${v#pv_ops.irq.}$" ;;
		*) echo "$line" | grep -q ", not committed$" ;;
		esac || { echo "$line"; return 1; }
	done
}
pv_patched() { # pattern min: at least min sites, all patched
	[ "$(pv_sites "$1" | wc -l)" -ge "$2" ] && [ "$(pv_sites "$1" | grep -vc ' patched')" = 0 ]
}
mode() { # smp: the switch holds 1 or 0
	sed -n "/^switch spinlock_smp:/p" $state | grep -q "value $1"
}

if [ "$what" = bench ]; then
	log | grep "^spinlock: "
	module bench=1
	[ -e $state ] && echo "sites: $(sites | wc -l) call sites of $(echo $lock_functions | wc -w) lock functions, $(sites '.*mvspin' | wc -l) of them in mvspin"
	[ -e $state ] && echo "pv sites: $(pv_sites | wc -l) call sites through the 2 PV-ops switches, $(pv_sites '.*mvspin' | wc -l) of them in mvspin"
	unload
	exit 0
fi

for f in $state mvspin/$kernel/mvspin.ko; do
	[ -e $f ] || { echo "not ok - $f is missing"; echo "linux case study ($cpus CPUs): 0 passed, 1 failed"; exit 1; }
done
if [ "$cpus" = 1 ]; then
	check "boot: one-CPU mode" sh -c "dmesg | grep -q 'spinlock: one-CPU mode with 1 CPU(s) online'"
	check "state: spinlock_smp is 0" mode 0
	check "state: the lock functions are committed to their one-CPU variants" committed_to 0
else
	check "boot: SMP mode from the possible CPUs" sh -c "dmesg | grep -q 'spinlock: SMP mode with 1 CPU(s) online'"
	check "state: spinlock_smp is 1" mode 1
	check "state: the lock functions are committed to their SMP variants" committed_to 1
fi
check "state: vmlinux has call sites of the lock functions, all patched" all_patched "" 1500
check "paravirt: the boot commit bound the interrupt operations" \
	sh -c "dmesg | grep -q 'paravirt: interrupt operations bound to pv_native_irq_disable and pv_native_irq_enable'"
module checks=1
check "state: mvspin's call sites were patched when it was loaded" all_patched ".*mvspin" 4
unload
check "state: mvspin's call sites are forgotten once it is unloaded" no_sites ".*mvspin"
module stress_ms=1000
check "stress: one result" one_stress_line
unload

# PV-ops: bound at boot, from start_kernel()
check "paravirt: both switches committed to the native functions" pv_bound native
check "paravirt: vmlinux's calls through them, all patched" pv_patched "" 400
module checks=1
check "paravirt: mvspin's calls through them patched when it was loaded" pv_patched ".*mvspin" 2
unload
control=/sys/kernel/debug/multiverse/control
check "paravirt: revert_refs through debugfs" sh -c "echo revert_refs pv_ops.irq.irq_disable >$control && echo revert_refs pv_ops.irq.irq_enable >$control"
check "paravirt: reverted" pv_bound generic
module checks=1
unload
check "paravirt: commit_refs through debugfs" sh -c "echo commit_refs pv_ops.irq.irq_disable >$control && echo commit_refs pv_ops.irq.irq_enable >$control"
check "paravirt: committed again" pv_bound native
check "paravirt: all sites patched again" pv_patched "" 400

if [ "$cpus" -gt 1 ]; then
	online=/sys/devices/system/cpu/cpu1/online
	dmesg -c >/dev/null
	check "hotplug: CPU 1 goes offline" sh -c "echo 0 >$online"
	check "hotplug: one-CPU mode once it is gone" sh -c "dmesg | grep -q 'spinlock: one-CPU mode with 1 CPU(s) online'"
	check "hotplug: spinlock_smp is 0" mode 0
	check "hotplug: the lock functions are committed to their one-CPU variants" committed_to 0
	module checks=1
	check "hotplug: mvspin's call sites were patched when it was loaded" all_patched ".*mvspin" 4
	unload
	check "hotplug: CPU 1 comes back" sh -c "echo 1 >$online"
	check "hotplug: SMP mode before it runs" sh -c "dmesg | grep -q 'spinlock: SMP mode with 1 CPU(s) online'"
	check "hotplug: spinlock_smp is 1" mode 1
	check "hotplug: the lock functions are committed to their SMP variants" committed_to 1
	module checks=1
	unload
	# threads on both CPUs count under one lock while CPU 1 goes and comes
	dmesg -c >/dev/null
	# (the threads count until told to stop, 2 minutes at most)
	insmod mvspin/$kernel/mvspin.ko stress_ms=120000 &
	pid=$!
	sleep 1
	flips=0 during=0
	for i in 1 2 3 4 5 6 7 8; do
		echo 0 >$online && echo 1 >$online && flips=$((flips + 1))
		grep -qx coming /sys/module/mvspin/initstate && during=$((during + 1))
	done
	check "hotplug: the threads counted throughout the flips ($during of 8)" [ $during = 8 ]
	echo 1 >/sys/module/mvspin/parameters/stress_stop
	wait $pid || not_ok "insmod mvspin.ko stress_ms=120000"
	unload
	log | grep -E "^(not )?ok - |^stress: " >/tmp/module.log
	cat /tmp/module.log
	passed=$((passed + $(grep -c "^ok - " /tmp/module.log)))
	failed=$((failed + $(grep -c "^not ok - " /tmp/module.log)))
	check "hotplug: one stress result" one_stress_line
	check "hotplug: $flips of 8 flips while threads counted, each changing the mode twice" \
		sh -c "[ $flips = 8 ] && [ \$(dmesg | grep -c 'spinlock: one-CPU mode') -ge 8 ]"
	check "hotplug: SMP mode at the end" mode 1
	check "hotplug: the lock functions are committed to their SMP variants at the end" committed_to 1
fi
echo "linux case study ($cpus CPUs): $passed passed, $failed failed"
