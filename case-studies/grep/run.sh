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
# time.  --quick stops after the tests.  Results: results.md beside this
# script.
name=grep
. "$(dirname "$0")/../common.sh"
here=$repo/case-studies/grep
quick=0
[ "${1:-}" = --quick ] && quick=1
reps=${GREP_REPS:-7}
size=${GREP_SIZE:-50000000}     # bytes of text for wall-clock time
isize=${GREP_ISIZE:-10000000}   # and for instruction counts

"$repo/make.sh" all >/dev/null
[ $quick = 1 ] || need_packages valgrind bc python3

source_of grep 3.8-5 "$work/src"

# build variant cc patch: configure and make in $work/variant.  The
# documentation is not built (MAKEINFO=true): Debian's patches touch it,
# and it would need texinfo.
build() {
	local v=$1 cc=$2 patch=$3
	say "building the $v grep"
	patched_copy "$work/src" "$work/$v" "$patch"
	(cd "$work/$v" && ./configure CC="$cc" --disable-nls >"$work/$v.log" 2>&1 &&
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
	echo "($reps interleaved runs, min / median, output to a file)."
	echo
	echo "| search | locale | instructions base | multiverse | change | wall base (s) | multiverse (s) | change (median) |"
	echo "|---|---|---|---|---|---|---|---|"
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
		search() { seconds env LC_ALL=$locale "$work/$1/src/grep" "${args[@]}" "$work/text"; }
		echo "| $label | $locale | $ib | $im | $(change "$ib" "$im") | $(interleaved "$reps" search) |" >>"$results"
	done
done
{
	echo
	echo "Start-up (\`grep a.a\` on an empty file, C locale): $(instructions "$work/base/src/grep" a.a "$work/empty") instructions base, $(instructions "$work/multiverse/src/grep" a.a "$work/empty") multiverse, which commits once."
	echo
	echo "Patch: $(patch_size "$here/grep-3.8.patch")."
} >>"$results"
cat "$results"
