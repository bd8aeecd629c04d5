#!/bin/sh
# SPDX-License-Identifier: MIT
# The scripted demo: feeds the server bursts of requests, updates it to
# handler-v2.so during one and rolls it back during another, then checks
# the answers against what was sent.  Every request must be answered
# once, by version 1 before the update and after the rollback, by version
# 2 in between; a request read before a command but answered after it may
# have either, as long as no "wait" separates the two.
#
#   ./demo.sh [-q] [DIR]    DIR holds the built server (default: here);
#                           -q prints one line unless something is wrong
# Exits 0 when all is well.
set -eu
quiet=
[ "${1:-}" = -q ] && { quiet=1; shift; }
cd "${1:-.}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

burst() {
	awk -v n=300 'BEGIN { split("ann bob cy dee eve fay gus hal", who)
			     for (i = 0; i < n; i++) print who[i % 8 + 1] }'
}
{
	burst; echo wait
	burst; echo "update ./handler-v2.so"
	burst; echo wait
	burst; echo rollback
	burst; echo quit
} >"$tmp/in"

status=0
./server <"$tmp/in" >"$tmp/out" 2>"$tmp/log" || status=$?

awk -v quiet="$quiet" -v status="$status" '
BEGIN { v = "v1"; open = 1 }
function control(line) {
	return line == "wait" || line == "quit" || line == "rollback" || line ~ /^update /
}
# What was sent: segments of requests between two commands, each with
# the version it must be answered by, and the one it may be if a command
# came after it without a wait between.
FNR == NR {
	if (!control($0)) {
		n++
		seg[n] = s + 1
		if (!(s + 1 in first)) { first[s + 1] = n; want[s + 1] = v }
		last[s + 1] = n
		next
	}
	after[++s] = $0
	if (!(s in first)) { first[s] = n + 1; want[s] = v }
	if ($1 == "update" || $0 == "rollback") {
		v = $1 == "update" ? "v2" : "v1"
		for (t = open; t <= s; t++)
			may[t] = v
	}
	if ($0 == "wait")
		open = s + 1
	next
}
# What was answered: "#N vX ..."
{
	id = substr($1, 2) + 0
	if (id < 1 || id > n) { complain("unasked for: " $0); next }
	if (id in got) { complain("answered twice: " $0); next }
	got[id] = $2
	t = seg[id]
	count[t, $2]++
	if (!(t in sample) || id < sample_id[t]) { sample[t] = $0; sample_id[t] = id }
	if ($2 != want[t] && !(t in may && $2 == may[t]))
		complain("by the wrong version: " $0 " (wanted " want[t] \
			 (t in may ? " or " may[t] : "") ")")
}
function complain(what) {
	if (++complaints <= 10)
		bad = bad "  " what "\n"
}
END {
	for (id = 1; id <= n; id++)
		if (!(id in got))
			complain("no answer to #" id)
	if (complaints > 10)
		bad = bad "  ... " complaints " complaints in all\n"
	if (status != 0)
		bad = bad "  the server exited with status " status "\n"
	if (!quiet || bad != "") {
		print "What answered the requests, in the order they were sent:"
		for (t = 1; t <= s; t++) {
			line = sprintf("  #%d-%d", first[t], last[t])
			line = sprintf("%-14s", line)
			for (ver = 1; ver <= 2; ver++)
				if (count[t, "v" ver])
					line = line sprintf(" v%d: %3d", ver, count[t, "v" ver])
			printf "%-32s %s\n", line, sample[t]
			print "  " after[t]
		}
	}
	if (bad != "") {
		printf "live-update: FAILED\n%s", bad
		exit 1
	}
	print "live-update: " n " requests, each answered once, by the version it should be"
}' "$tmp/in" "$tmp/out" >"$tmp/report" || status=1

if [ -z "$quiet" ] || [ $status != 0 ]; then
	echo "The server's messages:"
	sed 's/^/  /' "$tmp/log"
fi
cat "$tmp/report"
[ $status = 0 ] && ! grep -q FAILED "$tmp/report"
