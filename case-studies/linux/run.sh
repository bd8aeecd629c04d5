#!/bin/bash
# SPDX-License-Identifier: MIT
# The paper's kernel case studies (§6.1, Figures 1 and 4) on Linux 6.1:
# lock elision in spinlocks (spinlock.patch), and the PV-ops for
# interrupts off and on as function-pointer switches (paravirt-irq.patch).
#
#   case-studies/linux/run.sh [--quick]
#
# Builds, from Debian's linux-source-6.1 with the patch series of linux/
# and both patches, the kernels of the studies in build/case-studies/linux/
# (one source tree, an O= folder each; configurations in config/, all
# with Xen PV guest support as Debian's, for CONFIG_PARAVIRT_XXL):
#   mainline     SMP, the lock word taken atomically on one CPU too; the
#                interrupt operations paravirt patch sites
#   plain-if     a plain store on one CPU, chosen by a test in every lock
#   multiverse   the same, chosen by Multiverse, committed at boot and on
#                CPU hotplug; and the interrupt operations Multiverse
#                function-pointer switches, committed at boot
#   up           CONFIG_SMP=n
#   no-paravirt  CONFIG_PARAVIRT=n: cli and sti inlined
# and mvspin.ko against each.  It checks the multiversed kernel in 1- and
# 2-CPU guests (guest.sh check), then measures every kernel: instructions
# per lock + unlock pair and per interrupts off + on pair under qemu
# -icount shift=0, the call sites and the time to bind them, the variants'
# code beside the other builds', and the images' sizes.  --quick builds
# the multiversed kernel, with the kernel suite's functions in it
# (config/selftest.config: make test runs tests/kernel/check.sh in it),
# and runs the checks only.  Results: results.md
# beside this script.
name=linux
. "$(dirname "$0")/../common.sh"
here=$repo/case-studies/linux
quick=0
[ "${1:-}" = --quick ] && quick=1
if [ "$(uname -m)" != x86_64 ]; then
	say "the kernel case study runs on x86-64 only; skipped"
	exit 0
fi

"$repo/make.sh" all >/dev/null
need_packages linux-source-6.1 flex bison bc libelf-dev libssl-dev cpio xz-utils patch \
	qemu-system-x86 busybox-static

kernels="multiverse" extra_config=$here/config/selftest.config
[ $quick = 1 ] || kernels="mainline plain-if multiverse up no-paravirt" extra_config=

guest=$work/guest
rm -rf "$guest"
mkdir -p "$guest"
cp "$here/guest.sh" "$repo/tests/kernel/checks.sh" "$guest/"
for k in $kernels; do
	say "building the $k kernel"
	"$repo/linux/build.sh" --src "$work/src" --obj "$work/$k" \
		--patch "$here/spinlock.patch" --patch "$here/paravirt-irq.patch" \
		--config "$here/config/common.config" \
		--config "$here/config/$k.config" ${extra_config:+--config "$extra_config"} \
		>"$work/$k.log" 2>&1 ||
		die "building the $k kernel failed: see $work/$k.log"
	grep "built in" "$work/$k.log" >&2
	mkdir -p "$guest/mvspin/$k"
	cp "$here/mvspin/mvspin.c" "$here/mvspin/Kbuild" "$guest/mvspin/$k/"
	make -s -C "$work/$k" M="$guest/mvspin/$k" CC=gcc-12 HOSTCC=gcc-12 HOSTCXX=g++-12 \
		modules >"$work/$k-mvspin.log" 2>&1 ||
		die "mvspin.ko does not build against the $k kernel: see $work/$k-mvspin.log"
done

# boot kernel cpus [icount] command...: guest.sh in the kernel
boot() {
	local k=$1 cpus=$2 icount=$3
	shift 3
	MV_KERNEL_IMAGE=$work/$k/arch/x86/boot/bzImage MV_KERNEL_CPUS=$cpus \
		MV_KERNEL_ICOUNT=$icount "$repo/tests/kernel/run.sh" "$guest" "$@"
}

say "checking the multiversed kernel"
. "$repo/tests/kernel/tally.sh"
passed=0 failed=0
rm -f "$work"/check-[12].status
check_boot() { # cpus
	local status=0
	boot multiverse $1 0 ./guest.sh check multiverse >"$work/check-$1.log" 2>&1 || status=$?
	echo $status >"$work/check-$1.status"
}
both_boots check_boot
for cpus in 1 2; do
	tally "linux case study" $cpus "$(cat "$work/check-$cpus.status" 2>/dev/null || echo 1)" "$work/check-$cpus.log"
done
echo "linux case study: $passed passed, $failed failed"
[ "$failed" = 0 ] || exit 1
[ $quick = 0 ] || exit 0

# ---- measurements ----
# Each kernel in a 1-CPU guest under -icount shift=0, where guest
# nanoseconds are instructions: in one-CPU mode, and with possible_cpus=2
# in SMP mode (qemu 7.2 stalls with -icount on two CPUs).  CONFIG_SMP=n
# has one mode.  tsc=reliable keeps the TSC the clock with two possible
# CPUs (without it the kernel falls back to jiffies).
say "measuring (a few seconds per boot)"
for k in $kernels; do
	MV_KERNEL_APPEND=tsc=reliable boot $k 1 1 ./guest.sh bench $k \
		>"$work/bench-$k-1.log" 2>&1 ||
		die "the $k kernel's benchmark failed: see $work/bench-$k-1.log"
	[ $k = up ] && continue
	MV_KERNEL_APPEND="tsc=reliable possible_cpus=2" boot $k 1 1 ./guest.sh bench $k \
		>"$work/bench-$k-2.log" 2>&1 ||
		die "the $k kernel's benchmark in SMP mode failed: see $work/bench-$k-2.log"
	grep -q "^bench: 2 CPU(s) possible" "$work/bench-$k-2.log" ||
		die "the $k kernel had not 2 possible CPUs with possible_cpus=2: see $work/bench-$k-2.log"
done

# value kernel mode name field: a bench line's min or median
value() {
	local f=$work/bench-$1-$2.log
	[ -f "$f" ] || { echo "–"; return; }
	sed -n "s/^bench: $3 min \([0-9.]*\) median \([0-9.]*\)$/\1 \2/p" "$f" |
		awk -v field="$4" '{ print field == "min" ? $1 : $2; n++ } END { if (!n) print "–" }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "–" && b != "–" && b > 0) printf "%.2f", a / b; else print "–" }'; }

# the code of a function, without addresses, from objdump; a module's
# relocations name their symbols
code() { # vmlinux-or-module symbol
	objdump -dr --no-show-raw-insn "$1" 2>/dev/null |
		awk -v s="<$2>:" '$2 == s { on = 1; next } on && NF == 0 { exit }
			on && / R_X86_64_/ { sub(/[-+]0x[0-9a-f]+$/, "", $NF); prev = prev "  # " $NF; next }
			on { if (prev != "") print prev; prev = $0 } END { if (prev != "") print prev }' |
		sed 's/^ *[0-9a-f]*:\t//; s/ *#[^#]*  #/  #/; s/ *# [0-9a-f]* <[^>]*>$//; s/[0-9a-f]\{8,\} </</' | tr -s ' '
}

mv=$work/multiverse
sites=$(sed -n 's/^sites: \([0-9]*\) call sites of \([0-9]*\) lock functions, \([0-9]*\).*/\1 \2 \3/p' \
	"$work/bench-multiverse-1.log")
read -r nsites nfuncs nmodule <<<"$sites"
# the boot commit's line: "spinlock: MODE mode with 1 CPU(s) online, set in N ns"
boot_ns() { sed -n 's/^spinlock: .* set in \([0-9]*\) ns$/\1/p' "$work/bench-multiverse-$1.log" | head -n 1; }
per_site() { awk -v t="$1" -v n="$2" 'BEGIN { printf "%.0f", t / n }'; }
kib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1024 }'; }
size_of() { stat -c %s "$work/$1/arch/x86/boot/bzImage"; }
addr() { local a; a=$(awk -v s="$2" '$3 == s { print $1 }' "$work/$1/System.map"); echo $((16#${a:-0})); }
size_col() { size "$work/$1/vmlinux" | awk -v c="$2" 'NR == 2 { print $c }'; }
mvsec_of() { # the descriptor sections' bytes
	local s=0 n
	for n in var fn site version; do
		s=$((s + $(addr $1 __stop___multiverse_$n) - $(addr $1 __start___multiverse_$n)))
	done
	echo $s
}
# table op: a bench line's min, median and min's ratio to mainline's, for
# each kernel in both modes
table() {
	local k m row
	echo "| Kernel | one CPU: min | median | ratio | SMP: min | median | ratio |"
	echo "|---|---|---|---|---|---|---|"
	for k in $kernels; do
		row="| $(label $k)"
		for m in 1 2; do
			row="$row | $(value $k $m "$1" min) | $(value $k $m "$1" median) | $(ratio "$(value $k $m "$1" min)" "$(value mainline $m "$1" min)")"
		done
		echo "$row |"
	done
	echo
}
label() { case $1 in mainline) echo "mainline (SMP)" ;; plain-if) echo "plain \`if\`" ;;
	multiverse) echo "Multiverse" ;; up) echo "\`CONFIG_SMP=n\`" ;;
	no-paravirt) echo "\`CONFIG_PARAVIRT=n\`" ;; esac; }

{
	echo "# Linux 6.1 spinlocks: results"
	echo
	echo "Measured by \`case-studies/linux/run.sh\` on $(date -u +%Y-%m-%d), $(nproc) CPUs of"
	echo "$(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -n 1), with"
	echo "$(qemu-system-x86_64 --version | head -n 1) (TCG, \`-icount shift=0\`: one"
	echo "nanosecond of guest time per instruction). Linux $(make -s -C "$work/src" kernelversion),"
	echo "configurations in \`config/\`."
	echo
	echo "## Instructions per lock + unlock pair"
	echo
	echo "mvspin.ko's bench: 51 runs of 1,000 pairs on one uncontended lock with"
	echo "interrupts off, the empty loop subtracted; min and median of the runs,"
	echo "and the min's ratio to mainline's. *one CPU*: a 1-CPU guest; *SMP*:"
	echo "the same guest with \`possible_cpus=2\`, so that the kernel runs in SMP"
	echo "mode (qemu stalls with \`-icount\` on two CPUs; an uncontended lock"
	echo "runs the same instructions with one CPU online or two). With one CPU"
	echo "present, x86's SMP alternatives run every kernel's \`lock\`-prefixed"
	echo "instructions without the prefix: the listings below show the bytes on"
	echo "disk. The multiversed kernel also has the PV-ops switches, whose calls"
	echo "the \`_irqsave\` rows include (interrupts are off around these loops, so"
	echo "\`irqrestore\` does not turn them on: one call per pair)."
	echo
	for op in "spin_lock+spin_unlock" "spin_lock_irqsave+spin_unlock_irqrestore"; do
		echo "\`$op\`:"
		echo
		table "$op"
	done
	op=local_irq_disable+local_irq_enable
	echo "## Instructions per interrupts off + on pair (PV-ops)"
	echo
	echo "\`$op\` in the same guests, timed with interrupts on (the"
	echo "min leaves out runs that a timer interrupt hit). Mainline's calls"
	echo "are paravirt patch sites, which the kernel turns into \`cli\` and \`sti\`"
	echo "at boot; the multiversed kernel's are calls through the switches,"
	echo "which its boot commit turns into direct calls of"
	echo "\`pv_native_irq_disable\` and \`pv_native_irq_enable\`."
	echo
	table "$op"
	pv=$(sed -n 's/^pv sites: \([0-9]*\) call sites.*, \([0-9]*\) of them in mvspin$/\1 \2/p' "$work/bench-multiverse-1.log")
	read -r npv npvmod <<<"$pv"
	echo "Call sites through the two switches: $((npv - npvmod)) in vmlinux, $npvmod in mvspin.ko."
	echo
	echo "## Call sites and binding them"
	echo
	echo "- $nsites call sites of the $nfuncs lock functions: $((nsites - nmodule)) in vmlinux, $nmodule in"
	echo "  mvspin.ko (bound when it is loaded). The paper: 1,161 sites, in a"
	echo "  distribution's configuration; this one is tinyconfig's."
	for m in 1 2; do
		t=$(boot_ns $m)
		[ -n "$t" ] || continue
		echo "- the boot commit to $([ $m = 1 ] && echo one-CPU || echo SMP) mode, from \`start_kernel()\` (one CPU,"
		echo "  no scheduler yet: \`text_poke_early()\`): $t instructions,"
		echo "  $(per_site "$t" "$((nsites - nmodule))") per site."
	done
	for m in 1 2; do
		read -r revert commit <<<"$(sed -n 's/^bind: revert_refs \([0-9]*\) commit_refs \([0-9]*\)$/\1 \2/p' \
			"$work/bench-multiverse-$m.log")"
		[ -n "$commit" ] || continue
		echo "- in $([ $m = 1 ] && echo one-CPU || echo SMP) mode, later (min of 5):"
		echo "  \`multiverse_revert_refs(&spinlock_smp)\` $revert instructions, $(per_site "$revert" "$nsites") per site;"
		echo "  \`multiverse_commit_refs(&spinlock_smp)\` $commit, $(per_site "$commit" "$nsites") per site."
	done
	echo "- the paper: 16 ms for 1,161 sites, 13.8 µs per site."
	echo
	echo "## The variants' code"
	echo
	echo "The multiversed kernel's variants beside what the other kernels run"
	echo "(objdump, addresses dropped)."
	echo
	for pair in "multiverse _raw_spin_lock.multiverse.1|mainline _raw_spin_lock" \
		    "multiverse _raw_spin_lock.multiverse.0|up-module mvspin_lock" \
		    "multiverse _raw_spin_unlock|up-module mvspin_unlock" \
		    "multiverse pv_native_irq_disable|no-paravirt-module mvspin_irqs_off_then_on"; do
		for side in "${pair%%|*}" "${pair##*|}"; do
			read -r k f <<<"$side"
			case $k in
			*-module) obj=$guest/mvspin/${k%-module}/mvspin.ko
				  what="$(label ${k%-module}): \`$f\` in mvspin.ko" ;;
			*) obj=$work/$k/vmlinux; what="$(label $k): \`$f\`" ;;
			esac
			echo "$what:"
			echo '```'
			code "$obj" "$f"
			echo '```'
		done
	done
	echo
	echo "## Size"
	echo
	echo "\`size vmlinux\`'s text (code and read-only data) and data, the"
	echo "descriptor records among the data, and the compressed image (xz):"
	echo
	echo "| Kernel | vmlinux text, KiB | data, KiB | descriptors, KiB | bzImage, KiB |"
	echo "|---|---|---|---|---|"
	for k in $kernels; do
		echo "| $(label $k) | $(kib "$(size_col $k 1)") | $(kib "$(size_col $k 2)") | $(kib "$(mvsec_of $k)") | $(kib "$(size_of $k)") |"
	done
	echo
	echo "The paper: 40 KiB more in a compressed image of about 10 MiB."
} >"$here/results.md"
say "results: $here/results.md"
