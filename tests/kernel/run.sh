#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh - run a command in the multiversed kernel (make kernel), under
# qemu-system-x86_64 (TCG: no KVM needed).
#
# Usage:  tests/kernel/run.sh DIR CMD [ARGS...]
#
# Boots build/kernel/obj/arch/x86/boot/bzImage with busybox, with a copy of
# DIR at its absolute path in the initramfs, and runs CMD there with DIR as
# working directory (tests/qemu/init.c is PID 1; debugfs is mounted).  Its
# output is streamed to ours, and we exit with its status: 124 on a
# timeout, 125 if the guest stopped without one (the last console lines
# say why).
#
# Environment:
#   MV_KERNEL_IMAGE    another bzImage to boot (case-studies/linux/)
#   MV_KERNEL_CPUS     CPUs of the guest (default 2)
#   MV_KERNEL_TIMEOUT  wall-clock limit in seconds (default 300)
#   MV_KERNEL_ICOUNT   1: -icount shift=0, one nanosecond of guest time per
#                      instruction, for instruction counts
#   MV_KERNEL_APPEND   more kernel command-line arguments
#   MV_QEMU_BOOTLOG    1: do not silence the kernel
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$repo/build/kernel
kernel=${MV_KERNEL_IMAGE:-$out/obj/arch/x86/boot/bzImage}
cpus=${MV_KERNEL_CPUS:-2}
timeout_s=${MV_KERNEL_TIMEOUT:-300}

die() { echo "run.sh: $*" >&2; exit 125; }

[ $# -ge 2 ] || { echo "usage: $0 DIR CMD [ARGS...]" >&2; exit 2; }
[ -f "$kernel" ] || die "no $kernel: run make kernel (./make.sh kernel) first"
command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64: install qemu-system-x86"
[ -x /bin/busybox ] || die "no /bin/busybox: install busybox-static"
dir=$(cd "$1" 2>/dev/null && pwd -P) || die "no such directory: $1"
[ "$dir" != / ] || die "DIR must not be /"
shift

# The base initramfs: init, busybox and its applets; rebuilt when they change.
base=$out/base.cpio
if [ ! -f "$base" ] || [ "$repo/tests/qemu/init.c" -nt "$base" ] ||
   [ /bin/busybox -nt "$base" ] || [ "$0" -nt "$base" ]; then
	root=$(mktemp -d "${TMPDIR:-/tmp}/mv-kroot.XXXXXX")
	mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp"
	gcc-12 -static -O2 -s -Wall -Wextra -o "$root/init" "$repo/tests/qemu/init.c" ||
		die "cannot build tests/qemu/init.c"
	cp /bin/busybox "$root/bin/busybox"
	for a in $("$root/bin/busybox" --list); do
		[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
	done
	# a temporary file of its own, renamed over the old: two runs at
	# once (the kernel suite and case-studies/linux/) may both rebuild
	# it, and each must read a whole archive
	mkdir -p "$out"    # make test boots the case study's kernel before any make kernel
	tmp_base=$(mktemp "$base.XXXXXX")
	(cd "$root" && find . -mindepth 1 -print0 | cpio -o -0 -H newc -R 0:0 --quiet) >"$tmp_base"
	rm -rf "$root"
	mv "$tmp_base" "$base"
fi

. "$repo/tests/qemu/guest.sh"
guest_tmp
guest_initrd "$base" "$dir" "$@"

if [ "${MV_QEMU_BOOTLOG:-0}" = 1 ]; then loglevel="loglevel=7"; else loglevel="quiet loglevel=1"; fi
icount=()
[ "${MV_KERNEL_ICOUNT:-0}" = 1 ] && icount=(-icount shift=0)
# panic=-1 + -no-reboot: a kernel panic ends qemu at once instead of hanging.
# The kernel has no ACPI: it finds the CPUs in the BIOS's MP table, which
# lists one per socket.
guest_run "$timeout_s" qemu-system-x86_64 \
	-smp "$cpus,sockets=$cpus" -m 512M -accel tcg,thread=single "${icount[@]}" \
	-nic none -no-reboot -display none -monitor none -serial stdio \
	-kernel "$kernel" -initrd "$tmp/initrd" \
	-append "console=ttyS0 rdinit=/init panic=-1 $loglevel ${MV_KERNEL_APPEND:-}"
