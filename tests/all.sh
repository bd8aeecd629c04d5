#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make test: every suite, one after another, and a summary.
#
#   tests/all.sh [--clang] [--cross]
#
#   tests/run (GCC), tests/run --cc=clang (--clang), and with --cross the
#   kernel case studies' checks (case-studies/linux/run.sh --quick),
#   tests/run --arch=aarch64, the same with --cc=clang (--clang), and the
#   kernel suite (tests/kernel/check.sh) in the case studies' kernel,
#   which --quick builds with the suite's functions
#
# Every suite runs even if another fails; the last lines name each
# suite's result and minutes, and the exit status is nonzero if any
# failed.  The suites run one at a time: side by side, on this 2-vCPU
# VM, each ran 1.5 to 2 times slower, which saved no time overall, and
# the emulated AArch64 guest became slow enough for live tests to time out.
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
	# make test stops too
	case $rc in 129|130|143) exit $rc ;; esac
	return $rc
}

status=0
suite host tests/run || status=1
[ -z "$clang" ] || suite host-clang tests/run --cc=clang || status=1
if [ -n "$cross" ]; then
	suite linux-case-study case-studies/linux/run.sh --quick || status=1
	if tests/qemu/setup.sh; then
		suite aarch64 tests/run --arch=aarch64 || status=1
		[ -z "$clang" ] || suite aarch64-clang tests/run --arch=aarch64 --cc=clang || status=1
	else
		status=1
		echo "aarch64:           not run: tests/qemu/setup.sh failed" >"$summary.aarch64"
	fi
	suite kernel tests/kernel/check.sh build/case-studies/linux/multiverse || status=1
fi

echo
echo "=== make test ==="
for n in host host-clang linux-case-study aarch64 aarch64-clang kernel; do
	[ -e "$summary.$n" ] && cat "$summary.$n" && rm -f "$summary.$n"
done
exit $status
