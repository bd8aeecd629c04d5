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
#
#   linux/build.sh [--src DIR] [--obj DIR] [--patch FILE]... [--config FILE]...
#
# The options build other kernels the same way (case-studies/linux/):
# --patch applies FILE after the series, --config merges FILE after
# linux/multiverse.config (a later fragment wins), and several obj
# folders can share one src.
set -e
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$repo/build/kernel
src=$out/src obj=$out/obj patches="" configs=$repo/linux/multiverse.config
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$(realpath -m "$2") ;;
	--obj) obj=$(realpath -m "$2") ;;
	--patch) patches="$patches $(realpath "$2")" ;;
	--config) configs="$configs $(realpath "$2")" ;;
	*) echo "usage: linux/build.sh [--src DIR] [--obj DIR] [--patch FILE]... [--config FILE]..." >&2
	   exit 2 ;;
	esac
	shift 2
done
tarball=/usr/src/linux-source-6.1.tar.xz
kmake="make -C $src O=$obj CC=gcc-12 HOSTCC=gcc-12 HOSTCXX=g++-12"

[ -f "$tarball" ] || {
	echo "make kernel: no $tarball; install linux-source-6.1 (./make.sh kernel does)" >&2
	exit 1
}
# A tree prepared with another version of the patch series is unpacked
# again: the series goes onto the pristine source.
series=$(cat "$repo"/linux/patches/*.patch $patches | cksum | cut -d' ' -f1)
if [ -f "$src/Makefile" ] && [ "$(cat "$src/.multiverse-series" 2>/dev/null)" != "$series" ]; then
	echo "make kernel: the patches changed since $src was prepared: unpacking it again"
	rm -rf "$src"
fi
if [ ! -f "$src/Makefile" ]; then
	rm -rf "$src" "$src.unpack"
	mkdir -p "$src.unpack"
	tar -xf "$tarball" -C "$src.unpack"
	mv "$src.unpack/linux-source-6.1" "$src"
	rmdir "$src.unpack"
	"$repo/linux/prepare.sh" "$src"
	for p in $patches; do
		patch -d "$src" -p1 -s -f --no-backup-if-mismatch <"$p" || {
			echo "make kernel: $p does not apply to $src" >&2
			exit 1
		}
	done
else
	"$repo/linux/prepare.sh" "$src"
fi
echo "$series" >"$src/.multiverse-series"

# Kbuild does not rebuild objects when a GCC plugin changes: a build
# made with another version of ours starts afresh.
plugin=$(cat "$repo"/gcc/*.cc "$repo"/gcc/*.h "$repo"/gcc/arch/*.cc "$repo"/common/*.h |
	 cksum | cut -d' ' -f1)
if [ -d "$obj" ] && [ "$(cat "$obj/.multiverse-plugin" 2>/dev/null)" != "$plugin" ]; then
	echo "make kernel: the plugin changed since $obj was built: building afresh"
	rm -rf "$obj"
fi
mkdir -p "$obj"
echo "$plugin" >"$obj/.multiverse-plugin"
stale=0
[ -f "$obj/.config" ] || stale=1
for c in $configs; do [ "$c" -nt "$obj/.config" ] && stale=1; done
[ "$(cat "$obj/.multiverse-configs" 2>/dev/null)" = "$configs" ] || stale=1
if [ $stale = 1 ]; then
	$kmake -s tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $configs >/dev/null
	$kmake -s olddefconfig
	# every option the fragments set must have survived olddefconfig (the
	# last fragment that sets an option wins)
	cat $configs | sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' |
		sort -u | while read -r opt; do
		want=$(cat $configs | grep -E "^$opt=|^# $opt is not set$" | tail -n 1)
		case $want in
		"# "*) ! grep -q "^$opt=" "$obj/.config" ;;
		*) grep -qx "$want" "$obj/.config" ;;
		esac || {
			echo "make kernel: the configuration sets '$want', which $obj/.config" \
			     "does not have (CONFIG_MULTIVERSE needs CONFIG_GCC_PLUGINS, and" \
			     "so gcc-12-plugin-dev; see make.sh kernel)" >&2
			rm -f "$obj/.config"
			exit 1
		}
	done
	echo "$configs" >"$obj/.multiverse-configs"
fi
start=$(date +%s)
$kmake -j"$(nproc)" bzImage modules
echo "make kernel: $obj/arch/x86/boot/bzImage, built in $(($(date +%s) - start)) s"
