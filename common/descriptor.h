/* SPDX-License-Identifier: MIT */
/*
 * The descriptor format: the contract between the compiler plugin, which
 * emits these records as assembler data, and the runtime, which reads them.
 * docs/descriptor-format.md describes the same layout for readers of
 * object files.  Change both together and bump MV_DESCRIPTOR_VERSION.
 *
 * Every record lives in a section of its own kind.  The linker concatenates
 * the sections of all units of one module (executable or shared object) and
 * defines __start_<section>/__stop_<section> around them.  Each unit that
 * emits records also emits a constructor calling
 * __multiverse_register_module() with its module's bounds, in a COMDAT
 * group that the linker keeps once per module (but for a few code
 * models: docs/descriptor-format.md); the runtime registers a module
 * once, however many calls come in.
 *
 * A switch or function declared in a header shows up in every unit that
 * uses it, so records may repeat: the runtime merges them by address.
 */
#ifndef MULTIVERSE_DESCRIPTOR_H
#define MULTIVERSE_DESCRIPTOR_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#define MV_DESCRIPTOR_VERSION 6
/* The oldest version this runtime still reads: version 4 is version 6
 * with every address absolute (no *_RELATIVE flag in any record), and
 * version 5 is version 6 with distances only in site records. */
#define MV_DESCRIPTOR_VERSION_OLDEST 4

/* The machine a module's records and code are for, as ELF's e_machine:
 * passed to the registration calls with the version. */
#define MV_MACHINE_X86_64  62     /* EM_X86_64 */
#define MV_MACHINE_AARCH64 183    /* EM_AARCH64 */

#define MV_SECTION_VAR  "__multiverse_var"
#define MV_SECTION_FN   "__multiverse_fn"
#define MV_SECTION_SITE "__multiverse_site"
/* In the kernel, where no constructor passes the version and machine:
 * each unit's pair of uint32_t, MV_DESCRIPTOR_VERSION and MV_MACHINE_*,
 * which the kernel checks before it reads the unit's module. */
#define MV_SECTION_VERSION "__multiverse_version"

/* The bounds the linker defines around a module's records, in the order
 * __multiverse_register_module() and __multiverse_unregister_module()
 * take them, after the version and the machine: an initializer of six
 * symbol names, for the plugins that write the registration calls. */
#define MV_MODULE_BOUNDS { \
	"__start_" MV_SECTION_VAR, "__stop_" MV_SECTION_VAR, \
	"__start_" MV_SECTION_FN, "__stop_" MV_SECTION_FN, \
	"__start_" MV_SECTION_SITE, "__stop_" MV_SECTION_SITE }
#define MV_MODULE_BOUND_COUNT 6

/*
 * Addresses as distances.  Any address field of a record may hold the
 * address less the field's own (version 6 on; site records from version
 * 5), as the record's flags say.  The static link resolves such a field,
 * so a shared object or PIE need not relocate it when it is loaded
 * (docs/descriptor-format.md).  The compilers store a distance wherever
 * it names the address every module knows the target by: a label or a
 * static or hidden symbol of the unit, or a global one the unit defines
 * in code that is not position-independent.  Any other target keeps its
 * absolute form.  In a field that may be null (a variant's guards and
 * relocations), a distance of 0 stands for a null pointer: a field never
 * points to itself.  Read every address field with the accessors
 * below.  They add as integers: C lets the compiler assume that a
 * pointer computed from the field's address stays in the record.
 */
#define MV_DESC_REF(type, rec, field, relative) \
	((relative) ? (type)((uintptr_t)&(rec)->field##_offset + (uintptr_t)(rec)->field##_offset) : \
	 (type)(rec)->field)
/* The same for a field that may be null. */
#define MV_DESC_REF_OR_NULL(type, rec, field, relative) \
	((relative) && !(rec)->field##_offset ? (type)0 : MV_DESC_REF(type, rec, field, relative))

/* mv_desc_var.flags */
#define MV_VAR_SIGNED  0x1u   /* compare guard bounds as signed */
#define MV_VAR_FNPTR   0x2u   /* a function-pointer switch */
#define MV_VAR_TRACKED 0x4u   /* unbound until multiverse_bind(&var, 1) */
#define MV_VAR_NAME_RELATIVE 0x8u    /* name is a distance */
#define MV_VAR_ADDR_RELATIVE 0x10u   /* addr is a distance */
/* what the switch is, as every unit declares it alike; the rest says how
 * one record is written */
#define MV_VAR_KIND (MV_VAR_SIGNED | MV_VAR_FNPTR | MV_VAR_TRACKED)

/* A switch.  Section __multiverse_var, 32 bytes. */
struct mv_desc_var {
	union {
		void *addr;
		int64_t addr_offset;      /* MV_VAR_ADDR_RELATIVE */
	};
	union {
		const char *name;
		int64_t name_offset;      /* MV_VAR_NAME_RELATIVE */
	};
	uint32_t width;           /* bytes: 1, 2, 4 or 8 */
	uint32_t flags;           /* MV_VAR_* */
	uint64_t reserved;        /* zero */
};

static inline void *mv_desc_var_addr(const struct mv_desc_var *d)
{
	return MV_DESC_REF(void *, d, addr, d->flags & MV_VAR_ADDR_RELATIVE);
}

static inline const char *mv_desc_var_name(const struct mv_desc_var *d)
{
	return MV_DESC_REF(const char *, d, name, d->flags & MV_VAR_NAME_RELATIVE);
}

/*
 * One conjunct of a variant's guard: low <= *var <= high, both inclusive,
 * compared as signed or unsigned 64-bit values according to the switch's
 * MV_VAR_SIGNED flag.  The bounds are values of the switch's type in one
 * form: zero-extended from its width for an unsigned switch, sign-extended
 * for a signed one, as mv_switch_read() widens the switch.  var is a
 * distance if its variant says so (MV_VARIANT_VARS_RELATIVE).  24 bytes.
 */
struct mv_desc_guard {
	union {
		void *var;
		int64_t var_offset;
	};
	int64_t low;
	int64_t high;
};

/*
 * A PC-relative field in the code of an inlinable variant, which the
 * runtime adjusts when it copies that code elsewhere.  The compiler lists
 * every instruction of the copied bytes that refers to anything by its
 * distance from the instruction; the runtime checks that each listed
 * instruction has the form kind names before it copies anything.  8 bytes.
 */
struct mv_desc_reloc {
	uint32_t offset;          /* of the field (x86-64) or instruction (AArch64) from the copy's start */
	uint32_t kind;            /* MV_RELOC_* */
};

/* mv_desc_reloc.kind */
#define MV_RELOC_X86_RIP32     1u   /* disp32 of a RIP-relative ModRM operand */
#define MV_RELOC_AARCH64_ADRP  2u   /* adrp: a 4 KiB page, +-4 GiB */
#define MV_RELOC_AARCH64_ADR   3u   /* adr: +-1 MiB */
#define MV_RELOC_AARCH64_LDR   4u   /* ldr (literal): +-1 MiB */

/*
 * Whether a variant can be copied into a call site, or why not
 * (mv_desc_variant.inlining).  MV_INLINE_OK: it can, within copy_len
 * bytes.  The compiler analyses the variant's final code; the runtime
 * never disassembles a body to decide.  A record that says nothing (0)
 * was not analysed.
 */
#define MV_INLINE_UNKNOWN      0u   /* not analysed (a hand-made record, code not emitted) */
#define MV_INLINE_OK           1u
#define MV_INLINE_CALLS        2u   /* makes a call or a tail call */
#define MV_INLINE_STACK        3u   /* uses the stack (frame, saved registers, red zone, stack arguments) */
#define MV_INLINE_ASM          4u   /* holds an asm statement */
#define MV_INLINE_RETURNS      5u   /* does not end in its only return */
#define MV_INLINE_BRANCHES     6u   /* a branch may leave it: jump table, computed goto, cold part */
#define MV_INLINE_REFERENCE    7u   /* refers to something by a form the runtime cannot relocate */
#define MV_INLINE_TOO_LARGE    8u   /* larger than any call site can be (MV_INLINE_MAX) */

/* The most bytes a call site may be padded to, on every architecture. */
#define MV_INLINE_MAX 64

/*
 * A variant: a body that is valid whenever all its guards hold.  A switch
 * the function reads but the variant has no guard for is still read at run
 * time by that body (partial specialization of tracked switches).  Merged
 * variants appear as several records with the same body.  40 bytes.
 *
 * An inlinable variant (inlining == MV_INLINE_OK) may be copied into a
 * padded call site: the copy_len bytes at body + copy_off are its code up
 * to, and without, its only return, which is its last instruction; every
 * branch in them lands inside them or on that return.  It makes no call
 * and does not touch the stack, so the caller's unwind information stays
 * true across the copy.  relocs lists each PC-relative field in those
 * bytes.
 *
 * Before version 6, inlining and flags were one uint32_t, inlining; on
 * both (little-endian) architectures the old records read as flags 0.
 */
struct mv_desc_variant {
	union {
		void *body;
		int64_t body_offset;      /* MV_VARIANT_RELATIVE */
	};
	union {
		const struct mv_desc_guard *guards;
		int64_t guards_offset;    /* MV_VARIANT_RELATIVE */
	};
	uint32_t n_guards;
	uint16_t copy_off;        /* past a landing pad (endbr64, bti c) */
	uint16_t copy_len;
	union {
		const struct mv_desc_reloc *relocs;
		int64_t relocs_offset;    /* MV_VARIANT_RELATIVE */
	};
	uint32_t n_relocs;
	uint16_t inlining;        /* MV_INLINE_* */
	uint16_t flags;           /* MV_VARIANT_* */
};

/* mv_desc_variant.flags: body, guards and relocs are distances */
#define MV_VARIANT_RELATIVE      0x1u
/* mv_desc_variant.flags: the var of each of its guards is a distance */
#define MV_VARIANT_VARS_RELATIVE 0x2u

static inline void *mv_desc_variant_body(const struct mv_desc_variant *v)
{
	return MV_DESC_REF(void *, v, body, v->flags & MV_VARIANT_RELATIVE);
}

static inline const struct mv_desc_guard *mv_desc_variant_guards(const struct mv_desc_variant *v)
{
	return MV_DESC_REF_OR_NULL(const struct mv_desc_guard *, v, guards,
				   v->flags & MV_VARIANT_RELATIVE);
}

static inline const struct mv_desc_reloc *mv_desc_variant_relocs(const struct mv_desc_variant *v)
{
	return MV_DESC_REF_OR_NULL(const struct mv_desc_reloc *, v, relocs,
				   v->flags & MV_VARIANT_RELATIVE);
}

/* The switch of guard g, one of variant v's. */
static inline void *mv_desc_guard_var(const struct mv_desc_variant *v, const struct mv_desc_guard *g)
{
	return MV_DESC_REF(void *, g, var, v->flags & MV_VARIANT_VARS_RELATIVE);
}

/*
 * A multiversed function, recorded by the unit that defines it.
 * Section __multiverse_fn, 40 bytes.
 *
 * entry is the patch area the compiler planted at the generic's entry: a
 * single NOP instruction that commit turns into a jump to the selected
 * variant (x86-64: the 5-byte 0f 1f 44 00 00; AArch64: nop, d503201f).
 * It is where the function's code starts, or right after its first
 * instruction (MV_FN_ENTRY_AFTER_PAD): a landing pad for indirect
 * branches, or in user space a NOP that a debugger's breakpoint on the
 * function may cover without covering the entry.
 */
struct mv_desc_fn {
	union {
		void *generic;
		int64_t generic_offset;   /* MV_FN_GENERIC_RELATIVE */
	};
	union {
		const char *name;
		int64_t name_offset;      /* MV_FN_RELATIVE */
	};
	union {
		void *entry;
		int64_t entry_offset;     /* MV_FN_RELATIVE */
	};
	union {
		const struct mv_desc_variant *variants;
		int64_t variants_offset;  /* MV_FN_RELATIVE */
	};
	uint32_t n_variants;
	uint32_t flags;           /* MV_FN_* */
};

/* mv_desc_fn.flags: the entry NOP follows the function's landing pad
 * (x86-64: endbr64; AArch64: bti c or paciasp) or a NOP of that length
 * (x86-64: 0f 1f 40 00; AArch64: nop).  Then the function's code starts
 * 4 bytes before entry, otherwise at entry.
 * That start can differ from generic: a non-PIE executable makes its PLT
 * entry the canonical address of a function a shared object defines. */
#define MV_FN_ENTRY_AFTER_PAD 0x1u

/* mv_desc_fn.flags: a function without variants (it reads no switch it
 * can be specialized on), recorded by the unit that defines it so that
 * a call through a function-pointer switch that points to it can receive
 * a copy of its code.  Its one variant record describes the function's
 * own code: body is its entry patch area, guarded by nothing, and the
 * copy starts after that area.  The runtime never selects that record
 * and never writes the entry. */
#define MV_FN_PLAIN 0x2u

/* mv_desc_fn.flags, with MV_FN_ENTRY_AFTER_PAD: a 4-byte NOP comes
 * between the landing pad and the entry NOP, so the code starts 8 bytes
 * before entry.  AArch64 in user space: gdb's prologue analysis skips a
 * bti c, and its breakpoint must cover that NOP, not the entry. */
#define MV_FN_ENTRY_AFTER_PAD_NOP 0x4u

/* mv_desc_fn.flags: name, entry and variants are distances */
#define MV_FN_RELATIVE         0x8u
/* mv_desc_fn.flags: generic is a distance */
#define MV_FN_GENERIC_RELATIVE 0x10u

/*
 * mv_desc_fn.flags: committed at build time (multiverse-precommit,
 * docs/precommit.md).  The file was written as a commit at load would
 * leave it: the entry holds the jump to the variant whose index (from 0)
 * the bits MV_FN_PRECOMMITTED_MASK hold, and every site record with
 * MV_SITE_PRECOMMITTED holds what commit writes there for that variant.
 * The plugins never set these bits.
 */
#define MV_FN_PRECOMMITTED       0x20u
#define MV_FN_PRECOMMITTED_SHIFT 16
#define MV_FN_PRECOMMITTED_MASK  0xffff0000u

/* The index of the variant function record d was precommitted to, or -1. */
static inline int mv_desc_fn_precommitted(const struct mv_desc_fn *d)
{
	if (!(d->flags & MV_FN_PRECOMMITTED) ||
	    d->flags >> MV_FN_PRECOMMITTED_SHIFT >= d->n_variants)
		return -1;
	return (int)(d->flags >> MV_FN_PRECOMMITTED_SHIFT);
}

static inline void *mv_desc_fn_generic(const struct mv_desc_fn *d)
{
	return MV_DESC_REF(void *, d, generic, d->flags & MV_FN_GENERIC_RELATIVE);
}

static inline const char *mv_desc_fn_name(const struct mv_desc_fn *d)
{
	return MV_DESC_REF(const char *, d, name, d->flags & MV_FN_RELATIVE);
}

static inline void *mv_desc_fn_entry(const struct mv_desc_fn *d)
{
	return MV_DESC_REF(void *, d, entry, d->flags & MV_FN_RELATIVE);
}

static inline const struct mv_desc_variant *mv_desc_fn_variants(const struct mv_desc_fn *d)
{
	return MV_DESC_REF(const struct mv_desc_variant *, d, variants, d->flags & MV_FN_RELATIVE);
}

/* The body of the variant d was precommitted to, or NULL. */
static inline void *mv_desc_fn_precommitted_body(const struct mv_desc_fn *d)
{
	int k = mv_desc_fn_precommitted(d);

	return k < 0 ? 0 : mv_desc_variant_body(&mv_desc_fn_variants(d)[k]);
}

/*
 * A call site.  Section __multiverse_site, 24 bytes.
 *
 * site is the first byte of the call or jmp instruction; callee is either
 * a multiversed function's generic (direct call or tail call) or the
 * address of a function-pointer switch (call or jmp through it).  The
 * runtime decodes the instruction to learn its kind and length and checks
 * that it really refers to callee before ever writing it.
 *
 * Either address may be a distance (MV_SITE_SITE_RELATIVE,
 * MV_SITE_CALLEE_RELATIVE; MV_DESC_REF above).  The compilers store the
 * site so always (it lies in the record's own unit), and the callee so
 * where the rule above allows, but for the records of the stubs that call
 * through a switch (x86-64 Clang, and GCC's large code model), whose
 * callee stays absolute.
 *
 * A padded site has pad bytes of NOPs right before the call (x86-64: one
 * or more multi-byte NOPs; AArch64: pad / 4 nop instructions), so that the
 * region from site - pad to the call's end may receive an inlined body.
 * The call comes last, so a return address never points into the region.
 */
struct mv_desc_site {
	union {
		void *site;
		int64_t site_offset;      /* MV_SITE_SITE_RELATIVE */
	};
	union {
		void *callee;
		int64_t callee_offset;    /* MV_SITE_CALLEE_RELATIVE */
	};
	uint32_t pad;             /* bytes of NOPs before site, 0 if none */
	uint32_t flags;           /* MV_SITE_* */
};

/* mv_desc_site.flags: a call through a probe (a function-pointer switch
 * that a function compares with NULL) inside that function's variant for
 * "not NULL", which calls without the test: the runtime never gives it
 * back its indirect call while the probe is committed NULL, since a
 * thread may still be inside that variant (docs/patching.md, "Probes"). */
#define MV_SITE_IN_PROBE_VARIANT 0x1u
/* mv_desc_site.flags: site_offset, callee_offset hold the address less
 * the field's own (version 5 on). */
#define MV_SITE_SITE_RELATIVE    0x2u
#define MV_SITE_CALLEE_RELATIVE  0x4u
/* mv_desc_site.flags, set by multiverse-precommit only: the site holds
 * what commit writes for its function's precommitted variant
 * (MV_FN_PRECOMMITTED), in place of the direct call (with
 * MV_SITE_PRECOMMITTED_JMP: the direct jump) to callee that the compiler
 * left, the shortest the architecture has, which revert writes back. */
#define MV_SITE_PRECOMMITTED     0x8u
#define MV_SITE_PRECOMMITTED_JMP 0x10u

static inline void *mv_desc_site_addr(const struct mv_desc_site *d)
{
	return MV_DESC_REF(void *, d, site, d->flags & MV_SITE_SITE_RELATIVE);
}

static inline void *mv_desc_site_callee(const struct mv_desc_site *d)
{
	return MV_DESC_REF(void *, d, callee, d->flags & MV_SITE_CALLEE_RELATIVE);
}

/*
 * Called by the module's constructor (above).  Returns 0, or a
 * negative errno value (a version or machine mismatch is -ENOEXEC and is
 * reported).  Idempotent for the same module bounds.
 */
int __multiverse_register_module(uint32_t version, uint32_t machine,
				 const struct mv_desc_var *var_start,
				 const struct mv_desc_var *var_stop,
				 const struct mv_desc_fn *fn_start,
				 const struct mv_desc_fn *fn_stop,
				 const struct mv_desc_site *site_start,
				 const struct mv_desc_site *site_stop);

/* Called by the module's destructor, while the
 * module is still mapped: restores everything outside the module that
 * reaches into it and forgets its records.  Idempotent. */
int __multiverse_unregister_module(uint32_t version, uint32_t machine,
				   const struct mv_desc_var *var_start,
				   const struct mv_desc_var *var_stop,
				   const struct mv_desc_fn *fn_start,
				   const struct mv_desc_fn *fn_stop,
				   const struct mv_desc_site *site_start,
				   const struct mv_desc_site *site_stop);

#endif
