#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The benchmark suite: `make bench` (full) or `make bench QUICK=1` (quick,
# about 5 minutes on a 2-core machine) run this.  Builds everything, runs
# every benchmark, prints the summary (tools/report.py) and writes CSV and
# PNG files to bench/results/.  See README.md for what each part measures,
# and its "Speed targets (issue 31)" for the start-up, commit, musl and
# compile-time targets measured here too.
#
#   bench/run.sh [--quick]
#
# Installs what it needs and is missing: valgrind (apt-get) for the
# instruction counts, matplotlib (pip) for the plots.  Without them the
# run goes on and says what it could not do.  No timing is ever checked
# here: the report says which targets the numbers meet.
set -euo pipefail
cd "$(dirname "$0")"
export LC_ALL=C

quick=0
[ "${1:-}" = --quick ] && quick=1
R=results
mkdir -p "$R"
rm -f "$R"/*.csv "$R"/*.png "$R"/report.txt "$R"/meta.txt

start=$SECONDS
say() { printf '\n== [%3ds] %s\n' $((SECONDS - start)) "$*"; }

# --- tools ---------------------------------------------------------------
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }
if ! command -v valgrind >/dev/null; then
	say "installing valgrind (instruction counts)"
	as_root apt-get update -qq >/dev/null 2>&1 || true
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null 2>&1 ||
		echo "could not install valgrind: instruction counts will be missing"
fi
if ! python3 -c 'import matplotlib' 2>/dev/null; then
	say "installing matplotlib (plots)"
	python3 -m pip install --quiet matplotlib >/dev/null 2>&1 ||
		echo "could not install matplotlib: plots will be missing"
fi

# --- build ---------------------------------------------------------------
say "building the toolchain and the benchmark programs"
make -s -C .. all
make -s -j"$(nproc)" programs
# The Clang column: the same micro-benchmarks built with multiverse-clang,
# when the toolchain has it (make all builds it where clang-19 is).
clang=0
if [ -x ../build/multiverse-clang ]; then
	make -s -j"$(nproc)" COMPILER=clang micro 2>/dev/null && clang=1 ||
		echo "the Clang build of the micro-benchmarks failed: no Clang column"
fi

# Pin to one CPU: no migrations in the middle of a sample.
pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then
	pin=(taskset -c "$(($(nproc) - 1))")
fi

# Each micro-benchmark program runs in several processes, cycling through
# its code layouts (see tools/aggregate.py and tools/link_order.py for
# why); each process measures all its candidates round-robin.
if [ $quick = 1 ]; then
	procs=8
	micro=(--rounds 100 --inner 1000 --cold-inner 20)
	lat=(--sites 1000,10000,100000 --functions-sweep 1,100,1000 --reps 5 --procs 3)
	lat_counts=(10000)
	size=(--quick)
	# The 1,000-function unit, which a target names, even here.
	ctime=(--reps 3 --functions 1000 --sites 2000)
else
	procs=24
	micro=(--rounds 500 --inner 1000 --cold-inner 50)
	lat=(--sites 1000,10000,100000 --functions-sweep 1,10,100,1000,10000 --reps 20 --procs 5)
	lat_counts=(10000 100000)
	size=()
	ctime=(--reps 10)
fi

{
	echo "Multiverse benchmark suite, $([ $quick = 1 ] && echo quick || echo full) run, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit $(git -C .. rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C .. diff --quiet 2>/dev/null || echo ' (with local changes)')"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cpus; $(uname -sr)"
	echo "load average at start: $(cut -d" " -f1-3 /proc/loadavg) (other processes share this machine)"
	echo "compiler: $(${CC:-gcc-12} --version | head -1)$([ $clang = 1 ] && echo "; Clang column: $(clang-19 --version | head -1)"); micro: $procs processes over 8 code layouts, each ${micro[*]}"
} >"$R/meta.txt"

# --- micro-benchmarks: cycles --------------------------------------------
say "micro-benchmarks: cycles ($procs processes x ${micro[*]})"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# GCC's and Clang's builds alternate, process by process.
builds=(build)
[ $clang = 1 ] && builds+=(build/clang)
for b in spinlock pvops tailcall probe redirect; do
	for p in $(seq "$procs"); do
		layout=$(((p - 1) % 8))   # the Makefile's LAYOUTS
		for o in "${builds[@]}"; do
			t=$tmp/${o//\//_}
			mkdir -p "$t"
			"${pin[@]}" $o/bin/$b-$layout "${micro[@]}" --samples "$t/$b.$p.samples" \
				>"$t/$b.$p.csv"
		done
	done
	for o in "${builds[@]}"; do
		t=$tmp/${o//\//_}
		python3 tools/aggregate.py "$t/$b.csv" "$t/$b.1.csv" "$t"/$b.*.samples
	done
done
# One file per compiler, one header each.
for o in "${builds[@]}"; do
	t=$tmp/${o//\//_}
	out=$R/micro.csv
	[ "$o" = build/clang ] && out=$R/micro-clang.csv
	{ head -n 1 "$t/spinlock.csv"; for b in spinlock pvops tailcall probe redirect; do tail -n +2 "$t/$b.csv"; done; } >"$out"
done

# --- micro-benchmarks: instructions --------------------------------------
say "micro-benchmarks: instructions (callgrind)"
if command -v valgrind >/dev/null; then
	for b in spinlock pvops tailcall probe redirect; do
		python3 tools/callgrind_counts.py build/bin/$b-0 --csv "$R/instructions.csv"
		[ $clang = 0 ] ||
			python3 tools/callgrind_counts.py build/clang/bin/$b-0 --csv "$R/instructions-clang.csv"
	done
else
	echo "valgrind missing: no instruction counts"
fi
if [ "$(uname -m)" = x86_64 ]; then
	say "micro-benchmarks: instructions on AArch64 (callgrind in the emulated arm64 guest)"
	tools/aarch64_counts.sh "$R/instructions-aarch64.csv" ||
		{ rm -f "$R/instructions-aarch64.csv"; echo "no AArch64 instruction counts (see above)"; }
fi

# --- commit latency, size, compile time ----------------------------------
say "commit/revert latency and start-up"
python3 tools/latency.py "${lat[@]}" --csv "$R/latency.csv"
say "start-up and commit: instructions per call site (callgrind)"
if command -v valgrind >/dev/null; then
	compilers=gcc
	[ -x ../build/multiverse-clang ] && compilers=gcc,clang
	for n in "${lat_counts[@]}"; do
		python3 tools/latency_counts.py --compilers $compilers --sites "$n" \
			--csv "$R/latency_instructions.csv" ||
			echo "no instruction counts of start-up and commit at $n sites (see above)"
	done
else
	echo "valgrind missing: no instruction counts of start-up and commit"
fi
if [ "$(uname -m)" = x86_64 ]; then
	# 10,000 sites in either mode: 100,000 would take minutes under emulation.
	say "start-up and commit: instructions per call site on AArch64 (callgrind in the arm64 guest)"
	tools/aarch64_counts.sh --latency "$R/latency_instructions-aarch64.csv" 10000 ||
		{ rm -f "$R/latency_instructions-aarch64.csv"; echo "no AArch64 start-up and commit counts (see above)"; }
fi
say "binary size"
python3 tools/size.py "${size[@]}" --csv "$R/size.csv"
say "compile time (every compiler and target there is)"
python3 tools/compile_time.py "${ctime[@]}" --csv "$R/compile_time.csv"

# --- musl start-up (issue 31) --------------------------------------------
# Builds Debian's musl eight times the first time (base and multiversed,
# GCC and Clang, x86-64 and AArch64: a few minutes), then reuses the
# builds while the compilers, the runtime and the plugins stay the same.
# The AArch64 ones are counted in the arm64 guest (tests/qemu/).
say "musl: instructions of an empty program, base against multiverse (callgrind)"
if ../case-studies/musl/run.sh --startup "$R/musl_startup.csv" >"$tmp/musl.log" 2>&1; then
	cat "$R/musl_startup.csv"
else
	rm -f "$R/musl_startup.csv"
	echo "musl start-up not measured: case-studies/musl/run.sh --startup failed" \
		"(no musl source from apt-get source, a build, or the arm64 guest?); its last lines:"
	tail -n 5 "$tmp/musl.log" | sed 's/^/  /'
fi

# --- summary and plots ---------------------------------------------------
say "summary"
python3 tools/report.py "$R" | tee "$R/report.txt"
say "plots"
status=0
python3 tools/plot.py "$R" || status=$?
if [ $status = 3 ]; then
	echo "NO PLOTS: matplotlib is not available and could not be installed; the CSV files are complete"
elif [ $status != 0 ]; then
	echo "NO PLOTS: tools/plot.py failed (status $status); the CSV files are complete"
fi
echo "results: $(cd "$R" && pwd) (suite took $((SECONDS - start)) s)"
