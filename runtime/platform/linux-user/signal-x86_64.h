/* SPDX-License-Identifier: MIT */
/*
 * x86-64 Linux signal frames: which SIGTRAP an int3 raised, and the
 * registers of struct mv_cpu in the interrupted context.  Included by
 * the platform's trap handler only.
 */
#include <signal.h>
#include <ucontext.h>

/* int3 reports SI_KERNEL (TRAP_BRKPT under valgrind); kill(), raise()
 * and single steps report other codes. */
static inline int mv_arch_is_breakpoint(const siginfo_t *si)
{
	return si->si_code == SI_KERNEL || si->si_code == TRAP_BRKPT;
}

/* A signal handler installed by a raw rt_sigaction (a static program whose
 * C library gives no sigaction() under another name) must name its return
 * (SA_RESTORER) on x86-64.  These are the bytes unwinders take for a
 * signal frame's return (libgcc by the bytes; gdb also wants "sigaction"
 * in the name), and the nop before it lets them look up pc - 1. */
void mv_sigaction_restore_rt(void);
__asm__(".pushsection .text\n"
	"\tnop\n"
	"\t.globl mv_sigaction_restore_rt\n"
	"\t.hidden mv_sigaction_restore_rt\n"
	"\t.type mv_sigaction_restore_rt, @function\n"
	"mv_sigaction_restore_rt:\n"
	"\tmovq $15, %rax\n"              /* SYS_rt_sigreturn */
	"\tsyscall\n"
	"\t.size mv_sigaction_restore_rt, . - mv_sigaction_restore_rt\n"
	"\t.popsection");
#define MV_ARCH_SIGRETURN mv_sigaction_restore_rt

static inline void mv_arch_cpu_load(struct mv_cpu *cpu, const ucontext_t *uc)
{
	const greg_t *r = uc->uc_mcontext.gregs;

	cpu->ip = r[REG_RIP];
	cpu->sp = r[REG_RSP];
	cpu->ax = r[REG_RAX];
}

static inline void mv_arch_cpu_store(ucontext_t *uc, const struct mv_cpu *cpu)
{
	greg_t *r = uc->uc_mcontext.gregs;

	r[REG_RIP] = cpu->ip;
	r[REG_RSP] = cpu->sp;
	r[REG_RAX] = cpu->ax;
}
