#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make test: every suite, in two lanes that run side by side.
#
#   tests/all.sh [--clang] [--cross]
#
#   host lane   tests/run (GCC), tests/run --cc=clang (--clang), and with
#               --cross the kernel case studies' checks
#               (case-studies/linux/run.sh --quick)
#   cross lane  (--cross) tests/run --arch=aarch64, the same with
#               --cc=clang (--clang), and the multiversed kernel's suite
#               (tests/kernel/check.sh)
#
# Why two lanes: each suite does one thing at a time.  tests/run builds
# and runs one program after another, and the AArch64 guest is a
# single-threaded emulator (tests/qemu/run.sh says why).  One suite after
# another left one of the machine's two cores idle for most of the run.
# The lanes are balanced by their time here.  Neither writes what the
# other reads: the host suites work in build/ and temporary folders, the
# cross ones in build/aarch64/ and build/kernel/, the case study in
# build/case-studies/linux/; the kernel guests' base initramfs, which
# both lanes boot, tests/kernel/run.sh replaces in one rename.  Every
# suite bounds its waits in time
# rather than expecting a speed, so a loaded machine slows them only.
#
# The host lane prints as it goes; the cross lane writes
# build/tests-cross.log, printed whole when both are done.  Every suite
# runs even if another fails; the last lines name each suite's result,
# and the exit status is nonzero if any failed.
set -u
cd "$(dirname "$0")/.."
clang= cross=
for a; do
	case $a in
	--clang) clang=1 ;;
	--cross) cross=1 ;;
	*) echo "usage: tests/all.sh [--clang] [--cross]" >&2; exit 2 ;;
	esac
done
set -o pipefail

# Runs one suite, its output to stdout, and keeps its last line, which
# counts what passed and failed, and its time, for the summary.
summary=build/tests-summary
mkdir -p build && rm -f "$summary".*
suite() { # name command...
	local name=$1 rc start=$SECONDS; shift
	"$@" 2>&1 | tee "$summary.$name.log"
	rc=$?
	printf '%-18s %s (%d min)%s\n' "$name:" "$(tail -n1 "$summary.$name.log")" \
		$(((SECONDS - start + 30) / 60)) \
		"$([ $rc = 0 ] || echo ", exit status $rc")" >"$summary.$name"
	rm -f "$summary.$name.log"
	# interrupted (tests/qemu/run.sh, for one, exits 130 on SIGINT):
	# the lane stops too
	case $rc in 129|130|143) exit $rc ;; esac
	return $rc
}

cross_lane() {
	local s=0
	if [ -z "$no_guest" ]; then
		suite aarch64 tests/run --arch=aarch64 || s=1
		[ -z "$clang" ] || suite aarch64-clang tests/run --arch=aarch64 --cc=clang || s=1
	fi
	suite kernel tests/kernel/check.sh || s=1
	return $s
}

host_lane() {
	local s=0
	suite host tests/run || s=1
	[ -z "$clang" ] || suite host-clang tests/run --cc=clang || s=1
	[ -z "$cross" ] || suite linux-case-study case-studies/linux/run.sh --quick || s=1
	return $s
}

# The cross lane runs in a process group of its own, which Ctrl-C does not
# reach: this script ends it (SIGTERM, which tests/qemu/ passes on to
# qemu) whenever it ends early, so that no lane outlives make test.
cross_pid=
stop_cross() { [ -z "$cross_pid" ] || kill -TERM -- -"$cross_pid" 2>/dev/null; }
trap stop_cross EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

status=0 no_guest=
if [ -n "$cross" ]; then
	# Once, before the lanes: it may install packages and fetch the
	# arm64 kernel, which the cross lane's guests boot.
	if ! tests/qemu/setup.sh; then
		status=1 no_guest=1
		echo "aarch64:           not run: tests/qemu/setup.sh failed" >"$summary.aarch64"
	fi
	log=build/tests-cross.log
	echo "tests/all.sh: the AArch64 and kernel suites run beside this one: tail -f $log"
	set -m
	cross_lane >"$log" 2>&1 &
	cross_pid=$!
	set +m
fi
host_lane || status=1
if [ -n "$cross" ]; then
	kill -0 $cross_pid 2>/dev/null &&
		echo "tests/all.sh: waiting for the cross lane ($log)"
	wait $cross_pid || status=1
	cross_pid=
	echo
	echo "=== the cross lane ($log) ==="
	cat "$log"
fi

echo
echo "=== make test ==="
for n in host host-clang linux-case-study aarch64 aarch64-clang kernel; do
	[ -e "$summary.$n" ] && cat "$summary.$n" && rm -f "$summary.$n"
done
exit $status
