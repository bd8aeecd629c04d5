#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions counted by callgrind (valgrind's arm64 build from Debian)
# inside the arm64 guest the test suite boots (tests/qemu/:
# qemu-system-aarch64, a Debian arm64 kernel), into CSV.  Cycles are not
# measured: under emulation they say nothing about a real core.
#
#   tools/aarch64_counts.sh CSV [ITERS]
#       per iteration of the micro-benchmarks: the same columns as
#       tools/callgrind_counts.py
#   tools/aarch64_counts.sh --latency CSV [SITES]
#       per call site of start-up and commit, on the generated program
#       of SITES (10,000) call sites built by aarch64-linux-gnu-multiverse-gcc
#       and, where clang-19 is installed, aarch64-linux-gnu-multiverse-clang:
#       the same columns as tools/latency_counts.py
#
# Sets up what it needs: the cross toolchain and the guest
# (tests/qemu/setup.sh), the AArch64 build of multiverse (make aarch64),
# the benchmark programs (make ARCH=aarch64), and valgrind's arm64 files
# (tests/qemu/valgrind.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=micro
if [ "${1:-}" = --latency ]; then
	mode=latency
	shift
fi
csv=$1
: >"$csv"   # the tools append
O=build/aarch64
guest=$O/guest

../tests/qemu/setup.sh
make -s -C .. aarch64

../tests/qemu/valgrind.sh "$guest"
cp ../build/aarch64/libmultiverse.so.0 "$guest/"
dir=$(cd "$guest" && pwd -P)

# callgrind OUT PROGRAM ARGS...: one guest boot, PROGRAM (in the guest
# directory) run under callgrind.  The guest prints, for every dump, its
# file, the client request that made it and its totals (grep -H), into
# OUT, which the tools' --lines option turns into rows.
callgrind() {
	local out=$1
	shift
	../tests/qemu/run.sh "$guest" sh -c "
		export VALGRIND_LIB=$dir/valgrind/lib LD_LIBRARY_PATH=$dir
		$dir/valgrind/valgrind.bin --tool=callgrind --smc-check=all \
			--callgrind-out-file=/tmp/cg.out ./$* \
			>/tmp/out 2>/tmp/err || { cat /tmp/out /tmp/err; exit 1; }
		grep -H -e '^desc: Trigger' -e '^totals:' /tmp/cg.out.*" >"$out" ||
		{ echo "callgrind of $1 in the arm64 guest failed:" >&2; tail -n 30 "$out" >&2; exit 1; }
}

micro() {
	local iters=${1:-1000} b
	make -s ARCH=aarch64 $O/bin/spinlock-0 $O/bin/pvops-0 $O/bin/tailcall-0 $O/bin/probe-0 \
		$O/bin/redirect-0 $O/bin/libredirect-loaded.so
	# redirect-0 finds its two shared objects next to it ($ORIGIN).
	cp $O/bin/spinlock-0 $O/bin/pvops-0 $O/bin/tailcall-0 $O/bin/probe-0 $O/bin/redirect-0 \
		$O/bin/libredirect-linked.so $O/bin/libredirect-loaded.so "$guest/"
	for b in spinlock pvops tailcall probe redirect; do
		callgrind "$O/$b.lines" "$b-0" --count "$iters"
		python3 tools/callgrind_counts.py "$b-0" --iters "$iters" --lines "$O/$b.lines" --csv "$csv"
	done
}

latency() {
	local sites=${1:-10000} exe c compilers=aarch64-gcc
	if command -v clang-19 >/dev/null && [ -x ../build/aarch64-linux-gnu-multiverse-clang ]; then
		compilers="$compilers aarch64-clang"
	else
		echo "no clang-19 or AArch64 multiverse-clang: GCC's counts only" >&2
	fi
	for c in $compilers; do
		exe=$(python3 tools/latency_counts.py --compilers "$c" --sites "$sites" --build-only)
		cp "$exe" "$guest/latency"
		callgrind "$O/latency-$c.lines" latency --count
		# Out of the guest directory, which every boot copies into the guest.
		rm -f "$guest/latency"
		python3 tools/latency_counts.py --compilers "$c" --sites "$sites" \
			--lines "$O/latency-$c.lines" --csv "$csv"
	done
}

"$mode" "${2:-}"
