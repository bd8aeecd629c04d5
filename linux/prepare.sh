#!/bin/sh
# SPDX-License-Identifier: MIT
# Puts Multiverse into a Linux 6.1 source tree:
#   - applies the patch series linux/patches/ (once): the CONFIG_MULTIVERSE
#     option, the plugin in the kernel's GCC-plugin build, the descriptor
#     sections in vmlinux's linker script and in modules, the init hook;
#   - copies the runtime (the portable core of runtime/, runtime/arch/,
#     runtime/platform/linux-kernel/ and common/'s headers) to
#     lib/multiverse/, the GCC plugin (gcc/ and common/) to
#     scripts/gcc-plugins/multiverse/, include/multiverse.h to
#     include/linux/multiverse.h (the one API header, for both), and
#     the kernel suite's functions in vmlinux (tests/kernel/selftest.c,
#     CONFIG_MULTIVERSE_SELFTEST) to lib/multiverse/selftest.c.
# Copies are refreshed on every run, and only files that changed are
# written, so that Kbuild rebuilds only what it must.
#
#   linux/prepare.sh KERNEL-SOURCE-TREE
set -e
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# = 1 ] && [ -f "$1/Makefile" ] || {
	echo "usage: linux/prepare.sh KERNEL-SOURCE-TREE" >&2
	exit 2
}
tree=$(cd "$1" && pwd)
version=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p' "$tree/Makefile" | paste -sd.)
[ "$version" = 6.1 ] || {
	echo "linux/prepare.sh: $tree is Linux $version; the patch series is for 6.1" >&2
	exit 1
}

command -v patch >/dev/null || {
	echo "linux/prepare.sh: no patch program: install patch" >&2
	exit 1
}
# Each patch is applied once: a patch that reverses cleanly is in.  One
# that does neither (an older version of the series, a failed run) is
# not forced in halfway: the tree must be made afresh.
for p in "$repo"/linux/patches/*.patch; do
	if patch -d "$tree" -p1 -R -s -f --dry-run <"$p" >/dev/null 2>&1; then
		continue
	fi
	if ! patch -d "$tree" -p1 -s -f --dry-run <"$p" >/dev/null 2>&1; then
		echo "linux/prepare.sh: $(basename "$p") neither applies to $tree nor is" \
		     "applied (an older version of the series?); start from a fresh tree" \
		     "(for make kernel: rm -rf build/kernel/src)" >&2
		exit 1
	fi
	patch -d "$tree" -p1 -s -f --no-backup-if-mismatch <"$p"
done

put() { # source destination
	mkdir -p "$(dirname "$2")"
	cmp -s "$1" "$2" || cp "$1" "$2"
}

rt=$tree/lib/multiverse
for f in "$repo"/runtime/*.[ch] "$repo"/runtime/arch/*.[ch]; do
	put "$f" "$rt/${f#"$repo"/runtime/}"
done
for f in "$repo"/runtime/platform/linux-kernel/*.[ch]; do
	put "$f" "$rt/platform/linux-kernel/$(basename "$f")"
done
put "$repo/runtime/platform/linux-kernel/Makefile" "$rt/Makefile"
put "$repo/tests/kernel/selftest.c" "$rt/selftest.c"
put "$repo/include/multiverse.h" "$tree/include/linux/multiverse.h"

plugin=$tree/scripts/gcc-plugins/multiverse
for f in "$repo"/gcc/*.cc "$repo"/gcc/*.h "$repo"/gcc/arch/*.cc; do
	put "$f" "$plugin/${f#"$repo"/gcc/}"
done
for f in "$repo"/common/*.h; do
	put "$f" "$plugin/common/$(basename "$f")"
	put "$f" "$rt/common/$(basename "$f")"
done
