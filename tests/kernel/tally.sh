# SPDX-License-Identifier: MIT
# Sourced by the host scripts that run a suite in guests of 1 and 2 CPUs
# (tests/kernel/check.sh, case-studies/linux/run.sh).
#
#   tally NAME CPUS STATUS LOG
#
# shows LOG with each line prefixed by "[CPUS CPU] " and adds the counts
# of its summary line, "NAME (CPUS CPUs): N passed, N failed", to $passed
# and $failed.  A guest that stopped without that line (or had another
# number of CPUs), or whose command failed with nothing failing, counts
# as one failure.

# both_boots FN: FN 1 and FN 2, which boot the 1-CPU and the 2-CPU
# guest: side by side where the host has two CPUs (qemu emulates on one
# each), in turn where it has one.
both_boots() {
	if [ "$(nproc)" -ge 2 ]; then
		"$1" 1 & "$1" 2 & wait
	else
		"$1" 1; "$1" 2
	fi
}

tally() {
	local name=$1 cpus=$2 status=$3 log=$4 line p f
	sed "s/^/[$cpus CPU] /" "$log"
	line=$(grep -E "^$name \($cpus CPUs\): [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "[$cpus CPU] the guest stopped early (status $status), or had not $cpus CPUs"
		failed=$((failed + 1))
		return
	fi
	p=$(echo "$line" | sed 's/.*: \([0-9]*\) passed.*/\1/')
	f=$(echo "$line" | sed 's/.* \([0-9]*\) failed.*/\1/')
	passed=$((passed + p))
	failed=$((failed + f + (status != 0 && f == 0)))
}
