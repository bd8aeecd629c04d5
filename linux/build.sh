#!/bin/sh
# SPDX-License-Identifier: MIT
# make kernel: a multiversed Linux 6.1 for qemu, from Debian's
# linux-source-6.1, in build/kernel/:
#   src/   the source, unpacked from /usr/src/linux-source-6.1.tar.xz and
#          prepared by linux/prepare.sh (the patch series, the runtime,
#          the plugin);
#   obj/   the O= build folder: obj/arch/x86/boot/bzImage, and what
#          external modules build against (make -C build/kernel/obj M=DIR).
# The configuration is tinyconfig with linux/multiverse.config.  An
# existing tree is prepared again and built incrementally.
set -e
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$repo/build/kernel
tarball=/usr/src/linux-source-6.1.tar.xz
kmake="make -C $out/src O=$out/obj CC=gcc-12 HOSTCC=gcc-12 HOSTCXX=g++-12"

[ -f "$tarball" ] || {
	echo "make kernel: no $tarball; install linux-source-6.1 (./make.sh kernel does)" >&2
	exit 1
}
# A tree prepared with another version of the patch series is unpacked
# again: the series goes onto the pristine source.
series=$(cat "$repo"/linux/patches/*.patch | cksum | cut -d' ' -f1)
if [ -f "$out/src/Makefile" ] && [ "$(cat "$out/src/.multiverse-series" 2>/dev/null)" != "$series" ]; then
	echo "make kernel: linux/patches/ changed since build/kernel/src was prepared: unpacking it again"
	rm -rf "$out/src"
fi
if [ ! -f "$out/src/Makefile" ]; then
	rm -rf "$out/src" "$out/unpack"
	mkdir -p "$out/unpack"
	tar -xf "$tarball" -C "$out/unpack"
	mv "$out/unpack/linux-source-6.1" "$out/src"
	rmdir "$out/unpack"
fi
"$repo/linux/prepare.sh" "$out/src"
echo "$series" >"$out/src/.multiverse-series"

# Kbuild does not rebuild objects when a GCC plugin changes: a build
# made with another version of ours starts afresh.
plugin=$(cat "$repo"/gcc/*.cc "$repo"/gcc/*.h "$repo"/gcc/arch/*.cc "$repo"/common/*.h |
	 cksum | cut -d' ' -f1)
if [ -d "$out/obj" ] && [ "$(cat "$out/obj/.multiverse-plugin" 2>/dev/null)" != "$plugin" ]; then
	echo "make kernel: the plugin changed since build/kernel/obj was built: building afresh"
	rm -rf "$out/obj"
fi
mkdir -p "$out/obj"
echo "$plugin" >"$out/obj/.multiverse-plugin"
if [ ! -f "$out/obj/.config" ] || [ "$repo/linux/multiverse.config" -nt "$out/obj/.config" ]; then
	$kmake -s tinyconfig
	"$out/src/scripts/kconfig/merge_config.sh" -m -O "$out/obj" \
		"$out/obj/.config" "$repo/linux/multiverse.config" >/dev/null
	$kmake -s olddefconfig
	# every option the fragment sets must have survived olddefconfig
	grep "^CONFIG_.*=" "$repo/linux/multiverse.config" | while read -r line; do
		grep -qx "$line" "$out/obj/.config" || {
			echo "make kernel: linux/multiverse.config sets $line, which" \
			     "build/kernel/obj/.config does not have (CONFIG_MULTIVERSE" \
			     "needs CONFIG_GCC_PLUGINS, and so gcc-12-plugin-dev)" >&2
			rm -f "$out/obj/.config"
			exit 1
		}
	done
fi
start=$(date +%s)
$kmake -j"$(nproc)" bzImage modules
echo "make kernel: build/kernel/obj/arch/x86/boot/bzImage, built in $(($(date +%s) - start)) s"
