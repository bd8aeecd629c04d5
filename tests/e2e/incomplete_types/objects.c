/* SPDX-License-Identifier: MIT */
/* The objects whose types main.c leaves incomplete. */
struct opaque { int a; } obj;
int table[4];

struct opaque *obj_address(void) { return &obj; }
