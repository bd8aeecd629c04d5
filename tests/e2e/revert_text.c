/* Revert restores the text byte for byte: the executable segments in
 * memory are compared with the executable file on disk before commit,
 * after commit (they must differ) and after revert (equal again). */
#define _GNU_SOURCE
#include <link.h>
#include <fcntl.h>
#include <unistd.h>
#include "check.h"

__attribute__((multiverse)) int sw;
__attribute__((multiverse)) int (*fp)(int);
static int twice(int x) { return 2 * x; }

__attribute__((multiverse)) int f(int x) { return sw ? x * 3 : x - 1; }
__attribute__((multiverse)) void empty(void) { if (sw) __asm__ volatile("nop"); }
__attribute__((noinline)) int use(int x) { empty(); return f(x) + fp(x); }
__attribute__((noinline)) int tail(int x) { return f(x); }

static long diffs;

static int compare_segments(struct dl_phdr_info *info, size_t size, void *file)
{
	(void)size;
	if (info->dlpi_name[0])         /* the executable comes first, unnamed */
		return 1;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		const unsigned char *mem = (const void *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *disk = (const unsigned char *)file + ph->p_offset;
		for (size_t j = 0; j < ph->p_filesz; j++)
			diffs += mem[j] != disk[j];
	}
	return 1;
}

static long text_diffs(void *file)
{
	diffs = 0;
	dl_iterate_phdr(compare_segments, file);
	return diffs;
}

int main(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	CHECK(fd >= 0);
	static unsigned char file[16 << 20];
	ssize_t n = read(fd, file, sizeof(file));
	CHECK(n > 0 && n < (ssize_t)sizeof(file));
	close(fd);

	fp = twice;
	CHECK_EQ(text_diffs(file), 0);
	sw = 1;
	CHECK_EQ(use(1) + tail(1), 3 + 2 + 3);
	CHECK(multiverse_commit() >= 2);
	CHECK_EQ(use(1) + tail(1), 3 + 2 + 3);
	CHECK(text_diffs(file) > 0);
	sw = 0;
	CHECK(multiverse_commit() >= 1);
	CHECK(text_diffs(file) > 0);
	CHECK(multiverse_revert() >= 2);
	CHECK_EQ(text_diffs(file), 0);
	CHECK_EQ(use(1) + tail(1), 0 + 2 + 0);

	/* Partial reverts, then a full one, also end pristine. */
	CHECK(multiverse_commit() >= 2);
	CHECK_EQ(multiverse_revert_fn(f), 1);
	CHECK(text_diffs(file) > 0);
	CHECK_EQ(multiverse_revert_refs(&fp), 1);
	CHECK(multiverse_revert() >= 1);
	CHECK_EQ(text_diffs(file), 0);
	CHECK_DONE();
}
