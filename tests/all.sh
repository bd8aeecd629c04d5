#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make test: every suite, and a summary.
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
# failed.  The two host suites run side by side: each builds and runs
# one program at a time, so each keeps one CPU of this 2-vCPU VM busy
# (the e2e programs took 127 s under GCC and 130 s under Clang alone,
# 128 s both at once; the whole suites 858 s and 363 s one after the
# other, 1,062 s side by side).  Clang's output follows GCC's.  The
# others run one at a time: their kernel builds and AArch64 guests use
# both CPUs, and beside another suite the emulated guest became slow
# enough for live tests to time out.
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

summary=build/tests-summary
mkdir -p build && rm -f "$summary".*
# A suite's line for the summary: its log's last line, which counts what
# passed and failed, and its time.
summarize() { # name rc start
	printf '%-18s %s (%d min)%s\n' "$1:" "$(tail -n1 "$summary.$1.log")" \
		$(((SECONDS - $3 + 30) / 60)) \
		"$([ $2 = 0 ] || echo ", exit status $2")" >"$summary.$1"
	rm -f "$summary.$1.log"
}

# Runs one suite, its output to stdout.
suite() { # name command...
	local name=$1 rc start=$SECONDS; shift
	"$@" 2>&1 | tee "$summary.$name.log"
	rc=$?
	summarize "$name" $rc $start
	# interrupted (tests/qemu/run.sh, for one, exits 130 on SIGINT):
	# make test stops too
	case $rc in 129|130|143) exit $rc ;; esac
	return $rc
}

status=0
# Clang's host suite runs beside GCC's, its output kept for after it.  A
# background command ignores Ctrl-C, so leaving early, or on Ctrl-C,
# stops it.
clang_pid=
stop_clang() { [ -z "$clang_pid" ] || kill "$clang_pid" 2>/dev/null; clang_pid=; }
if [ -n "$clang" ]; then
	clang_start=$SECONDS
	tests/run --cc=clang >"$summary.host-clang.log" 2>&1 &
	clang_pid=$!
	trap stop_clang EXIT
	trap 'stop_clang; exit 130' INT
	trap 'stop_clang; exit 143' TERM
fi
suite host tests/run || status=1
if [ -n "$clang" ]; then
	wait "$clang_pid"
	rc=$?
	clang_pid=
	cat "$summary.host-clang.log"
	summarize host-clang $rc $clang_start
	[ $rc = 0 ] || status=1
fi
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
