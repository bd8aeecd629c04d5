/*
 * Linux user space: writing our own text, reading memory that may be gone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "platform.h"

/*
 * The primary way to write text is pwrite() to /proc/self/mem: the kernel
 * updates our private copy of the page without the mapping ever becoming
 * writable, so no page is writable and executable at any time.  The file
 * is opened once per process; after fork() it is reopened, because the
 * inherited descriptor still refers to the parent's memory.  A failed open
 * is remembered (as -errno) and not retried in the same process.
 */
static int mem_fd = -1;
static pid_t mem_pid;

static int mem_open(void)
{
	pid_t pid = getpid();

	if (mem_pid == pid)
		return mem_fd;
	if (mem_fd >= 0)
		close(mem_fd);
	mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (mem_fd < 0)
		mem_fd = -errno;
	mem_pid = pid;
	return mem_fd;
}

static int write_proc_mem(void *dst, const void *src, size_t len)
{
	int fd = mem_open();
	ssize_t n;

	if (fd < 0)
		return fd;
	n = pwrite(fd, src, len, (off_t)(uintptr_t)dst);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EIO;
}

/*
 * The fallback makes the pages writable for the moment of the copy.  They
 * are writable and executable meanwhile, and they are returned to r-x, the
 * protection text has.  It weakens W^X for an instant and is not thread
 * safe: another thread changing the protection of these pages races with
 * us.  Failing to restore r-x is reported, yet the bytes are written.
 */
static int write_mprotect(void *dst, const void *src, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)dst & -page;
	uintptr_t hi = ((uintptr_t)dst + len + page - 1) & -page;

	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	memcpy(dst, src, len);
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC))
		mv_report("text at %p left writable: mprotect: %s", dst, strerror(errno));
	return 0;
}

/* Patching runs with the runtime lock held and the process otherwise
 * untouched, so a batch needs no more than the /proc/self/mem handle. */
void mv_text_begin(void)
{
	mem_open();
}

void mv_text_end(void)
{
}

int mv_text_write(void *dst, const void *src, size_t len)
{
	int err = write_proc_mem(dst, src, len), err2;

	if (err && (err2 = write_mprotect(dst, src, len)))
		return mv_error(err2, "cannot write code at %p: /proc/self/mem: %s; mprotect: %s",
				dst, strerror(-err), strerror(-err2));
	__builtin___clear_cache((char *)dst, (char *)dst + len);
	return 0;
}

/* Without process_vm_readv (seccomp, old kernels) we trust the address. */
int mv_mem_read(void *dst, const void *src, size_t len)
{
	struct iovec to = { dst, len }, from = { (void *)src, len };
	ssize_t n = process_vm_readv(getpid(), &to, 1, &from, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && errno != EFAULT) {
		memcpy(dst, src, len);
		return 0;
	}
	return -EFAULT;
}
