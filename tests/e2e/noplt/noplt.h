/* SPDX-License-Identifier: MIT */
#ifndef NOPLT_H
#define NOPLT_H
__attribute__((multiverse)) extern int scale;
__attribute__((multiverse)) int scaled(int x);
#endif
