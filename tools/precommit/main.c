/* SPDX-License-Identifier: MIT */
/*
 * multiverse-precommit: commits a linked program or shared object at
 * build time, so that it starts as a commit at load would leave it and
 * nothing is committed when it starts (docs/precommit.md).
 *
 *   multiverse-precommit [--switch NAME]... [--dry-run] [--verbose] FILE [-o OUT]
 *
 * It maps FILE's segments into this process (relocated for an address of
 * its own, as a dynamic linker would with no symbols to look up),
 * registers its records with the runtime it is linked with, and commits
 * them: every function, or those that read the switches named.  Of what
 * that commit wrote, it keeps what the runtime can tell again from the
 * file alone: each committed function's entry, and each of its sites that
 * was the compiler's direct call or jump to it and now holds what commit
 * writes there (inlined or a direct branch).  The records say so
 * (MV_FN_PRECOMMITTED, MV_SITE_PRECOMMITTED); everything else keeps its
 * bytes, and reaches the variant through the entry.  Before writing OUT,
 * it loads the result into a fresh process of its own and checks that
 * the runtime takes every precommitted function and site for committed,
 * that the same commit again changes none of them, and that a revert
 * gives back the file's original text, byte for byte.
 *
 * Example, musl's C library, committed for one thread:
 *
 *   multiverse-precommit --switch __libc.threaded lib/libc.so
 *
 * The switches take the values FILE gives them (its data; zero in .bss).
 * FILE must carry the runtime that will read it (a static program, or a
 * library built with the runtime inside): a runtime of another version
 * might not know precommitted records.  Exit status: 0, or 1 with a
 * message on standard error, FILE unchanged.
 */
#include "precommit.h"

const char *prog = "multiverse-precommit";
const char *path;
int verbose;

void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", prog, path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void commit(char **switches, int n)
{
	int err = 0;

	if (!n)
		err = multiverse_commit();
	for (int i = 0; i < n && err >= 0; i++)
		err = multiverse_commit_refs(switch_named(switches[i]));
	if (err < 0)
		fail("commit failed: %s", multiverse_last_error());
}

/* The first byte of the executable segments that differs from ref's,
 * or 0 if none: *at is its address. */
static int text_differs(const uint8_t *ref, uint64_t *at)
{
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		for (uint64_t o = 0; o < ph[i].p_filesz; o++)
			if (base[ph[i].p_vaddr + o] != ref[ph[i].p_offset + o]) {
				*at = ph[i].p_vaddr + o;
				return 1;
			}
	}
	return 0;
}

/*
 * The check before the output replaces anything: this program again, in
 * a fresh process (--check), loads the output as the file was loaded and
 * asks its runtime what it finds.  Every precommitted function must read
 * as committed to its variant, none of its sites left alone; the same
 * commit as the precommit's must then write nothing, as a commit at
 * load would have left nothing to do; and a revert must give back the
 * original file's text, byte for byte.
 */
static int check(const char *original, char **switches, int n_switches)
{
	size_t size;
	uint8_t *orig = read_whole(original, &size);
	uint64_t at;

	if (size != file_size)
		fail("check: %s is not as large as the output", original);
	for (const struct mv_desc_fn *f = mod.fn; f < mod.fn_end; f++) {
		const void *body = mv_desc_fn_precommitted_body(f);
		const struct mv_info_fn *info;

		if (!body)
			continue;
		info = multiverse_info_fn(mv_desc_fn_generic(f));
		if (!info || !info->committed || info->n_sites_skipped || info->active != body)
			fail("check: %s does not read as committed to variant %d",
			     mv_desc_fn_name(f), mv_desc_fn_precommitted(f));
	}
	/* a commit at load would have found what precommit kept committed
	 * already (the rest, calls left to reach variants through the
	 * entries, it writes) */
	commit(switches, n_switches);
	for (const struct mv_desc_fn *f = mod.fn; f < mod.fn_end; f++) {
		const uint8_t *entry = mv_desc_fn_entry(f);
		const void *body = mv_desc_fn_precommitted_body(f);

		if (!body)
			continue;
		if (memcmp(entry, out_at(vaddr_of(entry), MV_ARCH_ENTRY_LEN), MV_ARCH_ENTRY_LEN) ||
		    multiverse_info_fn(mv_desc_fn_generic(f))->active != body)
			fail("check: committing it again changed %s", mv_desc_fn_name(f));
	}
	for (const struct mv_desc_site *st = mod.site; st < mod.site_end; st++) {
		const uint8_t *a = mv_desc_site_addr(st);

		if (st->flags & MV_SITE_PRECOMMITTED &&
		    memcmp(a, out_at(vaddr_of(a), MV_ARCH_SITE_MIN), MV_ARCH_SITE_MIN))
			fail("check: committing it again changed the call site at %#lx",
			     (unsigned long)vaddr_of(a));
	}
	if (multiverse_revert() < 0)
		fail("check: revert failed: %s", multiverse_last_error());
	if (text_differs(orig, &at))
		fail("check: after a revert, the byte at %#lx is %02x, not as in %s",
		     (unsigned long)at, base[at], original);
	return 0;
}

/* The switches the check commits, as the precommit did. */
static char **check_switches;
static int n_check_switches;

/* Runs check() on tmp, in a fresh process of this program. */
static int checked(const char *tmp)
{
	pid_t pid;
	int status;

	fflush(stderr);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (!pid) {
		/* --check ORIGINAL OUTPUT [SWITCH...] */
		char **argv = calloc(n_check_switches + 5, sizeof *argv);

		if (argv) {
			argv[0] = (char *)prog;
			argv[1] = "--check";
			argv[2] = (char *)path;
			argv[3] = (char *)tmp;
			memcpy(argv + 4, check_switches, n_check_switches * sizeof *argv);
			execv("/proc/self/exe", argv);
		}
		_exit(127);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status);
}

/* The file being written, removed if a signal ends this process. */
static char *tmp;

static void remove_tmp(int sig)
{
	if (tmp)
		unlink(tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A file beside dst (a dry run's: in $TMPDIR), open for writing. */
static int create_tmp(const char *dst, int dry_run)
{
	const char *dir = getenv("TMPDIR");
	const char *stem = dry_run ? (dir && *dir ? dir : "/tmp") : dst;
	const char *tail = dry_run ? "/multiverse-precommit-XXXXXX" : ".precommit-XXXXXX";
	size_t a = strlen(stem), b = strlen(tail);
	int fd;

	tmp = malloc(a + b + 1);
	if (!tmp)
		fail("out of memory");
	memcpy(tmp, stem, a);
	memcpy(tmp + a, tail, b + 1);
	signal(SIGINT, remove_tmp);
	signal(SIGTERM, remove_tmp);
	signal(SIGHUP, remove_tmp);
	fd = mkstemp(tmp);
	if (fd < 0)
		fail("cannot create a file beside %s: %s", dst, strerror(errno));
	return fd;
}

static void drop_tmp(void)
{
	unlink(tmp);
	free(tmp);
	tmp = 0;
}

/* Writes out to output (NULL: the file itself; a symbolic link's
 * target) through a file beside it, synced, with the input's mode and,
 * as far as this process may, owner; it must pass check() first if
 * verify says so.  Extended attributes are not kept. */
static void write_output(const char *output, int dry_run, int verify)
{
	char *dst = realpath(output ? output : path, 0);
	struct stat st;
	int fd;

	if (!dst && output && errno == ENOENT)
		dst = strdup(output);
	if (!dst)
		fail("%s: %s", output ? output : path, strerror(errno));
	fd = create_tmp(dst, dry_run);
	if (!stat(path, &st)) {
		if (fchown(fd, st.st_uid, st.st_gid))
			(void)0;        /* another owner's file: ours is as good */
		fchmod(fd, st.st_mode & 07777);
	}
	for (size_t done = 0; done < file_size;) {
		ssize_t n = write(fd, out + done, file_size - done);
		if (n <= 0) {
			drop_tmp();
			fail("write %s: %s", dst, n ? strerror(errno) : "nothing written");
		}
		done += n;
	}
	if (fsync(fd) || close(fd)) {
		drop_tmp();
		fail("write %s: %s", dst, strerror(errno));
	}
	if (verify && !checked(tmp)) {
		drop_tmp();
		fail("the precommitted file did not pass its check (above); %s is unchanged", dst);
	}
	if (dry_run) {
		drop_tmp();
		return;
	}
	if (rename(tmp, dst)) {
		drop_tmp();
		fail("rename to %s: %s", dst, strerror(errno));
	}
	free(tmp);
	tmp = 0;
	free(dst);
}

static void load(void)
{
	map_file();
	relocate();
	protect();
	register_records();
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [--switch NAME]... [--dry-run] [--verbose] FILE [-o OUT]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	char **switches = calloc(argc, sizeof *switches);
	const char *output = 0;
	int n_switches = 0, dry_run = 0;

	if (argc >= 4 && !strcmp(argv[1], "--check")) {
		path = argv[3];
		read_file();
		out = file;             /* the output, to compare with */
		load();
		return check(argv[2], argv + 4, argc - 4);
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--switch") && i + 1 < argc)
			switches[n_switches++] = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			output = argv[++i];
		else if (!strcmp(argv[i], "--dry-run") || !strcmp(argv[i], "-n"))
			dry_run = 1;
		else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v"))
			verbose = 1;
		else if (argv[i][0] == '-' || path)
			usage();
		else
			path = argv[i];
	}
	if (!path)
		usage();
	read_file();
	if (!find_section(MV_SECTION_FN)) {
		if (n_switches)
			fail("has no multiversed function, so no switch %s to commit", switches[0]);
		if (verbose)
			fprintf(stderr, "%s: %s: no multiversed function: nothing to precommit\n", prog, path);
		out = file;
		if (output && !dry_run)
			write_output(output, 0, 0);
		return 0;
	}
	if (precommitted_already()) {
		fprintf(stderr, "%s: %s: already precommitted; left as it is (precommit the file "
			"as linked to commit something else)\n", prog, path);
		out = file;
		if (output && !dry_run)
			write_output(output, 0, 0);
		return 0;
	}
	if (!defines("__multiverse_reads_precommitted"))
		fail("does not carry a runtime that reads precommitted records (no such symbol: "
		     "__multiverse_reads_precommitted); precommit only a program or library "
		     "that links the runtime in, and before stripping it");
	/* a shared object's registration, reached through a relocation,
	 * may reach another module's runtime, which might not read what
	 * this one does */
	if (relocated_against("__multiverse_register_module"))
		fail("calls __multiverse_register_module through a dynamic relocation: its "
		     "records would go to whichever runtime the dynamic linker finds first, "
		     "perhaps one that does not read precommitted records; link it with "
		     "-Wl,-Bsymbolic-functions, or keep the runtime's symbols inside it");
	load();
	commit(switches, n_switches);
	precommit();
	check_switches = switches;
	n_check_switches = n_switches;
	write_output(output, dry_run, 1);
	if (verbose || dry_run)
		fprintf(stderr, "%s: %s: %u functions precommitted, %u of their %u sites%s\n",
			prog, path, n_fns, n_sites, n_sites_all, dry_run ? " (dry run: nothing written)" : "");
	return 0;
}
