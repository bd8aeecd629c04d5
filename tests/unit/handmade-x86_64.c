/* SPDX-License-Identifier: MIT */
/*
 * The runtime end to end, without the plugin: descriptors written by hand
 * into the three sections, functions and call sites written in assembler
 * so that every byte the runtime patches is known.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "descriptor.h"
#define MULTIVERSE_LINK_RUNTIME   /* built without the plugin, linked with the runtime */
#include "multiverse.h"

#define CHECK(c) do { if (!(c)) { \
	printf("handmade: line %d: %s\n", __LINE__, #c); exit(1); } } while (0)

#define HIDDEN __attribute__((visibility("hidden")))
#define SECTION(s) __attribute__((section(s), used, aligned(8)))

/* Switches */
HIDDEN int hm_sw;                       /* signed, 4 bytes */
HIDDEN unsigned char hm_t;              /* tracked */
HIDDEN long (*hm_fp)(void);             /* function-pointer switch */
HIDDEN volatile int hm_count;           /* what hm_hook's bodies change */

#define GLOBAL(name) ".globl " name "\n.hidden " name "\n"
#define FUNC(name) ".p2align 4\n" GLOBAL(name) ".type " name ",@function\n" name ":\n"
#define LABEL(name) GLOBAL(name) name ":\n"
#define REL32(target) ".long " target " - . - 4\n"
#define NOP5 ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
#define ENDBR ".byte 0xf3, 0x0f, 0x1e, 0xfa\n"

/*
 * hm_value: generic 1000 + hm_sw; variants for hm_sw == 1 (7, inlinable,
 * behind an endbr64), == 2 (-10, inlinable), 3..10 (33, not inlinable,
 * two merged records) and 3..10 with hm_t == 1 (44).  hm_hook: the generic
 * counts 1, the variant for hm_sw == 0 is empty, the one for hm_sw == 5
 * counts 10; its patch area follows an endbr64.  Each hm_call_* or
 * hm_tail_* wrapper holds one call site, labelled hm_site_*.
 */
__asm__(
	".pushsection .text\n"
	FUNC("hm_value") NOP5 "movslq hm_sw(%rip), %rax\n addq $1000, %rax\n ret\n"
	FUNC("hm_value_1") ENDBR ".byte 0xb8, 7, 0, 0, 0, 0xc3\n"
	FUNC("hm_value_2") ".byte 0x48, 0xc7, 0xc0, 0xf6, 0xff, 0xff, 0xff, 0xc3\n"
	FUNC("hm_value_3") "movl $33, %eax\n nop\n ret\n"
	FUNC("hm_value_3t") "movl $44, %eax\n nop\n ret\n"
	FUNC("hm_hook") ENDBR NOP5 "incl hm_count(%rip)\n ret\n"
	FUNC("hm_hook_0") "ret\n"
	FUNC("hm_hook_5") "addl $10, hm_count(%rip)\n ret\n"
	FUNC("hm_other") "movl $99, %eax\n ret\n"
	FUNC("hm_fa") "movl $111, %eax\n ret\n"
	FUNC("hm_fb") "movl $222, %eax\n ret\n"

	FUNC("hm_call_value") "subq $8, %rsp\n"
	LABEL("hm_site_call") ".byte 0xe8\n" REL32("hm_value") "addq $8, %rsp\n ret\n"
	FUNC("hm_tail_value")
	LABEL("hm_site_tail") ".byte 0xe9\n" REL32("hm_value")
	FUNC("hm_slot_value") "subq $8, %rsp\n"
	LABEL("hm_site_slot") ".byte 0xff, 0x15\n" REL32("hm_slot") "addq $8, %rsp\n ret\n"
	FUNC("hm_call_hook") "subq $8, %rsp\n"
	LABEL("hm_site_hook") ".byte 0xe8\n" REL32("hm_hook") "addq $8, %rsp\n ret\n"
	FUNC("hm_tail_hook")
	LABEL("hm_site_hook_tail") ".byte 0xe9\n" REL32("hm_hook")
	FUNC("hm_call_fp") "subq $8, %rsp\n"
	LABEL("hm_site_fp") ".byte 0xff, 0x15\n" REL32("hm_fp") "addq $8, %rsp\n ret\n"
	FUNC("hm_tail_fp")
	LABEL("hm_site_fp_tail") ".byte 0xff, 0x25\n" REL32("hm_fp")
	FUNC("hm_call_bad") "subq $8, %rsp\n"
	LABEL("hm_site_bad") ".byte 0xe8\n" REL32("hm_other") "addq $8, %rsp\n ret\n"
	FUNC("hm_call_victim") "subq $8, %rsp\n"
	LABEL("hm_site_victim") ".byte 0xe8\n" REL32("hm_value") "addq $8, %rsp\n ret\n"
	FUNC("hm_call_badslot") "subq $8, %rsp\n"
	LABEL("hm_site_badslot") ".byte 0xff, 0x15\n" REL32("hm_slot_other") "addq $8, %rsp\n ret\n"
	FUNC("hm_call_fp_bad") "subq $8, %rsp\n"
	LABEL("hm_site_fp_bad") ".byte 0xff, 0x15\n" REL32("hm_slot") "addq $8, %rsp\n ret\n"
	FUNC("hm_call_late") "subq $8, %rsp\n"
	LABEL("hm_site_late") ".byte 0xe8\n" REL32("hm_value") "addq $8, %rsp\n ret\n"
	".popsection\n"

	/* Slots like GOT entries: one holds the generic's address. */
	".pushsection .data\n.p2align 3\n"
	GLOBAL("hm_slot") "hm_slot: .quad hm_value\n"
	GLOBAL("hm_slot_other") "hm_slot_other: .quad hm_other\n"
	".popsection\n");

HIDDEN long hm_value(void), hm_value_1(void), hm_value_2(void), hm_value_3(void),
	hm_value_3t(void), hm_other(void), hm_fa(void), hm_fb(void);
HIDDEN void hm_hook(void), hm_hook_0(void), hm_hook_5(void);
HIDDEN long hm_call_value(void), hm_tail_value(void), hm_slot_value(void), hm_call_badslot(void),
	hm_call_fp(void), hm_tail_fp(void), hm_call_bad(void), hm_call_victim(void),
	hm_call_late(void);
HIDDEN void hm_call_hook(void), hm_tail_hook(void);
HIDDEN extern uint8_t hm_site_call[], hm_site_tail[], hm_site_slot[], hm_site_hook[],
	hm_site_hook_tail[], hm_site_fp[], hm_site_fp_tail[], hm_site_bad[],
	hm_site_victim[], hm_site_late[], hm_site_badslot[], hm_site_fp_bad[];

/* one guard: lo <= *v <= hi */
#define GUARD(v, lo, hi) { .var = (v), .low = (lo), .high = (hi) }

static const struct mv_desc_guard g_sw0[] = { GUARD(&hm_sw, 0, 0) };
static const struct mv_desc_guard g_sw1[] = { GUARD(&hm_sw, 1, 1) };
static const struct mv_desc_guard g_sw2[] = { GUARD(&hm_sw, 2, 2) };
static const struct mv_desc_guard g_sw3[] = { GUARD(&hm_sw, 3, 6) };
static const struct mv_desc_guard g_sw7[] = { GUARD(&hm_sw, 7, 10) };
static const struct mv_desc_guard g_sw3t[] = { GUARD(&hm_sw, 3, 10), GUARD(&hm_t, 1, 1) };
static const struct mv_desc_guard g_sw5[] = { GUARD(&hm_sw, 5, 5) };

static const struct mv_desc_variant value_variants[] = {
	{ .body = hm_value_1, .guards = g_sw1, .n_guards = 1 },
	{ .body = hm_value_2, .guards = g_sw2, .n_guards = 1 },
	{ .body = hm_value_3, .guards = g_sw3, .n_guards = 1 },
	{ .body = hm_value_3, .guards = g_sw7, .n_guards = 1 },  /* merged: one body, two records */
	{ .body = hm_value_3t, .guards = g_sw3t, .n_guards = 2 },
};

static const struct mv_desc_variant hook_variants[] = {
	{ .body = hm_hook_0, .guards = g_sw0, .n_guards = 1 },
	{ .body = hm_hook_5, .guards = g_sw5, .n_guards = 1 },
};

/* Records repeat as they would from several units. */
static const struct mv_desc_var vars[] SECTION("__multiverse_var") = {
	{ .addr = &hm_sw, .name = "hm_sw", .width = 4, .flags = MV_VAR_SIGNED },
	{ .addr = &hm_t, .name = "hm_t", .width = 1, .flags = MV_VAR_TRACKED },
	{ .addr = &hm_fp, .name = "hm_fp", .width = 8, .flags = MV_VAR_FNPTR },
	{ .addr = &hm_sw, .name = "hm_sw", .width = 4, .flags = MV_VAR_SIGNED },
};

static const struct mv_desc_fn fns[] SECTION("__multiverse_fn") = {
	{ .generic = hm_hook, .name = "hm_hook", .entry = (char *)hm_hook + 4 },
	{ .generic = hm_value, .name = "hm_value", .entry = hm_value,
	  .variants = value_variants, .n_variants = 5 },
	{ .generic = hm_hook, .name = "hm_hook", .entry = (char *)hm_hook + 4,
	  .variants = hook_variants, .n_variants = 2 },
};

static const struct mv_desc_site sites[] SECTION("__multiverse_site") = {
	{ .site = hm_site_call, .callee = hm_value },
	{ .site = hm_site_tail, .callee = hm_value },
	{ .site = hm_site_slot, .callee = hm_value },
	{ .site = hm_site_hook, .callee = hm_hook },
	{ .site = hm_site_hook_tail, .callee = hm_hook },
	{ .site = hm_site_fp, .callee = &hm_fp },
	{ .site = hm_site_fp_tail, .callee = &hm_fp },
	{ .site = hm_site_bad, .callee = hm_value },      /* calls hm_other: invalid */
	{ .site = hm_site_badslot, .callee = hm_value },  /* slot holds hm_other: invalid */
	{ .site = hm_site_fp_bad, .callee = &hm_fp },     /* through another slot: invalid */
	{ .site = hm_site_victim, .callee = hm_value },
	{ .site = hm_site_call, .callee = hm_value },
};

/* A module that comes later, as a shared object would. */
static const struct mv_desc_var late_vars[] = {
	{ .addr = &hm_sw, .name = "hm_sw", .width = 4, .flags = MV_VAR_SIGNED },
};
static const struct mv_desc_site late_sites[] = { { .site = hm_site_late, .callee = hm_value } };

extern const struct mv_desc_var __start___multiverse_var[] HIDDEN, __stop___multiverse_var[] HIDDEN;
extern const struct mv_desc_fn __start___multiverse_fn[] HIDDEN, __stop___multiverse_fn[] HIDDEN;
extern const struct mv_desc_site __start___multiverse_site[] HIDDEN, __stop___multiverse_site[] HIDDEN;

static int register_module(uint32_t version, uint32_t machine)
{
	return __multiverse_register_module(version, machine,
		__start___multiverse_var, __stop___multiverse_var,
		__start___multiverse_fn, __stop___multiverse_fn,
		__start___multiverse_site, __stop___multiverse_site);
}

static int early;

__attribute__((constructor)) static void hm_register(void)
{
	early = register_module(MV_DESCRIPTOR_VERSION, MV_MACHINE_X86_64);
}

/* Whether p holds exactly the bytes spelled in hex, e.g. "e8 00 01". */
static int same(const void *p, size_t n, const char *hex)
{
	const uint8_t *b = p;
	size_t i = 0;
	char *end;

	for (; *hex; i++, hex = end) {
		unsigned long x = strtoul(hex, &end, 16);

		if (end == hex || i >= n || b[i] != x)
			return 0;
	}
	return i == n;
}

/* Whether site holds a direct call/jmp (op e8/e9) of n bytes to target. */
static int branches(const uint8_t *site, size_t n, uint8_t op, const void *target)
{
	int32_t rel;

	if (n == 6 && *site++ != 0x2e)
		return 0;
	memcpy(&rel, site + 1, 4);
	return site[0] == op && (const uint8_t *)target == site + 5 + rel;
}

static struct area {
	const void *p;
	size_t n;
	uint8_t saved[8];
} areas[] = {
#define AREA(p, n) { (p), (n), { 0 } }
	AREA(hm_site_call, 5), AREA(hm_site_tail, 5), AREA(hm_site_slot, 6),
	AREA(hm_site_hook, 5), AREA(hm_site_hook_tail, 5), AREA(hm_site_fp, 6),
	AREA(hm_site_fp_tail, 6), AREA(hm_site_bad, 5), AREA(hm_site_victim, 5),
	AREA(hm_site_late, 5), AREA(hm_value, 5), AREA((char *)hm_hook + 4, 5),
	AREA(hm_site_badslot, 6), AREA(hm_site_fp_bad, 6),
#undef AREA
};

#define N_AREAS (sizeof areas / sizeof *areas)

static void save_areas(void)
{
	for (size_t i = 0; i < N_AREAS; i++)
		memcpy(areas[i].saved, areas[i].p, areas[i].n);
}

static size_t changed_areas(void)
{
	size_t n = 0;

	for (size_t i = 0; i < N_AREAS; i++)
		n += memcmp(areas[i].saved, areas[i].p, areas[i].n) != 0;
	return n;
}

/* Collects what the runtime prints to stderr meanwhile. */
static char printed[8192];
static int stderr_copy = -1;
static FILE *capture;

static void capture_stderr(void)
{
	fflush(stderr);
	capture = tmpfile();
	stderr_copy = dup(2);
	CHECK(capture && stderr_copy >= 0 && dup2(fileno(capture), 2) == 2);
}

static const char *captured(void)
{
	size_t n;

	fflush(stderr);
	dup2(stderr_copy, 2);
	close(stderr_copy);
	rewind(capture);
	n = fread(printed, 1, sizeof printed - 1, capture);
	printed[n] = 0;
	fclose(capture);
	return printed;
}

static int mentions(const char *text, const void *addr)
{
	char a[32];

	snprintf(a, sizeof a, "%p", addr);
	return strstr(text, a) != 0;
}

static void overwrite_text(void *dst, const void *src, size_t n)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)dst & -page, hi = ((uintptr_t)dst + n + page - 1) & -page;

	CHECK(!mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC));
	memcpy(dst, src, n);
	CHECK(!mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC));
}

static long via_pointer(long (*volatile f)(void))
{
	return f();
}

static int hook_counts(void)
{
	int before = hm_count;
	void (*volatile f)(void) = hm_hook;

	hm_call_hook();
	hm_tail_hook();
	f();
	return hm_count - before;
}

static void test_registration(void)
{
	CHECK(early == 0);
	CHECK(register_module(MV_DESCRIPTOR_VERSION, MV_MACHINE_X86_64) == 0);
	capture_stderr();
	CHECK(register_module(MV_DESCRIPTOR_VERSION + 1, MV_MACHINE_X86_64) == -ENOEXEC);
	CHECK(strstr(captured(), "multiverse: ") && strstr(multiverse_last_error(), "version"));
	capture_stderr();
	CHECK(register_module(MV_DESCRIPTOR_VERSION_OLDEST - 1, MV_MACHINE_X86_64) == -ENOEXEC);
	CHECK(strstr(captured(), "multiverse: ") &&
	      strstr(multiverse_last_error(), "has descriptor version 3, this runtime reads versions 4 to 6"));
	capture_stderr();
	CHECK(register_module(MV_DESCRIPTOR_VERSION, MV_MACHINE_AARCH64) == -ENOEXEC);
	CHECK(strstr(captured(), "multiverse: ") &&
	      strstr(multiverse_last_error(), "ELF machine 183, this runtime is for 62 (x86-64)"));
	/* the module's other units: refused without a word more */
	capture_stderr();
	CHECK(register_module(MV_DESCRIPTOR_VERSION, MV_MACHINE_AARCH64) == -ENOEXEC);
	CHECK(!strstr(captured(), "multiverse: "));
}

static void test_generic(void)
{
	const char *out;

	hm_sw = 0;
	CHECK(hm_call_value() == 1000 && hm_tail_value() == 1000 && hm_slot_value() == 1000);
	CHECK(hook_counts() == 3);

	capture_stderr();
	CHECK(multiverse_init() == 0);
	out = captured();
	/* start-up reads no call site */
	CHECK(!mentions(out, hm_site_bad) && !mentions(out, hm_site_fp_bad));
	/* the dump tells every site's state, so it reads them all, once */
	FILE *null = fopen("/dev/null", "w");
	CHECK(null);
	capture_stderr();
	multiverse_dump_info(null);
	out = captured();
	CHECK(mentions(out, hm_site_bad) && mentions(out, hm_site_badslot));
	CHECK(mentions(out, hm_site_fp_bad) && !mentions(out, hm_site_call));
	capture_stderr();
	multiverse_dump_info(null);
	fclose(null);
	CHECK(!mentions(captured(), hm_site_bad));
	CHECK(changed_areas() == 0);
	CHECK(multiverse_is_committed(hm_value) == 0 && multiverse_is_committed(&hm_fp) == 0);
}

static void test_info(void)
{
	const struct mv_info_fn *f = multiverse_info_fn(hm_value);
	const struct mv_info_var *v;

	CHECK(f && !strcmp(f->name, "hm_value") && f->generic == (void *)hm_value);
	CHECK(f->n_variants == 4 && f->n_sites == 6 && f->n_sites_skipped == 2 && !f->committed);
	f = multiverse_info_fn(hm_hook);
	CHECK(f && f->n_variants == 2 && f->n_sites == 2 && f->active == (void *)hm_hook);
	v = multiverse_info_var(&hm_sw);
	CHECK(v && v->width == 4 && v->is_signed && !v->is_fnptr && !v->is_tracked);
	CHECK(v->is_bound && v->n_functions == 2);
	v = multiverse_info_var(&hm_t);
	CHECK(v && v->width == 1 && !v->is_signed && v->is_tracked && !v->is_bound && v->n_functions == 1);
	v = multiverse_info_var(&hm_fp);
	CHECK(v && v->is_fnptr && v->n_sites == 3);
	CHECK(!multiverse_info_fn(hm_other) && !multiverse_info_var((void *)&hm_count));
}

static void test_inline(void)
{
	hm_sw = 1;
	hm_fp = hm_fa;
	CHECK(multiverse_commit() == 2);         /* hm_value and hm_fp; hm_hook has no variant */
	CHECK(same(hm_site_call, 5, "b8 07 00 00 00"));
	CHECK(branches(hm_site_tail, 5, 0xe9, hm_value_1));   /* mov; ret would be two insns */
	CHECK(same(hm_site_slot, 6, "2e b8 07 00 00 00"));
	CHECK(branches((uint8_t *)hm_value, 5, 0xe9, hm_value_1));
	CHECK(!memcmp(hm_site_bad, areas[7].saved, 5));        /* invalid: untouched */
	CHECK(!memcmp(hm_site_badslot, areas[12].saved, 6) && hm_call_badslot() == 99);
	CHECK(hm_call_value() == 7 && hm_tail_value() == 7 && hm_slot_value() == 7);
	CHECK(via_pointer(hm_value) == 7 && hm_call_bad() == 99);
	CHECK(multiverse_is_committed(hm_value) == 1 && multiverse_is_committed(hm_hook) == 0);
	CHECK(multiverse_info_fn(hm_value)->n_sites_inlined == 3);
	CHECK(multiverse_commit() == 0);

	hm_sw = 2;
	CHECK(multiverse_commit_refs(&hm_sw) == 1);
	/* -10 has no single-instruction form that fits: direct branches. */
	CHECK(branches(hm_site_call, 5, 0xe8, hm_value_2));
	CHECK(branches(hm_site_tail, 5, 0xe9, hm_value_2));
	CHECK(branches(hm_site_slot, 6, 0xe8, hm_value_2));
	CHECK(hm_call_value() == -10 && hm_tail_value() == -10 && hm_slot_value() == -10);
	CHECK(via_pointer(hm_value) == -10);

	hm_sw = 0;
	CHECK(multiverse_commit_fn(hm_hook) == 1);
	CHECK(same(hm_site_hook, 5, "0f 1f 44 00 00"));
	CHECK(same(hm_site_hook_tail, 5, "c3 0f 1f 40 00"));
	CHECK(branches((uint8_t *)hm_hook + 4, 5, 0xe9, hm_hook_0));
	CHECK(hook_counts() == 0);
	CHECK(hm_call_value() == -10);            /* not recommitted: still bound */
}

static void test_direct(void)
{
	hm_sw = 5;
	CHECK(multiverse_commit() == 2);
	CHECK(branches(hm_site_call, 5, 0xe8, hm_value_3));
	CHECK(branches(hm_site_tail, 5, 0xe9, hm_value_3));
	CHECK(branches(hm_site_slot, 6, 0xe8, hm_value_3));
	CHECK(branches(hm_site_hook, 5, 0xe8, hm_hook_5));
	CHECK(branches(hm_site_hook_tail, 5, 0xe9, hm_hook_5));
	CHECK(hm_call_value() == 33 && hm_tail_value() == 33 && hm_slot_value() == 33);
	CHECK(hook_counts() == 30);
	hm_sw = 4;
	CHECK(hm_call_value() == 33 && via_pointer(hm_value) == 33);

	/* hm_hook does not read hm_t: its commit stands. */
	hm_sw = 0;
	CHECK(multiverse_commit_refs(&hm_t) == 1);
	CHECK(hm_call_value() == 1000 && hook_counts() == 30);
	hm_sw = 8;
	CHECK(multiverse_commit_refs(&hm_t) == 1 && hm_call_value() == 33);
}

static void test_bind(void)
{
	hm_sw = 5;
	hm_t = 1;
	CHECK(multiverse_bind(&hm_t, -1) == 0);   /* tracked: unbound at first */
	CHECK(multiverse_commit() == 0);
	CHECK(hm_call_value() == 33);
	CHECK(multiverse_bind(&hm_t, 1) == 1 && multiverse_bind(&hm_t, -1) == 1);
	CHECK(multiverse_commit_refs(&hm_t) == 1);
	CHECK(hm_call_value() == 44 && branches(hm_site_call, 5, 0xe8, hm_value_3t));
	CHECK(multiverse_bind(&hm_t, 0) == 0);
	CHECK(multiverse_commit_fn(hm_value) == 1 && hm_call_value() == 33);

	CHECK(multiverse_bind(&hm_sw, -1) == 1);  /* untracked: bound at first */
	CHECK(multiverse_bind(&hm_sw, 0) == 0);
	CHECK(multiverse_commit() == 2);          /* nothing matches: generics */
	CHECK(multiverse_is_committed(hm_value) == 0 && multiverse_is_committed(hm_hook) == 0);
	CHECK(hm_call_value() == 1005 && hook_counts() == 3);
	CHECK(multiverse_bind(&hm_sw, 1) == 1);
}

static void test_fnptr(void)
{
	hm_sw = 0;
	hm_fp = hm_fa;
	CHECK(multiverse_commit_fn(&hm_fp) == 0); /* still bound to hm_fa */
	CHECK(branches(hm_site_fp, 6, 0xe8, hm_fa) && branches(hm_site_fp_tail, 6, 0xe9, hm_fa));
	hm_fp = hm_fb;
	CHECK(hm_call_fp() == 111 && hm_tail_fp() == 111);
	CHECK(multiverse_commit_refs(&hm_fp) == 1);
	CHECK(hm_call_fp() == 222 && hm_tail_fp() == 222);
	CHECK(multiverse_is_committed(&hm_fp) == 1);
	hm_fp = 0;
	CHECK(multiverse_commit_fn(&hm_fp) == 1);  /* NULL: the indirect call is back */
	CHECK(!memcmp(hm_site_fp, areas[5].saved, 6) && !memcmp(hm_site_fp_tail, areas[6].saved, 6));
	CHECK(multiverse_is_committed(&hm_fp) == 0);
	hm_fp = hm_fa;
	CHECK(multiverse_commit_fn(&hm_fp) == 1 && hm_call_fp() == 111);
	CHECK(multiverse_revert_fn(&hm_fp) == 1 && changed_areas() == 0);
	hm_fp = hm_fb;
	CHECK(hm_call_fp() == 222);
}

static void test_late_module(void)
{
	hm_sw = 1;
	CHECK(multiverse_commit() == 2);          /* hm_value, and hm_fp to hm_fb */
	CHECK(hm_call_late() == 7);               /* through the generic's entry */
	/* in the oldest form the runtime reads: version 4, absolute */
	CHECK(__multiverse_register_module(MV_DESCRIPTOR_VERSION_OLDEST, MV_MACHINE_X86_64,
					   late_vars, late_vars + 1,
					   0, 0, late_sites, late_sites + 1) == 0);
	CHECK(multiverse_info_fn(hm_value)->n_sites == 7);
	CHECK(multiverse_commit_fn(hm_value) == 0);
	CHECK(same(hm_site_late, 5, "b8 07 00 00 00") && hm_call_late() == 7);
}

/* More modules than the registry keeps without allocating (registry.c
 * pool): each is registered, and its switch found. */
static void test_many_modules(void)
{
	static int sw[12];
	static struct mv_desc_var vars[12];

	multiverse_revert();            /* registering only records them */
	for (int i = 0; i < 12; i++) {
		vars[i] = (struct mv_desc_var){ .addr = &sw[i], .name = "many", .width = 4 };
		CHECK(__multiverse_register_module(MV_DESCRIPTOR_VERSION, MV_MACHINE_X86_64,
						   &vars[i], &vars[i] + 1, 0, 0, 0, 0) == 0);
		CHECK(__multiverse_register_module(MV_DESCRIPTOR_VERSION, MV_MACHINE_X86_64,
						   &vars[i], &vars[i] + 1, 0, 0, 0, 0) == 0);
	}
	for (int i = 0; i < 12; i++)
		CHECK(multiverse_info_var(&sw[i]) != 0);
}

static void test_revert(void)
{
	CHECK(multiverse_revert() == 2);          /* hm_value, hm_fp */
	CHECK(changed_areas() == 0);
	CHECK(multiverse_revert() == 0);
	hm_sw = 1;
	CHECK(hm_call_value() == 1001 && hm_tail_value() == 1001 && hm_slot_value() == 1001);
	CHECK(via_pointer(hm_value) == 1001);
	hm_sw = 5;
	CHECK(multiverse_commit_refs(&hm_sw) == 2 && changed_areas() > 0);
	CHECK(multiverse_revert_refs(&hm_sw) == 2 && changed_areas() == 0);
	CHECK(multiverse_commit_fn(hm_value) == 1 && multiverse_revert_fn(hm_value) == 1);
	CHECK(changed_areas() == 0);
}

static void test_errors(void)
{
	capture_stderr();
	CHECK(multiverse_commit_fn(0) == -EINVAL && strstr(multiverse_last_error(), "multiverse_commit_fn"));
	CHECK(multiverse_revert_fn(0) == -EINVAL && strstr(multiverse_last_error(), "multiverse_revert_fn"));
	CHECK(multiverse_commit_refs(0) == -EINVAL && multiverse_revert_refs(0) == -EINVAL);
	CHECK(multiverse_is_committed(0) == -EINVAL && multiverse_bind(0, 1) == -EINVAL);
	CHECK(multiverse_commit_fn(hm_other) == -ENOENT && mentions(multiverse_last_error(), hm_other));
	CHECK(multiverse_commit_fn(&hm_sw) == -ENOENT);     /* an integer switch */
	CHECK(multiverse_commit_refs(hm_value) == -ENOENT);
	CHECK(multiverse_revert_refs((void *)&hm_count) == -ENOENT);
	CHECK(multiverse_is_committed(&hm_sw) == -ENOENT);
	CHECK(multiverse_bind((void *)&hm_count, 1) == -ENOENT);
	CHECK(multiverse_bind(&hm_sw, 2) == -EINVAL);
	CHECK(strstr(captured(), "multiverse: multiverse_commit_fn: NULL address\n"));
	CHECK(changed_areas() == 0);
}

/* A site changed behind the runtime's back is left as it is. */
static void test_corrupt(void)
{
	static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	const char *out;

	hm_sw = 1;
	hm_fp = 0;
	CHECK(multiverse_commit() == 1);
	CHECK(same(hm_site_victim, 5, "b8 07 00 00 00"));
	overwrite_text(hm_site_victim, nop5, 5);
	hm_sw = 2;
	capture_stderr();
	CHECK(multiverse_commit() == 1);
	out = captured();
	CHECK(strstr(out, "multiverse: ") && mentions(out, hm_site_victim));
	CHECK(mentions(multiverse_last_error(), hm_site_victim));
	CHECK(same(hm_site_victim, 5, "0f 1f 44 00 00"));
	CHECK(branches(hm_site_call, 5, 0xe8, hm_value_2));
	CHECK(multiverse_info_fn(hm_value)->n_sites_skipped == 3);

	capture_stderr();
	CHECK(multiverse_revert() == 1);
	CHECK(!mentions(captured(), hm_site_victim));   /* reported once */
	CHECK(same(hm_site_victim, 5, "0f 1f 44 00 00"));
	CHECK(changed_areas() == 1);
}

static void test_dump(void)
{
	FILE *f = tmpfile();
	char text[8192];
	size_t n;

	CHECK(f);
	multiverse_dump_info(f);
	rewind(f);
	n = fread(text, 1, sizeof text - 1, f);
	text[n] = 0;
	fclose(f);
	CHECK(strstr(text, "3 switches, 2 functions"));
	CHECK(strstr(text, "hm_value") && strstr(text, "hm_hook") && strstr(text, "hm_fp"));
	CHECK(strstr(text, "hm_sw in [3, 10], hm_t in [1, 1]"));
	CHECK(strstr(text, "tracked") && strstr(text, "skipped"));
}

int main(void)
{
	save_areas();
	test_registration();
	test_generic();
	test_info();
	test_inline();
	test_direct();
	test_bind();
	test_fnptr();
	test_late_module();
	test_revert();
	test_errors();
	test_corrupt();
	test_dump();
	test_many_modules();
	return 0;
}
