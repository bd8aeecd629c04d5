#!/bin/sh
# SPDX-License-Identifier: MIT
# compare.sh MVCC CC SOURCE FLAGS...: checks that committed code is the
# #ifdef build's code.  Each "codegen: VARIANT FUNCTION DEFINES..." line of
# SOURCE names a variant the plugin compiles (SOURCE built by MVCC) and
# the function it must equal in SOURCE built by plain CC with DEFINES.
# Both are compared as assembler text: their instructions, local labels
# numbered in order of appearance.  Prints both bodies on a mismatch.
set -u
mvcc=$1 cc=$2 src=$3; shift 3
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT

body() { # asm-file function: its instructions, .L labels renumbered; a
	# label nothing in the function refers to makes no code and is left
	# out (the plugin labels what inlining copies: gcc/inline.cc), and so
	# is a call site's padding that the unit's end sized to no bytes
	awk -v f="$2" '
		NR == FNR {
			if ($1 == ".set" && $2 ~ /^\.LMVP[0-9]+,$/)
				pad[substr($2, 1, length($2) - 1)] = $3
			next
		}
		# comments, which clang writes many of ("# " on x86-64, "//"
		# on AArch64, where "#1" is an immediate and stays)
		{ sub(/(^|[ \t]+)(# |\/\/).*$/, "") }
		$0 == f ":" { on = 1; next }
		on && /^#(NO_)?APP$/ { next }
		on && $1 == ".nops" && ($2 in pad) && $3 == "-" {
			k = $4; gsub(/[()]/, "", k)
			if (pad[$2] - k == 0) next
		}
		on && (/^\t\.size\t/ || /^\.Lfunc_end/) { exit }
		on && $0 != "" && !/^\t\./ && !/^\.LF[BE]/ && !/^\.LVL/ && !/^\.LCFI/ &&
		!/^\.Ltmp/ {
			lines[++m] = $0
			if ($0 !~ /^\.L[A-Za-z]*[0-9]+:$/) {
				line = $0
				while (match(line, /\.L[A-Za-z]*[0-9]+/)) {
					used[substr(line, RSTART, RLENGTH)] = 1
					line = substr(line, RSTART + RLENGTH)
				}
			}
		}
		END {
			for (i = 1; i <= m; i++) {
				line = lines[i]
				if (line ~ /^\.L[A-Za-z]*[0-9]+:$/ && !(substr(line, 1, length(line) - 1) in used))
					continue
				out = ""
				while (match(line, /\.L[A-Za-z]*[0-9]+/)) {
					l = substr(line, RSTART, RLENGTH)
					if (!(l in n)) n[l] = "L" ++k
					out = out substr(line, 1, RSTART - 1) n[l]
					line = substr(line, RSTART + RLENGTH)
				}
				print out line
			}
		}' "$1" "$1"
}

"$mvcc" "$@" -S -o "$tmp/mv.s" "$src" || exit 1
status=0 checked=0
while read -r variant fn defines; do
	"$cc" "$@" $defines -S -o "$tmp/ifdef.s" "$src" || exit 1
	body "$tmp/mv.s" "$variant" >"$tmp/a"
	body "$tmp/ifdef.s" "$fn" >"$tmp/b"
	if [ ! -s "$tmp/a" ] || [ ! -s "$tmp/b" ]; then
		echo "$variant or $fn ($defines) not found in the assembler output"
		status=1
	elif ! cmp -s "$tmp/a" "$tmp/b"; then
		echo "$variant differs from $fn built with $defines:"
		diff "$tmp/a" "$tmp/b" | sed 's/^/  /'
		status=1
	fi
	checked=$((checked + 1))
done <<EOT
$(sed -n 's/^ \* codegen: //p' "$src")
EOT
[ $checked -gt 0 ] || { echo "no codegen: lines in $src"; exit 1; }
exit $status
