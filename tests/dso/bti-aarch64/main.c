/* SPDX-License-Identifier: MIT */
/* Branch protection: under BTI an indirect branch may only land on a
 * landing pad, and a function that starts by signing its return address
 * has none but that paciasp/pacibsp.  The entry nop the plugin plants
 * must not take its place: here the library's text is mapped with BTI
 * enforced (checked in /proc/self/smaps where the CPU has BTI), and its
 * multiversed functions are reached through the PLT (br x17) and through
 * pointers (blr), before and after commit.  Without the bti c before the
 * nop, the first such call dies of SIGILL. */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include "check.h"
#include "bti.h"

#ifndef HWCAP2_BTI
#define HWCAP2_BTI (1UL << 17)
#endif
#define BTI_C 0xd503245fu

/* Whether the mapping holding p has the "bt" (PROT_BTI) flag. */
static int bti_enforced(const void *p)
{
	char line[512];
	int in = 0, bt = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		uintptr_t lo, hi;
		char sp;
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR "%c", &lo, &hi, &sp) == 3 && sp == ' ')
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && !strncmp(line, "VmFlags:", 8))
			bt = strstr(line, " bt") != NULL;
	}
	fclose(f);
	return bt;
}

/* The library's own code for name: in a non-PIE executable, &bti_a is
 * the executable's PLT entry. */
static const void *in_library(const char *name)
{
	void *lib = dlopen("libbti.so", RTLD_LAZY | RTLD_NOLOAD);
	return lib ? dlsym(lib, name) : NULL;
}

static uint32_t first_insn(const void *code)
{
	uint32_t insn = 0;
	if (code)
		memcpy(&insn, code, 4);
	return insn;
}

int main(void)
{
	int (*volatile pa)(int) = bti_a, (*volatile pb)(int) = bti_b;

	if (getauxval(AT_HWCAP2) & HWCAP2_BTI)
		CHECK(bti_enforced(in_library("bti_a")));
	else
		printf("no BTI on this CPU: calls checked unenforced\n");
	CHECK_EQ(first_insn(in_library("bti_a")), BTI_C);
	CHECK_EQ(first_insn(in_library("bti_b")), BTI_C);

	CHECK_EQ(bti_a(1), 202);
	CHECK_EQ(pa(2), 204);
	CHECK_EQ(bti_b(1), 402);
	CHECK_EQ(pb(2), 404);

	bti_mode = 1;
	CHECK_EQ(multiverse_commit(), 2);
	CHECK_EQ(multiverse_is_committed(bti_a), 1);
	CHECK_EQ(multiverse_is_committed(bti_b), 1);
	CHECK_EQ(bti_a(1), 102);
	CHECK_EQ(pa(2), 104);
	CHECK_EQ(bti_b(1), 302);
	CHECK_EQ(pb(2), 304);

	CHECK_EQ(multiverse_revert(), 2);
	CHECK_EQ(pa(3), 106);           /* the generics read the switch again */
	CHECK_EQ(pb(3), 306);
	CHECK_DONE();
}
