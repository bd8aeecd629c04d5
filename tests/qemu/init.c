/* SPDX-License-Identifier: MIT */
/*
 * PID 1 of the test guests: the AArch64 one booted by tests/qemu/run.sh,
 * and the multiversed x86-64 kernel booted by tests/kernel/run.sh.
 *
 * The initramfs holds this program as /init, busybox, the aarch64 glibc and
 * the test directory.  run.sh adds /.mv-job/argv: NUL-separated strings
 *
 *     MARKER \0 CWD \0 ARGV0 \0 ARGV1 \0 ...
 *
 * We set up a minimal system, run ARGV with CWD as working directory and
 * stdout/stderr on the serial console, then print "MARKER<status>@@" so the
 * host can recover the exit status from the console stream, and power off.
 * MARKER carries a per-run random nonce, so a test that happens to print
 * something marker-like cannot fake its own exit status.
 *
 * Built statically (PID 1 must not depend on the dynamic loader it is
 * supposed to provide to the tests): by setup.sh with
 * aarch64-linux-gnu-gcc-12, by tests/kernel/run.sh with gcc-12.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define JOB_FILE "/.mv-job/argv"

/* Status reported when init itself cannot run the job (as "docker run" and
 * "git bisect run" do, 125 means "could not even try"). */
#define EXIT_SETUP_FAILED 125

static const char *marker = "@@GUEST_EXIT=";

static void warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dprintf(2, "init: ");
    vdprintf(2, fmt, ap);
    dprintf(2, "\n");
    va_end(ap);
}

/* Print the exit marker and switch the machine off.  The status is also
 * what run.sh exits with.  Never returns: PID 1 exiting would panic the
 * kernel, which run.sh would report as a crash rather than a status. */
static void finish(int status)
{
    dprintf(1, "%s%d@@\n", marker, status);
    tcdrain(1); /* the marker must leave the UART before power goes off */
    sync();
#ifdef __x86_64__
    /* The kernel suite's x86-64 kernel has no ACPI to power off with: a
     * reset, which qemu's -no-reboot turns into its exit. */
    reboot(RB_AUTOBOOT);
#else
    reboot(RB_POWER_OFF);
#endif
    for (;;)
        pause();
}

static void mount_or_warn(const char *src, const char *dst, const char *type,
                          const char *opts)
{
    mkdir(dst, 0755);
    if (mount(src, dst, type, 0, opts) != 0)
        warn("mount %s on %s: %s", type, dst, strerror(errno));
}

/* Console on fds 1 and 2, /dev/null on 0.  Tests must not block on input. */
static void setup_stdio(void)
{
    int con = open("/dev/console", O_RDWR | O_NOCTTY);
    if (con >= 0) {
        dup2(con, 1);
        dup2(con, 2);
        if (con > 2)
            close(con);
    }
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0) {
        dup2(nul, 0);
        if (nul > 0)
            close(nul);
    }
    /* The tty layer would turn every "\n" into "\r\n"; switch output
     * post-processing off so the host sees the bytes the test wrote. */
    struct termios t;
    if (tcgetattr(1, &t) == 0) {
        t.c_oflag &= ~OPOST;
        tcsetattr(1, TCSANOW, &t);
    }
}

static void setup_filesystems(void)
{
    /* devtmpfs first: until it is mounted there is no /dev/console to
     * report errors on (the initramfs carries no device nodes, so that
     * building it needs no mknod privileges). */
    mkdir("/dev", 0755);
    if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) != 0) {
        /* fall back to hand-made nodes so that at least the console works */
        mknod("/dev/console", S_IFCHR | 0600, makedev(5, 1));
        mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3));
    }
    setup_stdio();

    mount_or_warn("proc", "/proc", "proc", NULL);
    mount_or_warn("sysfs", "/sys", "sysfs", NULL);
    /* where the kernel has one (tests/kernel/: /sys/kernel/debug/multiverse) */
    if (access("/sys/kernel/debug", F_OK) == 0)
        mount_or_warn("debugfs", "/sys/kernel/debug", "debugfs", NULL);
    /* POSIX shared memory and named semaphores live in /dev/shm */
    mount_or_warn("tmpfs", "/dev/shm", "tmpfs", "mode=1777");
    /* devtmpfs has no /dev/fd or /dev/std*; bash process substitution and
     * some test scripts use them */
    symlink("/proc/self/fd", "/dev/fd");
    symlink("/proc/self/fd/0", "/dev/stdin");
    symlink("/proc/self/fd/1", "/dev/stdout");
    symlink("/proc/self/fd/2", "/dev/stderr");

    /* /tmp deliberately is NOT a separate tmpfs: the root file system is
     * already a writable tmpfs (the unpacked initramfs), and mounting over
     * /tmp would hide a test directory that lives under /tmp on the host
     * (run.sh places it at the same absolute path). */
    chmod("/tmp", 01777);
}

/* The tests patch code through /proc/self/mem.  The kernel always lets a
 * process access its own mem file (ptrace_may_access() short-cuts the same
 * thread group before Yama is consulted, and Debian's kernel is built with
 * PROC_MEM_ALWAYS_FORCE, so writes to read-only text work), but tests that
 * inspect or patch a *child* process go through the Yama ptrace scope.
 * Use the classic permissive setting so that those behave as on a usual
 * Debian host. */
static void relax_ptrace_scope(void)
{
    const char *path = "/proc/sys/kernel/yama/ptrace_scope";
    int fd = open(path, O_RDWR);
    if (fd < 0)
        return; /* no Yama: nothing restricts ptrace beyond the usual rules */
    char c = 0;
    if (read(fd, &c, 1) == 1 && c != '0') {
        if (pwrite(fd, "0", 1, 0) != 1)
            warn("cannot set %s to 0 (is %c): %s", path, c, strerror(errno));
    }
    close(fd);
}

/* The patching tests need two threads on two CPUs at once. */
static void check_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 2)
        warn("WARNING: only %ld CPU(s) online; tests that need concurrent "
             "threads on 2 CPUs will not exercise that",
             n);
}

/* Reads JOB_FILE into a static buffer and splits it into argv[]. */
static char **read_job(int *argc_out)
{
    static char buf[1 << 20];
    static char *argv[8192];
    int fd = open(JOB_FILE, O_RDONLY);
    if (fd < 0) {
        warn("open %s: %s", JOB_FILE, strerror(errno));
        return NULL;
    }
    size_t n = 0;
    ssize_t r;
    while (n < sizeof buf - 1 && (r = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    buf[n] = '\0';

    int argc = 0;
    for (char *p = buf; p < buf + n && argc < (int)(sizeof argv / sizeof *argv) - 1;
         p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    *argc_out = argc;
    return argv;
}

/* A clean, predictable environment (the kernel hands init whatever
 * unrecognised words were on its command line). */
static void setup_environment(void)
{
    clearenv();
    setenv("PATH", "/bin:/sbin:/usr/bin", 1);
    setenv("HOME", "/tmp", 1);
    setenv("TMPDIR", "/tmp", 1);
    setenv("TERM", "dumb", 1);
    setenv("LC_ALL", "C", 1);
}

int main(void)
{
    setup_filesystems();
    relax_ptrace_scope();
    check_cpus();
    setup_environment();

    int argc;
    char **job = read_job(&argc);
    if (!job || argc < 3) {
        warn("malformed job file %s", JOB_FILE);
        finish(EXIT_SETUP_FAILED);
    }
    marker = job[0];
    const char *cwd = job[1];
    char **argv = job + 2;

    pid_t pid = fork();
    if (pid < 0) {
        warn("fork: %s", strerror(errno));
        finish(EXIT_SETUP_FAILED);
    }
    if (pid == 0) {
        if (chdir(cwd) != 0) {
            warn("chdir %s: %s", cwd, strerror(errno));
            _exit(EXIT_SETUP_FAILED);
        }
        execvp(argv[0], argv);
        warn("exec %s: %s", argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126); /* as the shell does */
    }

    /* As PID 1 we also inherit every orphan; reap them all until the job
     * itself ends.  Background processes it left behind die with the VM. */
    for (;;) {
        int st;
        pid_t w = wait(&st);
        if (w == pid)
            finish(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        if (w < 0 && errno != EINTR) {
            warn("wait: %s", strerror(errno));
            finish(EXIT_SETUP_FAILED);
        }
    }
}
