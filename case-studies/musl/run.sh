#!/bin/bash
# SPDX-License-Identifier: MIT
# musl 1.2.3 with lock elision by Multiverse (the paper's §6.2.2, Figure 5).
#
#   case-studies/musl/run.sh [--quick]
#
# Fetches Debian's musl 1.2.3 source, builds it twice into build/case-studies/musl/
# (baseline: gcc-12; multiversed: our patch, built with multiverse-gcc, with
# the Multiverse runtime put into its libc.a and libc.so), runs check.c
# against both, statically and dynamically linked, and measures bench.c:
# instructions per call (callgrind) and interleaved wall-clock time.
# --quick stops after the checks.  Results: results.md beside this script.
name=musl
. "$(dirname "$0")/../common.sh"
here=$repo/case-studies/musl
quick=0
[ "${1:-}" = --quick ] && quick=1
reps=${MUSL_REPS:-9}            # interleaved repetitions for wall-clock time
calls=${MUSL_CALLS:-10000000}   # calls per measurement, as in the paper

# The plugin, and the Multiverse runtime for a C library's own libc
# (docs/libc.md), built against musl 1.2.3's headers: Debian's musl-tools,
# the same release as the source below.
"$repo/make.sh" all musl-libc >/dev/null
[ $quick = 1 ] || need_packages valgrind bc
rt=$(find "$repo"/build/musl-libc/runtime -name "*.o" | sort)

source_of musl 1.2.3-1 "$work/src"

# build variant cc patch [libcc objects]: configure, make, install into
# $work/variant-inst.  syslibdir too, so that nothing is installed outside.
build() {
	local v=$1 cc=$2 patch=$3 extra=${4:-}
	say "building the $v C library"
	patched_copy "$work/src" "$work/$v" "$patch"
	(cd "$work/$v" &&
	 ./configure --prefix="$work/$v-inst" --syslibdir="$work/$v-inst/lib" \
		CC="$cc" ${extra:+LIBCC="$extra -lgcc"} >"$work/$v.log" 2>&1 &&
	 make -j2 >>"$work/$v.log" 2>&1 &&
	 { [ -z "$extra" ] || ar rcs lib/libc.a $extra; } &&
	 make install >>"$work/$v.log" 2>&1) || die "building $v failed: see $work/$v.log"
}
build base gcc-12 ""
# The runtime goes into libc.so through LIBCC, which musl links last, and
# into libc.a with ar.
build multiverse "$repo/build/multiverse-gcc" "$here/musl-1.2.3.patch" "$(echo $rt)"

# program variant link src out: src built against that C library.
program() {
	local v=$1 link=$2 src=$3 out=$4 flags=()
	[ $link = static ] && flags=(-static) ||
		flags=(-Wl,--dynamic-linker="$work/$v-inst/lib/libc.so" -Wl,-rpath,"$work/$v-inst/lib")
	[ $v = base ] || flags+=(-DWITH_MULTIVERSE)
	gcc-12 -specs "$work/$v-inst/lib/musl-gcc.specs" -O2 -pthread "${flags[@]}" \
		"$src" -o "$out" || die "cannot build $src against the $v C library"
}

say "running check.c"
for link in static dynamic; do
	for v in base multiverse; do
		program $v $link "$here/check.c" "$work/check-$v-$link"
		"$work/check-$v-$link" >"$work/check-$v-$link.out" 2>"$work/check-$v-$link.err" ||
			die "check.c failed against the $v C library, $link: $(cat "$work/check-$v-$link.err")"
	done
	cmp -s "$work/check-base-$link.out" "$work/check-multiverse-$link.out" ||
		die "check.c printed different results for the two builds ($link)"
	sed "s/^/  $link: /" "$work/check-multiverse-$link.err" >&2
done
say "check.c passed against both builds, static and dynamic"
[ $quick = 1 ] && exit 0

for v in base multiverse; do
	program $v static "$here/bench.c" "$work/bench-$v"
done

# instructions per call: of $calls calls, less those of none
per_call() {
	local all none
	all=$(instructions "$@" 1000000)
	none=$(instructions "$@" 0)
	echo "scale=2; ($all - $none) / 1000000" | bc
}

# start-up: a program that does nothing, whose multiversed C library
# commits once before main
printf 'int main(void) { return 0; }\n' >"$work/empty.c"
for v in base multiverse; do
	program $v static "$work/empty.c" "$work/empty-$v-static"
	program $v dynamic "$work/empty.c" "$work/empty-$v-dynamic"
done

results=$here/results.md
{
	echo "Measured by case-studies/musl/run.sh on $(date -u +%Y-%m-%d), $(nproc) CPUs,"
	echo "static programs, $calls calls per run, $reps interleaved runs."
	echo
	echo "| function | threads | instructions/call base | multiverse | change | ns/call base min / median | multiverse min / median | change (median) |"
	echo "|---|---|---|---|---|---|---|---|"
} >"$results"
for fn in random malloc0 malloc1 fputc; do
	for mode in st mt; do
		ib=$(per_call "$work/bench-base" $fn $mode)
		im=$(per_call "$work/bench-multiverse" $fn $mode)
		run() { "$work/bench-$1" $fn $mode "$calls"; }
		label=$fn; [ $fn = malloc0 ] && label="malloc(0)+free"; [ $fn = malloc1 ] && label="malloc(1)+free"
		echo "| $label | $([ $mode = st ] && echo 1 || echo 2) | $ib | $im | $(change "$ib" "$im") | $(interleaved "$reps" run) |" >>"$results"
	done
done
{
	echo
	echo "| start-up of an empty program | instructions base | multiverse |"
	echo "|---|---|---|"
	for link in static dynamic; do
		echo "| $link | $(instructions "$work/empty-base-$link") | $(instructions "$work/empty-multiverse-$link") |"
	done
	echo
	echo "Patch: $(patch_size "$here/musl-1.2.3.patch")."
} >>"$results"
cat "$results"
