/* SPDX-License-Identifier: MIT */
/*
 * Linux user space: writing our own text, synchronizing the other threads,
 * reading memory that may be gone.  The breakpoint trap is in
 * trap.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/membarrier.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "linux-user.h"

/*
 * Text is written with pwrite() to /proc/thread-self/mem: the kernel updates our
 * private copy of the page while the mapping stays read-only and
 * executable, so no page is ever writable and executable, and seccomp or
 * SELinux rules against such mappings do not get in the way.  There is
 * deliberately no mprotect() fallback: it would need exactly such a
 * mapping.  The file is open only while a batch writes: a descriptor
 * kept between batches could be closed by the program (closefrom(),
 * close_range() in a daemon) and its number reused for one of the
 * program's files, into which the next batch would write code; and
 * programs that list their descriptors (CPython's test_subprocess) would
 * find ours.  For the same reason it is never 0, 1 or 2, which a program
 * that closed them would write to.  A failure to open it (say, EMFILE
 * while the process is briefly out of descriptors) fails that batch only.
 */
static int mem_fd = -1;
static pid_t mem_pid;

int mv_text_ready(void)
{
	const char *path = "/proc/thread-self/mem";
	pid_t pid = getpid();
	int fd;

	if (mem_fd >= 0 && mem_pid == pid)
		return 0;
	/* /proc/self is the main thread, which has no memory left once it
	 * returned through pthread_exit(); the file of the calling thread
	 * keeps the process's memory for as long as it is open. */
	fd = mv_fault(MV_FAULT_OPEN) ? (errno = EMFILE, -1) :
		open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)  /* before Linux 3.17 */
		fd = open(path = "/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (fd >= 0 && fd <= 2) {
		/* The program had closed standard input, output or error.
		 * The descriptor must not take their place: the program's
		 * next write(1, ...) would write into its own memory. */
		int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		int saved = errno;
		close(fd);
		fd = high, errno = saved;
	}
	if (fd < 0)
		return mv_error(-errno, "cannot write code: %s: %s; multiverse never "
				"makes code writable; nothing was written", path,
				strerror(errno));
	if (mem_fd >= 0)
		close(mem_fd);  /* inherited across fork(): the parent's memory */
	mem_fd = fd;
	mem_pid = pid;
	return 0;
}

void mv_text_done(void)
{
	if (mem_fd >= 0 && mem_pid == getpid())
		close(mem_fd);
	mem_fd = -1;
}

/* Writes code that no thread runs yet (gate.c), opening the file for this
 * write alone unless a batch has it open. */
int mv_text_write_new(void *dst, const void *src, size_t len)
{
	int opened = !(mem_fd >= 0 && mem_pid == getpid());
	int err = mv_text_ready();

	if (!err)
		err = mv_text_write(dst, src, len);
	if (opened)
		mv_text_done();
	return err;
}

int mv_text_write(void *dst, const void *src, size_t len)
{
	ssize_t n;

	if (mv_fault(MV_FAULT_WRITE))
		return mv_error(-EIO, "cannot write code at %p: injected fault", dst);
	n = pwrite(mem_fd, src, len, (off_t)(uintptr_t)dst);
	if (n == (ssize_t)len) {
		/* The kernel cleans and invalidates the caches for the page
		 * it wrote through its own mapping; doing it again for ours
		 * (DC CVAU, IC IVAU on AArch64; nothing on x86) costs little
		 * and does not depend on that. */
		__builtin___clear_cache((char *)dst, (char *)dst + len);
		return 0;
	}
	return mv_error(n < 0 ? -errno : -EIO, "cannot write code at %p: "
			"/proc/thread-self/mem: %s", dst, n < 0 ? strerror(errno) : "short write");
}

/* Reads a whole small /proc file into buf (NUL-terminated); 0 if it is
 * gone or empty.  No lock, no allocation: usable with threads parked. */
static int read_proc(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return 1;
}

int mv_linux_task_file(const char *tid, const char *name, char *buf, size_t size)
{
	char path[300];

	snprintf(path, sizeof path, "/proc/self/task/%s/%s", tid, name);
	return read_proc(path, buf, size);
}

/* The fields of /proc/self/task/TID/stat after the name, which may hold
 * anything but ends at the last ')': the state is the third field of the
 * line, the blocked signals the 32nd, the caught ones the 34th. */
int mv_linux_task_stat(const char *tid, char *state, unsigned long *blocked,
		       unsigned long *caught)
{
	char buf[1024], *p;

	if (!mv_linux_task_file(tid, "stat", buf, sizeof buf) || !(p = strrchr(buf, ')')) ||
	    p[1] != ' ')
		return 0;
	p += 2;
	*state = *p;
	for (int field = 3; field < 32; field++) {
		p = strchr(p, ' ');
		if (!p)
			return 0;
		p++;
	}
	*blocked = strtoul(p, &p, 10);
	if (caught) {           /* after the ignored signals */
		*caught = 0;
		if (*p == ' ' && (p = strchr(p + 1, ' ')))
			*caught = strtoul(p + 1, NULL, 10);
	}
	return 1;
}

long mv_linux_thread_count(void)
{
	char buf[2048], *t;

	if (!read_proc("/proc/self/status", buf, sizeof buf))
		return -1;
	t = strstr(buf, "\nThreads:");
	return t ? strtol(t + 9, NULL, 10) : -1;
}

/* Whether a debugger (or any tracer) is attached: TracerPid in
 * /proc/self/status; unknown counts as attached. */
int mv_linux_traced(void)
{
	char buf[2048], *t;

	if (!read_proc("/proc/self/status", buf, sizeof buf))
		return 1;
	t = strstr(buf, "\nTracerPid:");
	return !t || strtol(t + 11, NULL, 10) != 0;
}

/* A record of getdents64(), which the C libraries do not all declare. */
struct task_entry {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* Whether other threads exist, asked once per batch: a second entry in
 * /proc/self/task.  Listing it costs a fraction of formatting
 * /proc/self/status, and allocates nothing.  Unknown counts as company:
 * the safe path. */
int mv_other_threads(void)
{
	uint64_t buf[128];      /* '.', '..' and two threads, many times over */
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), tasks = 0;
	long len = -1;

	if (fd < 0)
		return 1;
	while (tasks < 2 && (len = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
		for (long off = 0; off < len && tasks < 2;) {
			const struct task_entry *e = (const void *)((char *)buf + off);

			tasks += e->name[0] != '.';
			off += e->reclen;
		}
	close(fd);
	return len < 0 || tasks != 1;
}

/*
 * membarrier(PRIVATE_EXPEDITED_SYNC_CORE) interrupts every CPU running one
 * of our threads and has it execute a core-serializing instruction before
 * it returns to user space; threads not running serialize when they are
 * next scheduled.  Where only PRIVATE_EXPEDITED exists, the same holds on
 * x86, whose return from the interrupt (iret) serializes, and on AArch64,
 * whose exception return (eret) is a context synchronization event.  Without either,
 * there is no way to be sure another thread does not run stale bytes, and
 * patching with other threads present is refused.
 */
static int sync_cmd;          /* 0: not set up (yet) */

static long membarrier(int cmd)
{
	return syscall(SYS_membarrier, cmd, 0, 0);
}

/* A failure is not remembered: a seccomp filter or a kernel may refuse
 * now, and the next batch asks again.  Once set up, each later batch
 * synchronizes once before it writes anything (the first registers, which
 * the same filter would refuse): a filter installed since
 * the last batch (servers enter their sandbox after start-up) would
 * otherwise fail the batch's first sync, with breakpoints in the text
 * that only a sync can take out again. */
int mv_cpu_sync_ready(void)
{
	long have;

	if (sync_cmd > 0) {
		if (!membarrier(sync_cmd))
			return 0;
		return mv_error(-errno, "no safe way to patch code while other "
				"threads run: membarrier() fails now (%s; a seccomp "
				"filter may deny it); nothing was written",
				strerror(errno));
	}
	have = membarrier(MEMBARRIER_CMD_QUERY);
	if (have > 0 && (have & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) &&
	    !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE))
		sync_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE;
	else if (have > 0 && (have & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		 !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		sync_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	else
		return mv_error(have < 0 ? -errno : -ENOSYS, "no safe way to patch "
				"code while other threads run: membarrier() is not "
				"available; nothing was written");
	return 0;
}

int mv_cpu_sync(void)
{
	if (mv_fault(MV_FAULT_SYNC))
		return mv_error(-EPERM, "membarrier: injected fault");
	if (membarrier(sync_cmd))
		return mv_error(-errno, "membarrier: %s", strerror(errno));
	return 0;
}

/*
 * Reading descriptors' addresses: almost always the text of a loaded
 * object.  The readable segments of every object are cached (refreshed
 * before the tables read new descriptors, and after an unload) and read
 * with memcpy; anything else goes through process_vm_readv(), which fails
 * cleanly on unmapped memory.  Without it (seccomp, old kernels) we trust
 * the address.
 */
static struct mv_span *readable;
static size_t n_readable, cap_readable;

static int add_readable(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
			continue;
		if (n_readable == cap_readable) {
			size_t cap = cap_readable ? 2 * cap_readable : 64;
			struct mv_span *r = realloc(readable, cap * sizeof *r);
			if (!r)
				return 1;
			readable = r;
			cap_readable = cap;
		}
		readable[n_readable++] = (struct mv_span){ lo, lo + ph->p_memsz };
	}
	return 0;
}

/* Set by mv_mem_forget(): the cache may list a module that is gone.
 * It is rebuilt at the next read, not in the module's destructor, where
 * the module is still listed and, at exit, nothing reads again. */
static int forgotten;

void mv_mem_refresh(void)
{
	n_readable = 0;
	forgotten = 0;
	dl_iterate_phdr(add_readable, NULL);
}

void mv_mem_forget(void)
{
	forgotten = 1;
}

/* Reads come in runs from one segment (a module's sites, in address
 * order): the segment of the last hit is tried first. */
static int is_readable(const void *src, size_t len)
{
	static size_t last;
	uintptr_t a = (uintptr_t)src;

	if (last < n_readable && a >= readable[last].lo && a + len <= readable[last].hi)
		return 1;
	for (size_t i = 0; i < n_readable; i++)
		if (a >= readable[i].lo && a + len <= readable[i].hi) {
			last = i;
			return 1;
		}
	return 0;
}

int mv_mem_read(void *dst, const void *src, size_t len)
{
	struct iovec to = { dst, len }, from = { (void *)src, len };
	ssize_t n;

	if (forgotten)
		mv_mem_refresh();
	if (is_readable(src, len)) {
		memcpy(dst, src, len);
		return 0;
	}
	n = process_vm_readv(getpid(), &to, 1, &from, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && errno != EFAULT) {
		memcpy(dst, src, len);
		return 0;
	}
	return -EFAULT;
}

struct span_query {
	uintptr_t inside;
	struct mv_span *spans;
	size_t max, n;
};

static int find_spans(struct dl_phdr_info *info, size_t size, void *data)
{
	struct span_query *q = data;
	size_t n = 0;
	int found = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum && n < q->max; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

		if (ph->p_type != PT_LOAD)
			continue;
		q->spans[n++] = (struct mv_span){ lo, hi };
		found |= q->inside >= lo && q->inside < hi;
	}
	if (!found)
		return 0;
	q->n = n;
	return 1;
}

/* The PT_LOAD segments of the object that maps inside, as the dynamic
 * linker reports them. */
size_t mv_module_spans(const void *inside, struct mv_span *spans, size_t max)
{
	struct span_query q = { (uintptr_t)inside, spans, max, 0 };

	dl_iterate_phdr(find_spans, &q);
	return q.n;
}
