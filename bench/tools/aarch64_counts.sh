#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per iteration of the micro-benchmarks on AArch64, counted by
# callgrind (valgrind's arm64 build from Debian) inside the arm64 guest the
# test suite boots (tests/qemu/: qemu-system-aarch64, a Debian arm64
# kernel).  The same columns as tools/callgrind_counts.py, into CSV.
# Cycles are not measured: under emulation they say nothing about a real
# core.
#
#   tools/aarch64_counts.sh CSV [ITERS]
#
# Sets up what it needs: the cross toolchain and the guest
# (tests/qemu/setup.sh), the AArch64 build of multiverse (make aarch64),
# the benchmark programs (make ARCH=aarch64), and valgrind's arm64 files
# (apt-get download valgrind:arm64, extracted, never installed).
set -euo pipefail
cd "$(dirname "$0")/.."
csv=$1
: >"$csv"   # callgrind_counts.py appends
iters=${2:-1000}
O=build/aarch64
guest=$O/guest

../tests/qemu/setup.sh
make -s -C .. aarch64
make -s ARCH=aarch64 $O/bin/spinlock-0 $O/bin/pvops-0 $O/bin/tailcall-0 $O/bin/probe-0 \
	$O/bin/redirect-0 $O/bin/libredirect-loaded.so

# valgrind.bin and the callgrind tool: valgrind's launcher is a perl
# script, and the guest has no perl.
if [ ! -x "$guest/valgrind/valgrind.bin" ]; then
	mkdir -p "$O/debs" "$guest/valgrind/lib"
	deb=$(find "$O/debs" -name 'valgrind_*_arm64.deb' | head -n 1)
	if [ -z "$deb" ]; then
		(cd "$O/debs" && apt-get download -q valgrind:arm64 >/dev/null 2>&1) ||
			{ echo "apt-get download valgrind:arm64 failed" >&2; exit 1; }
		deb=$(find "$O/debs" -name 'valgrind_*_arm64.deb' | head -n 1)
	fi
	tmp=$(mktemp -d)
	dpkg-deb -x "$deb" "$tmp"
	cp "$tmp"/usr/libexec/valgrind/{callgrind-arm64-linux,vgpreload_core-arm64-linux.so,default.supp} \
		"$guest/valgrind/lib/"
	cp "$tmp/usr/bin/valgrind.bin" "$guest/valgrind/"
	rm -rf "$tmp"
fi
# redirect-0 finds its two shared objects next to it ($ORIGIN).
cp $O/bin/spinlock-0 $O/bin/pvops-0 $O/bin/tailcall-0 $O/bin/probe-0 $O/bin/redirect-0 \
	$O/bin/libredirect-linked.so $O/bin/libredirect-loaded.so \
	../build/aarch64/libmultiverse.so.0 "$guest/"

# One guest boot per program.  The guest prints, for every dump, its
# file, the client request that made it and its totals (grep -H), which
# tools/callgrind_counts.py --lines turns into rows.
dir=$(cd "$guest" && pwd -P)
for b in spinlock pvops tailcall probe redirect; do
	../tests/qemu/run.sh "$guest" sh -c "
		export VALGRIND_LIB=$dir/valgrind/lib LD_LIBRARY_PATH=$dir
		$dir/valgrind/valgrind.bin --tool=callgrind --smc-check=all \
			--callgrind-out-file=/tmp/cg.out ./$b-0 --count $iters \
			>/tmp/out 2>/tmp/err || { cat /tmp/out /tmp/err; exit 1; }
		grep -H -e '^desc: Trigger' -e '^totals:' /tmp/cg.out.*" >"$O/$b.lines" ||
		{ echo "callgrind of $b in the arm64 guest failed:" >&2; tail -n 30 "$O/$b.lines" >&2; exit 1; }
	python3 tools/callgrind_counts.py "$b-0" --iters "$iters" --lines "$O/$b.lines" --csv "$csv"
done
