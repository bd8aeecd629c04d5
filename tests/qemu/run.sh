#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh - run an AArch64 test program in a qemu-system-aarch64 guest.
#
# Usage:  tests/qemu/run.sh DIR CMD [ARGS...]
#
# Boots the Debian arm64 kernel prepared by setup.sh (run automatically when
# the cache is missing) on an emulated 2-CPU "virt" machine.  The initramfs
# holds busybox, the aarch64 glibc and a copy of DIR at its absolute host path
# (so absolute rpaths and $ORIGIN both resolve).  CMD runs with DIR as working
# directory; its stdout and stderr (both on the serial console) are streamed
# to our stdout, and we exit with its exit status (128+N if killed by signal
# N).  Use "env VAR=value CMD" to pass environment variables.
#
# DIR is copied into guest RAM (1 GiB), so keep it to what the test needs.
# Exit status 124: timeout; 125: the guest could not run CMD or died without
# reporting a status (e.g. kernel panic) - a message on stderr says which.
#
# Environment:
#   MV_QEMU_CACHE    cache directory (default: <repo>/build/qemu)
#   MV_QEMU_TIMEOUT  wall-clock limit in seconds (default 1200)
#   MV_QEMU_BOOTLOG  1: do not silence the kernel (its log then mixes into
#                    the output; for debugging boot problems)
#
# Why "-accel tcg,thread=single": with multi-threaded TCG (QEMU 7.2 and
# 10.0 alike) a write through /proc/self/mem to code another vCPU is executing
# can leave a stale translation behind for good, which is exactly what the
# live-patching tests exercise.  Single-threaded TCG still emulates 2 CPUs
# (round-robin) and keeps translations coherent.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MV_QEMU_CACHE:-$here/../../build/qemu}
timeout_s=${MV_QEMU_TIMEOUT:-1200}

die() { echo "run.sh: $*" >&2; exit 125; }

[ $# -ge 2 ] || { echo "usage: $0 DIR CMD [ARGS...]" >&2; exit 2; }
[[ $timeout_s =~ ^[0-9]+$ ]] || die "MV_QEMU_TIMEOUT must be a number of seconds"
dir=$(cd "$1" 2>/dev/null && pwd -P) || die "no such directory: $1"
[ "$dir" != / ] || die "DIR must not be /"
shift

if [ ! -f "$cache/vmlinuz" ] || [ ! -f "$cache/base.cpio" ] ||
   [ "$here/init.c" -nt "$cache/base.key" ] || [ "$here/setup.sh" -nt "$cache/base.key" ]; then
    "$here/setup.sh" || die "setup.sh failed"
fi
cache=$(cd "$cache" && pwd)

. "$here/guest.sh"
guest_tmp
guest_initrd "$cache/base.cpio" "$dir" "$@"

# --- boot -------------------------------------------------------------------
if [ "${MV_QEMU_BOOTLOG:-0}" = 1 ]; then loglevel="loglevel=7"; else loglevel="quiet loglevel=1"; fi
# panic=-1 + -no-reboot: a kernel panic ends qemu at once instead of hanging
guest_run "$timeout_s" qemu-system-aarch64 \
    -M virt -cpu max,pauth-impdef=on -smp 2 -m 1G -accel tcg,thread=single \
    -nic none -no-reboot -display none -monitor none -serial stdio \
    -kernel "$cache/vmlinuz" -initrd "$tmp/initrd" \
    -append "console=ttyAMA0 rdinit=/init panic=-1 cryptomgr.notests $loglevel"
