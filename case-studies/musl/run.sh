#!/bin/bash
# SPDX-License-Identifier: MIT
# musl 1.2.3 with lock elision by Multiverse (the paper's §6.2.2, Figure 5).
#
#   case-studies/musl/run.sh [--quick | --startup CSV]
#
# Fetches Debian's musl 1.2.3 source, builds it twice into build/case-studies/musl/
# (baseline: gcc-12; multiversed: our patch, built with multiverse-gcc, with
# the Multiverse runtime put into its libc.a and libc.so), and twice more
# with Clang (base-clang: clang-19; multiverse-clang: multiverse-clang),
# runs check.c against all four, statically and dynamically linked, and
# measures bench.c: instructions per call (callgrind) and interleaved
# wall-clock time.  --quick stops after the checks.  The same four builds
# for AArch64 (suffix -aarch64; the cross compilers and wrappers) run
# check.c, and with --startup or the full run the empty program's start-up
# under callgrind, in the arm64 guest of the test suite (tests/qemu/).  Without it, a third build, "padded"
# (the same patch, its call sites of multiversed functions padded to
# $MUSL_INLINE_SIZE bytes, so that commit may copy variants into them),
# is checked and measured too, with the size of each build and what
# commit made of each call site.  Results: results.md beside this script.
# --startup CSV measures only the start-up of an empty program
# (instructions, callgrind), base against multiverse, static and dynamic,
# for each compiler and architecture, into CSV
# (link,base,multiverse,compiler,arch; bench/run.sh uses it).  It builds
# only those eight C libraries, and reuses each from an earlier --startup
# run that built it from files of the same contents.
name=musl
. "$(dirname "$0")/../common.sh"
here=$repo/case-studies/musl
quick=0
[ "${1:-}" = --quick ] && quick=1
startup=
if [ "${1:-}" = --startup ]; then
	[ -n "${2:-}" ] || die "--startup needs the CSV file to write"
	startup=$(realpath -m "$2")
fi
reps=${MUSL_REPS:-9}            # interleaved repetitions for wall-clock time
calls=${MUSL_CALLS:-10000000}   # calls per measurement, as in the paper
pad=${MUSL_INLINE_SIZE:-16}     # bytes per padded call site, call included

# The plugin, and the Multiverse runtime for a C library's own libc
# (docs/libc.md), built against musl 1.2.3's headers: Debian's musl-tools,
# the same release as the source below.
"$repo/make.sh" all musl-libc aarch64 >/dev/null
"$repo/tests/qemu/setup.sh"
[ $quick = 1 ] || need_packages valgrind bc
rt=$(find "$repo"/build/musl-libc/runtime -name "*.o" | sort)
# What the guest gets (libraries, programs), at its physical path: the
# guest has it there, and the dynamic programs name their libc.so in it.
guest=$(realpath -m "$work/guest-aarch64")

source_of musl 1.2.3-1 "$work/src"

# precommit file: a multiversed libc.so or static program starts with
# its locks elided (docs/precommit.md), as a commit at load would leave it.
# AArch64 builds are precommitted in the guest (guest_run), by the
# arm64 build of the tool.
precommit() {
	"$repo/build/multiverse-precommit" --switch __libc.threaded "$1" ||
		die "multiverse-precommit failed on $1"
}

# build variant cc patch [libcc objects [cflags]]: configure, make, install
# into $work/variant-inst.  syslibdir too, so that nothing is installed
# outside.
build() {
	local v=$1 cc=$2 patch=$3 extra=${4:-} cflags=${5:-}
	say "building the $v C library"
	patched_copy "$work/src" "$work/$v" "$patch"
	(cd "$work/$v" &&
	 ./configure --prefix="$work/$v-inst" --syslibdir="$work/$v-inst/lib" \
		CC="$cc" ${extra:+LIBCC="$extra -lgcc"} ${cflags:+CFLAGS="$cflags"} \
		>"$work/$v.log" 2>&1 &&
	 make -j2 >>"$work/$v.log" 2>&1 &&
	 { [ -z "$extra" ] || aarch64 $v || precommit lib/libc.so; } &&
	 { [ -z "$extra" ] || ar rcs lib/libc.a $extra; } &&
	 make install >>"$work/$v.log" 2>&1 &&
	 specs "$work/$v-inst") || die "building $v failed: see $work/$v.log"
}
aarch64() { case $1 in *-aarch64) return 0 ;; esac; return 1; }
# specs inst: musl installs musl-gcc.specs, through which gcc-12 links
# programs against it, only when built by GCC; a Clang build gets it here
# (our programs are built by gcc-12 against every C library).
specs() {
	[ -f "$1/lib/musl-gcc.specs" ] ||
		sh tools/musl-gcc.specs.sh "$1/include" "$1/lib" "$1/lib/libc.so" >"$1/lib/musl-gcc.specs"
}
# With --startup, a C library built by an earlier --startup from files of
# the same contents is reused: reusable variant file... says whether it
# was, stamp variant file... records it.  Contents, not dates: make.sh
# compiles the runtime's objects anew every run.
digest() { cat "$@" | sha256sum | cut -d " " -f 1; }
reusable() {
	local v=$1
	shift
	[ -n "$startup" ] && [ -f "$work/$v-inst/lib/libc.a" ] &&
		[ "$(cat "$work/$v-inst/inputs" 2>/dev/null)" = "$(digest "$@")" ]
}
# Every build records its inputs: a later --startup must not take a
# library that a run without it built from other files for one of its own.
stamp() {
	local v=$1
	shift
	digest "$@" >"$work/$v-inst/inputs"
}
# base_and_multiverse suffix compiler plugin wrapper: the base build by
# compiler and the multiversed one by the plugin's wrapper.  The runtime
# goes into libc.so through LIBCC, which musl links last, and into libc.a
# with ar.
base_and_multiverse() {
	local suffix=$1 cc plugin=$3 wrapper=$4 objects=$rt tool=$repo/build/multiverse-precommit
	cc=$(command -v "$2") || die "$2 is not installed"
	# what the compiler is: the clang-aarch64 script, and clang-19 itself
	local compiler=("$cc")
	[ "$cc" != "$work/clang-aarch64" ] || compiler+=("$(command -v clang-19)")
	reusable base$suffix "${compiler[@]}" ||
		{ build base$suffix "$cc" ""; stamp base$suffix "${compiler[@]}"; }
	if aarch64 "$suffix"; then
		objects=$(aarch64_runtime "$work/base$suffix-inst")
		tool=$repo/build/aarch64/multiverse-precommit
	fi
	local from=("${compiler[@]}" "$here/musl-1.2.3.patch" "$plugin" "$tool" $objects)
	reusable multiverse$suffix "${from[@]}" || {
		build multiverse$suffix "$wrapper" "$here/musl-1.2.3.patch" "$(echo $objects)"
		stamp multiverse$suffix "${from[@]}"
	}
}
# aarch64_runtime inst: the runtime's objects for an AArch64 musl, built
# against the headers of the base AArch64 build at inst (musl-tools has
# x86-64's only) and the cross kernel headers; their names.
aarch64_runtime() {
	make -s -C "$repo" CC=aarch64-linux-gnu-gcc-12 B=build/aarch64 \
		MUSL_SPECS="$1/lib/musl-gcc.specs" KERNEL_HEADERS=/usr/aarch64-linux-gnu/include \
		musl-libc >&2 || die "cannot build the runtime for AArch64 musl"
	find "$repo"/build/aarch64/musl-libc/runtime -name "*.o" | sort
}
# Clang for AArch64 is clang-19 with a target: a command of its own for
# musl's configure, and for the digests.
printf '#!/bin/sh\nexec clang-19 --target=aarch64-linux-gnu "$@"\n' >"$work/clang-aarch64"
chmod +x "$work/clang-aarch64"
base_and_multiverse "" gcc-12 "$repo/build/multiverse.so" "$repo/build/multiverse-gcc"
base_and_multiverse -clang clang-19 "$repo/build/multiverse-clang.so" "$repo/build/multiverse-clang"
base_and_multiverse -aarch64 aarch64-linux-gnu-gcc-12 "$repo/build/aarch64/multiverse.so" \
	"$repo/build/aarch64-linux-gnu-multiverse-gcc"
base_and_multiverse -clang-aarch64 "$work/clang-aarch64" "$repo/build/multiverse-clang.so" \
	"$repo/build/aarch64-linux-gnu-multiverse-clang"

# program variant link src out: src built against that C library (for
# AArch64, into the guest's folder, where the dynamic one finds its
# libc.so).
program() {
	local v=$1 link=$2 src=$3 out=$4 flags=() lib=$work/$v-inst/lib cc=gcc-12
	if aarch64 $v; then
		lib=$guest/$v
		cc=aarch64-linux-gnu-gcc-12
		mkdir -p "$lib"
		cp "$work/$v-inst/lib/libc.so" "$lib/"
	fi
	[ $link = static ] && flags=(-static) ||
		flags=(-Wl,--dynamic-linker="$lib/libc.so" -Wl,-rpath,"$lib")
	case $v in base*) ;; *) flags+=(-DWITH_MULTIVERSE) ;; esac
	$cc -specs "$work/$v-inst/lib/musl-gcc.specs" -O2 -pthread "${flags[@]}" \
		"$src" -o "$out" || die "cannot build $src against the $v C library"
	case $v-$link in base*|*-dynamic|*-aarch64-static) ;; *) precommit "$out" ;; esac
}

# guest_run what: one boot of the arm64 guest, which precommits the
# multiversed AArch64 builds' libc.so and static programs, then runs
# check.c against each AArch64 build (what=check: the same output as
# here, and the variants of __lock), or counts the empty programs'
# instructions (what=count: "program count" lines on stdout).
guest_run() {
	local what=$1 v link prefix=check
	[ $what = check ] || prefix=empty
	rm -rf "$guest"
	mkdir -p "$guest"
	for v in base-aarch64 multiverse-aarch64 base-clang-aarch64 multiverse-clang-aarch64; do
		for link in static dynamic; do
			if [ $what = check ]; then
				program $v $link "$here/check.c" "$guest/check-$v-$link"
			else
				program $v $link "$work/empty.c" "$guest/empty-$v-$link"
			fi
		done
	done
	cp "$repo/build/aarch64/multiverse-precommit" "$guest/"
	[ $what = check ] || "$repo/tests/qemu/valgrind.sh" "$guest"
	local dir
	dir=$(cd "$guest" && pwd -P)
	cat >"$guest/run.sh" <<-EOF
	set -e
	cd "$dir"
	for f in multiverse-aarch64/libc.so multiverse-clang-aarch64/libc.so \\
		 $prefix-multiverse-aarch64-static $prefix-multiverse-clang-aarch64-static; do
		./multiverse-precommit --switch __libc.threaded \$f
	done
	export VALGRIND_LIB="$dir/valgrind/lib"
	for p in $prefix-*; do
		if [ $what = check ]; then
			./\$p >/tmp/out 2>/tmp/err || { echo "\$p failed:"; cat /tmp/err; exit 1; }
			echo "\$p \$(md5sum </tmp/out)"
			sed "s/^/\$p: /" /tmp/err
		else
			echo "\$p \$("$dir/valgrind/valgrind.bin" --tool=callgrind --smc-check=all \\
				--callgrind-out-file=/dev/null ./\$p 2>&1 >/dev/null |
				sed -n 's/.*Collected : \\([0-9]*\\).*/\\1/p')"
		fi
	done
	EOF
	"$repo/tests/qemu/run.sh" "$guest" sh "$dir/run.sh" >"$work/guest-$what.out" 2>&1 ||
		die "the arm64 guest failed: $(tail -n 20 "$work/guest-$what.out")"
}

# check variant...: check.c against base and these builds, static and
# dynamic, with the same results.
check() {
	local link v
	say "running check.c"
	for link in static dynamic; do
		for v in base "$@"; do
			program $v $link "$here/check.c" "$work/check-$v-$link"
			"$work/check-$v-$link" >"$work/check-$v-$link.out" 2>"$work/check-$v-$link.err" ||
				die "check.c failed against the $v C library, $link: $(cat "$work/check-$v-$link.err")"
			cmp -s "$work/check-base-$link.out" "$work/check-$v-$link.out" ||
				die "check.c printed different results for the base and $v builds ($link)"
			case $v in base) ;; *) sed "s/^/  $v, $link: /" "$work/check-$v-$link.err" >&2 ;; esac
		done
	done
	say "check.c passed against base and $*, static and dynamic"
}

# check_aarch64: check.c against the four AArch64 builds, static and
# dynamic, in the guest, with the same output as the base build's here.
check_aarch64() {
	local want p sum n=0
	say "running check.c in the arm64 guest"
	guest_run check
	want=$(md5sum <"$work/check-base-static.out" | cut -d " " -f 1)
	while read -r p sum _; do
		[ "$sum" = "$want" ] || die "check.c printed different results against $p (AArch64)"
		n=$((n + 1))
	done < <(grep -E '^check-[a-z0-9-]+ [0-9a-f]{32}' "$work/guest-check.out")
	[ $n = 8 ] || die "check.c ran $n times of 8 in the arm64 guest: $(tail -n 20 "$work/guest-check.out")"
	grep -E '^check-multiverse[a-z0-9-]*: ' "$work/guest-check.out" | sed 's/^check-/  /' >&2
	say "check.c passed against the four AArch64 builds, static and dynamic"
}

# aarch64_startup: the AArch64 builds' empty programs counted in the
# guest, as measure_startup's rows.
aarch64_startup() {
	local suffix link v n counts
	printf 'int main(void) { return 0; }\n' >"$work/empty.c"
	guest_run count >&2     # its output is the rows alone
	for suffix in -aarch64 -clang-aarch64; do
		for link in static dynamic; do
			counts=$link
			for v in base$suffix multiverse$suffix; do
				n=$(sed -n "s/^empty-$v-$link \([0-9][0-9]*\)\r*$/\1/p" "$work/guest-count.out")
				[ -n "$n" ] || die "callgrind counted nothing in the guest for the $v C library's empty program ($link): $(tail -n 20 "$work/guest-count.out")"
				counts=$counts,$n
			done
			echo "$counts,$([ $suffix = -aarch64 ] && echo gcc-12 || echo clang-19),AArch64"
		done
	done
}

# measure_startup: what --startup measures (the full run measures it too,
# below, for the table of results.md).
measure_startup() {
	local link v n counts
	printf 'int main(void) { return 0; }\n' >"$work/empty.c"
	echo "link,base,multiverse,compiler,arch" >"$startup.tmp"
	for suffix in "" -clang; do
		for link in static dynamic; do
			counts=$link
			for v in base$suffix multiverse$suffix; do
				program $v $link "$work/empty.c" "$work/empty-$v-$link"
				n=$(instructions "$work/empty-$v-$link")
				[ -n "$n" ] || die "callgrind counted nothing for the $v C library's empty program ($link)"
				counts=$counts,$n
			done
			echo "$counts,$([ -z "$suffix" ] && echo gcc-12 || echo clang-19),x86-64" >>"$startup.tmp"
		done
	done
	aarch64_startup >>"$startup.tmp"
	mv "$startup.tmp" "$startup"
	cat "$startup"
}
if [ -n "$startup" ]; then
	measure_startup
	exit 0
fi
check multiverse base-clang multiverse-clang
check_aarch64
[ $quick = 1 ] && exit 0

# The padded build: every call site of a multiversed function gets $pad
# bytes (the plugin's inline-size), and the compile report says which
# variants commit can copy (padded-report.txt).
rm -f "$work/padded-report.txt"
build padded "$repo/build/multiverse-gcc" "$here/musl-1.2.3.patch" "$(echo $rt)" \
	"-fplugin-arg-multiverse-inline-size=$pad -fplugin-arg-multiverse-report=$work/padded-report.txt"
check padded
builds="base multiverse padded"

for v in $builds base-clang multiverse-clang; do
	program $v static "$here/bench.c" "$work/bench-$v"
done

# instructions per call: of $calls calls, less those of none
per_call() {
	local all none
	all=$(instructions "$@" 1000000)
	none=$(instructions "$@" 0)
	echo "scale=2; ($all - $none) / 1000000" | bc
}

# start-up: a program that does nothing; the multiversed C library,
# precommitted, commits nothing before main
printf 'int main(void) { return 0; }\n' >"$work/empty.c"
for v in $builds base-clang multiverse-clang; do
	program $v static "$work/empty.c" "$work/empty-$v-static"
	program $v dynamic "$work/empty.c" "$work/empty-$v-dynamic"
done

# what commit made of the call sites of each multiversed function, in the
# whole libc.so (sites.c): "| build | function | sites | padding | ... |"
sites() {
	local v=$1
	gcc-12 -specs "$work/$v-inst/lib/musl-gcc.specs" -O2 -I"$repo/include" -DMULTIVERSE_LINK_RUNTIME \
		-Wl,--dynamic-linker="$work/$v-inst/lib/libc.so" -Wl,-rpath,"$work/$v-inst/lib" \
		"$here/sites.c" -o "$work/sites-$v" || die "cannot build sites.c against the $v C library"
	"$work/sites-$v" | while read -r fn n padding call inlined copied skipped; do
		echo "| $v | $fn | $n | $padding | $call | $inlined | $copied | $skipped |"
	done
}

aarch64_startup >"$work/aarch64-startup.csv"

# text bytes: of the members of libc.a together, of libc.so
text() { size -t "$@" | tail -n 1 | cut -f 1 | tr -d ' '; }

results=$here/results.md
{
	echo "Measured by case-studies/musl/run.sh on $(date -u +%Y-%m-%d), $(nproc) CPUs,"
	echo "static programs, $calls calls per run, $reps interleaved runs;"
	echo "padded: call sites of multiversed functions padded to $pad bytes."
	echo
	echo "| function | threads | instructions/call base | multiverse | change | padded | change | ns/call base min / median | multiverse min / median | change (median) | padded min / median | change (median) |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$results"
for fn in random malloc0 malloc1 fputc; do
	for mode in st mt; do
		ib=$(per_call "$work/bench-base" $fn $mode)
		im=$(per_call "$work/bench-multiverse" $fn $mode)
		ip=$(per_call "$work/bench-padded" $fn $mode)
		run() { "$work/bench-$1" $fn $mode "$calls"; }
		label=$fn; [ $fn = malloc0 ] && label="malloc(0)+free"; [ $fn = malloc1 ] && label="malloc(1)+free"
		echo "| $label | $([ $mode = st ] && echo 1 || echo 2) | $ib | $im | $(change "$ib" "$im") | $ip | $(change "$ib" "$ip") | $(interleaved3 "$reps" run) |" >>"$results"
		# fputc alone, in MiB/s of the medians, as the paper gives it
		[ $fn$mode = fputcst ] && for v in $builds; do
			read -r -a t <<<"$(min_median "$work/t-$v")"
			printf -v mibs_$v '%.0f' "$(echo "1000000000 / ${t[1]} / 1048576" | bc -l)"
		done
	done
done
{
	echo
	echo "| start-up of an empty program | instructions base | multiverse | padded |"
	echo "|---|---|---|---|"
	for link in static dynamic; do
		echo "| $link | $(instructions "$work/empty-base-$link") | $(instructions "$work/empty-multiverse-$link") | $(instructions "$work/empty-padded-$link") |"
	done
	echo
	echo "AArch64, start-up of an empty program (instructions, callgrind in the arm64 guest):"
	echo
	echo "| link | compiler | base | multiverse | change |"
	echo "|---|---|---|---|---|"
	while IFS=, read -r link b m compiler _; do
		echo "| $link | $compiler | $b | $m | $((m - b)) |"
	done <"$work/aarch64-startup.csv"
	echo
	echo "Built by Clang (clang-19; multiverse-clang), instructions:"
	echo
	echo "| | base | multiverse | change |"
	echo "|---|---|---|---|"
	for link in static dynamic; do
		b=$(instructions "$work/empty-base-clang-$link")
		m=$(instructions "$work/empty-multiverse-clang-$link")
		echo "| start-up of an empty program, $link | $b | $m | $((m - b)) |"
	done
	for fn in random malloc0; do
		b=$(per_call "$work/bench-base-clang" $fn st)
		m=$(per_call "$work/bench-multiverse-clang" $fn st)
		echo "| $([ $fn = random ] && echo "random()" || echo "malloc(0)+free"), 1 thread, per call | $b | $m | $(change "$b" "$m") |"
	done
	echo
	echo "| text bytes | base | multiverse | padded |"
	echo "|---|---|---|---|"
	for lib in libc.a libc.so; do
		echo "| $lib |$(for v in $builds; do printf ' %s |' "$(text "$work/$v-inst/lib/$lib")"; done)"
	done
	echo "| of which the Multiverse runtime | 0 | $(text $rt) | same |"
	echo
	echo "| build | function | call sites in libc.so | bytes of padding | calls to a variant | body in the call | copied into the padding | skipped |"
	echo "|---|---|---|---|---|---|---|---|"
	sites multiverse
	sites padded
	echo
	echo "Compile report of the padded build (\`-fplugin-arg-multiverse-report\`), its variants:"
	echo
	echo '```'
	sed -n 's/^src\/\([^ ]*\): multiverse: /\1 /p' "$work/padded-report.txt" | grep variant | sort
	echo '```'
	echo
	echo "Patch: $(patch_size "$here/musl-1.2.3.patch")."
	echo
	echo "fputc, one thread, median: $mibs_base MiB/s base, $mibs_multiverse multiverse, $mibs_padded padded."
	cat <<-'EOF'

	Instructions (callgrind) are the figures to compare: on a shared
	machine the wall-clock columns are noisy.

	The paper's Figure 5 (musl 1.1.20, one thread) has malloc(1) -54%,
	random() -43%, and fputc from 124 to 264 MiB/s.  Musl 1.2.3 does much
	of that itself: a FILE's lock is -1 (no locking) until the first
	thread is created, so fputc takes no lock in either build and our
	patch does not touch it (+0.00%); mallocng takes its lock only if
	libc.need_locks.  What remains to multiverse is __lock and __unlock
	(115 call sites in libc.so, among them random()'s and malloc's and
	free's), and libc.threaded in malloc and free themselves.

	The padded column: the same patch, compiled with
	-fplugin-arg-multiverse-inline-size=N, so that every call site of a
	multiversed function outside its own unit is N bytes, call included.
	It gains nothing in musl: commit has nothing to copy into the padding,
	as the compile report above says.  The variants of __lock and __unlock
	for libc.threaded == 0 are empty: one instruction (a NOP) holds them,
	which commit puts in the call itself, padded or not ("body in the
	call"), so the padding still runs as NOPs before it: one instruction
	more per call for N = 16 (11 bytes of NOPs), three for N = 32.  Their
	variants for libc.threaded == 1 hold asm statements (musl's atomics):
	those sites are bound by a call, with a jump over the padding, again
	one instruction more than an unpadded call.  malloc and free make
	calls, and have no recorded call sites anyway (the program calls them
	through undecorated declarations).  So padded = multiverse + 1
	instruction per __lock or __unlock executed with N = 16 (random():
	+2; malloc + free: +1 with one thread, +2 with two); with N = 32,
	random() with one thread is +6 (45.06).  The text grows by ~1.3 KB for
	N = 16 (~3.1 KB for N = 32), and the padded regions make the start-up
	commit dearer (mv_poke_areas_changed).

	Start-up: the multiverse build's libc.so and static programs are
	precommitted (docs/precommit.md): they start with the variants for
	libc.threaded == 0 in place, and nothing is committed before main; what
	is left over the base is registering the module; the same for the
	padded build, whose padding keeps its NOPs.  With the
	multiverse build, a static program's malloc(0)+free runs 293.89
	instructions precommitted and 306.24 with a commit at the start of main:
	that commit's tables take memory from the same allocator.
	EOF
} >>"$results"
cat "$results"
