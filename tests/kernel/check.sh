#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel suite, from the host: builds the test modules against a
# multiversed kernel's build folder, as any external module builds, and
# runs tests/kernel/suite.sh in that kernel on 1 and on 2 CPUs.  Prints
# each check and a last line "kernel: N passed, N failed"; exits nonzero
# if anything failed.
#
#   tests/kernel/check.sh [KERNEL-OBJ]
#
# KERNEL-OBJ is the kernel's O= folder, built with CONFIG_MULTIVERSE_SELFTEST:
# build/kernel/obj (make kernel) by default.  make test passes the kernel
# case study's, which it builds anyway (case-studies/linux/run.sh --quick).
set -e
repo=$(cd "$(dirname "$0")/../.." && pwd)
obj=$(realpath -m "${1:-$repo/build/kernel/obj}")
grep -qx CONFIG_MULTIVERSE_SELFTEST=y "$obj/.config" 2>/dev/null || {
	echo "kernel: 0 passed, 1 failed ($obj holds no kernel built with CONFIG_MULTIVERSE_SELFTEST:" \
	     "make kernel builds one, and so does" \
	     "case-studies/linux/run.sh --quick, in build/case-studies/linux/multiverse)"
	exit 1
}
work=$repo/build/kernel/tests
rm -rf "$work"
mkdir -p "$work"
cp "$repo/tests/kernel/suite.sh" "$repo/tests/kernel/checks.sh" "$repo/tests/kernel/check.h" "$work/"
for m in mvtest mvlate mvbadver; do
	cp -R "$repo/tests/kernel/$m" "$work/"
	make -s -C "$obj" M="$work/$m" CC=gcc-12 HOSTCC=gcc-12 \
		HOSTCXX=g++-12 modules >"$work/build.log" 2>&1 || {
		cat "$work/build.log"
		echo "kernel: 0 passed, 1 failed (the test module $m did not build)"
		exit 1
	}
done
. "$repo/tests/kernel/tally.sh"
passed=0 failed=0
# Outside $work, which each boot copies into its guest.
logs=$repo/build/kernel/suite
rm -rf "$logs" && mkdir -p "$logs"
boot() { # cpus
	status=0
	MV_KERNEL_IMAGE=$obj/arch/x86/boot/bzImage MV_KERNEL_CPUS=$1 "$repo/tests/kernel/run.sh" "$work" ./suite.sh \
		>"$logs/$1.log" 2>&1 || status=$?
	echo $status >"$logs/$1.status"
}
both_boots boot
for cpus in 1 2; do
	tally kernel $cpus "$(cat "$logs/$cpus.status" 2>/dev/null || echo 1)" "$logs/$cpus.log"
done
echo "kernel: $passed passed, $failed failed"
[ "$failed" = 0 ]
