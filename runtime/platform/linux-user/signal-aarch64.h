/* SPDX-License-Identifier: MIT */
/*
 * AArch64 Linux signal frames: which SIGTRAP a brk raised, and the
 * registers of struct mv_cpu in the interrupted context.  Included by
 * the platform's trap handler only.
 */
#include <signal.h>
#include <ucontext.h>

/* A raw rt_sigaction needs no SA_RESTORER (no MV_ARCH_SIGRETURN): without
 * one the kernel returns through the vDSO's sigreturn. */

/* brk at EL0 reports TRAP_BRKPT with the address of the brk itself. */
static inline int mv_arch_is_breakpoint(const siginfo_t *si)
{
	return si->si_code == TRAP_BRKPT;
}

static inline void mv_arch_cpu_load(struct mv_cpu *cpu, const ucontext_t *uc)
{
	cpu->ip = uc->uc_mcontext.pc;
	cpu->x0 = uc->uc_mcontext.regs[0];
	cpu->lr = uc->uc_mcontext.regs[30];
}

static inline void mv_arch_cpu_store(ucontext_t *uc, const struct mv_cpu *cpu)
{
	uc->uc_mcontext.pc = cpu->ip;
	uc->uc_mcontext.regs[0] = cpu->x0;
	uc->uc_mcontext.regs[30] = cpu->lr;
}
