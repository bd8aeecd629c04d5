#!/bin/bash
# SPDX-License-Identifier: MIT
# CPython 3.11 with the collector's enabled flag multiversed (the paper's
# §6.2.1).
#
#   case-studies/python/run.sh [--quick] [--all-tests]
#
# Fetches Debian's python3.11 source, builds it twice into
# build/case-studies/python/ (baseline: gcc-12; multiversed: our patch,
# built with multiverse-gcc), runs check.py and CPython's own tests of the
# collector, embedding, subinterpreters, finalization, weak references,
# threads and sys against both (with --all-tests, the whole of CPython's
# test suite), and measures bench.py with automatic collection on and off:
# instructions per iteration (callgrind) and interleaved wall-clock time.
# --quick builds and tests the multiversed interpreter only, and does not
# measure.  Results: results.md beside this script.
name=python
. "$(dirname "$0")/../common.sh"
here=$repo/case-studies/python
quick=0 all_tests=0
for a in "$@"; do
	case $a in
	--quick) quick=1 ;;
	--all-tests) all_tests=1 ;;
	*) die "unknown argument $a (--quick, --all-tests)" ;;
	esac
done
reps=${PY_REPS:-7}              # interleaved repetitions for wall-clock time
iters=${PY_ITERS:-200000}       # iterations per instruction count
witers=${PY_WITERS:-2000000}    # and per wall-clock measurement
tests=(test_gc test_embed test__xxsubinterpreters test_finalization
       test_weakref test_threading test_sys)

"$repo/make.sh" all >/dev/null
[ $quick = 1 ] || need_packages valgrind bc

# Any Debian revision of 3.11.2 will do: Debian's patches are not applied.
source_of python3.11 3.11.2-6+deb12u8 "$work/src"

# build variant cc patch: configure and make in $work/variant, as
# CPython's defaults have it (-O3, no profile-guided optimization).
build() {
	local v=$1 cc=$2 patch=$3
	say "building the $v interpreter"
	patched_copy "$work/src" "$work/$v" "$patch"
	(cd "$work/$v" && ./configure CC="$cc" >"$work/$v.log" 2>&1 &&
	 make -j2 >>"$work/$v.log" 2>&1) ||
		die "building the $v interpreter failed: see $work/$v.log"
}

# regrtest variant [test...]: CPython's tests, with SIGINT at its default
# whatever this script inherited: a shell that starts a job in the
# background ignores SIGINT in it, the interpreter then keeps it ignored,
# and test_threading's interrupt_main() tests see no KeyboardInterrupt.
regrtest() {
	local v=$1
	shift
	(cd "$work/$v" && ./python -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' ./python -m test -j2 "$@" >"$work/$v-test.log" 2>&1)
}

# check variant: check.py, then CPython's tests.
check() {
	local v=$1 which=("${tests[@]}")
	say "running check.py and CPython's tests against the $v build"
	"$work/$v/python" "$here/check.py" || die "check.py failed against the $v build"
	if [ $all_tests = 1 ]; then
		# Some tests fail on any build here (a terminal, a network):
		# the builds are compared after both have run.
		regrtest "$v" || true
		sed -n '/^[0-9]* tests* failed:/,/^$/p' "$work/$v-test.log" |
			tail -n +2 | tr ' ' '\n' | grep '^test' | sort >"$work/$v-failed" || true
		say "$v: $(grep -E '^[0-9]+ tests? (OK|failed|skipped)' "$work/$v-test.log" | tr '\n' ' ')"
		return
	fi
	regrtest "$v" "${which[@]}" || {
		grep -E '^[0-9]+ tests? failed|^    test_' "$work/$v-test.log" >&2 || true
		die "CPython's tests failed against the $v build: see $work/$v-test.log"
	}
	say "$v: $(grep -E '^(All )?[0-9]+ tests? (OK|skipped)' "$work/$v-test.log" | tr '\n' ' ')"
}

build multiverse "$repo/build/multiverse-gcc" "$here/python-3.11.patch"
check multiverse
[ $quick = 1 ] && exit 0
build base gcc-12 ""
check base
if [ $all_tests = 1 ]; then
	only=$(comm -23 "$work/multiverse-failed" "$work/base-failed")
	[ -z "$only" ] || die "failed against the multiversed build only: $only"
	say "the same tests fail against both builds: $(echo $(cat "$work/base-failed"))"
fi

# per_iteration variant bench mode: instructions per iteration, the
# start-up and everything but the loop subtracted.  With a fixed hash
# seed, so that the counts repeat: a random one moves them by up to 0.3%
# from run to run.  (-I would ignore PYTHONHASHSEED: -s -P and no
# PYTHONPATH or PYTHONHOME isolate as it does otherwise.)
per_iteration() {
	local py=$work/$1/python
	local full empty
	full=$(export PYTHONHASHSEED=0; unset PYTHONPATH PYTHONHOME
	       instructions "$py" -s -P "$here/bench.py" "$2" "$iters" "$3")
	empty=$(export PYTHONHASHSEED=0; unset PYTHONPATH PYTHONHOME
		instructions "$py" -s -P "$here/bench.py" "$2" 0 "$3")
	echo "scale=2; ($full - $empty) / $iters" | bc
}

results=$here/results.md
{
	echo "Measured by case-studies/python/run.sh on $(date -u +%Y-%m-%d), $(nproc) CPUs:"
	echo "instructions per iteration ($iters iterations less an empty run), wall time"
	echo "for $witers iterations ($reps interleaved runs, min / median)."
	echo
	echo "| benchmark | collection | instructions base | multiverse | change | wall base (s) | multiverse (s) | change (median) |"
	echo "|---|---|---|---|---|---|---|---|"
} >"$results"
for bench in objects containers closures generators tree; do
	for mode in on off; do
		ib=$(per_iteration base $bench $mode)
		im=$(per_iteration multiverse $bench $mode)
		run() { seconds "$work/$1/python" -I "$here/bench.py" $bench "$witers" $mode; }
		echo "| $bench | $mode | $ib | $im | $(change "$ib" "$im") | $(interleaved "$reps" run) |" >>"$results"
	done
done
{
	echo
	echo "Start-up (\`python -I -c pass\`): $(instructions "$work/base/python" -I -c pass) instructions base, $(instructions "$work/multiverse/python" -I -c pass) multiverse, which commits once."
	echo
	echo "Patch: $(patch_size "$here/python-3.11.patch")."
} >>"$results"
cat "$results"
