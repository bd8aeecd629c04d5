#!/bin/bash
# SPDX-License-Identifier: MIT
# setup.sh - prepare everything tests/qemu/run.sh needs to run AArch64 test
# programs under qemu-system-aarch64 (TCG) with a real Debian arm64 kernel.
#
# Usage:  tests/qemu/setup.sh
#
# Idempotent and silent when everything is already in place; progress goes to
# stderr only when there is work to do.  Intended for Debian bookworm (amd64)
# and works from a minimal (mmdebstrap --variant=minbase) system when run as
# root: missing host packages are installed with apt-get, the arm64 kernel and
# busybox are fetched with "apt-get download" (never installed).
#
# Produces in the cache directory:
#   vmlinuz          kernel image (from linux-image-<abi>-cloud-arm64)
#   kernel-package   name of the package it came from
#   base.cpio        initramfs: /init (init.c), busybox, aarch64 glibc + libs
#   debs/            the downloaded .deb files
#
# Environment:
#   MV_QEMU_CACHE    cache directory (default: <repo>/build/qemu)
#
# Delete the cache directory to pick up a newer kernel.  base.cpio is rebuilt
# automatically when init.c, this script or the cross libc change.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MV_QEMU_CACHE:-$here/../../build/qemu}

die() { echo "setup.sh: error: $*" >&2; exit 1; }
note() { echo "setup.sh: $*" >&2; }

mkdir -p "$cache" || die "cannot create cache directory $cache"
cache=$(cd "$cache" && pwd)

# run.sh may start this from several test jobs at once
exec 9>"$cache/.lock"
flock 9

export DEBIAN_FRONTEND=noninteractive
export LC_ALL=C

# Host packages (binaries used here and in run.sh, besides what every Debian
# system has: bash, coreutils, dpkg, apt, findutils, mawk, tar, util-linux):
#   qemu-system-arm            qemu-system-aarch64
#   gcc-12-aarch64-linux-gnu   aarch64-linux-gnu-gcc-12 (init + the tests)
#   libc6-dev-arm64-cross      static libc for init; the runtime libs that go
#                              into the guest (libc6-arm64-cross, libgcc-s1-..)
#   cpio                       initramfs archives
host_pkgs=(qemu-system-arm gcc-12-aarch64-linux-gnu libc6-dev-arm64-cross cpio)
cross_lib=/usr/aarch64-linux-gnu/lib

log=$cache/.setup.log
# quiet CMD...: run CMD with its output in $log; show the output if it fails
quiet() {
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        die "command failed: $*"
    fi
}

updated=
apt_update() {  # at most once per run, and only when something is missing
    [ -n "$updated" ] && return 0
    note "apt-get update"
    quiet apt-get update
    updated=1
}

need_root() {
    [ "$(id -u)" = 0 ] || die "$1 (run this script as root once)"
}

# --- host packages ---------------------------------------------------------
missing=()
for p in "${host_pkgs[@]}"; do
    s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$s" = installed ] || missing+=("$p")
done
# "apt-get download pkg:arm64" needs the arm64 package lists
if [ "$(dpkg --print-architecture)" != arm64 ] &&
   ! dpkg --print-foreign-architectures | grep -qx arm64; then
    need_root "the arm64 architecture is not enabled in dpkg"
    note "dpkg --add-architecture arm64"
    dpkg --add-architecture arm64
    apt_update
fi
if [ ${#missing[@]} -gt 0 ]; then
    need_root "missing host packages: ${missing[*]}"
    apt_update
    note "installing ${missing[*]}"
    quiet apt-get install -y --no-install-recommends "${missing[@]}"
fi
for tool in qemu-system-aarch64 aarch64-linux-gnu-gcc-12 cpio flock timeout; do
    command -v "$tool" >/dev/null || die "$tool not found after installing packages"
done

# --- arm64 packages, downloaded only ----------------------------------------
mkdir -p "$cache/debs"
# download PKG: leaves the path of PKG's arm64 .deb in $deb
download() {
    local pkg=$1
    deb=$(find "$cache/debs" -maxdepth 1 -name "${pkg}_*_arm64.deb" | sort | tail -n 1)
    [ -n "$deb" ] && return 0
    note "downloading $pkg:arm64"
    # apt-get download needs current lists; refresh them if it fails once
    if ! (cd "$cache/debs" && apt-get download "$pkg:arm64") >"$log" 2>&1; then
        apt_update
        (cd "$cache/debs" && quiet apt-get download "$pkg:arm64")
    fi
    deb=$(find "$cache/debs" -maxdepth 1 -name "${pkg}_*_arm64.deb" | sort | tail -n 1)
    [ -n "$deb" ] || die "apt-get download $pkg:arm64 produced no .deb"
}
# extract DEB MEMBER DEST: copy one file (a tar pattern) out of a .deb
extract() {
    local tmp
    tmp=$(mktemp -d "$cache/.x.XXXXXX")
    dpkg-deb --fsys-tarfile "$1" | tar -x -C "$tmp" --wildcards "$2" ||
        { rm -rf "$tmp"; die "cannot extract $2 from $1"; }
    # shellcheck disable=SC2086  # $2 is a pattern matching exactly one file
    mv $tmp/$2 "$3.tmp" && mv "$3.tmp" "$3"
    rm -rf "$tmp"
}

if [ ! -f "$cache/vmlinuz" ]; then
    # The meta package depends on the current ABI's image, e.g.
    # linux-image-6.1.0-56-cloud-arm64.  The cloud flavour has the PL011
    # console, virtio and initramfs support built in (no modules needed) and
    # boots faster than the generic arm64 flavour.
    kdeps() { apt-cache depends linux-image-cloud-arm64:arm64 2>/dev/null |
              awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { sub(/:arm64$/, "", $2); print $2; exit }'; }
    kpkg=$(kdeps)
    [ -n "$kpkg" ] || { apt_update; kpkg=$(kdeps); }
    [ -n "$kpkg" ] || die "cannot resolve linux-image-cloud-arm64:arm64 to a kernel package"
    download "$kpkg"
    extract "$deb" './boot/vmlinuz-*' "$cache/vmlinuz"
    echo "$kpkg" >"$cache/kernel-package"
fi

if [ ! -f "$cache/busybox" ]; then
    download busybox-static
    extract "$deb" ./bin/busybox "$cache/busybox"
    chmod 755 "$cache/busybox"
fi

# --- base initramfs ---------------------------------------------------------
# Rebuilt when anything that goes into it changes.
key=$( { cat "$here/init.c" "$here/setup.sh" "$cache/busybox";
         dpkg-query -W libc6-arm64-cross libgcc-s1-arm64-cross libstdc++6-arm64-cross 2>/dev/null || true; } |
       sha256sum | cut -d' ' -f1)
if [ -f "$cache/base.cpio" ] && [ "$(cat "$cache/base.key" 2>/dev/null)" = "$key" ]; then
    touch "$cache/base.key"   # run.sh compares its mtime with init.c/setup.sh
    exit 0
fi

note "building base.cpio"
root=$cache/.root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,lib/aarch64-linux-gnu,usr/lib}
chmod 1777 "$root/tmp"

aarch64-linux-gnu-gcc-12 -static -O2 -s -Wall -Wextra -o "$root/init" "$here/init.c" ||
    die "cannot build init.c"

cp "$cache/busybox" "$root/bin/busybox"
# The applets tests and debugging sessions are likely to want (busybox is a
# foreign binary here, so it cannot list its own applets at build time).
for a in sh ash awk basename cat chmod cmp cp cut date dd df diff dirname \
         dmesg du echo egrep env expr false find free grep head hexdump id \
         kill killall ln ls md5sum mkdir mktemp mount mv nproc od printf ps \
         pwd readlink realpath rm rmdir sed seq sha256sum sleep sort stat \
         strings sync tail tee test time timeout top touch tr true umount \
         uname uniq uptime wc xargs yes [; do
    ln -s busybox "$root/bin/$a"
done

# The aarch64 dynamic loader and every shared library of the cross toolchain
# (glibc's libc/libm/libpthread/libdl/librt/..., libgcc_s, libstdc++,
# libatomic, ...), at Debian's multiarch paths so that binaries built with
# aarch64-linux-gnu-gcc-12 run unchanged.  The sanitizer runtimes (~25 MB)
# are left out.
libdir=$root/lib/aarch64-linux-gnu
[ -e "$cross_lib/ld-linux-aarch64.so.1" ] || die "$cross_lib/ld-linux-aarch64.so.1 missing"
find "$cross_lib" -maxdepth 1 -name '*.so*' ! -name 'lib*san.so*' \
     -exec cp -a -t "$libdir" {} +
ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$root/lib/ld-linux-aarch64.so.1"
ln -s lib "$root/lib64"
ln -s ../../lib/aarch64-linux-gnu "$root/usr/lib/aarch64-linux-gnu"
ln -s ../bin "$root/usr/bin"

echo 'root:x:0:0:root:/tmp:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"

(cd "$root" && find . -mindepth 1 -printf '%P\0' | LC_ALL=C sort -z |
     cpio -o -0 -H newc -R 0:0 --quiet) >"$cache/base.cpio.tmp" ||
    die "cannot create base.cpio"
mv "$cache/base.cpio.tmp" "$cache/base.cpio"
echo "$key" >"$cache/base.key"
rm -rf "$root"
