/* SPDX-License-Identifier: MIT */
/* one_registration's program under return thunks, which the module's
 * shared constructor does not suit (it returns by ret): GCC gives each
 * of the three units a constructor and destructor of its own, and the
 * runtime registers the module once, whichever comes first. */
// mvflags: -mfunction-return=thunk -DREGISTRATIONS=3
// not-with-clang: Clang's module constructor takes the unit's return thunks itself
#include "one_registration/main.c"
