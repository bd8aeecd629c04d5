#!/bin/sh
# SPDX-License-Identifier: MIT
# check.sh FILE...: a linked module's call-site records need no relocation
# when it is loaded, except where the callee may be another module's: no
# dynamic relocation applies to a record's site field, and none is a
# relative one (which the static link could have resolved: the compiler
# stores such addresses as distances, common/descriptor.h).
set -eu
READELF=${READELF:-readelf}
status=0
for f in "$@"; do
	sec=$($READELF -SW "$f" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == "__multiverse_site" { print $3, $5 }')
	[ -n "$sec" ] || { echo "$f: no __multiverse_site section"; status=1; continue; }
	set -- $sec
	$READELF -rW "$f" | awk -v start=$((0x$1)) -v size=$((0x$2)) -v file="$f" '
		function hex(s,   n, i, c) {
			n = 0
			for (i = 1; i <= length(s); i++) {
				c = index("0123456789abcdef", tolower(substr(s, i, 1)))
				n = n * 16 + c - 1
			}
			return n
		}
		$1 ~ /^[0-9a-f]+$/ && NF >= 3 {
			at = hex($1)
			if (at < start || at >= start + size)
				next
			field = (at - start) % 24
			if (field == 0) {
				print file ": record " int((at - start) / 24) " has its site field relocated (" $3 ")"
				bad = 1
			} else if ($3 ~ /RELATIVE/) {
				print file ": record " int((at - start) / 24) " has a relative relocation at field " field
				bad = 1
			} else
				symbolic++
		}
		END {
			printf "%s: %d records, %d symbolic relocations\n", file, size / 24, symbolic
			exit bad
		}' || status=1
done
exit $status
