/* SPDX-License-Identifier: MIT */
/*
 * Appended to every program tests/fuzz/csmith.py generates.  csmith's main
 * is renamed csmith_main; this main sets up the mode named by FUZZ_MODE and
 * then runs it, so one binary serves every mode and only the switches'
 * binding differs between runs:
 *
 *   (unset)    nothing: the generic code reads the switches (or, built
 *              without the plugin, the plain program)
 *   commit     multiverse_commit() first
 *   recommit   commit, revert, commit again
 *   stale      commit, then set the switches to their other values
 *
 * FUZZ_ALT=1 first sets every switch to its other domain value, so that a
 * second variant runs too.  The generator defines FUZZ_FUNCTIONS (the
 * multiversed functions, comma-separated) and FUZZ_SET_ALT (the stores).
 * Lines on stderr starting with "fuzz:" carry the figures the harness counts;
 * an API failure or an inconsistency exits with 90-99.
 */
#include <stdlib.h>
#include <string.h>

#ifdef FUZZ_MV
static void *const fuzz_fn[] = { FUZZ_FUNCTIONS };
#define FUZZ_NFN (sizeof(fuzz_fn) / sizeof(fuzz_fn[0]))

static void fuzz_die(int code, const char *what)
{
	fprintf(stderr, "fuzz: FAIL %s: %s\n", what, multiverse_last_error());
	exit(code);
}

/* Functions with variants, and how many of those are committed. */
static void fuzz_count(unsigned *with_variants, unsigned *committed)
{
	*with_variants = *committed = 0;
	for (unsigned i = 0; i < FUZZ_NFN; i++) {
		const struct mv_info_fn *fi = multiverse_info_fn(fuzz_fn[i]);
		int c = multiverse_is_committed(fuzz_fn[i]);

		if (!fi || c < 0)
			fuzz_die(91, "not a multiversed function");
		if (fi->n_variants)
			++*with_variants;
		*committed += c;
	}
}

static void fuzz_commit(void)
{
	unsigned v, k;

	if (multiverse_commit() < 0)
		fuzz_die(92, "commit");
	fuzz_count(&v, &k);
	/* Every switch holds a value of its domain, so a function that has
	 * variants must be bound to one; anything else is a selection bug. */
	if (k != v) {
		fprintf(stderr, "fuzz: FAIL %u of %u functions with variants "
			"committed\n", k, v);
		multiverse_dump_info(stderr);
		exit(93);
	}
}
#endif

int main(int argc, char *argv[])
{
	const char *mode = getenv("FUZZ_MODE");

	if (getenv("FUZZ_ALT")) {
		FUZZ_SET_ALT
	}
	if (!mode)
		mode = "";
#ifdef FUZZ_MV
	if (!strcmp(mode, "commit") || !strcmp(mode, "recommit"))
		fuzz_commit();
	if (!strcmp(mode, "recommit")) {
		unsigned v, k;

		if (multiverse_revert() < 0)
			fuzz_die(94, "revert");
		fuzz_count(&v, &k);
		if (k) {
			fprintf(stderr, "fuzz: FAIL %u functions committed "
				"after revert\n", k);
			exit(95);
		}
		fuzz_commit();
	}
	/* Bound switches ignore writes until the next commit: when this
	 * run's output differs from the plain program's with the other
	 * values, the committed variants decided it. */
	if (!strcmp(mode, "stale")) {
		fuzz_commit();
		FUZZ_SET_ALT
	}
	{
		unsigned v, k;

		fuzz_count(&v, &k);
		fprintf(stderr, "fuzz: %u functions, %u with variants, "
			"%u committed\n", (unsigned)FUZZ_NFN, v, k);
	}
#else
	if (*mode) {
		fprintf(stderr, "fuzz: FAIL mode %s needs the plugin\n", mode);
		exit(90);
	}
#endif
	return csmith_main(argc, argv);
}
