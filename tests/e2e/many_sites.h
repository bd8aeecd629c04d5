/* SPDX-License-Identifier: MIT */
/* A statement repeated 1,024 times: enough call sites in one module for
 * the runtime to place them by callee (PLACE_MIN_SITES in
 * runtime/tables.c) rather than sort them. */
#ifndef MANY_SITES_H
#define MANY_SITES_H

#define REPEAT4(s) s s s s
#define REPEAT16(s) REPEAT4(REPEAT4(s))
#define REPEAT256(s) REPEAT16(REPEAT16(s))
#define REPEAT1024(s) REPEAT4(REPEAT256(s))

#endif
