/* SPDX-License-Identifier: MIT */
/*
 * The tests' seccomp filters: each starts with FILTER_SYSCALL_NR, which
 * kills a process calling with another ABI (int 0x80, AArch32), whose
 * numbers could bypass a filter written for ours, and loads the system
 * call's number; install_seccomp() installs the filter for the caller,
 * or with every_thread for all threads of the process.
 */
#ifndef LIVE_SECCOMP_H
#define LIVE_SECCOMP_H

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define OUR_AUDIT_ARCH AUDIT_ARCH_X86_64
#else
#define OUR_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define FILTER_SYSCALL_NR \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)), \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, OUR_AUDIT_ARCH, 1, 0), \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS), \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

/* 0, or a negative errno value. */
static inline int install_seccomp(struct sock_filter *f, unsigned short n, int every_thread)
{
	struct sock_fprog prog = { n, f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		       every_thread ? SECCOMP_FILTER_FLAG_TSYNC : 0, &prog) ? -errno : 0;
}

#endif
