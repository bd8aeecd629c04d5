# SPDX-License-Identifier: MIT
# Shared by the case-study scripts (sourced): installing what is missing,
# fetching Debian's source, and measuring.  Each script sets $name first.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$repo/build/case-studies/$name
mkdir -p "$work"

say() { printf '%s: %s\n' "$name" "$*" >&2; }
die() { say "$*"; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# need_packages pkg...: installs those not installed yet.
need_packages() {
	local missing="" p
	for p in "$@"; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	say "installing$missing"
	as_root apt-get update -qq
	DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq $missing
}

# source_of pkg version dir: the upstream source as Debian ships it for
# pkg at that version, without Debian's patches (which would want the
# autotools run again), unpacked into dir (kept between runs).  Enables
# deb-src entries, copied from the deb ones, if apt has none.
source_of() {
	local pkg=$1 version=$2 dir=$3
	[ -d "$dir" ] && return 0
	# dpkg-source unpacks with tar and xz; patched_copy needs patch
	need_packages dpkg-dev xz-utils patch
	if ! apt-get source --print-uris -qq "$pkg=$version" >/dev/null 2>&1; then
		local d=/etc/apt/sources.list.d
		if [ -f $d/debian.sources ]; then
			say "enabling deb-src entries ($d/multiverse-deb-src.sources)"
			sed 's/^Types: deb$/Types: deb-src/' $d/debian.sources |
				as_root tee $d/multiverse-deb-src.sources >/dev/null
		elif grep -q '^deb ' /etc/apt/sources.list 2>/dev/null; then
			say "enabling deb-src entries ($d/multiverse-deb-src.list)"
			sed -n 's/^deb /deb-src /p' /etc/apt/sources.list |
				as_root tee $d/multiverse-deb-src.list >/dev/null
		else
			die "no deb-src entries for apt-get source, and no deb entries to copy them from"
		fi
		as_root apt-get update -qq
	fi
	local tmp=$work/source.tmp
	rm -rf "$tmp" && mkdir -p "$tmp"
	(cd "$tmp" && apt-get source -qq --download-only "$pkg=$version" 2>&1 |
		grep -v '^W: Download is performed unsandboxed' >&2 || true)
	local dsc unpacked
	dsc=$(ls "$tmp"/*.dsc 2>/dev/null | head -n 1)
	[ -n "$dsc" ] || die "apt-get source $pkg=$version gave no source"
	(cd "$tmp" && dpkg-source -q --skip-patches -x "$dsc" unpacked >"$work/dpkg-source.log" 2>&1) ||
		die "dpkg-source cannot unpack $dsc"
	unpacked=$tmp/unpacked
	[ -n "$unpacked" ] || die "apt-get source $pkg=$version gave no source"
	mv "$unpacked" "$dir"
	rm -rf "$tmp"
}

# patched_copy from to patch: a copy of the source tree with our patch.
patched_copy() {
	rm -rf "$2"
	cp -a "$1" "$2"
	if [ -n "${3:-}" ]; then
		(cd "$2" && patch -p1 -s <"$3") || die "our patch $3 does not apply"
	fi
}

# patch_size file: "N lines changed in M files"
patch_size() {
	local files lines
	files=$(grep -c '^+++ ' "$1")
	lines=$(grep -E '^[-+]' "$1" | grep -vcE '^(\+\+\+|---) ')
	echo "$lines lines changed in $files files"
}

# instructions cmd...: instructions executed (valgrind's callgrind,
# deterministic) by cmd, printed.  --smc-check=all: valgrind must see the
# code Multiverse rewrites, or it keeps running its translation of the old.
# The output goes to a file, not /dev/null: grep, for one, stops at the
# first match when its output is /dev/null.
instructions() {
	valgrind --tool=callgrind --smc-check=all --callgrind-out-file=/dev/null "$@" 2>&1 >"$work/output" |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# seconds cmd...: the wall-clock seconds cmd takes, its output to a file.
seconds() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >"$work/output" || true
	t1=$(date +%s%N)
	echo "scale=4; ($t1 - $t0) / 1000000000" | bc
}

# change from to: the signed change in percent, "+1.23%".
change() { printf '%+.2f%%' "$(echo "($2 - $1) * 100 / $1" | bc -l)"; }

# interleaved reps measure: runs "measure base" and "measure multiverse"
# in turn, reps times (each prints one figure), and prints the table cells
# "base min / median | multiverse min / median | change of the medians".
interleaved() {
	local reps=$1 measure=$2 r v bmin bmed mmin mmed
	: >"$work/t-base"; : >"$work/t-multiverse"
	for r in $(seq "$reps"); do
		for v in base multiverse; do
			"$measure" $v >>"$work/t-$v"
		done
	done
	read -r bmin bmed <<<"$(min_median "$work/t-base")"
	read -r mmin mmed <<<"$(min_median "$work/t-multiverse")"
	echo "$bmin / $bmed | $mmin / $mmed | $(change "$bmed" "$mmed")"
}

# interleaved3 reps measure: as interleaved, for the builds base,
# multiverse and padded in turn: "base min / median | multiverse min /
# median | change | padded min / median | change", the changes those of
# the medians against base.
interleaved3() {
	local reps=$1 measure=$2 r v b m p
	for v in base multiverse padded; do : >"$work/t-$v"; done
	for r in $(seq "$reps"); do
		for v in base multiverse padded; do
			"$measure" $v >>"$work/t-$v"
		done
	done
	read -r -a b <<<"$(min_median "$work/t-base")"
	read -r -a m <<<"$(min_median "$work/t-multiverse")"
	read -r -a p <<<"$(min_median "$work/t-padded")"
	echo "${b[0]} / ${b[1]} | ${m[0]} / ${m[1]} | $(change "${b[1]}" "${m[1]}") |" \
	     "${p[0]} / ${p[1]} | $(change "${b[1]}" "${p[1]}")"
}

min_median() { sort -g "$1" | awk '{ a[NR] = $1 } END { printf "%.3f %.3f", a[1], a[int((NR + 1) / 2)] }'; }
