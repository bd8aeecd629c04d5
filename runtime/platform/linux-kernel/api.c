/* SPDX-License-Identifier: MIT */
/*
 * The API of <linux/multiverse.h>, defined by the portable core, exported
 * to GPL modules.
 */
#include <linux/export.h>

#include "internal.h"

EXPORT_SYMBOL_GPL(multiverse_init);
EXPORT_SYMBOL_GPL(multiverse_commit);
EXPORT_SYMBOL_GPL(multiverse_revert);
EXPORT_SYMBOL_GPL(multiverse_commit_refs);
EXPORT_SYMBOL_GPL(multiverse_revert_refs);
EXPORT_SYMBOL_GPL(multiverse_commit_fn);
EXPORT_SYMBOL_GPL(multiverse_revert_fn);
EXPORT_SYMBOL_GPL(multiverse_is_committed);
EXPORT_SYMBOL_GPL(multiverse_bind);
EXPORT_SYMBOL_GPL(multiverse_info_fn);
EXPORT_SYMBOL_GPL(multiverse_info_var);
EXPORT_SYMBOL_GPL(multiverse_info_site);
EXPORT_SYMBOL_GPL(multiverse_last_error);
EXPORT_SYMBOL_GPL(multiverse_version);
