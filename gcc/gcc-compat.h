/* SPDX-License-Identifier: MIT */
/*
 * The GCC headers the plugin needs, in the order GCC requires, and the
 * shims for API differences between GCC versions.  Only GCC 12 is tested;
 * keep every version test in this file.
 */
#ifndef MULTIVERSE_GCC_COMPAT_H
#define MULTIVERSE_GCC_COMPAT_H

#include "gcc-plugin.h"
#include "bversion.h"
#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "cfg.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "gimple-ssa.h"
#include "gimple-pretty-print.h"
#include "ssa.h"
#include "tree-cfg.h"
#include "tree-ssa-operands.h"
#include "tree-dfa.h"
#include "tree-inline.h"
#include "cgraph.h"
#include "attribs.h"
#include "diagnostic.h"
#include "stringpool.h"
#include "stor-layout.h"
#include "fold-const.h"
#include "gimplify.h"
#include "rtl.h"
#include "memmodel.h"
#include "emit-rtl.h"
#include "insn-config.h"
#include "recog.h"
#include "insn-attr.h"
#include "insn-addr.h"
#include "rtl-iter.h"
#include "output.h"
#include "varasm.h"
#include "target.h"
#include "ggc.h"
#include "print-tree.h"
#include "langhooks.h"

#if BUILDING_GCC_MAJOR != 12
#warning "multiverse: only GCC 12 is tested; expect build or run-time differences"
#endif

#endif
