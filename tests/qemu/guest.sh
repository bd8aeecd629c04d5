# SPDX-License-Identifier: MIT
# What the guest runners share (tests/qemu/run.sh, an arm64 distribution
# kernel; tests/kernel/run.sh, the multiversed x86-64 kernel): the job's
# initramfs, and running qemu while the console streams to stdout until
# init.c's exit marker.  Sourced; the caller defines die().

# guest_tmp: makes $tmp, which goes, with qemu if it runs, when the
# script exits.
guest_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/mv-guest.XXXXXX")
	qemu_pid=
	trap 'guest_cleanup' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

guest_cleanup() {
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null
	rm -rf "$tmp"
}

# guest_initrd BASE-CPIO DIR ARGV...: $tmp/initrd, which is BASE-CPIO,
# DIR at its absolute path (with every parent: the kernel's unpacker
# makes none), and the job (/.mv-job/argv: marker, DIR, ARGV).  Sets
# marker: it carries a random nonce, so that no test can fake its status.
guest_initrd() {
	local base=$1 dir=$2 rel p parents=() nonce
	shift 2
	rel=${dir#/}
	p=$rel
	while [[ $p == */* ]]; do p=${p%/*}; parents=("$p" "${parents[@]}"); done
	{ [ ${#parents[@]} -eq 0 ] || printf '%s\0' "${parents[@]}"; (cd / && find "$rel" -print0); } |
		(cd / && cpio -o -0 -H newc -R 0:0 --quiet) >"$tmp/dir.cpio" ||
		die "cannot archive $dir"
	nonce=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	marker="@@GUEST_EXIT-$nonce="
	mkdir "$tmp/job" "$tmp/job/.mv-job"
	printf '%s\0' "$marker" "$dir" "$@" >"$tmp/job/.mv-job/argv"
	(cd "$tmp/job" && printf '%s\0' .mv-job .mv-job/argv |
		cpio -o -0 -H newc -R 0:0 --quiet) >"$tmp/job.cpio"
	# Concatenated newc archives are unpacked in order by the kernel.
	cat "$base" "$tmp/dir.cpio" "$tmp/job.cpio" >"$tmp/initrd"
}

# guest_run TIMEOUT QEMU-COMMAND...: runs qemu with its serial console on
# stdout, streams the console to ours until the marker (the marker and the
# power-off chatter after it are dropped; text before it on its line is
# output without a newline, as the program wrote it), and exits with the
# job's status: 124 on a timeout, 125 if the guest stopped without one
# (kernel panic?), with the last console lines.
guest_run() {
	local timeout_s=$1 qemu_status=0 code
	shift
	mkfifo "$tmp/console"
	timeout -k 5 "$timeout_s" "$@" </dev/null >"$tmp/console" &
	qemu_pid=$!
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
	wait "$qemu_pid" || qemu_status=$?
	qemu_pid=
	if [ -f "$tmp/status" ]; then
		exit "$(cat "$tmp/status")"
	fi
	if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then
		echo "${0##*/}: timeout: no result after ${timeout_s}s, qemu killed" >&2
		code=124
	else
		echo "${0##*/}: the guest stopped without reporting an exit status" \
		     "(kernel panic or init failure?); qemu exit status $qemu_status" >&2
		code=125
	fi
	if [ -s "$tmp/tail" ]; then
		echo "${0##*/}: last console lines:" >&2
		sed 's/^/  | /' "$tmp/tail" >&2
	fi
	exit "$code"
}
