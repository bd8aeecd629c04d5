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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mv-qemu.XXXXXX")
qemu_pid=
cleanup() {
    [ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- initramfs: base + DIR + job description --------------------------------
# DIR with all its parent directories (the kernel's initramfs unpacker does
# not create missing parents), as paths relative to /.
rel=${dir#/}
parents=()
p=$rel
while [[ $p == */* ]]; do p=${p%/*}; parents=("$p" "${parents[@]}"); done
{ [ ${#parents[@]} -eq 0 ] || printf '%s\0' "${parents[@]}"; (cd / && find "$rel" -print0); } |
    (cd / && cpio -o -0 -H newc -R 0:0 --quiet) >"$tmp/dir.cpio" ||
    die "cannot archive $dir"

# The exit marker carries a random nonce (see init.c).
nonce=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
marker="@@GUEST_EXIT-$nonce="
mkdir "$tmp/job" "$tmp/job/.mv-job"
printf '%s\0' "$marker" "$dir" "$@" >"$tmp/job/.mv-job/argv"
(cd "$tmp/job" && printf '%s\0' .mv-job .mv-job/argv |
     cpio -o -0 -H newc -R 0:0 --quiet) >"$tmp/job.cpio"

# Concatenated newc archives are unpacked in order by the kernel.
cat "$cache/base.cpio" "$tmp/dir.cpio" "$tmp/job.cpio" >"$tmp/initrd"

# --- boot -------------------------------------------------------------------
if [ "${MV_QEMU_BOOTLOG:-0}" = 1 ]; then loglevel="loglevel=7"; else loglevel="quiet loglevel=1"; fi
mkfifo "$tmp/console"
# panic=-1 + -no-reboot: a kernel panic ends qemu at once instead of hanging
timeout -k 5 "$timeout_s" qemu-system-aarch64 \
    -M virt -cpu max,pauth-impdef=on -smp 2 -m 1G -accel tcg,thread=single \
    -nic none -no-reboot -display none -monitor none -serial stdio \
    -kernel "$cache/vmlinuz" -initrd "$tmp/initrd" \
    -append "console=ttyAMA0 rdinit=/init panic=-1 cryptomgr.notests $loglevel" \
    </dev/null >"$tmp/console" &
qemu_pid=$!

# Stream the console until the marker; the marker itself and anything after
# it (kernel power-off chatter) are dropped.  Text before the marker on the
# same line is output without a newline, exactly as the program wrote it.
# The last lines are kept for the error report should no marker arrive.
awk -v marker="$marker" -v statusfile="$tmp/status" -v tailfile="$tmp/tail" '
    done { next }
    (i = index($0, marker)) > 0 {
        printf "%s", substr($0, 1, i - 1)
        rest = substr($0, i + length(marker))
        print rest + 0 > statusfile
        done = 1; fflush(); next
    }
    { print; fflush(); last[NR % 40] = $0 }
    END {
        if (!done)
            for (n = NR - 39; n <= NR; n++)
                if (n > 0) print last[n % 40] > tailfile
    }' <"$tmp/console"

qemu_status=0
wait "$qemu_pid" || qemu_status=$?
qemu_pid=

if [ -f "$tmp/status" ]; then
    exit "$(cat "$tmp/status")"
fi
if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then
    echo "run.sh: timeout: no result after ${timeout_s}s (MV_QEMU_TIMEOUT), qemu killed" >&2
    code=124
else
    echo "run.sh: the guest stopped without reporting an exit status" \
         "(kernel panic or init failure?); qemu exit status $qemu_status" >&2
    code=125
fi
if [ -s "$tmp/tail" ]; then
    echo "run.sh: last console lines:" >&2
    sed 's/^/  | /' "$tmp/tail" >&2
fi
exit "$code"
