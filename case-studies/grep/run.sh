#!/bin/bash
# SPDX-License-Identifier: MIT
# GNU grep 3.8 with its locale's mode and its matcher multiversed (the
# paper's §6.2.3).
#
#   case-studies/grep/run.sh [--quick]
#
# Fetches Debian's grep 3.8 source, builds it twice into
# build/case-studies/grep/ (baseline: gcc-12; multiversed: our patch, built
# with multiverse-gcc), runs grep's own test suite (make check) against
# the multiversed build (and, without --quick, the baseline), and measures
# both on generated text in the C and a UTF-8 locale, with patterns where
# the mode matters: instructions (callgrind) and interleaved wall-clock
# time.  --quick stops after the tests.  Without it, a third build,
# "padded" (the same patch, its call sites of multiversed functions padded
# to $GREP_INLINE_SIZE bytes, so that commit may copy variants into them),
# is tested and measured too, with each build's text size.  Results:
# results.md beside this script.
name=grep
. "$(dirname "$0")/../common.sh"
here=$repo/case-studies/grep
quick=0
[ "${1:-}" = --quick ] && quick=1
reps=${GREP_REPS:-7}
size=${GREP_SIZE:-50000000}     # bytes of text for wall-clock time
isize=${GREP_ISIZE:-10000000}   # and for instruction counts
# bytes per padded call site, call included: wordchar_prev's variant for
# single-byte locales, the one inlinable, is 22 bytes to copy
pad=${GREP_INLINE_SIZE:-24}

"$repo/make.sh" all >/dev/null
[ $quick = 1 ] || need_packages valgrind bc python3

source_of grep 3.8-5 "$work/src"

# build variant cc patch [cflags]: configure and make in $work/variant.
# The documentation is not built (MAKEINFO=true): Debian's patches touch
# it, and it would need texinfo.
build() {
	local v=$1 cc=$2 patch=$3 cflags=${4:-}
	say "building the $v grep"
	patched_copy "$work/src" "$work/$v" "$patch"
	(cd "$work/$v" && ./configure CC="$cc" ${cflags:+CFLAGS="-g -O2 $cflags"} --disable-nls \
		>"$work/$v.log" 2>&1 &&
	 make -j2 MAKEINFO=true >>"$work/$v.log" 2>&1) ||
		die "building the $v grep failed: see $work/$v.log"
}

# check variant: grep's own test suite; a summary line per variant.
check() {
	local v=$1
	say "running grep's test suite against the $v build"
	if ! (cd "$work/$v" && make -j2 check MAKEINFO=true >"$work/$v-check.log" 2>&1); then
		grep -h '^FAIL' "$work/$v"/tests/*.log "$work/$v"/gnulib-tests/*.log >&2 || true
		die "grep's test suite failed against the $v build: see $work/$v-check.log"
	fi
	say "$v: $(sed -n 's/^# \(TOTAL\|PASS\|SKIP\|XFAIL\|FAIL\|XPASS\|ERROR\): *\([0-9]*\)/\1 \2/p' \
		"$work/$v/tests/test-suite.log" | tr '\n' ' ')(tests/)"
}

build multiverse "$repo/build/multiverse-gcc" "$here/grep-3.8.patch"
check multiverse
[ $quick = 1 ] && exit 0
build base gcc-12 ""
check base
rm -f "$work/padded-report.txt"
build padded "$repo/build/multiverse-gcc" "$here/grep-3.8.patch" \
	"-fplugin-arg-multiverse-inline-size=$pad -fplugin-arg-multiverse-report=$work/padded-report.txt"
check padded
builds="base multiverse padded"

python3 "$here/gen-text.py" "$size" >"$work/text"
python3 "$here/gen-text.py" "$isize" >"$work/text-small"
: >"$work/empty"

# name|options|pattern: searches where the locale's mode matters
searches=(
	"a.a (the paper's)||a.a"
	"-i, case-folded|-i|hello"
	"-w, whole words|-w|the"
	"-E, a class and a word boundary|-E|[[:alpha:]]+ing\\b"
	"-F, three strings|-F|-e abacus -e lambda -e saga"
)

results=$here/results.md
{
	echo "Measured by case-studies/grep/run.sh on $(date -u +%Y-%m-%d), $(nproc) CPUs:"
	echo "instructions for $((isize / 1000000)) MB of text, wall time for $((size / 1000000)) MB"
	echo "($reps interleaved runs, min / median, output to a file); padded: call"
	echo "sites of multiversed functions padded to $pad bytes."
	echo
	echo "| search | locale | instructions base | multiverse | change | padded | change | wall base (s) | multiverse (s) | change (median) | padded (s) | change (median) |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$results"
for locale in C C.UTF-8; do
	for s in "${searches[@]}"; do
		IFS='|' read -r label opts pattern <<<"$s"
		# -a: a text with bytes that are no character in the C locale
		# is binary for grep, which would stop at the first match
		# shellcheck disable=SC2086
		args=(-a $opts $pattern)
		ib=$(LC_ALL=$locale instructions "$work/base/src/grep" "${args[@]}" "$work/text-small")
		im=$(LC_ALL=$locale instructions "$work/multiverse/src/grep" "${args[@]}" "$work/text-small")
		ip=$(LC_ALL=$locale instructions "$work/padded/src/grep" "${args[@]}" "$work/text-small")
		search() { seconds env LC_ALL=$locale "$work/$1/src/grep" "${args[@]}" "$work/text"; }
		echo "| $label | $locale | $ib | $im | $(change "$ib" "$im") | $ip | $(change "$ib" "$ip") | $(interleaved3 "$reps" search) |" >>"$results"
	done
done
{
	echo
	echo "Start-up (\`grep a.a\` on an empty file, C locale): $(instructions "$work/base/src/grep" a.a "$work/empty") instructions base, $(instructions "$work/multiverse/src/grep" a.a "$work/empty") multiverse, which commits once, $(instructions "$work/padded/src/grep" a.a "$work/empty") padded."
	echo
	echo "Text bytes of src/grep:$(for v in $builds; do printf ' %s %s,' "$(size "$work/$v/src/grep" | tail -n 1 | cut -f 1 | tr -d ' ')" $v; done | sed 's/,$/./')"
	echo
	echo "Compile report of the padded build, its variants:"
	echo
	echo '```'
	sed -n 's/: multiverse: / /p' "$work/padded-report.txt" | grep variant | sort -u
	echo '```'
	echo
	echo "Patch: $(patch_size "$here/grep-3.8.patch")."
	cat <<-'EOF'

	Instructions are the figures to compare; wall time is noisy on a
	shared machine.  The padded build gains nothing: the only inlinable
	variant is wordchar_prev's for single-byte locales (22 bytes to copy,
	hence 24-byte sites), called once per candidate word match of -w;
	every other site (EGexecute, Fexecute, mb_goback, the execute
	switch) is bound by a call with a jump over its padding, one
	instruction more per call, which costs more than the copies save.
	EOF
} >>"$results"
cat "$results"
