/* SPDX-License-Identifier: MIT */
/*
 * Assembler text both front ends put into x86-64 switch stubs, where it
 * must match what runtime/arch/x86_64.c decodes (mv_arch_trampoline).
 */
#ifndef MULTIVERSE_STUB_X86_64_H
#define MULTIVERSE_STUB_X86_64_H

/* The end of a stub under user-space retpolines, once it has loaded the
 * switch's value into r11: a jmp rel32 (a jump to r11 the runtime knows)
 * to a retpoline of the stub's own, since the compiler emits its thunks
 * only for the calls it compiles itself. */
#define MV_X86_RETPOLINE_R11 \
	"\t.byte\t0xe9\n\t.long\t1f - . - 4\n" \
	"1:\tcall\t3f\n2:\tpause\n\tlfence\n\tjmp\t2b\n" \
	"3:\tmovq\t%r11, (%rsp)\n\tret\n"

#endif
