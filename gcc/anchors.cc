/* SPDX-License-Identifier: MIT */
/*
 * Keeps multiverse switches out of section-anchor blocks.
 *
 * With section anchors (on by default at -O1 and above on AArch64, and on
 * PowerPC), GCC lays out a unit's static-storage variables as one block
 * per section and addresses them from the block's anchor.  A switch
 * shares its section with its neighbours, so its mere presence moves them
 * to other offsets from the anchor, and code that reaches them (in every
 * variant, too) can need one instruction more to form the address than
 * in an #ifdef build, which has no switch: `adrp; add; ldr [x, #8]`
 * instead of `adrp; ldr [x, #:lo12:var]`.  Committed code should run the
 * #ifdef build's instructions, so a switch is emitted on its own, as if
 * the unit were built with -fno-section-anchors, and its neighbours are
 * laid out as if it did not exist.  Nothing else about the switch
 * changes: same section, same symbol, same alignment.
 *
 * An object holding member switches (members.cc) stays in its block: the
 * #ifdef build has that object too.
 *
 * The hook is the target's use_blocks_for_decl_p, which GCC asks once per
 * variable when it creates the variable's RTL.
 */
#include "multiverse.h"

static bool (*target_use_blocks)(const_tree);

static bool use_blocks_unless_switch(const_tree decl)
{
	if (VAR_P(decl) && mv_has_attribute(decl))
		return false;
	return target_use_blocks(decl);
}

void mv_keep_switches_unanchored(void)
{
	target_use_blocks = targetm.use_blocks_for_decl_p;
	targetm.use_blocks_for_decl_p = use_blocks_unless_switch;
}
