#!/bin/bash
# SPDX-License-Identifier: MIT
# valgrind.sh - callgrind for the arm64 guest of run.sh.
#
# Usage:  tests/qemu/valgrind.sh DIR
#
# Puts valgrind.bin and its callgrind tool into DIR/valgrind/ (lib/ holds
# the tool; run it in the guest with VALGRIND_LIB=DIR/valgrind/lib).
# valgrind's launcher is a perl script, and the guest has no perl.  The
# files come from Debian's valgrind:arm64 (apt-get download, extracted,
# never installed), kept in the cache directory's debs/.  Silent and quick
# when DIR/valgrind is complete.
#
# Environment:
#   MV_QEMU_CACHE    cache directory (default: <repo>/build/qemu)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MV_QEMU_CACHE:-$here/../../build/qemu}
[ $# = 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
out=$1/valgrind
[ -x "$out/valgrind.bin" ] && [ -f "$out/lib/callgrind-arm64-linux" ] && exit 0

mkdir -p "$cache/debs" "$out/lib"
deb=$(find "$cache/debs" -name 'valgrind_*_arm64.deb' | head -n 1)
if [ -z "$deb" ]; then
	(cd "$cache/debs" && apt-get download -q valgrind:arm64 >/dev/null 2>&1) ||
		{ echo "valgrind.sh: apt-get download valgrind:arm64 failed" >&2; exit 1; }
	deb=$(find "$cache/debs" -name 'valgrind_*_arm64.deb' | head -n 1)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
cp "$tmp"/usr/libexec/valgrind/{callgrind-arm64-linux,vgpreload_core-arm64-linux.so,default.supp} \
	"$out/lib/"
cp "$tmp/usr/bin/valgrind.bin" "$out/"
